// Package commands holds what each command of riff that makes one call
// does, for each client of a riff: it checks its input in the words of
// the command, sends the call with riffclient, and prints the reply with
// riffclient/render. The command line (cmd/riff) parses its argv into
// these inputs; the tools of an agent session (riffclient/mcptools)
// take them from MCP; both give the same texts.
//
// It decides no rule of the riff: a check here is of the form of an
// input (an item, a kind, a selector), and the server decides the rest.
package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/render"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/quote"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/wire"
)

// InputError is a bad input of a command: its text names what was wrong,
// and no call went out. riff shows it as a bad command line.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// Inputf gives an InputError.
func Inputf(format string, args ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, args...)}
}

// Caller makes the calls of the commands for one caller.
type Caller struct {
	Client *riffclient.Client
	// Me names the caller: the session, else the person, at its place.
	Me func(ctx context.Context) (name.SessionURI, error)
	// Out prints the replies.
	Out *render.Printer
	// Earlier gives the line of the earlier work on an item that the
	// caller claimed (riffclient/earlier: its pushed branches and its
	// worktrees), "" for none; nil shows none. It never fails the claim.
	Earlier func(ctx context.Context, item name.Item) string
	// EarlierOfClone gives a line for each item of the clone of the
	// caller with earlier work, but the items of skip, at most 8
	// (riffclient/earlier.List): whoami of a session shows them, so that
	// a new session sees them before it picks an item. Nil shows none.
	EarlierOfClone func(ctx context.Context, skip func(name.Item) bool) []string
}

// Send sends the call that newCall makes for the caller.
func Send[R any](ctx context.Context, c Caller, newCall func(me name.SessionURI) wire.Call[R]) (R, error) {
	me, err := c.Me(ctx)
	if err != nil {
		var none R
		return none, err
	}
	return riffclient.Send(ctx, c.Client, newCall(me))
}

// Reply sends the call that newCall makes, and prints the text of its
// reply.
func Reply[R any](ctx context.Context, c Caller, newCall func(me name.SessionURI) wire.Call[R], text func(R) string) error {
	r, err := Send(ctx, c, newCall)
	if err != nil {
		return err
	}
	c.Out.Reply(text(r))
	return nil
}

// TextOf is the text of a reply that is only a text.
func TextOf(r wire.TextReply) string { return r.Text }

// item reads the item of the command cmd.
func item(s, cmd string) (name.Item, error) {
	it, err := name.ParseItem(s)
	if err != nil {
		return "", Inputf("riff %s: %s", cmd, err)
	}
	return it, nil
}

// Whoami shows the caller, the state of the riff and the builds.
func (c Caller) Whoami(ctx context.Context) error {
	me, err := c.Me(ctx)
	if err != nil {
		return err
	}
	r, err := riffclient.Send(ctx, c.Client, wire.Whoami{Me: me})
	if err != nil {
		return err
	}
	render.Whoami(c.Out, me, r, c.Client.Build())
	if c.EarlierOfClone != nil && !me.IsPerson() {
		c.earlierOfClone(ctx, me)
	}
	return nil
}

// earlierOfClone shows the earlier work of the clone that no live
// session owns (the guide, "See the earlier work on an item"): a live
// session owns the items that it claims and the worktree where it works,
// in its repository. It asks who only when the clone has earlier work;
// when who fails it shows nothing, since it cannot tell what is free.
func (c Caller) earlierOfClone(ctx context.Context, me name.SessionURI) {
	var owned map[name.Item]bool
	failed := false
	skip := func(it name.Item) bool {
		if owned == nil && !failed {
			r, err := riffclient.Send(ctx, c.Client, wire.Who{Me: me})
			if err != nil {
				failed = true
			} else {
				owned = ownedItems(r, me.Repo)
			}
		}
		return failed || owned[it]
	}
	lines := c.EarlierOfClone(ctx, skip)
	if len(lines) == 0 {
		return
	}
	c.Out.Text("Earlier work in this clone that no live session owns: claim the item to go on from it (\"Pick up dropped work\" in the instructions of the riff tools).")
	for _, line := range lines {
		c.Out.Text("  " + line)
	}
}

