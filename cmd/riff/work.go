package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/chat"
	"github.com/como-technologies/riff/riffclient/commands"
	"github.com/como-technologies/riff/riffclient/earlier"
	"github.com/como-technologies/riff/riffclient/render"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/quote"
	"github.com/como-technologies/riff/riffcore/wire"
)

// workCommands are the commands under Work in the riff in riff --help,
// in order.
func workCommands() []command {
	return []command{
		{
			name: "threads", usage: "threads", short: "list your threads",
			long: `Lists your threads with the number of their last message and of your
unread messages. A direct thread shows as dm:PEER.
`,
			flags: noFlags((*cli).threads), interspersed: true,
		},
		{
			name: "read", usage: "read [-t THREAD] [--all]", short: "read your unread messages",
			long: `Shows your unread messages: each direct thread first, then your other
threads. A read marks the messages that it shows as read.

  -t, --thread THREAD   one thread: OWNER/REPO, chat, or dm:PEER
  --all                 each kept message, your own posts too
`,
			flags: func(fs *flag.FlagSet) action {
				thread := threadFlag(fs)
				all := fs.Bool("all", false, "show each kept message, your own posts too")
				return func(c *cli, ctx context.Context, args []string) error { return c.read(ctx, args, *thread, *all) }
			},
			interspersed: true,
		},
		{
			name: "post", usage: "post [-t THREAD] [--to FIELD=VALUE,...] [--kind note|status|message] TEXT", short: "post a message to a thread",
			long: `Posts a message to the thread of your repository, or to -t THREAD. A
session wakes when it matches each field of one --to selector. The fields
are user, session, host, repo, worktree, claim, lead and person.

  -t, --thread THREAD         the thread
  --to FIELD=VALUE,...        one selector; each --to adds one
  --kind note|status|message  a note wakes nobody; a status request asks
                              each selected session for its status

Example: riff post --to claim=issue-6 "API is ready"
`,
			flags: func(fs *flag.FlagSet) action {
				thread := threadFlag(fs)
				var to listFlag
				fs.Var(&to, "to", "a selector FIELD=VALUE,...; each --to adds one")
				kind := fs.String("kind", "message", "message, note or status")
				return func(c *cli, ctx context.Context, words []string) error { return c.post(ctx, words, *thread, to, *kind) }
			},
		},
		{
			name: "tell", usage: "tell SESSION|lead TEXT", short: "send a direct message to a session or to your lead",
			long: `Sends a direct message to one session: its ID, or the start of it from 4
characters. riff tell lead TEXT asks your lead in this repository.
When a start fits more than one session, riff tell stops and names them.
`,
			flags: noFlags((*cli).tell),
		},
		{
			name: "tail", usage: "tail [THREAD]", short: "follow a thread",
			long: `Shows each new message of a thread (default: the thread of your
repository), as a block with the time, the sender, the address, the mark
and the number. After a break, riff connects again by itself and shows each
message of the break once and in order. The server keeps the last 200
messages of a thread: when more came in the break, riff first shows one
yellow line with the number of the lost messages, then the kept ones.
When the first connect fails, riff tries once more at once. In riff tail
chat an action shows as * USER@HOST TEXT. Ctrl-C stops.
`,
			flags: noFlags((*cli).tail), interspersed: true,
		},
		chatCommand(),
		{
			name: "claim", usage: "claim [-t THREAD] ITEM", short: "claim a work item (exit 1 when held)",
			long: `Claims a work item in the thread of your repository (or -t THREAD).
riff claim exits with status 1 when another session holds the item, or
when the riff or the repository is paused. After the claim it shows the
earlier work on ITEM in this clone (riff fetches from origin first, for
at most 5 s): each pushed branch and each worktree of the item; a verify
item has none.
`,
			flags: func(fs *flag.FlagSet) action {
				thread := threadFlag(fs)
				return func(c *cli, ctx context.Context, args []string) error { return c.claim(ctx, args, *thread) }
			},
			interspersed: true,
		},
		{
			name: "release", usage: "release [-t THREAD] ITEM [--session ID]", short: "release a claim",
			long: `Releases a claim that you hold. With --session ID the lead frees the
claim of another session of its user (the start of the ID from 4
characters is enough).
`,
			flags: func(fs *flag.FlagSet) action {
				thread := threadFlag(fs)
				// --session of release names the holder, not the caller: the
				// caller is the person, or the session of RIFF_SESSION.
				session := fs.String("session", "", "the session ID (or its start) whose claim the lead frees")
				return func(c *cli, ctx context.Context, args []string) error { return c.release(ctx, args, *thread, *session) }
			},
			interspersed: true,
		},
		{
			name: "status", usage: "status TEXT", short: "set your status",
			long: `Sets your status: one line of at most 400 characters.
`,
			flags: textCommand("status", func(me name.SessionURI, text string) wire.Call[wire.TextReply] {
				return wire.Status{Me: me, Text: text}
			}),
		},
		{
			name: "blocked", usage: "blocked REASON", short: "say that you cannot go on with no decision of a person",
			long: `Says that you cannot go on with no decision of a person. It wakes the lead
of your user with the reason. A message that wakes you is the answer; the
block ends at your next work after it (a tool call, a claim, a release, a
new start). With no answer, riff wakes the lead again after lead.wake
minutes (15 by default, in the settings file of the machine of the lead),
and lead.wake minutes later riff who shows "the lead gave no answer".
`,
			flags: noFlags(func(c *cli, ctx context.Context, words []string) error {
				return c.caller().Blocked(ctx, strings.Join(words, " "))
			}),
		},
		{
			name: "step", usage: "step start NAME | step done | step fail REASON", short: "show a long step",
			long: `Shows a long step in riff who:
  riff step start NAME    start it (it replaces the old step)
  riff step done          it ended well
  riff step fail REASON   it failed; the lead wakes
`,
			subcommands: []command{
				{name: "start", usage: "start NAME", flags: textCommand("step start", func(me name.SessionURI, text string) wire.Call[wire.TextReply] {
					return wire.Step{Me: me, Start: text}
				})},
				{name: "done", usage: "done", flags: noFlags((*cli).stepDone), interspersed: true},
				{name: "fail", usage: "fail REASON", flags: textCommand("step fail", func(me name.SessionURI, text string) wire.Call[wire.TextReply] {
					return wire.Step{Me: me, Fail: text}
				})},
			},
		},
	}
}

