package riffstate

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The names of the people (docs/people.md): the names of the server, the
// user names that the owner and the invited emails keep, the characters
// of an email, and the first owner.

// signInAs runs admit of email through Run, as the token path sends it.
func (f *fixture) signInAs(email string) (AdmitReply, error) {
	f.t.Helper()
	user, err := UserOfEmail(email)
	if err != nil {
		return AdmitReply{}, err
	}
	reply, _, err := admit(email, "").run(f.s, SignInCaller(user), f.now)
	if err != nil {
		return AdmitReply{}, err
	}
	return reply.(AdmitReply), nil
}

func (f *fixture) mustSignInAs(email string) AdmitReply {
	f.t.Helper()
	reply, err := f.signInAs(email)
	if err != nil {
		f.t.Fatalf("the sign-in of %s is refused: %v", email, err)
	}
	return reply
}

// whenSignInRaw runs admit of email with the caller that the token path
// gives it, also for an email that gives no user.
func (f *fixture) whenSignInRaw(email string) *fixture {
	user, err := UserOfEmail(email)
	if err != nil {
		f.handled, f.err = Handled{}, err
		return f
	}
	return f.whenAt(SignInCaller(user), admit(email, ""))
}

// The names of the server.

func TestGivenAnEmailWhoseUserIsANameOfTheServerWhenAnAdminInvitesItOrMakesItAnAdminThenRefusedWithWhatToDo(t *testing.T) {
	for _, email := range []string{"riff@outside.test", "Riff@Outside.test", " RIFF@outside.test", "riff-server@outside.test"} {
		givenTeam(t).when("bob", inviteOf(email)).
			thenReason(wire.NotAllowed, "a name of riff-server itself (riff@server): no person can have it", "Invite another email of the person")
		givenTeam(t).when("ann", setAdminOf(email, true)).thenReason(wire.NotAllowed, "riff-server itself")
	}
	// A name that only starts as the server's is a person's name.
	givenTeam(t).when("bob", inviteOf("riff.bot@outside.test")).then(record.MemberInvited{Email: "riff.bot@outside.test"})
	givenTeam(t).when("bob", inviteOf("riff+x@outside.test")).then(record.MemberInvited{Email: "riff+x@outside.test"})
}

func TestGivenAnEmailWhoseUserIsANameOfTheServerWhenItSignsInThenRefusedAlsoWhenTheLogKnowsIt(t *testing.T) {
	// An invite that a build before the rule wrote.
	f := givenIn(t, signIn, team(), rec("ann", "invite", record.MemberInvited{Email: "riff@outside.test"}))
	f.whenSignIn("riff@outside.test", admit("riff@outside.test", "")).
		thenReason(wire.NotAllowed, "riff@outside.test would sign in as the user riff", "Sign in with another email, whose part before @ is not riff")
	// A person who signed in as riff before the rule signs in no more.
	f = givenIn(t, signIn, team(), rec("ann", "invite", record.MemberInvited{Email: "riff@outside.test"}),
		rec("", "admit", record.PersonJoined{User: "riff", Email: "riff@outside.test"}))
	f.whenSignIn("riff@outside.test", admit("riff@outside.test", "")).thenRefused(wire.NotAllowed)
	// The allowed domain lets no person in as the server either.
	opts := signIn
	opts.AllowedDomain = "outside.test"
	givenIn(t, opts, team()).whenSignIn("riff-server@outside.test", admit("riff-server@outside.test", "")).thenRefused(wire.NotAllowed)
}

func TestGivenTheSettingsNameAnEmailOfTheServerAsTheOwnerWhenNameOwnerRunsThenTheStartIsRefused(t *testing.T) {
	opts := signIn
	opts.Owner = "riff@outside.test"
	givenIn(t, opts).whenServer(nameOwner("riff@outside.test")).thenReason(wire.BadRequest, "--owner", "riff-server itself")
}