// ownedItems gives the items that the live sessions of repo own: their
// claims and the worktrees where they work.
func ownedItems(r wire.WhoReply, repo name.Repo) map[name.Item]bool {
	owned := map[name.Item]bool{}
	for _, row := range r.Rows {
		if row.Gone || row.URI.Repo != repo {
			continue
		}
		for _, it := range row.URI.Claims {
			owned[it] = true
		}
		if row.URI.Worktree != "" {
			owned[name.Item(row.URI.Worktree)] = true
		}
	}
	return owned
}

// Who lists the sessions of the riff; all also the gone ones, long with
// the full URI of each.
func (c Caller) Who(ctx context.Context, long, all bool) error {
	r, err := Send(ctx, c, func(me name.SessionURI) wire.Call[wire.WhoReply] { return wire.Who{Me: me, All: all} })
	if err != nil {
		return err
	}
	render.Who(c.Out, r, long, c.Client.Build())
	return nil
}

// Threads lists the threads of the caller.
func (c Caller) Threads(ctx context.Context) error {
	r, err := Send(ctx, c, func(me name.SessionURI) wire.Call[wire.ThreadsReply] { return wire.Threads{Me: me} })
	if err != nil {
		return err
	}
	render.Threads(c.Out, r)
	return nil
}

// Read shows the unread messages of the caller (of thread, when set;
// each kept one with all). With onePage it reads one page of each
// thread, after the message after, and a page that more messages follow
// says how to read on (the read tool); else it reads each next page
// (riff read).
func (c Caller) Read(ctx context.Context, thread string, all bool, after uint64, onePage bool) error {
	me, err := c.Me(ctx)
	if err != nil {
		return err
	}
	read := wire.Read{Me: me, Thread: thread, All: all, After: after}
	var r wire.ReadReply
	if onePage {
		r, err = riffclient.Send(ctx, c.Client, read)
	} else {
		r, err = riffclient.ReadAll(ctx, c.Client, read)
	}
	if err != nil {
		return err
	}
	render.Read(c.Out, r, c.Client.Check, onePage)
	return nil
}

// Post posts text to thread (none: the thread of the repository of the
// caller), to the selectors of to, as a kind of message (message, note
// or status), through the one path of a post (riffclient.Post signs it
// in a riff with sign-in).
func (c Caller) Post(ctx context.Context, thread string, to []string, kind, text string) error {
	k, err := record.ParseMessageKind(kind)
	if err != nil {
		return Inputf("riff post: --kind is message, note or status, not %s", quote.Input(kind))
	}
	sels, err := selector.ParseList(to)
	if err != nil {
		return Inputf("riff post: --to: %s", strings.TrimPrefix(err.Error(), "selector: "))
	}
	if text == "" && k != record.MessageStatus {
		return Inputf("riff post needs a TEXT")
	}
	return c.post(ctx, func(me name.SessionURI) wire.Post {
		return wire.Post{Me: me, Thread: thread, To: sels, Kind: k, Body: text}
	})
}

// Tell sends a direct message to the session to (its ID or its start,
// or lead).
func (c Caller) Tell(ctx context.Context, to, text string) error {
	return c.post(ctx, func(me name.SessionURI) wire.Post { return wire.Post{Me: me, Tell: to, Body: text} })
}

// post sends the post that newPost makes for the caller, and prints its
// reply.
func (c Caller) post(ctx context.Context, newPost func(me name.SessionURI) wire.Post) error {
	me, err := c.Me(ctx)
	if err != nil {
		return err
	}
	r, err := riffclient.Post(ctx, c.Client, newPost(me))
	if err != nil {
		return err
	}
	render.Posted(c.Out, r)
	return nil
}

// Status sets the status of the caller.
func (c Caller) Status(ctx context.Context, text string) error {
	if text == "" {
		return Inputf("riff status needs a TEXT")
	}
	return Reply(ctx, c, func(me name.SessionURI) wire.Call[wire.TextReply] { return wire.Status{Me: me, Text: text} }, TextOf)
}

// Blocked says that the caller cannot go on with no decision of a
// person; riffclient.Blocked signs the message to the lead in a riff
// with sign-in.
func (c Caller) Blocked(ctx context.Context, reason string) error {
	if reason == "" {
		return Inputf("riff blocked needs a TEXT")
	}
	me, err := c.Me(ctx)
	if err != nil {
		return err
	}
	r, err := riffclient.Blocked(ctx, c.Client, wire.Blocked{Me: me, Reason: reason})
	if err != nil {
		return err
	}
	c.Out.Reply(r.Text)
	return nil
}

