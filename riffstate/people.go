package riffstate

import (
	"fmt"
	"maps"
	"slices"

	"github.com/como-technologies/riff/riffcore/wire"
)

// The people of the log (People: the emails of the users, the members,
// the admins, the owner, the ends of the sign-ins, and the lookups of
// them), their settings (PeopleOptions), and the view of the people for
// riff people, who and whoami.

// PeopleOptions are the settings of the people (docs/people.md): not in
// the log, so handle, the replies and the views read them from the view.
type PeopleOptions struct {
	// Admins are the emails of the admins of the settings: each adds to
	// the role of its person, and no command of the people changes it.
	Admins []string
	// PublicAddress is the address of the riff that a person gives riff
	// login (--server): the reply to an invite names it.
	PublicAddress string
	// OwnerWaitMs is the time that a request for the owner role waits
	// before the server grants it, unless the owner denies it (0: 7
	// days).
	OwnerWaitMs int64
	// OwnerGoneMs is the time with no sign of life after which the owner
	// is gone and the server ends the owner role (0: 30 days).
	OwnerGoneMs int64
	// OwnerWarnMs is how long before that end the server warns the owner
	// (0: 7 days).
	OwnerWarnMs int64
}

// People are the people of a riff with sign-in. A riff with no sign-in
// has none; the records read all the same.
type People struct {
	Emails  map[string]string `json:"emails,omitempty"`
	Members []string          `json:"members,omitempty"`
	Admins  []string          `json:"admins,omitempty"`
	Owner   string            `json:"owner,omitempty"`
	// HadOwner is true once the log named an owner: name_owner names
	// the first owner only in a riff that never had one.
	HadOwner bool   `json:"had_owner,omitempty"`
	Asked    string `json:"asked,omitempty"`
	AskedMs  int64  `json:"asked_ms,omitempty"`
	// Ended holds the position of the last member_removed or
	// signins_ended record of each email.
	Ended map[string]uint64 `json:"ended,omitempty"`
	// EndedUsers holds the position of the last member_removed or
	// signins_ended record of the email of each user: a removal frees
	// the user name, so the end of its sign-ins stays with the user when
	// another email takes the name.
	EndedUsers map[string]uint64 `json:"ended_users,omitempty"`
	// Removed holds each email of a member_removed record that no
	// member_invited let in again: the allowed domain lets none of them
	// join, and each user name that it held is free.
	Removed []string `json:"removed,omitempty"`
}

// SignInOf gives what a load of the sign-ins needs of user: whether the
// log knows the user (a person_joined of its email), and the position of
// the last end of its sign-ins. A name of the server is no person's
// ([ServerNames]): a sign-in of such a user, kept by a build before that
// rule, is not known, so the load drops it.
func (p People) SignInOf(user string) (known bool, ended uint64) {
	if _, ok := p.Emails[user]; !ok || IsServerName(user) {
		return false, 0
	}
	return true, p.EndedOf(user)
}

// EndedOf gives the position of the last end of the sign-ins of user:
// of its email now, and of each email that held the name before.
func (p People) EndedOf(user string) uint64 {
	ended := p.EndedUsers[user]
	if email, ok := p.Emails[user]; ok {
		ended = max(ended, p.Ended[email])
	}
	return ended
}

// userOf gives the user of an email: the user of its first sign-in, or
// empty. Of two users with one email (a log written by hand) it gives
// the first in name order.
func (p People) userOf(email string) string {
	var found string
	for user, e := range p.Emails {
		if e == email && (found == "" || user < found) {
			found = user
		}
	}
	return found
}

// UserOfEmail gives the USER that the riff gave to email, when it knows
// it. The users are sorted, so the answer does not follow map order.
func (v View) UserOfEmail(email string) (string, bool) {
	user := v.riff.People.userOf(email)
	return user, user != ""
}

// People lists the people of the riff for c: the owner and a request
// for the owner role, the admins, the members who signed in, and who may
// join (invited, not signed in yet). Only a member reads the emails; a
// caller who is not a member reads the users alone.
func (v View) People(c Caller, now Now) wire.PeopleReply {
	p := v.riff.People
	emails := v.CallerIsMember(c)
	reply := wire.PeopleReply{Emails: emails && v.opts.SignIn, Admins: []wire.Person{}, Members: []wire.Person{}, MayJoin: []wire.Person{}}
	if !v.opts.SignIn {
		return reply
	}
	reply.Domain = v.opts.AllowedDomain
	person := func(email string) (wire.Person, bool) {
		out := wire.Person{User: p.userOf(email)}
		if reply.Emails {
			out.Email = email
		}
		return out, out.User != "" || out.Email != ""
	}
	if p.Owner != "" {
		if o, ok := person(p.Owner); ok {
			reply.Owner = &o
		}
	}
	if p.Asked != "" {
		if a, ok := person(p.Asked); ok {
			reply.Asked = &a
			reply.AskedDueMs = p.AskedMs + v.ownerWait()
		}
	}
	admins := map[string]bool{}
	for _, e := range p.Admins {
		admins[e] = false
	}
	for _, e := range v.opts.Admins {
		admins[e] = true
	}
	for _, e := range slices.Sorted(maps.Keys(admins)) {
		if e == p.Owner {
			continue
		}
		if a, ok := person(e); ok {
			a.Settings = admins[e]
			reply.Admins = append(reply.Admins, a)
		}
	}
	members := slices.Clone(p.Members)
	slices.Sort(members)
	for _, e := range members {
		if e == p.Owner || slices.Contains(p.Admins, e) || slices.Contains(v.opts.Admins, e) {
			continue
		}
		m, ok := person(e)
		if !ok {
			continue
		}
		if m.User == "" {
			reply.MayJoin = append(reply.MayJoin, m)
		} else {
			reply.Members = append(reply.Members, m)
		}
	}
	return reply
}

// OwnerLine gives the owner line of who and whoami for c: USER (EMAIL)
// to a member, USER alone to a caller who is not one, none in a riff
// with sign-in and no owner, and nothing with no sign-in.
func (v View) OwnerLine(c Caller) string {
	if !v.opts.SignIn {
		return ""
	}
	p := v.riff.People
	if p.Owner == "" {
		return "none"
	}
	user := p.userOf(p.Owner)
	switch {
	case !v.CallerIsMember(c) && user == "":
		return "a person who did not sign in yet"
	case !v.CallerIsMember(c):
		return user
	case user == "":
		return p.Owner + " (did not sign in yet)"
	}
	return fmt.Sprintf("%s (%s)", user, p.Owner)
}
