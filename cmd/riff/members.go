package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/render"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/quote"
	"github.com/como-technologies/riff/riffcore/wire"
)

// memberCommands are the commands under Members in riff --help, in
// order: the people of a riff with sign-in (docs/people.md). The server
// decides each rule; riff shows its replies, and posts the note of a
// pass of the owner role, which the server does not post.
func memberCommands() []command {
	return []command{
		{
			name: "invite", usage: "invite EMAIL", short: "let a person join the riff (an admin)",
			long: `Lets the person of EMAIL join the riff: the person signs in with riff login.
The owner or an admin invites. The reply names the riff to give to riff
login when riff-server has a public address. A person of the allowed domain
of riff-server may join with no invite.

Only a riff with sign-in has people. In a riff with no sign-in, riff-server
trusts each caller on its network as an admin, so it has no members to
invite, remove or make an admin, and no owner: riff refuses each command of
Members there and says so.
`,
			flags: noFlags((*cli).invite), interspersed: true,
		},
		{
			name: "remove", usage: "remove EMAIL", short: "take a person out of the riff and end their sign-ins",
			long: `Takes the person of EMAIL out of the riff: the person may not join again, and
each sign-in of the person ends at once, so the next command of each of
their machines is refused. The owner or an admin removes a member; only
the owner removes an admin. The owner cannot be removed.
`,
			flags: noFlags((*cli).remove), interspersed: true,
		},
		{
			name: "admin", usage: "admin add EMAIL | admin remove EMAIL", short: "make a person an admin, or end it (the owner)",
			long: `riff admin add EMAIL makes the person an admin (and a member first, when the
person is none). riff admin remove EMAIL ends the role: the person stays a
member. Only the owner changes the admins. An admin of the settings of
riff-server stays one.
`,
			subcommands: []command{
				{name: "add", usage: "add EMAIL", interspersed: true, flags: noFlags(func(c *cli, ctx context.Context, args []string) error {
					return c.setAdmin(ctx, args, true)
				})},
				{name: "remove", usage: "remove EMAIL", interspersed: true, flags: noFlags(func(c *cli, ctx context.Context, args []string) error {
					return c.setAdmin(ctx, args, false)
				})},
			},
		},
		{
			name: "owner", usage: "owner --take | --pass EMAIL | --deny", short: "take, pass or deny the owner role",
			long: `The owner role:

  --take        an admin takes it: at once in a riff with no owner; else
                the request waits, and the role passes after the wait
                unless the owner denies it. riff-server posts a note in chat.
  --pass EMAIL  the owner passes it to a member. You stay an admin. riff
                posts a note of the pass in chat.
  --deny        the owner denies the request that waits. riff-server posts
                a note in chat.
`,
			flags: func(fs *flag.FlagSet) action {
				take := fs.Bool("take", false, "take the owner role (an admin)")
				pass := fs.String("pass", "", "pass the owner role to the member of this EMAIL (the owner)")
				deny := fs.Bool("deny", false, "deny the request for the owner role that waits (the owner)")
				return func(c *cli, ctx context.Context, args []string) error { return c.owner(ctx, args, *take, *pass, *deny) }
			},
			interspersed: true,
		},
		{
			name: "revoke", usage: "revoke [EMAIL]", short: "end the sign-ins of a person (no EMAIL: your own)",
			long: `Ends each sign-in of the person of EMAIL on each machine: the person stays a
member and signs in again with riff login. With no EMAIL (or your own)
it ends your own sign-ins, this machine's too: a lost machine stops with
them. An admin revokes another person; only the owner revokes the owner.
`,
			flags: noFlags((*cli).revoke), interspersed: true,
		},
		{
			name: "people", usage: "people", short: "list who may join, the members, the admins and the owner",
			long: `Lists the people of the riff: the owner, a request for the owner role that
waits, the allowed domain, then a row for each person with its role:
owner, admin (of settings: an admin of the settings of riff-server),
member, or may join (invited, not signed in yet). Only a member reads the
emails.
`,
			flags: noFlags((*cli).people), interspersed: true,
		},
	}
}

// oneEmail gives the one EMAIL of a command. The server checks its form.
func oneEmail(args []string, cmd string) (string, error) {
	if len(args) != 1 {
		return "", usagef("riff %s needs one EMAIL", cmd)
	}
	return args[0], nil
}

// noSignIn gives the text of a refusal with no_sign_in for the command
// cmd, in place of the server's: what it means for the person.
func (c *cli) noSignIn(err error, cmd string) error {
	var refused *wire.Refused
	if !errors.As(err, &refused) || refused.Code != wire.NoSignIn {
		return err
	}
	return errNoPeople(c, cmd)
}

func errNoPeople(c *cli, cmd string) error {
	return knownf("The riff at %s has no sign-in, so it has no people: no member, admin or owner, and riff-server trusts each caller "+
		"on its network as an admin. riff %s needs a riff with sign-in (riff-server --client-id); see riff help invite",
		c.serverURL(), cmd)
}

// peopleCall sends a command of the people as the caller, with the text
// of no_sign_in for cmd.
func peopleCall[R any](ctx context.Context, c *cli, cmd string, newCall func(me name.SessionURI) wire.Call[R]) (R, error) {
	r, err := callAs(ctx, c, newCall)
	return r, c.noSignIn(err, cmd)
}

