package riffstate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The commands that change who is a member: invite, remove, set_admin
// and revoke. The roles and who may join are in roles.go, the first
// sign-in (admit, name_owner) in admit.go, the owner role in owner.go,
// the emails and user names in emails.go, the people of the log and
// their view in people.go. docs/people.md has the rules and the
// decisions.

// notMember refuses a command that names a person who is not a member.
func notMember(email string) error {
	return wire.Refuse(wire.NotMember, "%s is not a member of the riff; an admin invites a person with: riff invite %s", email, email)
}

// settingsAdmin refuses a change of an admin of the settings.
func settingsAdmin(email string) error {
	return wire.Refuse(wire.NotAllowed, "%s is an admin of the settings of riff-server; only a new start of riff-server with other settings changes that", email)
}

// Invite lets the person of an email join: the person signs in with
// riff login. Only an admin can. An invite of a member changes nothing.
type Invite struct {
	wire.Invite
	base
}

func (Invite) Kind() record.Command { return record.CommandInvite }
func (Invite) Needs(Caller) Role    { return Admin }

func (i Invite) Handle(c Caller, v View, now Now) (Handled, error) {
	email, err := ParsePersonEmail(i.Email)
	if err != nil {
		return Handled{}, err
	}
	if v.IsMember(email) {
		return Handled{}, nil
	}
	return Handled{Changes: []record.Change{record.MemberInvited{Email: email}}}, nil
}

// Reply: the email, the public address of the riff, and how the person
// joins.
func (i Invite) Reply(c Caller, v View, d Done, now Now) wire.InviteReply {
	email, _ := ParseEmail(i.Email)
	reply := wire.InviteReply{Email: email, Server: v.opts.PublicAddress}
	join := "riff login"
	if reply.Server != "" {
		join = "riff login --server " + reply.Server
	}
	if _, ok := madeOf[record.MemberInvited](d); ok {
		reply.Text = fmt.Sprintf("%s may join the riff now. The person signs in with: %s", email, join)
	} else {
		reply.Text = fmt.Sprintf("%s is a member of the riff already. The person signs in with: %s", email, join)
	}
	return reply
}

// Remove takes a member out of the riff, also a person whom the allowed
// domain let in; the engine then ends each sign-in of the person, and
// the user name of the person is free for another email. Only an admin can, and only the owner removes
// an admin. The owner and an admin of the settings cannot be removed.
type Remove struct {
	wire.Remove
	base
}

func (Remove) Kind() record.Command { return record.CommandRemove }
func (Remove) Needs(Caller) Role    { return Admin }

func (r Remove) Handle(c Caller, v View, now Now) (Handled, error) {
	email, err := ParseEmail(r.Email)
	if err != nil {
		return Handled{}, err
	}
	p := v.riff.People
	switch {
	case email == p.Owner:
		return Handled{}, wire.Refuse(wire.NotAllowed, "%s is the owner; the owner passes the owner role first with: riff owner --pass EMAIL", email)
	case slices.Contains(v.opts.Admins, email):
		return Handled{}, settingsAdmin(email)
	case !slices.Contains(p.Members, email) && (p.userOf(email) == "" || !v.IsMember(email)):
		// A person whom the allowed domain let in has no member record,
		// and is removed like a member: the domain lets the email in no
		// more, and its user name is free.
		return Handled{}, notMember(email)
	case slices.Contains(p.Admins, email) && c.Role < Owner:
		return Handled{}, wire.Refuse(wire.NotAllowed, "%s is an admin; only the owner removes an admin", email)
	}
	var changes []record.Change
	// A request for the owner role ends with its person: the server
	// grants no owner role to a person who is gone from the riff.
	if p.Asked == email {
		changes = append(changes, record.OwnerDenied{Email: email})
	}
	return Handled{Changes: append(changes, record.MemberRemoved{Email: email})}, nil
}

// Reply: the email, and the number of sign-ins that ended, which the
// engine counts in its effect (Done.Ended).
func (r Remove) Reply(c Caller, v View, d Done, now Now) wire.EndedReply {
	removed, _ := madeOf[record.MemberRemoved](d)
	return wire.EndedReply{Email: removed.Email, Ended: d.Ended,
		Text: fmt.Sprintf("%s is no member of the riff now, and each sign-in of the person ends.", removed.Email)}
}

// SetAdmin adds or removes an admin. Only the owner can. A person who is
// not a member becomes a member first (member_invited, then admin_set,
// in one chunk); the removal of an admin who is not a member is refused
// with not_member.
type SetAdmin struct {
	wire.SetAdmin
	base
}

