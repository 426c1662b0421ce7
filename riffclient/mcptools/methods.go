package mcptools

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/render"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The inputs of the tools. A field with omitempty is optional; the
// jsonschema text is what the agent reads of it.
type (
	// NoInput is the input of a tool that takes none.
	NoInput  struct{}
	WhoInput struct {
		Long bool `json:"long,omitempty" jsonschema:"show the long form: each fact of each session"`
		All  bool `json:"all,omitempty" jsonschema:"show each session of the riff, also of other users"`
	}
	ReadInput struct {
		Thread string `json:"thread,omitempty" jsonschema:"one thread: OWNER/REPO, chat, or dm:PEER; none reads each of your threads, the direct threads first"`
		All    bool   `json:"all,omitempty" jsonschema:"each kept message, also the read ones and your own posts"`
		After  uint64 `json:"after,omitempty" jsonschema:"with all: the number of the last message that you read; the page starts after it"`
	}
	PostInput struct {
		Text   string   `json:"text,omitempty" jsonschema:"the text of the post; a status request needs none"`
		To     []string `json:"to,omitempty" jsonschema:"selectors FIELD=VALUE,... (user, session, host, repo, worktree, claim, lead, person); a session wakes when it matches each field of one"`
		Kind   string   `json:"kind,omitempty" jsonschema:"message (the default: wakes each selected session), note (wakes nobody) or status (asks each selected session for its status)"`
		Thread string   `json:"thread,omitempty" jsonschema:"the thread; none is the thread of your repository"`
	}
	TellInput struct {
		To   string `json:"to" jsonschema:"the session ID, or its start from 4 characters, or lead: your lead in this repository"`
		Text string `json:"text" jsonschema:"the direct message"`
	}
	TextInput struct {
		Text string `json:"text" jsonschema:"one line of at most 400 characters"`
	}
	BlockedInput struct {
		Reason string `json:"reason" jsonschema:"the decision that you need from a person: one line of at most 400 characters"`
	}
	ItemInput struct {
		Item   string `json:"item" jsonschema:"the work item, for example issue-12"`
		Thread string `json:"thread,omitempty" jsonschema:"the repository thread OWNER/REPO; none is the thread of your repository"`
	}
	HoldInput struct {
		Item   string `json:"item" jsonschema:"the work item, for example issue-12"`
		Reason string `json:"reason" jsonschema:"why the workers must not take it: 1 to 200 characters"`
		Thread string `json:"thread,omitempty" jsonschema:"the repository thread OWNER/REPO; none is the thread of your repository"`
	}
	PauseInput struct {
		Riff bool   `json:"riff,omitempty" jsonschema:"the whole riff (the owner or an admin)"`
		Repo string `json:"repo,omitempty" jsonschema:"a repository OWNER/REPO of another person (the owner or an admin); none is your repository"`
	}
	NotesInput struct {
		Text    *string `json:"text,omitempty" jsonschema:"the new text of the notes: it replaces the whole text; none only reads them"`
		Thread  string  `json:"thread,omitempty" jsonschema:"the repository thread OWNER/REPO; none is your repository"`
		History bool    `json:"history,omitempty" jsonschema:"also show each old text"`
	}
	MoveInput struct {
		Worktree string `json:"worktree" jsonschema:"the directory of your new place: a worktree or a clone, absolute or from your place now"`
	}
)

// Whoami shows the session, its URI, the state of the riff and the build.
func (t *Tools) Whoami(ctx context.Context, _ *mcp.CallToolRequest, _ NoInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, p *render.Printer) error {
		me, err := t.Me(ctx)
		if err != nil {
			return err
		}
		r, err := riffclient.Send(ctx, t.o.Client, wire.Whoami{Me: me})
		if err != nil {
			return err
		}
		render.Whoami(p, me, r, t.o.Client.Build())
		return nil
	})
}

// Who lists the sessions of the riff.
func (t *Tools) Who(ctx context.Context, _ *mcp.CallToolRequest, in WhoInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, p *render.Printer) error {
		r, err := send(ctx, t, func(me name.SessionURI) wire.Call[wire.WhoReply] { return wire.Who{Me: me, All: in.All} })
		if err != nil {
			return err
		}
		render.Who(p, r, in.Long, t.o.Client.Build())
		return nil
	})
}