func TestGivenADirectThreadWithTheServerWhenAPersonOrASessionPostsIntoItThenRefusedWhateverTheUserName(t *testing.T) {
	for _, f := range []func() *fixture{
		func() *fixture { return givenTeam(t) },
		func() *fixture { return given(t, member("carl/c001", false)) },
	} {
		// The session answers the direct message of the server.
		f().when("carl/c001", tell("~riff", "I stopped the work")).
			thenReason(wire.NotAllowed, "only riff-server writes in its direct threads")
		f().when("carl/c001", post("dm:~riff", "I stopped the work")).thenRefused(wire.NotAllowed)
		f().when("carl", tell("~riff-server", "hello")).thenRefused(wire.NotAllowed)
		f().when("carl", post("dm:~riff", "hello")).thenRefused(wire.NotAllowed)
	}
	// The server still writes there.
	f := given(t, member("carl/c001", false))
	f.whenServer(announce("dm:c001+~riff", "claims: your claim ended")).then(
		record.Posted{Thread: "dm:c001+~riff", Seq: 1, Sender: ServerURI(), Type: record.MessageNote})
}

func TestGivenACallerWhoseUserIsANameOfTheServerWhenItPostsThenRefusedInEachThread(t *testing.T) {
	// A riff with no sign-in takes the user that a caller names.
	for _, who := range []string{"riff", "riff/s1", "riff-server/s2"} {
		f := given(t, member("carl/c001", false))
		f.when(who, post("chat", "owner: you are the owner now")).
			thenReason(wire.NotAllowed, "a name of riff-server itself: only riff-server posts as it")
		given(t, member("carl/c001", false)).when(who, tell("c001", "claims: stop the work")).thenRefused(wire.NotAllowed)
		given(t, member("carl/c001", false)).when(who, post(repo, "stop")).thenRefused(wire.NotAllowed)
	}
	// A person of a log from before the rule, in a riff with sign-in.
	old := givenTeam(t, rec("ann", "invite", record.MemberInvited{Email: "riff@outside.test"}),
		rec("", "admit", record.PersonJoined{User: "riff", Email: "riff@outside.test"}))
	old.when("riff", post("chat", "hello")).thenRefused(wire.NotAllowed)
}

// The user names that the owner and the invited emails keep.

// domainTeam is a riff with sign-in whose owner of the settings is
// boss@gmail.test and whose allowed domain is corp.test.
func domainTeam() Options {
	opts := signIn
	opts.Owner, opts.AllowedDomain = "boss@gmail.test", "corp.test"
	return opts
}

func TestGivenTheOwnerOfTheSettingsHasNotSignedInWhenAPersonOfTheDomainWithItsUserSignsInFirstThenRefusedAndTheOwnerJoinsAsTheUser(t *testing.T) {
	f := givenIn(t, domainTeam(), rec("server", "name_owner", record.OwnerSet{Email: "boss@gmail.test"}))
	f.whenSignIn("boss@corp.test", admit("boss@corp.test", "")).
		thenReason(wire.NotAllowed, "the user boss of this riff is kept for the owner, boss@gmail.test", "sign in with another email")
	// Before name_owner ran, the setting keeps it all the same.
	givenIn(t, domainTeam()).whenSignIn("boss@corp.test", admit("boss@corp.test", "")).thenRefused(wire.NotAllowed)
	if got := f.mustSignInAs("boss@gmail.test"); got.User != "boss" {
		t.Errorf("the owner signs in as %q; want boss", got.User)
	}
	// Another person of the domain joins.
	f.whenSignIn("ann@corp.test", admit("ann@corp.test", "")).then(record.PersonJoined{User: "ann", Email: "ann@corp.test"})
}