// threadFlag adds -t and --thread to fs.
func threadFlag(fs *flag.FlagSet) *string {
	t := fs.String("thread", "", "the thread (default: the thread of your repository)")
	fs.StringVar(t, "t", "", "the thread (short for --thread)")
	return t
}

// listFlag is a flag that may come more than once.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// noArgs refuses the arguments of a command that takes none.
func noArgs(args []string, cmd string) error {
	if len(args) > 0 {
		return usagef("riff %s takes no argument %s", cmd, quote.Input(args[0]))
	}
	return nil
}

// oneItem gives the one ITEM of a command; commands reads it.
func oneItem(args []string, cmd string) (string, error) {
	if len(args) != 1 {
		return "", usagef("riff %s needs one ITEM", cmd)
	}
	return args[0], nil
}

// caller makes the calls of the commands as the caller, printing to the
// output of the run.
func (c *cli) caller() commands.Caller {
	return commands.Caller{Client: c.client, Me: c.me, Out: c.out,
		Earlier: func(ctx context.Context, item name.Item) string {
			dir, err := c.workDir()
			if err != nil {
				return ""
			}
			return c.earlierLine(ctx, dir, item)
		},
		EarlierOfClone: func(ctx context.Context, skip func(name.Item) bool) []string {
			dir, err := c.workDir()
			if err != nil {
				return nil
			}
			return c.earlierOfClone(ctx, dir, skip)
		},
	}
}

// earlierOfClone gives a line for each item of the clone of dir with
// earlier work, but the items of skip, at most 8 (riffclient/earlier).
func (c *cli) earlierOfClone(ctx context.Context, dir string, skip func(name.Item) bool) []string {
	works, err := earlier.List(ctx, earlier.Options{Dir: dir}, skip)
	if err != nil {
		return nil
	}
	lines := make([]string, 0, len(works))
	for _, w := range works {
		lines = append(lines, string(w.Item)+": "+w.Parts(c.now()))
	}
	return lines
}

// earlierLine gives the line of the earlier work on item in the clone of
// dir (riffclient/earlier), "" for none or when git cannot tell: the
// claim holds either way.
func (c *cli) earlierLine(ctx context.Context, dir string, item name.Item) string {
	work, err := earlier.Find(ctx, earlier.Options{Dir: dir}, item)
	if err != nil {
		return ""
	}
	return work.Line(c.now())
}

// callAs sends the call that newCall makes for the caller: the session
// of --session or RIFF_SESSION, else the person.
func callAs[R any](ctx context.Context, c *cli, newCall func(me name.SessionURI) wire.Call[R]) (R, error) {
	return commands.Send(ctx, c.caller(), newCall)
}

