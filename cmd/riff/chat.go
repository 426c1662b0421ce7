package main

import (
	"context"
	"os"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/chat"
)

// chatCommand is riff chat, under Work in the riff.
func chatCommand() command {
	return command{
		name: "chat", usage: "chat", short: "chat with the people of the riff",
		long: `Chats with the people of the riff and their leads in the thread chat, in
the style of IRC. Only a member can read or post. It shows the kept lines
first, then each new line above the prompt [riff] >; what you type stays.
Your own line shows once, from the server. /quit or Ctrl-C exits.

A person shows as <USER@HOST>, a lead as [USER's lead, REPO], another
session as [USER ID]. A line that is not verified says (not verified).

  a line with no name   wakes each lead of yours
  @lead TEXT            wakes each lead of yours
  @USER TEXT            wakes each lead of USER, and not yours
  @lead:REPO TEXT       wakes only your lead in REPO
  @USER:REPO TEXT       wakes only the lead of USER in REPO
                        (REPO is OWNER/REPO, or the name after the slash)
  /me TEXT              an action: * USER@HOST TEXT
  //TEXT                sends a line that starts with /
  /quit                 exits

The chat reads the leads from the riff first. It sends nothing when no
lead fits a name, or when two leads fit it, and says which it found.
After a break it connects again by itself, with (reconnecting…) and
(back), and shows each line of the break once and in order, as riff tail
does; when the first connect fails, it tries once more at once. --color
works as in riff tail.
`,
		flags: noFlags((*cli).chat), interspersed: true,
	}
}

func (c *cli) chat(ctx context.Context, args []string) error {
	if err := noArgs(args, "chat"); err != nil {
		return err
	}
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	o := chat.Options{
		Client: c.client, Me: me, Out: c.stdout, Err: c.stderr, Paint: c.paint, Zone: c.loc,
		Words: c.words, Down: c.downText, AfterDown: c.testTail().gate,
	}
	in, _ := c.stdin.(*os.File)
	o.In = in
	if out, ok := c.stdout.(*os.File); ok && in != nil {
		if term, ok := chat.OpenTerminal(in, out); ok {
			o.Terminal = term
			// In raw mode only the chat draws: the notes of the client
			// (the wait line, different builds) show above its prompt.
			o.Notes = chat.NewNotes()
			opts := c.clientOpts
			opts.Out = o.Notes
			o.Client = riffclient.New(c.serverURL(), opts)
		}
	}
	err = chat.Run(ctx, o)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// downText gives the text of a break of a stream that a person must act
// on, as riff tail shows it: builds that cannot talk, a lost sign-in.
func (c *cli) downText(err error) (string, bool) {
	if m, ok := err.(*riffclient.MismatchError); ok {
		return clean(m.Text), true
	}
	if text, ok := c.lostSignIn(err); ok {
		return "riff: " + text, true
	}
	return "", false
}