func TestGivenAnInvitedEmailHasNotSignedInWhenAPersonOfTheDomainWithItsUserSignsInThenRefusedUntilAnAdminTakesTheInviteBack(t *testing.T) {
	f := givenIn(t, domainTeam(), rec("server", "name_owner", record.OwnerSet{Email: "boss@gmail.test"}),
		rec("", "invite", record.MemberInvited{Email: "dan@home.test"}))
	f.whenSignIn("dan@corp.test", admit("dan@corp.test", "")).
		thenReason(wire.NotAllowed, "kept for an invited person, dan@home.test", "riff remove dan@home.test")
	f.mustSignInAs("boss@gmail.test")
	f.as(Owner).mustRun("boss", removeOf("dan@home.test"))
	if got := f.mustSignInAs("dan@corp.test"); got.User != "dan" {
		t.Errorf("after the remove of the invite, dan@corp.test signs in as %q; want dan", got.User)
	}
}

func TestGivenAPersonLetInByTheDomainHoldsANameWhenAnAdminRemovesItThenItIsOutAndTheNameIsFree(t *testing.T) {
	opts := signIn
	opts.AllowedDomain = "corp.test"
	f := givenIn(t, opts, joinedRec("ann"), ownerRec("ann"))
	f.mustSignInAs("boss@corp.test")
	// boss@corp.test holds boss: the owner invites boss@gmail.test,
	// whose sign-in names what an admin does.
	f.as(Owner).mustRun("ann", inviteOf("boss@gmail.test"))
	if _, err := f.signInAs("boss@gmail.test"); err == nil || !strings.Contains(err.Error(), "the user boss of this riff has the email boss@corp.test") ||
		!strings.Contains(err.Error(), "an admin frees the name with riff remove boss@corp.test") {
		t.Fatalf("the sign-in of boss@gmail.test = %v; want the name held, and what an admin does", err)
	}
	// The remove of a person whom the domain let in.
	f.as(Owner).when("ann", removeOf("boss@corp.test")).then(record.MemberRemoved{Email: "boss@corp.test"})
	f.as(Owner).mustRun("ann", removeOf("boss@corp.test"))
	removedAt := f.riff().Position
	f.restart()
	// The domain lets the removed email in no more.
	f.whenSignIn("boss@corp.test", admit("boss@corp.test", "corp.test")).thenRefused(wire.NotMember)
	// The name is free: boss@gmail.test takes it.
	if got := f.mustSignInAs("boss@gmail.test"); got.User != "boss" {
		t.Fatalf("boss@gmail.test signs in as %q; want boss", got.User)
	}
	// A session of the removed sign-in of boss changes nothing, also now
	// that the name has another email.
	old := CallerOf(uri("boss/b1"))
	old.SignedInAt = removedAt - 1
	f.as(Member).whenAt(old, claim("", "issue-1")).thenRefused(wire.BadToken)
	fresh := CallerOf(uri("boss/b1"))
	fresh.SignedInAt = removedAt + 1
	f.whenAt(fresh, claim("", "issue-1")).then(claimed("boss/b1", repo, "issue-1"))
	// An invite lets the removed email in again; its name is taken now.
	f.as(Owner).mustRun("ann", inviteOf("boss@corp.test"))
	f.whenSignIn("boss@corp.test", admit("boss@corp.test", "")).thenReason(wire.NotAllowed, "has the email boss@gmail.test")
}

func TestGivenAPersonOfTheDomainWhoNeverSignedInWhenAnAdminRemovesItThenNotMember(t *testing.T) {
	opts := signIn
	opts.AllowedDomain = "corp.test"
	givenIn(t, opts, joinedRec("ann"), ownerRec("ann")).as(Owner).when("ann", removeOf("zoe@corp.test")).thenRefused(wire.NotMember)
}

// The characters of an email.