// Threads lists the threads of the session.
func (t *Tools) Threads(ctx context.Context, _ *mcp.CallToolRequest, _ NoInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, p *render.Printer) error {
		r, err := send(ctx, t, func(me name.SessionURI) wire.Call[wire.ThreadsReply] { return wire.Threads{Me: me} })
		if err != nil {
			return err
		}
		render.Threads(p, r)
		return nil
	})
}

// Read reads one page of each thread (of in.Thread, when set), after
// in.After with in.All. A page with more messages after it ends with the
// line that says how to read on.
func (t *Tools) Read(ctx context.Context, _ *mcp.CallToolRequest, in ReadInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, p *render.Printer) error {
		r, err := send(ctx, t, func(me name.SessionURI) wire.Call[wire.ReadReply] {
			return wire.Read{Me: me, Thread: in.Thread, All: in.All, After: in.After}
		})
		if err != nil {
			return err
		}
		render.Read(p, r, t.o.Client.Check, true)
		return nil
	})
}

// Post posts to a thread, through the one path of a post
// (riffclient.Post signs it in a riff with sign-in).
func (t *Tools) Post(ctx context.Context, _ *mcp.CallToolRequest, in PostInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, p *render.Printer) error {
		kind := in.Kind
		if kind == "" {
			kind = string(record.MessagePlain)
		}
		k, err := record.ParseMessageKind(kind)
		if err != nil {
			return inputf("riff post: --kind is message, note or status, not %q", kind)
		}
		sels, err := selector.ParseList(in.To)
		if err != nil {
			return inputf("riff post: --to: %s", strings.TrimPrefix(err.Error(), "selector: "))
		}
		if in.Text == "" && k != record.MessageStatus {
			return inputf("riff post needs a TEXT")
		}
		return t.post(ctx, p, func(me name.SessionURI) wire.Post {
			return wire.Post{Me: me, Thread: in.Thread, To: sels, Kind: k, Body: in.Text}
		})
	})
}

// Tell sends a direct message to one session, or to the lead.
func (t *Tools) Tell(ctx context.Context, _ *mcp.CallToolRequest, in TellInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, p *render.Printer) error {
		return t.post(ctx, p, func(me name.SessionURI) wire.Post { return wire.Post{Me: me, Tell: in.To, Body: in.Text} })
	})
}

// post sends the post that newPost makes for the session, and prints its
// reply.
func (t *Tools) post(ctx context.Context, p *render.Printer, newPost func(me name.SessionURI) wire.Post) error {
	me, err := t.Me(ctx)
	if err != nil {
		return err
	}
	r, err := riffclient.Post(ctx, t.o.Client, newPost(me))
	if err != nil {
		return err
	}
	render.Posted(p, r)
	return nil
}

// Status sets the status of the session.
func (t *Tools) Status(ctx context.Context, _ *mcp.CallToolRequest, in TextInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, p *render.Printer) error {
		if in.Text == "" {
			return inputf("riff status needs a TEXT")
		}
		return reply(ctx, t, p, func(me name.SessionURI) wire.Call[wire.TextReply] { return wire.Status{Me: me, Text: in.Text} }, textOf)
	})
}

// Blocked says that the session cannot go on with no decision of a
// person; riffclient.Blocked signs the message to the lead in a riff
// with sign-in.
func (t *Tools) Blocked(ctx context.Context, _ *mcp.CallToolRequest, in BlockedInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, p *render.Printer) error {
		if in.Reason == "" {
			return inputf("riff blocked needs a TEXT")
		}
		me, err := t.Me(ctx)
		if err != nil {
			return err
		}
		r, err := riffclient.Blocked(ctx, t.o.Client, wire.Blocked{Me: me, Reason: in.Reason})
		if err != nil {
			return err
		}
		p.Reply(r.Text)
		return nil
	})
}

