package riffstate

import (
	"slices"
	"strings"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The roles and the membership of a caller: the role from the people of
// a copy (WithRole), who is a member (IsMember), who may join (MayJoin),
// and what only a member does (chat).

// NoOwner is the reason of a command that needs the owner in a riff with
// no owner. permits reads only the caller, so [Check] gives this text.
const NoOwner = "the riff has no owner; an admin takes the owner role with: riff owner --take"

// noOwner gives the refusal of permits, or, for a command that needs
// the owner in a riff with no owner, the refusal [NoOwner]: permits
// reads only the caller, so the state puts that text in.
func (s *State) noOwner(kind record.Command, c Caller, needs Role, refused *wire.Refused) *wire.Refused {
	row, _ := rowOf(kind)
	if needs == Owner && c.Role < Owner && slices.Contains(row.Classes, c.Class) && s.opts.SignIn && s.pending.People.Owner == "" {
		return wire.Refuse(wire.NotAllowed, "%s", NoOwner)
	}
	return refused
}

// WithRole gives c its role from the people of the view: the owner, an
// admin (of the log, or of the settings) or a member; an admin in a
// riff with no sign-in. It sets the email of its user too. [State.Caller]
// calls it with the pending copy; a query calls it with the written
// copy, so a query reads the people of the written copy.
func (v View) WithRole(c Caller) Caller {
	if c.Class == record.ClassServer {
		return c
	}
	if !v.opts.SignIn {
		c.Role, c.Email = Admin, ""
		return c
	}
	c.Email = v.riff.People.Emails[c.URI.User]
	c.Role = v.roleOf(c.Email)
	return c
}

// roleOf gives the role of the person of an email.
func (v View) roleOf(email string) Role {
	p := v.riff.People
	switch {
	case email == "":
		return Member
	case email == p.Owner:
		return Owner
	case slices.Contains(p.Admins, email), slices.Contains(v.opts.Admins, email):
		return Admin
	}
	return Member
}

// roleOf gives the role of user in a riff with sign-in: the owner of the
// log, an admin of the log, else a member.
func (p People) roleOf(user string) Role {
	email, ok := p.Emails[user]
	switch {
	case !ok:
		return Member
	case email == p.Owner:
		return Owner
	case slices.Contains(p.Admins, email):
		return Admin
	}
	return Member
}

// IsMember says whether the person of an email is a member of the riff:
// a member, an admin or the owner in the log, or by the settings an
// admin, the owner that --owner names, or a person of the allowed
// domain (who may join as a member does) whom no remove took out.
func (v View) IsMember(email string) bool {
	if email == "" {
		return false
	}
	p := v.riff.People
	if email == p.Owner || slices.Contains(p.Members, email) || slices.Contains(p.Admins, email) ||
		slices.Contains(v.opts.Admins, email) || email == v.opts.Owner {
		return true
	}
	_, domain, _ := strings.Cut(email, "@")
	return v.opts.AllowedDomain != "" && strings.EqualFold(domain, v.opts.AllowedDomain) && !slices.Contains(p.Removed, email)
}

// CallerIsMember says whether the user of c is a member, from the people
// of the view. Each caller of a riff with no sign-in is one.
func (v View) CallerIsMember(c Caller) bool {
	if !v.opts.SignIn || c.Class == record.ClassServer {
		return true
	}
	return v.IsMember(v.riff.People.Emails[c.URI.User])
}

// MayJoin says whether the person of email (and hosted domain, "" with
// none) may join: the owner or an admin that the settings name, the
// owner, an admin or a member of the log, or the allowed domain of the
// settings, unless a remove took the email out.
func (v View) MayJoin(email, domain string) bool {
	if v.namedPerson(email) {
		return true
	}
	allowed := v.opts.AllowedDomain
	if allowed == "" || slices.Contains(v.riff.People.Removed, email) {
		return false
	}
	_, emailDomain, _ := strings.Cut(email, "@")
	return strings.EqualFold(domain, allowed) || strings.EqualFold(emailDomain, allowed)
}

// namedPerson says whether the settings or the log name email: the owner, an
// admin or a member, who may join with no help of the allowed domain.
func (v View) namedPerson(email string) bool {
	p := v.riff.People
	return email == v.opts.Owner || slices.Contains(v.opts.Admins, email) ||
		email == p.Owner || slices.Contains(p.Admins, email) || slices.Contains(p.Members, email)
}

// checkChat refuses the thread chat to a caller who is not a member, in
// a riff with sign-in: only a member reads or posts in chat.
func (v View) checkChat(c Caller, t name.Thread) error {
	if t != name.Chat || v.CallerIsMember(c) {
		return nil
	}
	return wire.Refuse(wire.NotAllowed, "only a member of the riff reads or posts in chat: %s is no member. An admin invites a person with: riff invite EMAIL", c.URI.User)
}
