package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/local"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// relayWatch is riff relay watch: the watch that the Monitor of the lead
// runs (the guide, "Wake the lead in a container with no restart").
func relayWatch() command {
	return command{
		name: "watch", usage: "watch [--follow]",
		long: `Writes one line for each message that wakes the session, and nothing else
on stdout; the agent tool (the Monitor of Claude Code) wakes the session
at each line. With --follow it runs until it is stopped; else it ends
after the first line. It sends a keep-alive each minute with the newest
fact of the session. One message gives one line, also over a reconnect,
a restart of the server and a new watch.
  --follow   run until stopped
`,
		flags: func(fs *flag.FlagSet) action {
			follow := fs.Bool("follow", false, "run until stopped")
			return func(c *cli, ctx context.Context, args []string) error {
				if err := noArgs(args, "relay watch"); err != nil {
					return err
				}
				return c.relayWatch(ctx, *follow)
			}
		},
	}
}

// envWatchMarks names the test hook of riff relay watch: while it is
// set, the watch writes (open), (reconnecting…) and (back) on stderr, so
// that a test knows when its stream is open. A person never sets it.
const envWatchMarks = "RIFF_TEST_WATCH_MARKS"

// envWatchGate names the test hook of riff relay watch: a file. After a
// break the watch connects again only once the file exists, so that a
// test posts while the watch is away. A person never sets it.
const envWatchGate = "RIFF_TEST_WATCH_GATE"

// errFirstLine ends a watch with no --follow after its first line.
var errFirstLine = errors.New("the first line is written")

func (c *cli) relayWatch(ctx context.Context, follow bool) error {
	if c.g.session == "" {
		// A Monitor gets no hook input: the session is the one of the
		// Claude Code that runs the watch. --session and RIFF_SESSION win.
		if id, ok := local.AgentSession(c.env, os.Getpid(), local.ParentPID); ok {
			c.g.session = id
		}
	}
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	if me.Session == "" {
		return knownf("riff relay watch watches a session: run it in the agent tool of the session (Claude Code), or set RIFF_SESSION or --session to its session ID")
	}
	dir, err := local.Dir(c.env)
	if err != nil {
		return knownf("%s", err)
	}
	woke, err := local.ReadWoke(dir, me.Session)
	if err != nil {
		// The record of the printed wakes is lost: a wake may come again,
		// which is better than none.
		fmt.Fprintln(c.stderr, c.paintErr(yellow, "riff: "+err.Error()))
		woke = local.Woke{}
	}
	every, err := keepAliveInterval(c.env, keepAliveEvery)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	wg.Go(func() {
		keepAlive(ctx, c.client, me, dir, every, func(r wire.AliveReply) {
			_ = local.SetClear(dir, me.Session, r.Clear)
		})
	})
	marks := c.env(envWatchMarks) != ""
	mark := func(text string) {
		if marks {
			fmt.Fprintln(c.stderr, text)
		}
	}
	err = c.client.Watch(ctx, wire.Watch{Me: me}, func(e riffclient.Event) error {
		switch e.Type {
		case riffclient.EventOpen:
			mark("(open)")
		case riffclient.EventBack:
			mark("(back)")
		case riffclient.EventDown:
			var m *riffclient.MismatchError
			if errors.As(e.Err, &m) {
				// The client tells a mismatch once, then tries again each 5 s.
				fmt.Fprintln(c.stderr, c.paintErr(red, clean(m.Text)))
				return nil
			}
			if text, ok := c.lostSignIn(e.Err); ok {
				// A lost sign-in too: once, then each 5 s, reading the
				// sign-in of the machine again (a riff login lets it go on).
				fmt.Fprintln(c.stderr, c.paintErr(red, "riff: "+text))
				return nil
			}
			mark("(reconnecting…)")
			if gate := c.env(envWatchGate); gate != "" {
				return waitFile(ctx, gate)
			}
		case wire.EventWake:
			if e.Wake == nil {
				return nil
			}
			w := *e.Wake
			if w.Seq > 0 {
				if woke[w.Thread] >= w.Seq {
					return nil
				}
				woke[w.Thread] = w.Seq
				if err := local.WriteWoke(dir, me.Session, woke); err != nil {
					fmt.Fprintln(c.stderr, c.paintErr(yellow, "riff: the watch cannot keep its wakes in the local folder: "+err.Error()))
				}
			}
			fmt.Fprintln(c.stdout, wakeLine(w))
			if !follow {
				return errFirstLine
			}
		}
		return nil
	})
	if errors.Is(err, errFirstLine) || ctx.Err() != nil {
		return nil
	}
	return err
}

// wakeLine is the line of a wake, in the form of the Monitor of the guide
// ("wake: riff@server wrote to you in a direct message"), with the place
// of the message, so that the session reads it.
func wakeLine(w wire.Wake) string {
	if w.Seq == 0 {
		return "wake: a pause changed: run riff whoami"
	}
	direct := strings.HasPrefix(w.Thread, "dm:")
	what := "wrote in " + clean(w.Thread)
	switch {
	case w.Kind == record.MessageStatus && direct:
		what = "asks for your status in a direct message"
	case w.Kind == record.MessageStatus:
		what = "asks for your status in " + clean(w.Thread)
	case direct:
		what = "wrote to you in a direct message"
	}
	return fmt.Sprintf("wake: %s %s (message %d)", clean(w.From), what, w.Seq)
}
