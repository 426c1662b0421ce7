package main

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/forge"
	"github.com/como-technologies/riff/riffclient/top"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// topCommand is riff top, under Get started after riff who: the guide
// has it in "See what each session does", beside who. The table and its
// loop are riffclient/top; this file wires them to the flags, the
// server, gh and the terminal.
func topCommand() command {
	return command{
		name: "top", usage: "top [--once] [--user USER] [--host HOST] [--repo OWNER/REPO] [--by person|repo]",
		short: "show a live table of each person and each session",
		long: `Shows a live table of each person and each session, and draws it again
every 3 seconds and after each message of the thread. Ctrl-C stops it.
riff top only reads: it posts nothing and wakes no session.

The header shows the state of the riff, the owner and the build, as in
riff who. A red line shows each blocked session. A board follows for each
repository with a live session and for the repository where you run riff
top: its wave, then its free, held, claimed, verify and stuck items. The
items and the titles come from gh each minute; with no gh there are no
boards and no titles. Then the tree: person › host › repository ›
session, with one line for each fact of the state of a session.

No line is wider than the terminal, or 80 columns in a pipe; riff cuts a
longer line with …. When the server does not answer, the last table stays
under a red first line: riff: no good look since TIME: FAULT.

  --once              print one table and exit
  --user USER         only the sessions of that user
  --host HOST         only the sessions on that host
  --repo OWNER/REPO   only the sessions in that repository
  --by person|repo    the top of the tree: person (the default) or repo
`,
		flags: func(fs *flag.FlagSet) action {
			var o topFlags
			fs.BoolVar(&o.once, "once", false, "print one table and exit")
			fs.StringVar(&o.user, "user", "", "only the sessions of that user")
			fs.StringVar(&o.host, "host", "", "only the sessions on that host")
			fs.StringVar(&o.repo, "repo", "", "only the sessions in that repository (OWNER/REPO)")
			fs.StringVar(&o.by, "by", "person", "the top of the tree: person or repo")
			return func(c *cli, ctx context.Context, args []string) error { return c.top(ctx, args, o) }
		},
		interspersed: true,
	}
}

type topFlags struct {
	once             bool
	user, host, repo string
	by               string
}

func (c *cli) top(ctx context.Context, args []string, f topFlags) error {
	if err := noArgs(args, "top"); err != nil {
		return err
	}
	by, err := top.ParseBy(f.by)
	if err != nil {
		return usagef("%s", err.Error())
	}
	filter := top.Filter{User: f.user, Host: f.host}
	if f.repo != "" {
		repo, err := name.ParseRepo(f.repo)
		if err != nil || !repo.InGit() {
			return usagef("--repo takes OWNER/REPO, not %q", f.repo)
		}
		filter.Repo = repo
	}
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	tty, _ := c.terminal(c.stdout)
	live := tty && !f.once
	screen := top.NewScreen(c.stdout, live, func() int { return terminalHeight(c.stdout) })
	defer screen.Close()
	if live {
		// The wait line of the client would break the table: the red line
		// of the fault says it.
		c.quietNotes = true
	}
	o := top.Options{
		Look: func(ctx context.Context) (wire.TopReply, error) {
			return riffclient.Send(ctx, c.client, wire.Top{Me: me})
		},
		Draw: screen.Draw,
		Width: func() int {
			if ok, w := c.terminal(c.stdout); ok && w > 0 {
				return w
			}
			return top.PipeWidth
		},
		Paint:  c.paint,
		Now:    func() time.Time { return c.now().In(c.loc) },
		Mine:   c.build,
		Filter: filter,
		By:     by,
		Once:   f.once,
	}
	if gh, ok := forge.Find(c.env("PATH")); ok {
		o.Forge = forge.Reader{GH: gh}.Read
	}
	if f.once {
		return top.Run(ctx, o)
	}

	every := top.Every
	if c.topEvery > 0 {
		every = c.topEvery
	}
	ticks := time.NewTicker(every)
	defer ticks.Stop()
	ghTicks := time.NewTicker(top.ForgeEvery)
	defer ghTicks.Stop()
	o.Ticks, o.ForgeTicks = ticks.C, ghTicks.C

	resized := make(chan os.Signal, 1)
	if sigs := resizeSignals(); len(sigs) > 0 {
		signal.Notify(resized, sigs...)
		defer signal.Stop(resized)
	}
	resizes := make(chan struct{}, 1)
	o.Resized = resizes

	// A tail of the thread brings a new look after each message. It
	// ends with the table.
	messages := make(chan struct{}, 1)
	o.Messages = messages
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-resized:
				select {
				case resizes <- struct{}{}:
				default:
				}
			}
		}
	})
	thread := string(name.Chat)
	if t, ok := me.DefaultThread(); ok {
		thread = string(t)
	}
	wg.Go(func() {
		_ = c.client.Tail(ctx, wire.Tail{Me: me, Thread: thread}, func(e riffclient.Event) error {
			if e.Type == wire.EventMessage {
				select {
				case messages <- struct{}{}:
				default:
				}
			}
			return nil
		})
	})
	err = top.Run(ctx, o)
	// The error shows on the screen of before.
	screen.Close()
	return err
}

// terminalHeight gives the height of the terminal of w, 0 when w is no
// terminal.
func terminalHeight(w any) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	_, h, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return h
}
