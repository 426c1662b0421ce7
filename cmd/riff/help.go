package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
)

// usage writes riff --help: the commands under their headings.
func (c *cli) usage(w io.Writer) {
	fmt.Fprintln(w, "riff: the command line of the riff. It talks to riff-server.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: riff [--server URL] [--color auto|always|never] [--session ID] COMMAND ...")
	cmds := c.commands()
	for _, h := range headings {
		var names []string
		for n, cmd := range cmds {
			if cmd.heading == h {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			continue
		}
		sort.Slice(names, func(i, j int) bool { return order(names[i]) < order(names[j]) })
		fmt.Fprintf(w, "\n%s:\n", h)
		for _, n := range names {
			fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].short)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Each command takes --server (the riff to use; see riff help server), --color and --session.")
	fmt.Fprintln(w, "riff help COMMAND shows the full text of a command. riff --version shows the build.")
	fmt.Fprintln(w, "Env: RIFF_SERVER, RIFF_SESSION, NO_COLOR, and RIFF_HOST (the name of this host; default: its host name).")
}

// commandOrder is the order of the commands under their headings.
var commandOrder = []string{"whoami", "who", "server", "help", "threads", "read", "post", "tell", "tail",
	"claim", "release", "status", "blocked", "step", "lead", "plan", "pause", "resume"}

func order(n string) int {
	for i, o := range commandOrder {
		if o == n {
			return i
		}
	}
	return len(commandOrder)
}

// help writes the full text of one command.
func (c *cli) help(name string) {
	if name == "server" {
		// riff help server gives the forms of --server, and the command.
		fmt.Fprint(c.stdout, helpServerForms)
		fmt.Fprintln(c.stdout)
	}
	base := name
	for i := range name {
		if name[i] == ' ' {
			base = name[:i]
			break
		}
	}
	cmd, ok := c.commands()[base]
	if !ok {
		c.usage(c.stdout)
		return
	}
	fmt.Fprintf(c.stdout, "Usage: riff %s\n\n%s", cmd.usage, cmd.long)
	fmt.Fprintln(c.stdout)
	fmt.Fprintln(c.stdout, "Each command also takes --server URL, --color auto|always|never and --session ID.")
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

const helpServerForms = `The riff that riff uses

riff finds its riff in --server or RIFF_SERVER. With neither, it uses the
riff of this machine, http://127.0.0.1:7878. riff keeps no choice in a file.

Each value is a URL, HOST or HOST:PORT:
  first                  http://first:7878
  first:9000             http://first:9000
  https://riff.example.com
  ::1 or [::1]:7878      http://[::1]:7878

With no scheme, riff uses http://. With no port, it uses port 7878. An IPv6
address takes brackets with a port. --server wins over RIFF_SERVER.
`

const (
	helpWhoami = `Shows your URI (as a person, or as the session of --session or
RIFF_SESSION), the state of the riff and each paused repository, and the
build of riff. When the builds differ, the fact riff-server shows the build
of the server.
`
	helpWho = `Lists the sessions of the riff: the facts of the riff (its state, the
owner, the build), then a row for each session with its state, its role
and the detail of its state. you marks your own row.

  --long   the full URI of each session in place of its short name
  --all    also the gone sessions (ended, or stopped for 3 minutes)
`
	helpServer = `Shows the riff that riff uses and where that choice comes from, its release
against this riff, your sign-in, and the facts of the server: whether it
serves, its last error, the log, the faults, the checkpoint, the counts, the
memory and its start. answer none: the riff does not answer.

local shows the riff of this machine too (http://127.0.0.1:7878), when it
answers. localhost, 127.0.0.1 and [::1] with the same port are one riff, so
riff server shows it once.

When you must act, the last line says what to run: yellow when the
versions can talk, red when they cannot, when you must sign in, or when
the riff does not answer.
`
	helpThreads = `Lists your threads with the number of their last message and of your
unread messages. A direct thread shows as dm:PEER.
`
	helpRead = `Shows your unread messages: each direct thread first, then your other
threads. A read marks the messages that it shows as read.

  -t, --thread THREAD   one thread: OWNER/REPO, chat, or dm:PEER
  --all                 each kept message, your own posts too
`
	helpPost = `Posts a message to the thread of your repository, or to -t THREAD. A
session wakes when it matches each field of one --to selector. The fields
are user, session, host, repo, worktree, claim, lead and person.

  -t, --thread THREAD         the thread
  --to FIELD=VALUE,...        one selector; each --to adds one
  --kind note|status|message  a note wakes nobody; a status request asks
                              each selected session for its status

Example: riff post --to claim=issue-6 "API is ready"
`
	helpTell = `Sends a direct message to one session: its ID, or the start of it from 4
characters. riff tell lead TEXT asks your lead in this repository.
When a start fits more than one session, riff tell stops and names them.
`
	helpTail = `Shows each new message of a thread (default: the thread of your
repository), as a block with the time, the sender, the address, the mark
and the number. After a break, riff connects again by itself and shows each
message of the break once and in order. The server keeps the last 200
messages of a thread: when more came in the break, riff first shows one
yellow line with the number of the lost messages, then the kept ones.
Ctrl-C stops.
`
	helpClaim = `Claims a work item in the thread of your repository (or -t THREAD).
riff claim exits with status 1 when another session holds the item, or
when the riff or the repository is paused.
`
	helpRelease = `Releases a claim that you hold. With --session ID the lead frees the
claim of another session of its user (the start of the ID from 4
characters is enough).
`
	helpStatus = `Sets your status: one line of at most 400 characters.
`
	helpBlocked = `Says that you cannot go on with no decision of a person. It wakes the lead
of your user with the reason.
`
	helpStep = `Shows a long step in riff who:
  riff step start NAME    start it (it replaces the old step)
  riff step done          it ended well
  riff step fail REASON   it failed; the lead wakes
`
	helpPause = `Pauses your repository. While it is paused, each claim there fails.

  --riff          the whole riff (the owner or an admin)
  --repo OWNER/REPO  a repository of another person (the owner or an admin)
`
	helpResume = `Resumes your repository.

  --riff          the whole riff (the owner or an admin)
  --repo OWNER/REPO  a repository of another person
`
	helpLead = `riff lead --session ID names a session the lead of your user in this
repository. Run it in a terminal, not in an agent session.

riff lead notes               shows the notes of the lead
riff lead notes --history     also each old text
riff lead notes edit          opens $VISUAL, $EDITOR or vi on the notes
riff lead notes edit --file F takes the text from a file
Add --thread OWNER/REPO for another repository.
`
	helpPlan = `riff plan hold ITEM REASON keeps an item from the workers (a reason of 1 to
200 characters). riff plan free ITEM ends the hold. -t names another
repository thread.
`
	helpHelp = `riff help COMMAND shows the text of a command; riff help server shows the
forms of --server.
`
)
