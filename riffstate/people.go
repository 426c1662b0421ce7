package riffstate

import (
	"slices"
	"strings"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The group people: the commands of the sign-in of a person and of the
// owner named by the settings. The rest of the commands of the people
// (invite, remove, set_admin, the owner role, revoke) are the next issue.

// Admit is the command of the token path at each sign-in of a person
// (class sign_in): it checks that the person may join, then the USER of
// the email, and gives a user its email at its first sign-in. The engine
// sends it with a caller whose user is [UserOfEmail] of the email.
type Admit struct {
	// Email is the verified email of the ID token.
	Email string
	// Domain is the hosted domain of the ID token (hd), "" with none.
	Domain string
	base
}

// AdmitReply is the reply of admit: the USER of the person in the riff.
type AdmitReply struct {
	User string
}

func (Admit) Kind() record.Command { return record.CommandAdmit }

// Handle admits a person who may join: the owner that the settings name
// (--owner), the owner, an admin or a member of the log, or a person of
// the allowed domain of the settings (the hd claim, or the domain of the
// email). A known email makes no record. A new one gets the USER of the
// part before @, refused when another email has it.
func (a Admit) Handle(c Caller, v View, now Now) (Handled, error) {
	email := NormalEmail(a.Email)
	if email == "" || strings.Count(email, "@") != 1 {
		return Handled{}, bad("the ID token has no email that riff can read")
	}
	if !v.MayJoin(email, a.Domain) {
		return Handled{}, wire.Refuse(wire.NotMember, "%s is not a member of this riff: the owner or an admin invites a person with riff invite %s", email, email)
	}
	if _, known := v.UserOfEmail(email); known {
		return Handled{}, nil
	}
	user, err := UserOfEmail(email)
	if err != nil {
		return Handled{}, bad("%v", err)
	}
	if other, taken := v.riff.People.Emails[user]; taken && other != email {
		return Handled{}, wire.Refuse(wire.NotAllowed, "the user %s of this riff has another email, so %s cannot join as %s: ask the owner", user, email, user)
	}
	return Handled{Changes: []record.Change{record.PersonJoined{User: user, Email: email}}}, nil
}

// Reply gives the USER of the email, as the written copy holds it.
func (a Admit) Reply(c Caller, v View, d Done, now Now) AdmitReply {
	if user, ok := v.UserOfEmail(NormalEmail(a.Email)); ok {
		return AdmitReply{User: user}
	}
	return AdmitReply{User: c.URI.User}
}

// NameOwner is the command of the server for the setting --owner, which
// runs once after the load in a riff with sign-in: it names the owner
// when the riff has no owner and never had one.
type NameOwner struct {
	Email string
	base
}

func (NameOwner) Kind() record.Command { return record.CommandNameOwner }

func (n NameOwner) Handle(c Caller, v View, now Now) (Handled, error) {
	email := NormalEmail(n.Email)
	if email == "" || strings.Count(email, "@") != 1 {
		return Handled{}, bad("--owner needs an email, not %q", n.Email)
	}
	p := v.riff.People
	if p.Owner != "" || p.HadOwner {
		return Handled{}, nil
	}
	return Handled{Changes: []record.Change{record.OwnerSet{Email: email}}}, nil
}

func (NameOwner) Reply(Caller, View, Done, Now) struct{} { return struct{}{} }

// MayJoin says whether the person of email (and hosted domain, "" with
// none) may join: the owner or an admin that the settings name, the
// owner, an admin or a member of the log, or the allowed domain of the
// settings.
func (v View) MayJoin(email, domain string) bool {
	p := v.riff.People
	if email == v.opts.Owner || slices.Contains(v.opts.Admins, email) ||
		email == p.Owner || slices.Contains(p.Admins, email) || slices.Contains(p.Members, email) {
		return true
	}
	allowed := v.opts.AllowedDomain
	if allowed == "" {
		return false
	}
	_, emailDomain, _ := strings.Cut(email, "@")
	return strings.EqualFold(domain, allowed) || strings.EqualFold(emailDomain, allowed)
}

// UserOfEmail gives the USER that the riff gave to email, when it knows
// it. The users are sorted, so the answer does not follow map order.
func (v View) UserOfEmail(email string) (string, bool) {
	user := v.riff.People.userOf(email)
	return user, user != ""
}

// Ended gives the position of the last end of the sign-ins of user (a
// member_removed or signins_ended record of its email), 0 with none.
func (v View) Ended(user string) uint64 {
	email, ok := v.riff.People.Emails[user]
	if !ok {
		return 0
	}
	return v.riff.People.Ended[email]
}

// UserOfEmail makes the USER of an email: the part before @, in lower
// case, with each character that a user name cannot hold as '-'.
func UserOfEmail(email string) (string, error) {
	local, _, ok := strings.Cut(strings.ToLower(email), "@")
	if !ok || local == "" {
		return "", bad("the email %q has no part before @", email)
	}
	var b strings.Builder
	for _, r := range local {
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	user := b.String()
	if len(user) > name.MaxNameLen {
		user = user[:name.MaxNameLen]
	}
	if err := name.CheckUser(user); err != nil {
		return "", bad("the email %q gives no user name: %v", email, err)
	}
	return user, nil
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

// LostSignIn is the text of a call of a sign-in that ended.
const LostSignIn = "the sign-in of this machine ended: run riff login"

// NormalEmail gives an email as the people hold it: lower case, with no
// space around it.
func NormalEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// SignInCaller is the caller of the command admit: the sign-in of user
// (the USER that [UserOfEmail] gives for its email).
func SignInCaller(user string) Caller {
	return Caller{URI: name.SessionURI{User: user}, Class: record.ClassSignIn}
}
