package main

import (
	"context"
	"flag"

	"github.com/como-technologies/riff/riffclient/render"
	"github.com/como-technologies/riff/riffcore/quote"
)

// startCommands are the commands under Get started in riff --help, in
// order.
func startCommands() []command {
	return []command{
		{
			name: "whoami", usage: "whoami", short: "show your URI, the state of the riff and the build",
			long: `Shows your URI (as a person, or as the session of --session or
RIFF_SESSION), the state of the riff and each paused repository, the owner
of a riff with sign-in (none when it has none), and the build of riff. When the builds differ, the fact riff-server shows the build
of the server.
`,
			flags: noFlags((*cli).whoami), interspersed: true,
		},
		{
			name: "who", usage: "who [--long] [--all]", short: "list the sessions of the riff",
			long: `Lists the sessions of the riff: the facts of the riff (its state, the
owner, the build), then a row for each session with its state, its role
and the detail of its state. you marks your own row.

  --long   the full URI of each session in place of its short name
  --all    also the gone sessions (ended, or stopped for 3 minutes)
`,
			flags: func(fs *flag.FlagSet) action {
				long := fs.Bool("long", false, "show the full URI of each session")
				all := fs.Bool("all", false, "list the gone sessions too")
				return func(c *cli, ctx context.Context, args []string) error { return c.who(ctx, args, *long, *all) }
			},
			interspersed: true,
		},
		// riff denials shows what the sessions do, as who does: its entry
		// is in denials.go.
		denialsCommand(),
		// riff top, the live table of who: its entry is in top.go.
		topCommand(),
		{
			name: "server", usage: "server", short: "show the riff that riff uses, its release and its facts",
			long: `Shows the riff that riff uses and where that choice comes from, its release
against this riff, your sign-in, and the facts of the server: whether it
serves, its last error, the log, the faults, the checkpoint, the counts, the
memory and its start. answer none: the riff does not answer.

local shows the riff of this machine too (http://127.0.0.1:7878), when it
answers. localhost, 127.0.0.1 and [::1] with the same port are one riff, so
riff server shows it once.

When you must act, the last line says what to run: yellow when the
versions can talk, red when they cannot, when you must sign in, or when
the riff does not answer.
`,
			flags: noFlags((*cli).server), interspersed: true,
		},
		loginCommand(),
		{
			name: "help", usage: "help [COMMAND | server]", short: "show the help of a command",
			long: `riff help COMMAND shows the text of a command; riff help server shows the
forms of --server.
`,
			raw: (*cli).helpCmd,
		},
	}
}

func (c *cli) whoami(ctx context.Context, args []string) error {
	if err := noArgs(args, "whoami"); err != nil {
		return err
	}
	return c.caller().Whoami(ctx)
}

func (c *cli) who(ctx context.Context, args []string, long, all bool) error {
	if err := noArgs(args, "who"); err != nil {
		return err
	}
	return c.caller().Who(ctx, long, all)
}

// server shows the riff that riff uses, where the choice comes from, its
// release against this riff, the sign-in, and the facts of the server;
// then the riff of this machine when it is another riff and answers. The
// last line says what to run when the person must act.
func (c *cli) server(ctx context.Context, args []string) error {
	if err := noArgs(args, "server"); err != nil {
		return err
	}
	// The riff of this machine is asked at the same time, with a short
	// budget: it shows only when it answers.
	local := make(chan []render.Fact, 1)
	go func() { local <- c.localFacts(ctx) }()

	lines := []render.Fact{
		{Key: "riff", Value: c.build.Display()},
		{Key: "server", Value: c.serverURL().String(), Extra: "(" + c.serverFrom + ")"},
	}
	facts, err := c.client.Facts(ctx)
	got, act, actStyle, failed := render.ServerLines(render.Answer{Facts: facts, Err: err}, render.Asked{
		Mine:   c.build,
		SignIn: func() render.Fact { return c.signInFact(ctx, c.signin, c.client) },
		Fault:  c.signInFault(),
		Words:  c.words,
	})
	lines = append(lines, got...)
	lines = append(lines, <-local...)
	c.out.FactsAt(lines, 12)
	if act != "" {
		c.out.Line(render.In(actStyle, act))
	}
	if failed {
		return errSilent
	}
	return nil
}

func (c *cli) helpCmd(_ context.Context, args []string) error {
	if len(args) == 0 {
		c.usage(c.stdout)
		return nil
	}
	if _, ok := c.commands()[args[0]]; !ok {
		return usagef("riff has no command %s", quote.Input(args[0]))
	}
	c.help(args[0])
	return flag.ErrHelp
}
