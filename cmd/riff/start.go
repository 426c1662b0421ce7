package main

import (
	"context"
	"errors"
	"flag"
	"strings"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
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
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	r, err := call(ctx, c, wire.Whoami{Me: me})
	if err != nil {
		return err
	}
	uri := r.URI
	if uri.IsZero() {
		uri = me
	}
	var fs []fact
	if uri.IsPerson() {
		fs = append(fs, fact{key: "person", value: clean(uri.Short())})
	} else {
		named := uri.Short() + " (" + cutID(uri.Session, 8) + ")"
		fs = append(fs, fact{key: "session", value: clean(named)})
	}
	fs = append(fs, fact{key: "uri", value: clean(uri.String())})
	fs = append(fs, c.pauseFacts(r.Pauses)...)
	// The owner line, as in who: the server gives it in a riff with
	// sign-in.
	fs = append(fs, ownerFacts(r.Owner)...)
	fs = append(fs, c.buildFacts(r.Build)...)
	c.out.facts(fs)
	return nil
}

// ownerFacts gives the fact owner of who and whoami: the owner line of
// the server (none in yellow: the riff has no owner), and nothing in a
// riff with no sign-in.
func ownerFacts(line string) []fact {
	switch line {
	case "":
		return nil
	case "none":
		return []fact{{key: "owner", value: "none", color: yellow}}
	}
	return []fact{{key: "owner", value: clean(line)}}
}

func cutID(id string, n int) string {
	if len(id) > n {
		return id[:n]
	}
	return id
}

// pauseFacts gives the facts riff and paused.
func (c *cli) pauseFacts(p wire.Pauses) []fact {
	var fs []fact
	if p.Riff != nil {
		v := "paused"
		if p.Riff.By != "" {
			v += " by " + clean(p.Riff.By)
		}
		fs = append(fs, fact{key: "riff", value: v, color: yellow})
	} else {
		fs = append(fs, fact{key: "riff", value: "running", color: green})
	}
	for _, r := range p.Repositories {
		v := clean(string(r.Repo))
		if r.By != "" {
			v += " by " + clean(r.By)
		}
		fs = append(fs, fact{key: "paused", value: v, color: yellow})
	}
	return fs
}

// buildFacts gives the fact build, and riff-server when the builds
// differ.
func (c *cli) buildFacts(server string) []fact {
	fs := []fact{{key: "build", value: c.build.Display()}}
	sb, err := parseBuild(server)
	if err != nil {
		if server != "" {
			fs = append(fs, fact{key: "riff-server", value: clean(server), color: yellow, extra: "a build that riff cannot read", extraColor: yellow})
		}
		return fs
	}
	if sb.String() != c.build.String() {
		fs = append(fs, fact{key: "riff-server", value: sb.Display(), color: yellow, extra: "another build; the versions can talk", extraColor: yellow})
	}
	return fs
}

func (c *cli) who(ctx context.Context, args []string, long, all bool) error {
	if err := noArgs(args, "who"); err != nil {
		return err
	}
	r, err := callAs(ctx, c, func(me name.SessionURI) wire.Call[wire.WhoReply] { return wire.Who{Me: me, All: all} })
	if err != nil {
		return err
	}
	fs := c.pauseFacts(r.Pauses)
	fs = append(fs, ownerFacts(r.Owner)...)
	fs = append(fs, c.buildFacts(r.Build)...)
	c.out.facts(fs)
	c.out.text("")
	rows := [][]part{{plain("SESSION"), plain("STATE"), plain("ROLE"), plain("DETAIL")}}
	for _, row := range r.Rows {
		session := row.URI.Named()
		if long {
			session = row.URI.String()
		}
		role := clean(row.Role)
		if row.You {
			role = strings.TrimSpace("you " + role)
		}
		state := clean(row.State)
		rows = append(rows, []part{
			colored(sessionColor(row.URI.Who().String()), clean(session)),
			colored(stateColor(state), state),
			plain(role),
			colored(detailColor(state, row.Gone), clean(row.Detail)),
		})
	}
	c.table(rows)
	if r.Act != "" {
		c.out.line(colored(yellow, clean(r.Act)))
	}
	return nil
}

func stateColor(state string) string {
	switch state {
	case "blocked", "failed":
		return red
	case "paused", "waiting":
		return yellow
	}
	return ""
}

func detailColor(state string, gone bool) string {
	if gone {
		return dim
	}
	if state == "blocked" {
		return red
	}
	return ""
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
	local := make(chan []fact, 1)
	go func() { local <- c.localFacts(ctx) }()

	lines := []fact{
		{key: "riff", value: c.build.Display()},
		{key: "server", value: c.serverURL().String(), extra: "(" + c.serverFrom + ")"},
	}
	facts, err := c.client.Facts(ctx)
	var mismatch *riffclient.MismatchError
	var refused *wire.Refused
	var front *riffclient.FrontEndError
	var authErr *riffclient.AuthError
	var act string
	var actColor string
	failed := false
	switch {
	case err == nil:
		sb, perr := parseBuild(facts.Build)
		if perr != nil {
			lines = append(lines, fact{key: "  release", value: clean(facts.Build), color: yellow, extra: "a build that riff cannot read", extraColor: yellow})
			break
		}
		rel, a, col := c.releaseFact(sb)
		lines = append(lines, rel, c.signInFact(ctx, c.signin, c.client))
		act, actColor = a, col
		lines = append(lines, factLines(facts)...)
	case errors.As(err, &mismatch):
		failed = true
		if mismatch.Server != nil {
			rel, a, col := c.releaseFact(*mismatch.Server)
			lines = append(lines, rel)
			act, actColor = a, col
		} else {
			lines = append(lines, fact{key: "  release", value: clean(mismatch.Text), color: red})
			act, actColor = "Check that the server is riff-server. See riff help server.", red
		}
	case errors.As(err, &refused) && signInCode(refused.Code), errors.As(err, &authErr):
		// A riff with sign-in gives its facts only to a person who is
		// signed in: this machine has no sign-in for it, or it ended.
		failed = true
		f, _ := c.signInFaultFact(err, c.signin)
		lines = append(lines, f)
		act, actColor = loginAct, red
	case errors.As(err, &front):
		// Cloud Run answered by itself: riff server asks once, and the
		// person runs it again (the guide's "A restart with a bucket").
		failed = true
		lines = append(lines, fact{key: "  answer", value: "none", color: red, extra: "(" + c.words(err) + ")"})
		act, actColor = "Run riff server again in a few seconds.", red
	default:
		failed = true
		lines = append(lines, fact{key: "  answer", value: "none", color: red, extra: "(" + c.words(err) + ")"})
		act, actColor = "Start riff-server, or name another riff with --server. See riff help server.", red
	}
	lines = append(lines, <-local...)
	c.out.factsAt(lines, 12)
	if act != "" {
		c.out.line(colored(actColor, act))
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
		return usagef("riff has no command %q", args[0])
	}
	c.help(args[0])
	return flag.ErrHelp
}
