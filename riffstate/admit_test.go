package riffstate

import (
	"testing"

	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

func admit(email, domain string) step { return as[AdmitReply](Admit{Email: email, Domain: domain}) }

func nameOwner(email string) step { return as[struct{}](NameOwner{Email: email}) }

func (f *fixture) whenSignIn(email string, cmd step) *fixture {
	user, err := UserOfEmail(email)
	if err != nil {
		f.t.Fatal(err)
	}
	return f.whenAt(SignInCaller(user), cmd)
}

func TestGivenTheOwnerOfTheSettingsWhenTheySignInThenTheyJoinAsTheUserOfTheEmail(t *testing.T) {
	opts := Options{SignIn: true, Owner: "ada@example.com"}
	givenIn(t, opts).whenSignIn("ada@example.com", admit("Ada@Example.com", "")).
		then(record.PersonJoined{User: "ada", Email: "ada@example.com"})
}

func TestGivenTheAllowedDomainWhenAPersonOfItSignsInThenTheyJoin(t *testing.T) {
	opts := Options{SignIn: true, AllowedDomain: "example.com", Owner: "ada@example.com"}
	// The domain of the email.
	givenIn(t, opts).whenSignIn("bob.smith+x@example.com", admit("bob.smith+x@example.com", "")).
		then(record.PersonJoined{User: "bob.smith-x", Email: "bob.smith+x@example.com"})
	// The hosted domain of the ID token, for an email of another domain.
	givenIn(t, opts).whenSignIn("bob@alias.org", admit("bob@alias.org", "example.com")).
		then(record.PersonJoined{User: "bob", Email: "bob@alias.org"})
}

func TestGivenAPersonWhoMayNotJoinWhenTheySignInThenNotMember(t *testing.T) {
	opts := Options{SignIn: true, Owner: "ada@example.com", AllowedDomain: "example.com"}
	reason := givenIn(t, opts).whenSignIn("eve@evil.example", admit("eve@evil.example", "evil.example")).thenRefused(wire.NotMember)
	if reason == "" {
		t.Error("not_member has no text")
	}
	// No domain in the settings: only the people of the log and the owner.
	givenIn(t, Options{SignIn: true}).whenSignIn("bob@example.com", admit("bob@example.com", "example.com")).thenRefused(wire.NotMember)
}

func TestGivenAMemberOfTheLogWhenTheySignInThenTheyJoin(t *testing.T) {
	opts := Options{SignIn: true}
	givenIn(t, opts, rec("server", "invite", record.MemberInvited{Email: "cy@other.org"}), rec("server", "set_admin", record.AdminSet{Email: "ann@other.org", Admin: true})).
		whenSignIn("cy@other.org", admit("cy@other.org", "")).
		then(record.PersonJoined{User: "cy", Email: "cy@other.org"})
	givenIn(t, opts, rec("server", "name_owner", record.OwnerSet{Email: "own@other.org"})).
		whenSignIn("own@other.org", admit("own@other.org", "")).
		then(record.PersonJoined{User: "own", Email: "own@other.org"})
}

func TestGivenAnAdminOfTheSettingsWhenTheySignInThenTheyJoin(t *testing.T) {
	opts := Options{SignIn: true, PeopleOptions: PeopleOptions{Admins: []string{"sam@other.org"}}}
	givenIn(t, opts).whenSignIn("sam@other.org", admit("sam@other.org", "")).
		then(record.PersonJoined{User: "sam", Email: "sam@other.org"})
}

func TestGivenAKnownEmailWhenItSignsInAgainThenNoRecord(t *testing.T) {
	opts := Options{SignIn: true, AllowedDomain: "example.com"}
	f := givenIn(t, opts, rec("", "admit", record.PersonJoined{User: "ada", Email: "ada@example.com"}))
	f.whenSignIn("ada@example.com", admit("ada@example.com", "")).then()
}

func TestGivenTheUserOfTheEmailIsTakenWhenAnotherEmailSignsInThenRefused(t *testing.T) {
	opts := Options{SignIn: true, AllowedDomain: "example.com", Owner: "ada@other.org"}
	f := givenIn(t, opts, rec("", "admit", record.PersonJoined{User: "ada", Email: "ada@example.com"}))
	f.whenSignIn("ada@other.org", admit("ada@other.org", "")).thenRefused(wire.NotAllowed)
}

func TestGivenAnEmailThatGivesNoUserWhenItSignsInThenBadRequest(t *testing.T) {
	opts := Options{SignIn: true, AllowedDomain: "example.com"}
	givenIn(t, opts).whenSignIn("ada@example.com", admit("@example.com", "")).thenRefused(wire.BadRequest)
}

func TestGivenASessionWhenItSendsAdmitThenNotAllowed(t *testing.T) {
	opts := Options{SignIn: true, AllowedDomain: "example.com"}
	givenIn(t, opts).when("ann/s1", admit("ann@example.com", "")).thenRefused(wire.NotAllowed)
}

func TestGivenNoOwnerAndNoneBeforeWhenNameOwnerRunsThenOwnerSet(t *testing.T) {
	opts := Options{SignIn: true}
	givenIn(t, opts).whenServer(nameOwner("ada@example.com")).then(record.OwnerSet{Email: "ada@example.com"})
	// The riff has an owner: no change.
	givenIn(t, opts, rec("server", "name_owner", record.OwnerSet{Email: "bob@example.com"})).
		whenServer(nameOwner("ada@example.com")).then()
	// The riff had an owner, who ended: no change either.
	givenIn(t, opts, rec("server", "name_owner", record.OwnerSet{Email: "bob@example.com"}),
		rec("server", "end_owner", record.OwnerEnded{Email: "bob@example.com"})).
		whenServer(nameOwner("ada@example.com")).then()
	// Only the server sends it.
	givenIn(t, opts).as(Owner).when("ann", nameOwner("ada@example.com")).thenRefused(wire.NotAllowed)
}

func TestGivenTheOwnerOfTheLogWhenTheyCallThenTheirRoleIsOwner(t *testing.T) {
	s := New(Options{SignIn: true})
	s.Replay(numbered(recs(
		rec("", "admit", record.PersonJoined{User: "ann", Email: "ann@example.com"}),
		rec("server", "name_owner", record.OwnerSet{Email: "ann@example.com"}),
		rec("", "admit", record.PersonJoined{User: "bob", Email: "bob@example.com"}),
	), 1)...)
	if got := s.Caller(CallerOf(uri("ann"))).Role; got != Owner {
		t.Errorf("role of the owner = %s; want owner", got)
	}
	if got := s.Caller(CallerOf(uri("bob/s1"))).Role; got != Member {
		t.Errorf("role of bob = %s; want member", got)
	}
}

func TestUserOfEmail(t *testing.T) {
	for _, tc := range []struct{ email, want string }{
		{"ada@example.com", "ada"},
		{"Ada.Lovelace@example.com", "ada.lovelace"},
		{"a+b@example.com", "a-b"},
	} {
		if got, err := UserOfEmail(tc.email); err != nil || got != tc.want {
			t.Errorf("UserOfEmail(%q) = %q, %v; want %q", tc.email, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "@example.com", "no-at", "grüß@example.com", "ada\u200b@example.com"} {
		if got, err := UserOfEmail(bad); err == nil {
			t.Errorf("UserOfEmail(%q) = %q; want an error", bad, got)
		}
	}
}

func TestGivenTheSignInsOfAUserEndedWhenACallerOfAnOlderSignInSendsACommandThenBadToken(t *testing.T) {
	opts := Options{SignIn: true}
	f := givenIn(t, opts,
		rec("", "admit", record.PersonJoined{User: "ann", Email: "ann@example.com"}),
		rec("", "register", started("ann/s1", record.ReasonJoin, false)),
		rec("server", "revoke", record.SigninsEnded{Email: "ann@example.com"}), // position 3
	)
	old := CallerOf(uri("ann/s1"))
	old.SignedInAt = 2
	reason := f.whenAt(old, claim("", "issue-1")).thenRefused(wire.BadToken)
	if reason != LostSignIn {
		t.Errorf("reason = %q; want %q", reason, LostSignIn)
	}
	// A sign-in at the end or after it acts.
	fresh := CallerOf(uri("ann/s1"))
	fresh.SignedInAt = 3
	f.whenAt(fresh, claim("", "issue-1")).then(claimed("ann/s1", repo, "issue-1"))
}