// Claim claims a work item.
func (t *Tools) Claim(ctx context.Context, _ *mcp.CallToolRequest, in ItemInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, p *render.Printer) error {
		it, err := item(in.Item, "claim")
		if err != nil {
			return err
		}
		r, err := send(ctx, t, func(me name.SessionURI) wire.Call[wire.ClaimReply] {
			return wire.Claim{Me: me, Thread: in.Thread, Item: it}
		})
		if err != nil {
			return err
		}
		render.Claimed(p, r)
		return nil
	})
}

// Release releases a claim of the session.
func (t *Tools) Release(ctx context.Context, _ *mcp.CallToolRequest, in ItemInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, p *render.Printer) error {
		it, err := item(in.Item, "release")
		if err != nil {
			return err
		}
		return reply(ctx, t, p, func(me name.SessionURI) wire.Call[wire.ReleaseReply] {
			return wire.Release{Me: me, Thread: in.Thread, Item: it}
		}, func(r wire.ReleaseReply) string { return r.Text })
	})
}

// Hold keeps a work item from the workers, with a reason (a lead).
func (t *Tools) Hold(ctx context.Context, _ *mcp.CallToolRequest, in HoldInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, p *render.Printer) error {
		it, err := item(in.Item, "plan hold")
		if err != nil {
			return err
		}
		return reply(ctx, t, p, func(me name.SessionURI) wire.Call[wire.TextReply] {
			return wire.Hold{Me: me, Thread: in.Thread, Item: it, Reason: in.Reason}
		}, textOf)
	})
}

// Free ends the hold of a work item (a lead).
func (t *Tools) Free(ctx context.Context, _ *mcp.CallToolRequest, in ItemInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, p *render.Printer) error {
		it, err := item(in.Item, "plan free")
		if err != nil {
			return err
		}
		return reply(ctx, t, p, func(me name.SessionURI) wire.Call[wire.TextReply] {
			return wire.Free{Me: me, Thread: in.Thread, Item: it}
		}, textOf)
	})
}

// Pause pauses the repository of the session, the riff, or another
// repository.
func (t *Tools) Pause(ctx context.Context, _ *mcp.CallToolRequest, in PauseInput) (*mcp.CallToolResult, any, error) {
	return t.pause(ctx, in, true)
}

// Resume resumes what Pause paused.
func (t *Tools) Resume(ctx context.Context, _ *mcp.CallToolRequest, in PauseInput) (*mcp.CallToolResult, any, error) {
	return t.pause(ctx, in, false)
}

func (t *Tools) pause(ctx context.Context, in PauseInput, pause bool) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, p *render.Printer) error {
		cmd := "resume"
		if pause {
			cmd = "pause"
		}
		if in.Riff && in.Repo != "" {
			return inputf("riff %s takes --riff or --repo, not both", cmd)
		}
		var repo name.Repo
		if in.Repo != "" {
			var err error
			if repo, err = name.ParseRepo(in.Repo); err != nil || !repo.InGit() {
				return inputf("riff %s: --repo is OWNER/REPO, not %q", cmd, in.Repo)
			}
		}
		return reply(ctx, t, p, func(me name.SessionURI) wire.Call[wire.PauseReply] {
			if pause {
				return wire.Pause{Me: me, Riff: in.Riff, Repository: repo}
			}
			return wire.Resume{Me: me, Riff: in.Riff, Repository: repo}
		}, func(r wire.PauseReply) string { return r.Text })
	})
}

// Notes reads the notes of the lead, or with a text writes them.
func (t *Tools) Notes(ctx context.Context, _ *mcp.CallToolRequest, in NotesInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, p *render.Printer) error {
		if in.Text != nil {
			return reply(ctx, t, p, func(me name.SessionURI) wire.Call[wire.TextReply] {
				return wire.SetNotes{Me: me, Thread: in.Thread, Text: *in.Text}
			}, textOf)
		}
		r, err := send(ctx, t, func(me name.SessionURI) wire.Call[wire.NotesReply] {
			return wire.Notes{Me: me, Thread: in.Thread, History: in.History}
		})
		if err != nil {
			return err
		}
		render.Notes(p, r, in.History)
		return nil
	})
}

// Move tells the riff the new place of the session; the later tools act
// from there.
func (t *Tools) Move(ctx context.Context, _ *mcp.CallToolRequest, in MoveInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, p *render.Printer) error { return t.move(ctx, p, in.Worktree) })
}