// sendText sends the call that newCall makes for the caller, and prints
// the text of its reply.
func sendText[R any](ctx context.Context, c *cli, newCall func(me name.SessionURI) wire.Call[R], text func(R) string) error {
	return commands.Reply(ctx, c.caller(), newCall, text)
}

// textCommand is a command that sends one TEXT, the words after it,
// whatever they start with (riff status).
func textCommand(cmd string, newCall func(me name.SessionURI, text string) wire.Call[wire.TextReply]) func(*flag.FlagSet) action {
	return noFlags(func(c *cli, ctx context.Context, words []string) error {
		text := strings.Join(words, " ")
		if text == "" {
			return usagef("riff %s needs a TEXT", cmd)
		}
		return sendText(ctx, c, func(me name.SessionURI) wire.Call[wire.TextReply] { return newCall(me, text) }, commands.TextOf)
	})
}

func (c *cli) threads(ctx context.Context, args []string) error {
	if err := noArgs(args, "threads"); err != nil {
		return err
	}
	return c.caller().Threads(ctx)
}

func (c *cli) read(ctx context.Context, args []string, thread string, all bool) error {
	if err := noArgs(args, "read"); err != nil {
		return err
	}
	return c.caller().Read(ctx, thread, all, 0, false)
}

func (c *cli) post(ctx context.Context, words []string, thread string, to []string, kind string) error {
	return c.caller().Post(ctx, thread, to, kind, strings.Join(words, " "))
}

func (c *cli) tell(ctx context.Context, words []string) error {
	if len(words) < 2 {
		return usagef("riff tell needs SESSION (or lead) and a TEXT")
	}
	return c.caller().Tell(ctx, words[0], strings.Join(words[1:], " "))
}

func (c *cli) tail(ctx context.Context, args []string) error {
	if len(args) > 1 {
		return usagef("riff tail takes at most one THREAD")
	}
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	thread := ""
	if len(args) == 1 {
		thread = args[0]
	} else if t, ok := me.DefaultThread(); ok {
		thread = string(t)
	} else {
		return usagef("riff tail needs a THREAD outside git, for example riff tail chat")
	}
	var day string
	test := c.testTail()
	err = c.client.Tail(ctx, wire.Tail{Me: me, Thread: thread}, func(e riffclient.Event) error {
		switch e.Type {
		case riffclient.EventOpen:
			if test.marks {
				fmt.Fprintln(c.stderr, c.paintErr(dim, "(open)"))
			}
		case wire.EventMessage:
			day = render.TailMessage(c.out, *e.Message, c.client.Check, day)
			if c.out.Width() > 0 && chat.ToPerson(me, c.client.Check(*e.Message)) {
				// A message to the person wakes its terminal: the bell.
				fmt.Fprint(c.stdout, "\a")
			}
		case riffclient.EventLost:
			render.TailLost(c.out, e.Lost)
		case riffclient.EventDown:
			if e.Err != nil {
				if m, ok := e.Err.(*riffclient.MismatchError); ok {
					fmt.Fprintln(c.stderr, c.paintErr(red, clean(m.Text)))
					return nil
				}
				if text, ok := c.lostSignIn(e.Err); ok {
					fmt.Fprintln(c.stderr, c.paintErr(red, "riff: "+text))
					return nil
				}
			}
			fmt.Fprintln(c.stderr, c.paintErr(dim, "(reconnecting…)"))
			if test.gate != nil {
				return test.gate(ctx)
			}
		case riffclient.EventBack:
			fmt.Fprintln(c.stderr, c.paintErr(dim, "(back)"))
		}
		return nil
	})
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func (c *cli) claim(ctx context.Context, args []string, thread string) error {
	item, err := oneItem(args, "claim")
	if err != nil {
		return err
	}
	return c.caller().Claim(ctx, thread, item)
}

func (c *cli) release(ctx context.Context, args []string, thread, session string) error {
	item, err := oneItem(args, "release")
	if err != nil {
		return err
	}
	return c.caller().Release(ctx, thread, item, session)
}

func (c *cli) stepDone(ctx context.Context, args []string) error {
	if err := noArgs(args, "step done"); err != nil {
		return err
	}
	return sendText(ctx, c, func(me name.SessionURI) wire.Call[wire.TextReply] { return wire.Step{Me: me, Done: true} }, commands.TextOf)
}
