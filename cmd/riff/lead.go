package main

import (
	"context"
	"flag"
	"os"
	"strings"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/quote"
	"github.com/como-technologies/riff/riffcore/wire"
)

// leadCommands are the commands under Lead in riff --help, in order.
func leadCommands() []command {
	return []command{
		{
			name: "lead", usage: "lead --session ID | lead notes [edit [--file F]] [--history]", short: "name the lead, or show and edit its notes",
			long: `riff lead --session ID names a session the lead of your user in this
repository. Run it in a terminal, not in an agent session.

riff lead notes               shows the notes of the lead
riff lead notes --history     also each old text
riff lead notes edit          opens $VISUAL, $EDITOR or vi on the notes
riff lead notes edit --file F takes the text from a file
Add --thread OWNER/REPO for another repository.
`,
			flags: func(fs *flag.FlagSet) action {
				session := fs.String("session", "", "the session ID (or its start, from 4 characters) of the new lead")
				return func(c *cli, ctx context.Context, args []string) error { return c.lead(ctx, args, *session) }
			},
			interspersed: true,
			subcommands: []command{{
				name: "notes", flags: notesFlags(false), interspersed: true,
				subcommands: []command{{name: "edit", flags: notesFlags(true), interspersed: true, flagSet: "lead notes"}},
			}},
		},
		{
			name: "plan", usage: "plan hold ITEM REASON | plan free ITEM", short: "hold an item from the workers, or free it",
			long: `riff plan hold ITEM REASON keeps an item from the workers (a reason of 1 to
200 characters). riff plan free ITEM ends the hold. -t names another
repository thread.
`,
			subcommands: []command{
				{name: "hold", usage: "hold ITEM REASON", flags: func(fs *flag.FlagSet) action {
					thread := threadFlag(fs)
					return func(c *cli, ctx context.Context, words []string) error { return c.hold(ctx, words, *thread) }
				}},
				{name: "free", usage: "free ITEM", interspersed: true, flags: func(fs *flag.FlagSet) action {
					thread := threadFlag(fs)
					return func(c *cli, ctx context.Context, args []string) error { return c.free(ctx, args, *thread) }
				}},
			},
		},
		{
			name: "pause", usage: "pause [--riff | --repo OWNER/REPO]", short: "pause your repository or the riff",
			long: `Pauses your repository. While it is paused, each claim there fails.

  --riff          the whole riff (the owner or an admin)
  --repo OWNER/REPO  a repository of another person (the owner or an admin)
`,
			flags: pauseFlags(true), interspersed: true,
		},
		{
			name: "resume", usage: "resume [--riff | --repo OWNER/REPO]", short: "resume your repository or the riff",
			long: `Resumes your repository.

  --riff          the whole riff (the owner or an admin)
  --repo OWNER/REPO  a repository of another person
`,
			flags: pauseFlags(false), interspersed: true,
		},
	}
}

func (c *cli) lead(ctx context.Context, args []string, session string) error {
	if len(args) > 0 {
		return usagef("riff lead knows --session ID and notes, not %s", quote.Input(args[0]))
	}
	if session == "" {
		return usagef("riff lead needs --session ID: the session to name the lead")
	}
	// The caller is the person; with RIFF_SESSION it is a session, and
	// the server refuses it.
	return sendText(ctx, c, func(me name.SessionURI) wire.Call[wire.LeadReply] { return wire.Lead{Me: me, Session: session} },
		func(r wire.LeadReply) string { return r.Text })
}

// notesFlags are the flags of riff lead notes, and of riff lead notes
// edit with edit.
func notesFlags(edit bool) func(fs *flag.FlagSet) action {
	return func(fs *flag.FlagSet) action {
		thread := threadFlag(fs)
		history := fs.Bool("history", false, "show each old text")
		user := fs.String("user", "", "the user whose notes the owner reads")
		file := fs.String("file", "", "edit: take the text from a file")
		return func(c *cli, ctx context.Context, args []string) error {
			if err := noArgs(args, "lead notes"); err != nil {
				return err
			}
			if edit {
				return c.editNotes(ctx, *thread, *file)
			}
			return c.notes(ctx, *thread, *user, *history)
		}
	}
}

func (c *cli) notes(ctx context.Context, thread, user string, history bool) error {
	return c.caller().Notes(ctx, thread, user, history)
}

func (c *cli) editNotes(ctx context.Context, thread, file string) error {
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	var text string
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return knownf("riff cannot read the file %s", file)
		}
		text = string(b)
	} else {
		old, err := riffclient.Send(ctx, c.client, wire.Notes{Me: me, Thread: thread})
		if err != nil {
			return err
		}
		text, err = c.editText(ctx, old.Text)
		if err != nil {
			return err
		}
	}
	return c.caller().SetNotes(ctx, thread, text)
}

func (c *cli) hold(ctx context.Context, words []string, thread string) error {
	if len(words) < 2 {
		return usagef("riff plan hold needs ITEM and a REASON")
	}
	return c.caller().Hold(ctx, thread, words[0], strings.Join(words[1:], " "))
}

func (c *cli) free(ctx context.Context, args []string, thread string) error {
	item, err := oneItem(args, "plan free")
	if err != nil {
		return err
	}
	return c.caller().Free(ctx, thread, item)
}

// pauseFlags are the flags of riff pause, and of riff resume with no
// pause.
func pauseFlags(pause bool) func(fs *flag.FlagSet) action {
	return func(fs *flag.FlagSet) action {
		riff := fs.Bool("riff", false, "the whole riff")
		repo := fs.String("repo", "", "a repository OWNER/REPO")
		return func(c *cli, ctx context.Context, args []string) error { return c.pause(ctx, args, pause, *riff, *repo) }
	}
}

func (c *cli) pause(ctx context.Context, args []string, pause, riff bool, repo string) error {
	cmd := "resume"
	if pause {
		cmd = "pause"
	}
	if err := noArgs(args, cmd); err != nil {
		return err
	}
	return c.caller().Pause(ctx, pause, riff, repo)
}