func TestGivenAnEmailWithACharacterThatIsNotVisibleOrNotOfAProviderWhenInvitedOrSignedInThenRefusedNamingTheCharacter(t *testing.T) {
	opts := signIn
	opts.AllowedDomain = "outside.test"
	for _, tc := range []struct{ email, names string }{
		{"admin\u200b@outside.test", "U+200B, a character that is not visible"},
		{"ad\u200dmin@outside.test", "U+200D, a character that is not visible"},
		{"admin\u2060@outside.test", "U+2060"},
		{"\ufeffadmin@outside.test", "U+FEFF"},
		{"admin\u202e@outside.test", "U+202E"},
		{"admin\u00a0x@outside.test", "U+00A0"},
		{"admin\u3164@outside.test", "U+3164"},
		{"admin\ufe0f@outside.test", "U+FE0F"},
		{"admine\u0301@outside.test", "U+0301"},
		{"\uff41dmin@outside.test", "U+FF41 ('ａ'), a character that is not ASCII"},
		{"\u212aim@outside.test", "U+212A"},
		{"admin@outside\u2024test", "U+2024"},
		{"ad\xffmin@outside.test", "a byte that is no UTF-8 (byte 3)"},
		{"ad(min)@outside.test", "U+0028 ('('), a sign that no email of a provider has"},
		{"admin@out_side.test", "U+005F ('_')"},
	} {
		givenTeam(t).when("bob", inviteOf(tc.email)).thenReason(wire.BadRequest, tc.names)
		givenIn(t, opts, team()).whenSignInRaw(tc.email).thenReason(wire.BadRequest, tc.names)
	}
	// The plain email signs in.
	givenIn(t, opts, team()).whenSignInRaw("admin@outside.test").then(record.PersonJoined{User: "admin", Email: "admin@outside.test"})
}

func FuzzParseEmail(f *testing.F) {
	for _, s := range []string{"bob@example.com", " Bob@Example.com ", "admin\u200b@outside.test", "\u212aim@x.test",
		"a!#$%&'*+-/=?^_`{|}~.z@x-y.test", "@x", "x@", "a@b@c", "\xff@x", "é@x.test", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		email, err := ParseEmail(s)
		if err != nil {
			var refused *wire.Refused
			if !errors.As(err, &refused) || refused.Code != wire.BadRequest || email != "" {
				t.Fatalf("ParseEmail(%q) = %q, %v; want a bad_request and no email", s, email, err)
			}
			if !utf8.ValidString(refused.Reason) {
				t.Fatalf("the reason for %q is no UTF-8: %q", s, refused.Reason)
			}
			return
		}
		if strings.Count(email, "@") != 1 || len(email) > MaxEmail || email != strings.ToLower(email) {
			t.Fatalf("ParseEmail(%q) = %q; want one @, at most %d bytes, lower case", s, email, MaxEmail)
		}
		for _, r := range email {
			if r <= ' ' || r >= 0x7f {
				t.Fatalf("ParseEmail(%q) = %q holds %U; want visible ASCII only", s, email, r)
			}
		}
		if again, err := ParseEmail(email); err != nil || again != email {
			t.Fatalf("ParseEmail(%q) = %q, %v; want the same email again", email, again, err)
		}
	})
}

// The first owner.

func TestGivenARiffWithSignInAndNoOwnerAndNoAdminWhenTheFirstPersonSignsInThenThatPersonIsTheOwner(t *testing.T) {
	opts := signIn
	opts.AllowedDomain = "corp.test"
	f := givenIn(t, opts)
	f.whenSignIn("ada@corp.test", admit("ada@corp.test", "")).then(
		record.PersonJoined{User: "ada", Email: "ada@corp.test"},
		record.OwnerSet{Email: "ada@corp.test"},
		record.Posted{Thread: "chat", Seq: 1, Sender: ServerURI(), Type: record.MessageNote})
	f.mustSignInAs("ada@corp.test")
	if body := lastBody(t, f, "chat"); !strings.Contains(body, "owner: ada (ada@corp.test) is the owner: the first person who signed in") {
		t.Errorf("the note of the first owner: %q", body)
	}
	if got := f.s.Caller(CallerOf(uri("ada"))).Role; got != Owner {
		t.Errorf("the role of the first person = %s; want owner", got)
	}
	// The second person is a member.
	f.whenSignIn("bob@corp.test", admit("bob@corp.test", "")).then(record.PersonJoined{User: "bob", Email: "bob@corp.test"})
}