func (SetAdmin) Kind() record.Command { return record.CommandSetAdmin }
func (SetAdmin) Needs(Caller) Role    { return Owner }

func (a SetAdmin) Handle(c Caller, v View, now Now) (Handled, error) {
	email, err := ParseEmail(a.Email)
	if err != nil {
		return Handled{}, err
	}
	p := v.riff.People
	if email == p.Owner {
		return Handled{}, bad("%s is the owner: the owner role holds the role of an admin", email)
	}
	if slices.Contains(v.opts.Admins, email) {
		return Handled{}, settingsAdmin(email)
	}
	isAdmin := slices.Contains(p.Admins, email)
	if !a.Admin {
		if !v.IsMember(email) {
			return Handled{}, notMember(email)
		}
		if !isAdmin {
			return Handled{}, nil
		}
		return Handled{Changes: []record.Change{record.AdminSet{Email: email, Admin: false}}}, nil
	}
	if isAdmin {
		return Handled{}, nil
	}
	if _, err := ParsePersonEmail(email); err != nil {
		return Handled{}, err
	}
	var changes []record.Change
	if !slices.Contains(p.Members, email) {
		changes = append(changes, record.MemberInvited{Email: email})
	}
	return Handled{Changes: append(changes, record.AdminSet{Email: email, Admin: true})}, nil
}

// Reply: what the person is now.
func (a SetAdmin) Reply(c Caller, v View, d Done, now Now) wire.TextReply {
	email, _ := ParseEmail(a.Email)
	_, changed := madeOf[record.AdminSet](d)
	_, invited := madeOf[record.MemberInvited](d)
	switch {
	case a.Admin && invited:
		return wire.TextReply{Text: fmt.Sprintf("%s is a member and an admin of the riff now.", email)}
	case a.Admin && changed:
		return wire.TextReply{Text: fmt.Sprintf("%s is an admin of the riff now.", email)}
	case a.Admin:
		return wire.TextReply{Text: fmt.Sprintf("%s is an admin of the riff already.", email)}
	case changed:
		return wire.TextReply{Text: fmt.Sprintf("%s is no admin now, and stays a member of the riff.", email)}
	}
	return wire.TextReply{Text: fmt.Sprintf("%s is no admin of the riff: nothing changed.", email)}
}

// Revoke ends each sign-in of a person: with no email, or the caller's
// own, the sign-ins of the caller, which any member can end. The
// sign-ins of another person need an admin, and those of the owner need
// the owner. The engine ends the sign-ins after the write.
type Revoke struct {
	wire.Revoke
	base
}

func (Revoke) Kind() record.Command { return record.CommandRevoke }

// Needs: a member for the own sign-ins, an admin for another person.
func (r Revoke) Needs(c Caller) Role {
	if r.own(c) {
		return Member
	}
	return Admin
}

// own says whether the revoke names the caller: no email, or its own.
func (r Revoke) own(c Caller) bool {
	if strings.TrimSpace(r.Email) == "" {
		return true
	}
	email, err := ParseEmail(r.Email)
	return err == nil && c.Email != "" && email == c.Email
}

func (r Revoke) Handle(c Caller, v View, now Now) (Handled, error) {
	if r.own(c) {
		if c.Email == "" {
			return Handled{}, bad("the riff knows no email of %s: a person gets one at the first riff login", c.URI.User)
		}
		return Handled{Changes: []record.Change{record.SigninsEnded{Email: c.Email}}}, nil
	}
	email, err := ParseEmail(r.Email)
	if err != nil {
		return Handled{}, err
	}
	p := v.riff.People
	if !v.IsMember(email) && p.userOf(email) == "" {
		return Handled{}, notMember(email)
	}
	if email == p.Owner && c.Role < Owner {
		return Handled{}, wire.Refuse(wire.NotAllowed, "%s is the owner; only the owner ends the sign-ins of the owner", email)
	}
	return Handled{Changes: []record.Change{record.SigninsEnded{Email: email}}}, nil
}

// Reply: the email, and the number of sign-ins that ended, which the
// engine counts in its effect (Done.Ended).
func (r Revoke) Reply(c Caller, v View, d Done, now Now) wire.EndedReply {
	ended, _ := madeOf[record.SigninsEnded](d)
	text := fmt.Sprintf("Each sign-in of %s ends now: the person signs in again with riff login.", ended.Email)
	if r.own(c) {
		text = "Each of your sign-ins ends now, on each machine: riff login signs you in again."
	}
	return wire.EndedReply{Email: ended.Email, Ended: d.Ended, Text: text}
}
