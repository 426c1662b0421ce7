package riffstate

import (
	"errors"
	"fmt"
	"slices"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The first sign-in of a person: admit, which the token path sends at
// each sign-in (who may join, the USER of the email, who holds a user
// name, the first owner), name_owner of the setting --owner, and the end
// of the sign-ins that the check of each command reads.

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
// email) whom no remove took out. A known email makes no record. A new
// one gets the USER of the part before @, refused when it is a name of
// the server, when another email holds it, or, for a person whom only
// the domain lets in, when an email that the owner or an admin named
// keeps it for its first sign-in. The first sign-in of a person in a
// riff where nobody can take the owner role makes that person the owner
// ([View.firstOwner]).
func (a Admit) Handle(c Caller, v View, now Now) (Handled, error) {
	email, err := ParseEmail(a.Email)
	if err != nil {
		return Handled{}, err
	}
	if !v.MayJoin(email, a.Domain) {
		return Handled{}, wire.Refuse(wire.NotMember, "%s is not a member of this riff: the owner or an admin invites a person with riff invite %s", email, email)
	}
	user, known := v.UserOfEmail(email)
	if !known {
		if user, err = UserOfEmail(email); err != nil {
			return Handled{}, err
		}
	}
	if IsServerName(user) {
		return Handled{}, wire.Refuse(wire.NotAllowed, "%s would sign in as the user %s, and %s is a name of riff-server itself (riff@server): no person can have it. Sign in with another email, whose part before @ is not %s; an admin invites it with riff invite EMAIL", email, user, user, user)
	}
	if known {
		return Handled{}, nil
	}
	if err := v.nameFree(user, email); err != nil {
		return Handled{}, err
	}
	joined := record.PersonJoined{User: user, Email: email}
	if !v.firstOwner() {
		return Handled{Changes: []record.Change{joined}}, nil
	}
	set := record.OwnerSet{Email: email}
	note := v.ownerNote(fmt.Sprintf("owner: %s (%s) is the owner: the first person who signed in to a riff that had no owner and no admin.", user, email), now, joined, set)
	return Handled{Changes: []record.Change{joined, set, note}}, nil
}

// firstOwner says whether the first sign-in of a person makes that
// person the first owner: the riff has no owner and never had one, and
// neither the settings (--owner, --admins) nor the log names anyone who
// could take the role (an admin takes it with riff owner --take).
func (v View) firstOwner() bool {
	p := v.riff.People
	return v.opts.SignIn && p.Owner == "" && !p.HadOwner && v.opts.Owner == "" && len(v.opts.Admins) == 0 && len(p.Admins) == 0
}

// ErrNobodyMayJoin is the refusal of the start of a riff with sign-in
// whose settings and log let nobody join: no owner, no admin, no person
// of the log, no --owner, no --admins and no --allowed-domain. Such a
// riff could never have a person, so it could never get an owner either
// (the first sign-in makes the first owner only when somebody may sign in).
var ErrNobodyMayJoin = errors.New("a riff with sign-in whose log has no people needs --owner EMAIL, --admins EMAILS or --allowed-domain DOMAIN (or RIFF_OWNER, RIFF_ADMINS, RIFF_ALLOWED_DOMAIN): with none of them nobody may join it")

// MayBeJoined gives ErrNobodyMayJoin for a riff with sign-in that lets
// nobody join (see ErrNobodyMayJoin), and nil for any other riff. The
// token layer asks it when it starts, after the replay of the log.
func (v View) MayBeJoined() error {
	if !v.opts.SignIn {
		return nil
	}
	p := v.riff.People
	if p.Owner != "" || len(p.Admins) > 0 || len(p.Members) > 0 || len(p.Emails) > 0 ||
		v.opts.Owner != "" || len(v.opts.Admins) > 0 || v.opts.AllowedDomain != "" {
		return nil
	}
	return ErrNobodyMayJoin
}

// nameFree refuses the user name user to the new email when another
// email holds it: the email that signed in with it (a remove frees it),
// or, for an email that only the allowed domain lets in, an email that
// the settings or the log name and that did not sign in yet (the owner,
// an admin, an invited person keep the name for their first sign-in).
// Each text says what the person or an admin does.
func (v View) nameFree(user, email string) error {
	p := v.riff.People
	if other, ok := p.Emails[user]; ok && other != email && !slices.Contains(p.Removed, other) {
		free := "the person signs in with another email, whose part before @ is not " + user
		if other != p.Owner && !slices.Contains(v.opts.Admins, other) {
			free = "an admin frees the name with riff remove " + other + ", or you sign in with another email"
		}
		return wire.Refuse(wire.NotAllowed, "the user %s of this riff has the email %s, so %s cannot join as %s: %s", user, other, email, user, free)
	}
	if v.namedPerson(email) {
		return nil
	}
	for _, kept := range v.keptNames() {
		if kept.user != user || kept.email == email {
			continue
		}
		what := "an invited person, " + kept.email + ": an admin takes the invite back with riff remove " + kept.email + ", or you sign in with another email"
		switch {
		case kept.email == p.Owner || kept.email == v.opts.Owner:
			what = "the owner, " + kept.email + ", who did not sign in yet: sign in with another email, whose part before @ is not " + user
		case slices.Contains(v.opts.Admins, kept.email):
			what = "an admin of the settings, " + kept.email + ", who did not sign in yet: sign in with another email, whose part before @ is not " + user
		}
		return wire.Refuse(wire.NotAllowed, "the user %s of this riff is kept for %s", user, what)
	}
	return nil
}

// keptName is a user name that an email named by the settings or the
// log keeps for its first sign-in.
type keptName struct{ user, email string }

// keptNames gives the user names that the owner, the admins and the
// members keep before they sign in, in the order of the email.
func (v View) keptNames() []keptName {
	p := v.riff.People
	emails := slices.Concat([]string{v.opts.Owner, p.Owner}, v.opts.Admins, p.Admins, p.Members)
	slices.Sort(emails)
	var kept []keptName
	for _, e := range slices.Compact(emails) {
		if e == "" || p.userOf(e) != "" {
			continue
		}
		if user, err := UserOfEmail(e); err == nil {
			kept = append(kept, keptName{user: user, email: e})
		}
	}
	return kept
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
	email, err := ParsePersonEmail(n.Email)
	if err != nil {
		return Handled{}, bad("--owner: %v", err)
	}
	p := v.riff.People
	if p.Owner != "" || p.HadOwner {
		return Handled{}, nil
	}
	return Handled{Changes: []record.Change{record.OwnerSet{Email: email}}}, nil
}

func (NameOwner) Reply(Caller, View, Done, Now) struct{} { return struct{}{} }

// SignInCaller is the caller of the command admit: the sign-in of user
// (the USER that [UserOfEmail] gives for its email).
func SignInCaller(user string) Caller {
	return Caller{URI: name.SessionURI{User: user}, Class: record.ClassSignIn}
}

// LostSignIn is the text of a call of a sign-in that ended.
const LostSignIn = "the sign-in of this machine ended: run riff login"

// Ended gives the position of the last end of the sign-ins of user (a
// member_removed or signins_ended record of its email), 0 with none.
func (v View) Ended(user string) uint64 { return v.riff.People.EndedOf(user) }