func TestGivenARiffWhereSomebodyCanTakeTheOwnerRoleWhenAPersonSignsInFirstThenNoOwner(t *testing.T) {
	joinedOnly := []record.Change{record.PersonJoined{User: "ada", Email: "ada@corp.test"}}
	base := signIn
	base.AllowedDomain = "corp.test"
	withAdmins := base
	withAdmins.Admins = []string{"sam@corp.test"}
	withOwner := base
	withOwner.Owner = "sam@corp.test"
	for _, tc := range []struct {
		name  string
		opts  Options
		given []record.Record
	}{
		{"an admin of the settings", withAdmins, nil},
		{"an owner of the settings", withOwner, nil},
		{"an admin of the log", base, recs(rec("server", "set_admin", record.AdminSet{Email: "sam@corp.test", Admin: true}))},
		{"a riff whose owner is gone", base, recs(rec("server", "name_owner", record.OwnerSet{Email: "sam@corp.test"}), rec("server", "end_owner", record.OwnerEnded{Email: "sam@corp.test"}))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			givenIn(t, tc.opts, tc.given).whenSignIn("ada@corp.test", admit("ada@corp.test", "")).then(joinedOnly...)
		})
	}
}

// lastBody gives the text of the last kept message of a thread.
func lastBody(t *testing.T, f *fixture, thread string) string {
	t.Helper()
	th := f.riff().Threads[name.Thread(thread)]
	if th == nil || len(th.Messages) == 0 {
		t.Fatalf("the thread %s has no message", thread)
	}
	return bodyText(th.Messages[len(th.Messages)-1])
}

func TestGivenASignInOfAUserWithANameOfTheServerFromAnOlderBuildWhenTheSignInsLoadThenTheUserIsNotKnown(t *testing.T) {
	f := givenTeam(t, rec("ann", "invite", record.MemberInvited{Email: "riff@outside.test"}),
		rec("", "admit", record.PersonJoined{User: "riff", Email: "riff@outside.test"}))
	if known, _ := f.riff().People.SignInOf("riff"); known {
		t.Error("the load knows the user riff: its sign-in would stay")
	}
	if known, ended := f.riff().People.SignInOf("carl"); !known || ended != 0 {
		t.Errorf("SignInOf(carl) = %v, %d; want known, 0", known, ended)
	}
	if known, _ := f.riff().People.SignInOf("zoe"); known {
		t.Error("the load knows a user that never signed in")
	}
}

func TestGivenARiffWithSignInWhoseSettingsAndLogLetNobodyJoinWhenItStartsThenRefusedNamingTheFlags(t *testing.T) {
	withOwner, withAdmins, withDomain := signIn, signIn, signIn
	withOwner.Owner = "ada@corp.test"
	withAdmins.Admins = []string{"sam@corp.test"}
	withDomain.AllowedDomain = "corp.test"
	for _, tc := range []struct {
		name  string
		opts  Options
		parts []any
		want  error
	}{
		{"a new riff with none of the settings", signIn, nil, ErrNobodyMayJoin},
		{"a riff with no sign-in", Options{Build: "test"}, nil, nil},
		{"--owner", withOwner, nil, nil},
		{"--admins", withAdmins, nil, nil},
		{"--allowed-domain", withDomain, nil, nil},
		{"a log with a person", signIn, []any{rec("", "admit", record.PersonJoined{User: "ada", Email: "ada@corp.test"})}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := givenIn(t, tc.opts, tc.parts...)
			if got := f.s.Written().MayBeJoined(); got != tc.want {
				t.Errorf("MayBeJoined() = %v; want %v", got, tc.want)
			}
		})
	}
	if text := ErrNobodyMayJoin.Error(); !strings.Contains(text, "--owner") || !strings.Contains(text, "--allowed-domain") {
		t.Errorf("the text %q names no flag", text)
	}
}