func (c *cli) invite(ctx context.Context, args []string) error {
	email, err := oneEmail(args, "invite")
	if err != nil {
		return err
	}
	r, err := peopleCall(ctx, c, "invite", func(me name.SessionURI) wire.Call[wire.InviteReply] { return wire.Invite{Me: me, Email: email} })
	if err != nil {
		return err
	}
	c.out.Reply(r.Text)
	return nil
}

func (c *cli) remove(ctx context.Context, args []string) error {
	email, err := oneEmail(args, "remove")
	if err != nil {
		return err
	}
	r, err := peopleCall(ctx, c, "remove", func(me name.SessionURI) wire.Call[wire.EndedReply] { return wire.Remove{Me: me, Email: email} })
	if err != nil {
		return err
	}
	render.Ended(c.out, r)
	return nil
}

func (c *cli) revoke(ctx context.Context, args []string) error {
	if len(args) > 1 {
		return usagef("riff revoke takes at most one EMAIL")
	}
	email := ""
	if len(args) == 1 {
		email = args[0]
	}
	r, err := peopleCall(ctx, c, "revoke", func(me name.SessionURI) wire.Call[wire.EndedReply] { return wire.Revoke{Me: me, Email: email} })
	if err != nil {
		return err
	}
	render.Ended(c.out, r)
	return nil
}

func (c *cli) setAdmin(ctx context.Context, args []string, admin bool) error {
	cmd := "admin remove"
	if admin {
		cmd = "admin add"
	}
	email, err := oneEmail(args, cmd)
	if err != nil {
		return err
	}
	return c.printText(peopleCall(ctx, c, cmd, func(me name.SessionURI) wire.Call[wire.TextReply] {
		return wire.SetAdmin{Me: me, Email: email, Admin: admin}
	}))
}

// printText prints the text of a reply, or gives its error.
func (c *cli) printText(r wire.TextReply, err error) error {
	if err != nil {
		return err
	}
	c.out.Reply(r.Text)
	return nil
}

func (c *cli) owner(ctx context.Context, args []string, take bool, pass string, deny bool) error {
	if len(args) > 0 {
		return usagef("riff owner takes no argument %s: give --take, --pass EMAIL or --deny", quote.Input(args[0]))
	}
	n := 0
	for _, given := range []bool{take, pass != "", deny} {
		if given {
			n++
		}
	}
	if n != 1 {
		return usagef("riff owner needs one of --take, --pass EMAIL and --deny")
	}
	switch {
	case take:
		r, err := peopleCall(ctx, c, "owner --take", func(me name.SessionURI) wire.Call[wire.OwnerReply] { return wire.TakeOwner{Me: me} })
		if err != nil {
			return err
		}
		c.out.Reply(r.Text)
		return nil
	case deny:
		return c.printText(peopleCall(ctx, c, "owner --deny", func(me name.SessionURI) wire.Call[wire.TextReply] { return wire.DenyOwner{Me: me} }))
	}
	return c.passOwner(ctx, pass)
}

// passOwner passes the owner role and posts the note of the pass in chat
// (riffclient.PassOwner). The pass stays when the note fails: riff says
// so.
func (c *cli) passOwner(ctx context.Context, email string) error {
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	r, posted, err := riffclient.PassOwner(ctx, c.client, wire.PassOwner{Me: me, Email: email}, c.passer(me))
	var note *riffclient.NoteError
	if errors.As(err, &note) {
		c.out.Reply(r.Text)
		fmt.Fprintln(c.stderr, c.paintErr(yellow, "riff: the owner role passed, but riff could not post its note in chat: "+c.words(refusedText(note.Err))))
		return errSilent
	}
	if err != nil {
		return c.noSignIn(err, "owner --pass")
	}
	c.out.Reply(r.Text)
	c.out.Textf("riff posted the note of the pass in chat (#%d).", posted.Seq)
	return nil
}

// passer names the caller in the note of a pass: USER (EMAIL) with the
// email of the sign-in of this machine, else USER.
func (c *cli) passer(me name.SessionURI) string {
	if c.signin != nil {
		if k, ok, err := c.signin.Stored(); err == nil && ok && k.Email != "" {
			return fmt.Sprintf("%s (%s)", me.User, k.Email)
		}
	}
	return me.User
}

// refusedText gives a refusal as an error whose text is its reason, for
// words; any other error as it is.
func refusedText(err error) error {
	var refused *wire.Refused
	if errors.As(err, &refused) {
		return knownf("%s", refused.Reason)
	}
	return err
}

func (c *cli) people(ctx context.Context, args []string) error {
	if err := noArgs(args, "people"); err != nil {
		return err
	}
	r, err := peopleCall(ctx, c, "people", func(me name.SessionURI) wire.Call[wire.PeopleReply] { return wire.People{Me: me} })
	if err != nil {
		return err
	}
	// A riff with sign-in refuses a call with no token, and lists at
	// least its caller: an empty reply to a call with no token is of a
	// riff with no sign-in.
	if c.auth() == nil && !r.Emails && r.Owner == nil && r.Asked == nil && r.Domain == "" &&
		len(r.Admins)+len(r.Members)+len(r.MayJoin) == 0 {
		return errNoPeople(c, "people")
	}
	render.People(c.out, r)
	return nil
}