// Claim claims the work item in thread (none: the thread of the
// repository of the caller), then shows the earlier work on it (the
// guide, "See the earlier work on an item").
func (c Caller) Claim(ctx context.Context, thread, workItem string) error {
	it, err := item(workItem, "claim")
	if err != nil {
		return err
	}
	r, err := Send(ctx, c, func(me name.SessionURI) wire.Call[wire.ClaimReply] {
		return wire.Claim{Me: me, Thread: thread, Item: it}
	})
	if err != nil {
		return err
	}
	render.Claimed(c.Out, r)
	if c.Earlier != nil {
		if line := c.Earlier(ctx, it); line != "" {
			c.Out.Text(line)
		}
	}
	return nil
}

// Release releases a claim of the caller; with session, the lead frees
// the claim of that session of its user.
func (c Caller) Release(ctx context.Context, thread, workItem, session string) error {
	it, err := item(workItem, "release")
	if err != nil {
		return err
	}
	if session != "" {
		return Reply(ctx, c, func(me name.SessionURI) wire.Call[wire.ReleaseForReply] {
			return wire.ReleaseFor{Me: me, Thread: thread, Item: it, Session: session}
		}, func(r wire.ReleaseForReply) string { return r.Text })
	}
	return Reply(ctx, c, func(me name.SessionURI) wire.Call[wire.ReleaseReply] {
		return wire.Release{Me: me, Thread: thread, Item: it}
	}, func(r wire.ReleaseReply) string { return r.Text })
}

// Hold keeps a work item from the workers, with a reason (a lead).
func (c Caller) Hold(ctx context.Context, thread, workItem, reason string) error {
	it, err := item(workItem, "plan hold")
	if err != nil {
		return err
	}
	return Reply(ctx, c, func(me name.SessionURI) wire.Call[wire.TextReply] {
		return wire.Hold{Me: me, Thread: thread, Item: it, Reason: reason}
	}, TextOf)
}

// Free ends the hold of a work item (a lead).
func (c Caller) Free(ctx context.Context, thread, workItem string) error {
	it, err := item(workItem, "plan free")
	if err != nil {
		return err
	}
	return Reply(ctx, c, func(me name.SessionURI) wire.Call[wire.TextReply] {
		return wire.Free{Me: me, Thread: thread, Item: it}
	}, TextOf)
}

// Pause pauses (with pause, else resumes) the repository of the caller,
// the whole riff, or the repository repo.
func (c Caller) Pause(ctx context.Context, pause, riff bool, repo string) error {
	cmd := "resume"
	if pause {
		cmd = "pause"
	}
	if riff && repo != "" {
		return Inputf("riff %s takes --riff or --repo, not both", cmd)
	}
	var r name.Repo
	if repo != "" {
		var err error
		if r, err = name.ParseRepo(repo); err != nil || !r.InGit() {
			return Inputf("riff %s: --repo is OWNER/REPO, not %s", cmd, quote.Input(repo))
		}
	}
	return Reply(ctx, c, func(me name.SessionURI) wire.Call[wire.PauseReply] {
		if pause {
			return wire.Pause{Me: me, Riff: riff, Repository: r}
		}
		return wire.Resume{Me: me, Riff: riff, Repository: r}
	}, func(r wire.PauseReply) string { return r.Text })
}

// Notes shows the notes of the lead in thread (none: the repository of
// the caller), of user for the owner; with history each old text too.
func (c Caller) Notes(ctx context.Context, thread, user string, history bool) error {
	r, err := Send(ctx, c, func(me name.SessionURI) wire.Call[wire.NotesReply] {
		return wire.Notes{Me: me, Thread: thread, User: user, History: history}
	})
	if err != nil {
		return err
	}
	render.Notes(c.Out, r, history)
	return nil
}

// SetNotes writes text as the notes of the lead in thread.
func (c Caller) SetNotes(ctx context.Context, thread, text string) error {
	return Reply(ctx, c, func(me name.SessionURI) wire.Call[wire.TextReply] {
		return wire.SetNotes{Me: me, Thread: thread, Text: text}
	}, TextOf)
}
