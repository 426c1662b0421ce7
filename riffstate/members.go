package riffstate

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/quote"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The people of a riff with sign-in: the roles of the callers, the
// members, and the commands invite, remove, set_admin and revoke. The
// owner role is in owner.go; admit (the first sign-in of a person) is in
// people.go. docs/people.md has the rules and the decisions.

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

// MaxEmail is the longest email that a command of the people takes.
const MaxEmail = 254

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

// ParseEmail checks the email of a command of the people and gives it in
// lower case: the riff compares emails as the providers give them, in
// lower case. An email is NAME@DOMAIN in ASCII, as a provider gives it
// (an international domain comes in its xn-- form): NAME holds letters,
// digits and the signs !#$%&'*+-/=?^_`{|}~ and dots, DOMAIN letters,
// digits, dashes and dots; at most 254 bytes. A character that is not
// visible (U+200B, a zero-width space) or that no provider gives makes
// a look-alike of another email, so the refusal names it as U+XXXX.
func ParseEmail(s string) (string, error) {
	trimmed := strings.TrimSpace(s)
	switch {
	case trimmed == "":
		return "", bad("a command of the people names a person by the email: give an email, for example bob@example.com")
	case len(trimmed) > MaxEmail:
		return "", bad("the email %s has %d bytes; the limit is %d", quote.Input(s), len(trimmed), MaxEmail)
	}
	// The check reads the email as it came: a lower case of U+212A (the
	// Kelvin sign) is k, so a check after it would take a look-alike.
	if why, ok := strangeCharacter(trimmed); ok {
		return "", bad("the email %s holds %s: riff takes an email as the provider gives it. Type the email again, with no such character", quote.Input(s), why)
	}
	e := strings.ToLower(trimmed)
	local, domain, ok := strings.Cut(e, "@")
	if !ok || local == "" || domain == "" || strings.Contains(domain, "@") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") {
		return "", bad("%s is no email: an email is NAME@DOMAIN, for example bob@example.com", quote.Input(s))
	}
	if i := strings.IndexFunc(domain, func(r rune) bool { return !(r == '-' || r == '.' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9') }); i >= 0 {
		return "", bad("the email %s holds %s in its domain: a domain holds letters, digits, dashes and dots", quote.Input(s), characterName(rune(domain[i])))
	}
	return e, nil
}

// strangeCharacter gives the first character of an email that is not in
// an email as a provider gives it, named for a person, or false when
// each character is one.
func strangeCharacter(email string) (string, bool) {
	for i, r := range email {
		switch {
		case r == utf8.RuneError && runeSize(email[i:]) == 1:
			return fmt.Sprintf("a byte that is no UTF-8 (byte %d)", i+1), true
		case r > unicode.MaxASCII && invisible(r):
			return characterName(r) + ", a character that is not visible", true
		case r > unicode.MaxASCII:
			return characterName(r) + ", a character that is not ASCII (a provider gives an email in ASCII, an international domain in its xn-- form)", true
		case r <= ' ' || r == 0x7f:
			return characterName(r) + ", a space or a control character", true
		case !emailSign(r):
			return characterName(r) + ", a sign that no email of a provider has", true
		}
	}
	return "", false
}

// runeSize gives the bytes of the first character of s: 1 for a byte
// that is no UTF-8.
func runeSize(s string) int {
	_, size := utf8.DecodeRuneInString(s)
	return size
}

// emailSign says whether an ASCII character may be in an email: a
// letter, a digit, @, a dot, or a sign of the atext of RFC 5322 §3.2.3.
func emailSign(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("@.!#$%&'*+-/=?^_`{|}~", r)
}

// invisible says whether a character shows nothing by itself: a format
// character (U+200B, U+200D, U+2060, U+FEFF, the marks of direction), a
// space, a combining mark, a variation selector, a default ignorable
// code point (U+3164, U+115F), or a character that does not print.
func invisible(r rune) bool {
	return !unicode.IsGraphic(r) || unicode.IsSpace(r) || unicode.In(r, unicode.Cf, unicode.Mn, unicode.Me,
		unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// characterName names a character as U+200B, with the character itself
// in quotes when it shows.
func characterName(r rune) string {
	if r <= unicode.MaxASCII && r > ' ' && r != 0x7f || r > unicode.MaxASCII && !invisible(r) {
		return fmt.Sprintf("U+%04X (%q)", r, r)
	}
	return fmt.Sprintf("U+%04X", r)
}

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

// checkChat refuses the thread chat to a caller who is not a member, in
// a riff with sign-in: only a member reads or posts in chat.
func (v View) checkChat(c Caller, t name.Thread) error {
	if t != name.Chat || v.CallerIsMember(c) {
		return nil
	}
	return wire.Refuse(wire.NotAllowed, "only a member of the riff reads or posts in chat: %s is no member. An admin invites a person with: riff invite EMAIL", c.URI.User)
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
