package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/como-technologies/riff/riffclient/door"
	"github.com/como-technologies/riff/riffclient/local"
)

// relayWatch is riff relay watch: the watch that the Monitor of the lead
// runs (docs/agents.md, "riff relay watch").
// The watch itself is door.Watch.
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

// relayWatch names the session of the watch and runs door.Watch with the
// lines for a person on stderr: a fault in red, a lost woke mark in
// yellow.
func (c *cli) relayWatch(ctx context.Context, follow bool) error {
	// A Monitor gets no hook input: the session is the one that Claude
	// Code names in the env of its command, else the one of the Claude
	// Code among the parents of the watch. --session and RIFF_SESSION win.
	c.g.session = door.SessionOf(c.g.session, c.env(door.AgentSessionEnv), "")
	if c.g.session == "" {
		if id, ok := local.AgentSession(c.env, os.Getpid(), local.ParentPID); ok {
			c.g.session = id
		}
	}
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	if me.Session == "" {
		return knownf("riff relay watch watches a session: run it in the agent tool of the session (Claude Code), or set RIFF_SESSION or --session to its session ID (Claude Code gives it as CLAUDE_CODE_SESSION_ID)")
	}
	dir, err := local.Dir(c.env)
	if err != nil {
		return knownf("%s", err)
	}
	every, err := keepAliveInterval(c.env, door.Every)
	if err != nil {
		return err
	}
	test := c.testWatch()
	w := door.Watch{
		Client:     c.client,
		Me:         me,
		Files:      door.Files{Dir: dir},
		Follow:     follow,
		Every:      every,
		Out:        c.stdout,
		Fault:      func(line string) { fmt.Fprintln(c.stderr, c.paintErr(red, line)) },
		Warn:       func(line string) { fmt.Fprintln(c.stderr, c.paintErr(yellow, line)) },
		LostSignIn: c.lostSignIn,
		Gate:       test.gate,
	}
	if test.marks {
		w.Marks = func(mark string) { fmt.Fprintln(c.stderr, mark) }
	}
	return w.Run(ctx)
}
