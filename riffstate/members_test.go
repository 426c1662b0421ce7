package riffstate

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The people of a riff with sign-in (docs/people.md).

// emailOf gives the email of a user of the tests.
func emailOf(user string) string { return user + "@example.com" }

// The records of the people.
func joinedRec(user string) record.Record {
	return rec("", "admit", record.PersonJoined{User: user, Email: emailOf(user)})
}
func invitedRec(user string) record.Record {
	return rec("ann", "invite", record.MemberInvited{Email: emailOf(user)})
}
func adminRec(user string, admin bool) record.Record {
	return rec("ann", "set_admin", record.AdminSet{Email: emailOf(user), Admin: admin})
}
func ownerRec(user string) record.Record {
	return rec("server", "name_owner", record.OwnerSet{Email: emailOf(user)})
}
func askedRec(user string) record.Record {
	return rec(user, "take_owner", record.OwnerAsked{Email: emailOf(user)})
}

// team is the people of the tests: ann the owner (named by the settings,
// so no member record), bob an admin, carl a member with a session,
// dan invited and not signed in yet, eve signed in and no member.
func team() []record.Record {
	return recs(
		joinedRec("ann"), ownerRec("ann"),
		joinedRec("bob"), invitedRec("bob"), adminRec("bob", true),
		joinedRec("carl"), invitedRec("carl"), member("carl/c001", false),
		invitedRec("dan"),
		joinedRec("eve"),
	)
}

// The commands of the people.
func inviteOf(email string) step {
	return as[wire.InviteReply](Invite{Invite: wire.Invite{Email: email}})
}
func removeOf(email string) step {
	return as[wire.EndedReply](Remove{Remove: wire.Remove{Email: email}})
}
func setAdminOf(email string, admin bool) step {
	return as[wire.TextReply](SetAdmin{SetAdmin: wire.SetAdmin{Email: email, Admin: admin}})
}
func revokeOf(email string) step {
	return as[wire.EndedReply](Revoke{Revoke: wire.Revoke{Email: email}})
}
func passOwnerOf(email string) step {
	return as[wire.TextReply](PassOwner{PassOwner: wire.PassOwner{Email: email}})
}
func takeOwner() step              { return as[wire.OwnerReply](TakeOwner{}) }
func denyOwner() step              { return as[wire.TextReply](DenyOwner{}) }
func grantOwner(email string) step { return as[struct{}](GrantOwner{Email: email}) }
func endOwner(email string) step   { return as[struct{}](EndOwner{Email: email}) }

func givenTeam(t *testing.T, parts ...any) *fixture {
	t.Helper()
	return givenIn(t, signIn, append([]any{team()}, parts...)...)
}

// replyOf runs a command of who through Run and gives its reply.
func replyOf[R any](t *testing.T, f *fixture, who string, cmd step) R {
	t.Helper()
	reply, _ := f.mustRun(who, cmd)
	r, ok := reply.(R)
	if !ok {
		t.Fatalf("the reply of %s is %T", cmd.kind(), reply)
	}
	return r
}

func TestGivenAnAdminWhenItInvitesAnEmailThenThePersonMayJoinAndTheReplyNamesThePublicAddress(t *testing.T) {
	givenTeam(t).when("bob", inviteOf(" Fred@Example.com ")).then(record.MemberInvited{Email: "fred@example.com"})
	opts := signIn
	opts.PublicAddress = "https://riff.example.com"
	f := givenIn(t, opts, team())
	got := replyOf[wire.InviteReply](t, f, "bob", inviteOf("fred@example.com"))
	if got.Server != "https://riff.example.com" || !strings.Contains(got.Text, "riff login --server https://riff.example.com") {
		t.Errorf("the reply of an invite = %+v; want the public address", got)
	}
	if !slices.Contains(f.riff().People.Members, "fred@example.com") {
		t.Error("the invited email is no member of the written copy")
	}
}

func TestGivenAMemberWhenItInvitesThenItIsRefusedAsNoAdmin(t *testing.T) {
	givenTeam(t).when("carl", inviteOf("fred@example.com")).
		thenReason(wire.NotAllowed, "carl is not an admin; only an admin can invite a person")
	givenTeam(t).when("carl/c001", inviteOf("fred@example.com")).thenRefused(wire.NotAllowed)
}

func TestGivenAMemberWhenAnAdminInvitesItAgainThenNothingChanges(t *testing.T) {
	givenTeam(t).when("bob", inviteOf("carl@example.com")).then()
	givenTeam(t).when("bob", inviteOf("ann@example.com")).then()
	f := givenTeam(t)
	if got := replyOf[wire.InviteReply](t, f, "bob", inviteOf("carl@example.com")); !strings.Contains(got.Text, "is a member of the riff already") {
		t.Errorf("the reply = %q", got.Text)
	}
}

func TestGivenABadEmailWhenAnAdminInvitesThenItIsABadRequestThatNamesIt(t *testing.T) {
	for _, bad := range []string{"", "fred", "@example.com", "fred@", "fred@@example.com", "fred @example.com", "fred@exa\nmple.com", "<fred@example.com>", "fred@.com", strings.Repeat("a", 250) + "@example.com"} {
		givenTeam(t).when("bob", inviteOf(bad)).thenRefused(wire.BadRequest)
	}
	givenTeam(t).when("bob", inviteOf("fred\x1b[31m@example.com")).thenReason(wire.BadRequest, `"fred\x1b[31m@example.com"`)
}

func TestGivenAPersonWhoIsNotAMemberWhenAnAdminRemovesItThenItIsRefusedNotMember(t *testing.T) {
	givenTeam(t).when("bob", removeOf("eve@example.com")).thenReason(wire.NotMember, "eve@example.com is not a member of the riff")
	givenTeam(t).when("bob", removeOf("zoe@example.com")).thenRefused(wire.NotMember)
}

func TestGivenAMemberWhenAnAdminRemovesItThenMemberRemovedAndTheReplyLeavesTheCountToTheEngine(t *testing.T) {
	givenTeam(t).when("bob", removeOf("carl@example.com")).then(record.MemberRemoved{Email: "carl@example.com"})
	givenTeam(t).when("bob", removeOf("dan@example.com")).then(record.MemberRemoved{Email: "dan@example.com"})
	f := givenTeam(t)
	got := replyOf[wire.EndedReply](t, f, "bob", removeOf("carl@example.com"))
	if got.Email != "carl@example.com" || got.Ended != 0 || !strings.Contains(got.Text, "each sign-in of the person ends") {
		t.Errorf("the reply = %+v", got)
	}
	if p := f.riff().People; slices.Contains(p.Members, "carl@example.com") || p.Ended["carl@example.com"] != f.riff().Position {
		t.Errorf("after the removal: members %v, ended %v", p.Members, p.Ended)
	}
}

func TestGivenTheOwnerOrAnAdminOfTheSettingsWhenAnAdminRemovesItThenItIsRefused(t *testing.T) {
	givenTeam(t).when("bob", removeOf("ann@example.com")).thenReason(wire.NotAllowed, "is the owner")
	opts := signIn
	opts.Admins = []string{"carl@example.com"}
	givenIn(t, opts, team()).when("bob", removeOf("carl@example.com")).thenReason(wire.NotAllowed, "an admin of the settings")
}

func TestGivenAnAdminWhenAnotherAdminRemovesItThenOnlyTheOwnerCan(t *testing.T) {
	more := recs(joinedRec("fay"), invitedRec("fay"), adminRec("fay", true))
	givenTeam(t, more).when("bob", removeOf("fay@example.com")).thenReason(wire.NotAllowed, "only the owner removes an admin")
	givenTeam(t, more).when("ann", removeOf("fay@example.com")).then(record.MemberRemoved{Email: "fay@example.com"})
}

func TestGivenARequestForTheOwnerRoleWhenItsPersonIsRemovedThenTheRequestEndsInTheSameChunk(t *testing.T) {
	givenTeam(t, askedRec("bob")).when("ann", removeOf("bob@example.com")).
		then(record.OwnerDenied{Email: "bob@example.com"}, record.MemberRemoved{Email: "bob@example.com"})
}

func TestGivenAPersonWhoIsNotAMemberWhenTheOwnerMakesItAnAdminThenItIsInvitedThenMadeAnAdmin(t *testing.T) {
	givenTeam(t).when("ann", setAdminOf("eve@example.com", true)).
		then(record.MemberInvited{Email: "eve@example.com"}, record.AdminSet{Email: "eve@example.com", Admin: true})
	givenTeam(t).when("ann", setAdminOf("carl@example.com", true)).then(record.AdminSet{Email: "carl@example.com", Admin: true})
	givenTeam(t).when("ann", setAdminOf("bob@example.com", true)).then()
}

func TestGivenAPersonWhoIsNotAMemberWhenTheOwnerRemovesItsAdminRoleThenItIsRefusedNotMember(t *testing.T) {
	givenTeam(t).when("ann", setAdminOf("eve@example.com", false)).thenRefused(wire.NotMember)
	givenTeam(t).when("ann", setAdminOf("bob@example.com", false)).then(record.AdminSet{Email: "bob@example.com", Admin: false})
	givenTeam(t).when("ann", setAdminOf("carl@example.com", false)).then()
	givenTeam(t).when("ann", setAdminOf("ann@example.com", false)).thenRefused(wire.BadRequest)
}

func TestGivenAnAdminWhenItSetsAnAdminThenOnlyTheOwnerCan(t *testing.T) {
	givenTeam(t).when("bob", setAdminOf("carl@example.com", true)).
		thenReason(wire.NotAllowed, "bob is not the owner; only the owner adds or removes an admin")
}

func TestGivenARiffWithNoOwnerWhenACommandNeedsTheOwnerThenTheRefusalSaysHowToTakeIt(t *testing.T) {
	noOwner := recs(joinedRec("bob"), invitedRec("bob"), adminRec("bob", true), joinedRec("carl"), invitedRec("carl"))
	for _, cmd := range []step{setAdminOf("carl@example.com", true), passOwnerOf("carl@example.com"), denyOwner()} {
		givenIn(t, signIn, noOwner).when("bob", cmd).thenReason(wire.NotAllowed, NoOwner)
	}
	// A command that needs an admin keeps its own text.
	givenIn(t, signIn, noOwner).when("carl", inviteOf("fred@example.com")).thenReason(wire.NotAllowed, "only an admin can invite a person")
	// A session cannot send it, owner or no owner: permits gives its text.
	givenIn(t, signIn, noOwner).when("carl/c001", setAdminOf("carl@example.com", true)).
		thenReason(wire.NotAllowed, "a session cannot send the command set_admin")
}

func TestGivenAMemberWhenItRevokesWithNoNameOrItsOwnEmailThenItsOwnSignInsEnd(t *testing.T) {
	givenTeam(t).when("carl", revokeOf("")).then(record.SigninsEnded{Email: "carl@example.com"})
	givenTeam(t).when("carl", revokeOf("Carl@example.com")).then(record.SigninsEnded{Email: "carl@example.com"})
	f := givenTeam(t)
	if got := replyOf[wire.EndedReply](t, f, "carl", revokeOf("")); !strings.Contains(got.Text, "Each of your sign-ins ends now") || got.Email != "carl@example.com" {
		t.Errorf("the reply = %+v", got)
	}
	// A person with no email yet (no sign-in) has nothing to revoke.
	givenTeam(t).when("gus", revokeOf("")).thenRefused(wire.BadRequest)
}

func TestGivenAMemberWhenItRevokesAnotherPersonThenOnlyAnAdminCan(t *testing.T) {
	givenTeam(t).when("carl", revokeOf("eve@example.com")).thenReason(wire.NotAllowed, "carl is not an admin; only an admin revokes another person")
	givenTeam(t).when("bob", revokeOf("eve@example.com")).then(record.SigninsEnded{Email: "eve@example.com"})
	givenTeam(t).when("bob", revokeOf("carl@example.com")).then(record.SigninsEnded{Email: "carl@example.com"})
	givenTeam(t).when("bob", revokeOf("zoe@example.com")).thenRefused(wire.NotMember)
	givenTeam(t).when("bob", revokeOf("ann@example.com")).thenReason(wire.NotAllowed, "only the owner ends the sign-ins of the owner")
	givenTeam(t).when("ann", revokeOf("bob@example.com")).then(record.SigninsEnded{Email: "bob@example.com"})
}

func TestGivenARiffWithNoSignInWhenAPersonSendsEachCommandOfThePeopleThenItIsRefusedNoSignIn(t *testing.T) {
	for _, cmd := range []step{inviteOf("bob@example.com"), removeOf("bob@example.com"), setAdminOf("bob@example.com", true),
		passOwnerOf("bob@example.com"), takeOwner(), denyOwner(), revokeOf("")} {
		given(t, team()).when("ann", cmd).thenRefused(wire.NoSignIn)
	}
}

func TestGivenTheOwnerEmailThenEachPersonAndSessionOfItsUserIsTheOwner(t *testing.T) {
	opts := signIn
	opts.Admins = []string{"eve@example.com"}
	f := givenIn(t, opts, team(), member("ann/a001", false))
	for _, tc := range []struct {
		who  string
		want Role
	}{{"ann", Owner}, {"ann/a001", Owner}, {"bob", Admin}, {"carl", Member}, {"carl/c001", Member}, {"eve", Admin}, {"gus", Member}} {
		c := f.s.Caller(CallerOf(uri(tc.who)))
		if c.Role != tc.want {
			t.Errorf("the role of %s = %s; want %s", tc.who, c.Role, tc.want)
		}
	}
	// The role of the token layer counts for nothing: the people give it.
	if c := f.s.Caller(CallerOf(uri("carl")).With(Owner)); c.Role != Member {
		t.Errorf("a member with the role owner of the token layer = %s; want member", c.Role)
	}
	if c := f.s.Caller(CallerOf(uri("ann"))); c.Email != "ann@example.com" {
		t.Errorf("the email of the caller = %q", c.Email)
	}
}

func TestGivenAnAdminSetInTheQueueWhenACommandComesAfterItThenItGetsTheNewRoleAndAQueryTheOldOne(t *testing.T) {
	f := givenTeam(t)
	f.when("carl", inviteOf("fred@example.com")).thenRefused(wire.NotAllowed)
	// The owner makes carl an admin: the record is in the queue, not
	// written.
	h, refused := Check(f.s, SetAdmin{SetAdmin: wire.SetAdmin{Email: "carl@example.com", Admin: true}}, CallerOf(uri("ann")), f.now)
	if refused != nil {
		t.Fatal(refused)
	}
	f.s.Queue(CallerOf(uri("ann")), record.CommandSetAdmin, "", h.Changes, f.now)
	f.when("carl", inviteOf("fred@example.com")).then(record.MemberInvited{Email: "fred@example.com"})
	if got := f.s.Written().WithRole(CallerOf(uri("carl"))).Role; got != Member {
		t.Errorf("the role of carl in the written copy = %s; want member: the record is not written", got)
	}
	if got := f.s.Pending().WithRole(CallerOf(uri("carl"))).Role; got != Admin {
		t.Errorf("the role of carl in the pending copy = %s; want admin", got)
	}
}

func TestGivenARiffWithSignInThenOnlyAMemberReadsOrPostsInChat(t *testing.T) {
	chat := recs(joinRec("carl/c001", "chat"), rec("carl/c001", "post", posted("carl/c001", "chat", 1, record.MessagePlain, nil)))
	// A member posts and joins.
	// A riff with sign-in takes signed posts only: each post is signed as
	// riff signs it.
	whenSigned(t, givenTeam(t, chat), "carl", wire.Post{Thread: "chat", Body: "hello"}).thenPosted(posted("carl", "chat", 2, record.MessagePlain, nil))
	givenTeam(t).when("carl", join("chat")).then(joined("carl", "chat"))
	// eve signed in and is no member; gus never signed in.
	for _, who := range []string{"eve", "gus"} {
		givenTeam(t, chat).when(who, post("chat", "hello")).thenReason(wire.NotAllowed, "only a member of the riff reads or posts in chat")
		givenTeam(t, chat).when(who, join("chat")).thenRefused(wire.NotAllowed)
		f := givenTeam(t, chat, joinRec(who+"/x001", "chat"))
		v, c := f.s.Written(), CallerOf(uri(who))
		if _, _, err := v.Read(c, wire.Read{Thread: "chat"}, f.now); err == nil {
			t.Errorf("%s read chat", who)
		}
		if _, err := v.TailThread(c, "chat", f.now); err == nil {
			t.Errorf("%s tails chat", who)
		}
		sc := CallerOf(uri(who + "/x001"))
		reply, _, err := v.Read(sc, wire.Read{}, f.now)
		if err != nil {
			t.Fatal(err)
		}
		for _, page := range reply.Threads {
			if page.Thread == "chat" {
				t.Errorf("a read of all threads of %s shows chat", who)
			}
		}
		for _, th := range v.Threads(sc, f.now).Threads {
			if th.Thread == "chat" {
				t.Errorf("the threads of %s list chat", who)
			}
		}
	}
	// A message in chat wakes no session of a person who is no member.
	whenSigned(t, givenTeam(t, joinRec("carl/c001", "chat"), joinRec("eve/e001", "chat")),
		"bob", wire.Post{Thread: "chat", Body: "hello", To: sels("person=false")}).
		thenPosted(posted("bob", "chat", 1, record.MessagePlain, sels("person=false"), "carl/c001"))
	// The other threads stay open to each caller.
	whenSigned(t, givenTeam(t), "eve", wire.Post{Thread: repo, Body: "hello"}).thenPosted(posted("eve", repo, 1, record.MessagePlain, nil))
	// A person of the allowed domain, and the owner of the settings, may
	// join as a member does: each reads and posts in chat.
	domain := signIn
	domain.AllowedDomain = "Example.com"
	whenSigned(t, givenIn(t, domain, team()), "eve", wire.Post{Thread: "chat", Body: "hello"}).thenPosted(posted("eve", "chat", 1, record.MessagePlain, nil))
	owner := signIn
	owner.Owner = "eve@example.com"
	whenSigned(t, givenIn(t, owner, team()), "eve", wire.Post{Thread: "chat", Body: "hello"}).thenPosted(posted("eve", "chat", 1, record.MessagePlain, nil))
	other := signIn
	other.AllowedDomain = "example.org"
	givenIn(t, other, team()).when("eve", post("chat", "hello")).thenRefused(wire.NotAllowed)
	// A riff with no sign-in keeps its chat open.
	given(t).when("gus", post("chat", "hello")).then(posted("gus", "chat", 1, record.MessagePlain, nil))
}

func TestGivenTheCommandsOfThePeopleWhenAPersonReadsThePeopleThenOnlyAMemberReadsTheEmails(t *testing.T) {
	opts := signIn
	opts.Admins = []string{"gil@example.com"}
	opts.AllowedDomain = "example.org"
	f := givenIn(t, opts, team(), askedRec("bob"))
	v := f.s.Written()
	got := v.People(CallerOf(uri("carl")), f.now)
	want := wire.PeopleReply{
		Owner:      &wire.Person{User: "ann", Email: "ann@example.com"},
		Asked:      &wire.Person{User: "bob", Email: "bob@example.com"},
		AskedDueMs: t0 + DefaultOwnerWaitMs,
		Admins:     []wire.Person{{User: "bob", Email: "bob@example.com"}, {Email: "gil@example.com", Settings: true}},
		Members:    []wire.Person{{User: "carl", Email: "carl@example.com"}},
		MayJoin:    []wire.Person{{Email: "dan@example.com"}},
		Domain:     "example.org",
		Emails:     true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the people for a member (-want +got):\n%s", diff)
	}
	got = v.People(CallerOf(uri("eve")), f.now)
	want = wire.PeopleReply{
		Owner: &wire.Person{User: "ann"}, Asked: &wire.Person{User: "bob"}, AskedDueMs: t0 + DefaultOwnerWaitMs,
		Admins: []wire.Person{{User: "bob"}}, Members: []wire.Person{{User: "carl"}}, MayJoin: []wire.Person{},
		Domain: "example.org",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the people for a caller who is no member (-want +got):\n%s", diff)
	}
	if got := givenTeam(t).s.Written().People(CallerOf(uri("eve")), f.now); strings.Contains(jsonText(t, got), "@") {
		t.Errorf("the people for a caller who is no member hold an email: %s", jsonText(t, got))
	}
}

func jsonText(t *testing.T, v any) string { return string(jsonOf(t, v)) }

func TestGivenARiffWithSignInThenWhoAndWhoamiShowTheOwnerLine(t *testing.T) {
	f := givenTeam(t)
	v := f.s.Written()
	for _, tc := range []struct{ who, want string }{{"carl", "ann (ann@example.com)"}, {"carl/c001", "ann (ann@example.com)"}, {"eve", "ann"}} {
		if got := v.Who(CallerOf(uri(tc.who)), false, f.now).Owner; got != tc.want {
			t.Errorf("the owner line of who for %s = %q; want %q", tc.who, got, tc.want)
		}
		if got := v.Whoami(CallerOf(uri(tc.who)), f.now).Owner; got != tc.want {
			t.Errorf("the owner line of whoami for %s = %q; want %q", tc.who, got, tc.want)
		}
	}
	none := givenIn(t, signIn, joinedRec("carl"), invitedRec("carl"), rec("", "resume", paused(record.RiffScope(), record.Running)))
	who := none.s.Written().Who(CallerOf(uri("carl")), false, none.now)
	if who.Owner != "none" || !strings.Contains(who.Act, "riff owner --take") {
		t.Errorf("who of a riff with no owner: owner %q, act %q; want none and the way to take it", who.Owner, who.Act)
	}
	if got := given(t, team()).s.Written().Who(CallerOf(uri("carl")), false, f.now).Owner; got != "" {
		t.Errorf("a riff with no sign-in shows the owner %q; want none", got)
	}
}

// peopleChat is the name of the chat thread, for the tests of the notes.
var peopleChat = string(name.Chat)

// TestGivenEachCommandOfThePeopleWhenEachClassMarkAndRoleSendsItThenPermitsFollowsTheTable
// runs each command of the people through Check as each class, worker
// mark and role (the role from the people of the log: carl a member, bob
// an admin, ann the owner), and compares the result with the table and
// the role that the command needs.
func TestGivenEachCommandOfThePeopleWhenEachClassMarkAndRoleSendsItThenPermitsFollowsTheTable(t *testing.T) {
	cmds := []step{inviteOf("fred@example.com"), removeOf("dan@example.com"), setAdminOf("carl@example.com", true),
		passOwnerOf("carl@example.com"), takeOwner(), denyOwner(), revokeOf(""), revokeOf("eve@example.com"),
		grantOwner("bob@example.com"), endOwner("ann@example.com")}
	rows := wantRows()
	users := map[string]Role{"carl": Member, "bob": Admin, "ann": Owner}
	for _, cmd := range cmds {
		for user, role := range users {
			callers := map[string]Caller{
				"person":  CallerOf(uri(user)),
				"session": CallerOf(uri(user + "/s001")),
				"worker":  CallerOf(uri(user + "/w001")),
				"sign_in": {URI: uri(user), Class: record.ClassSignIn},
				"server":  ServerCaller(),
				"other":   {URI: uri(user), Class: record.ClassOther},
			}
			for what, c := range callers {
				f := givenTeam(t, askedRec("bob"), member(user+"/s001", false), member(user+"/w001", true))
				checked := f.s.Caller(c)
				if what == "worker" && !checked.Worker {
					t.Fatalf("%s has no worker mark", c.URI)
				}
				if what != "server" && checked.Role != role {
					t.Fatalf("the role of %s = %s; want %s", c.URI, checked.Role, role)
				}
				row := rows[cmd.kind()]
				needs := wantNeeds[cmd.kind()]
				if cmd.kind() == record.CommandRevoke && revokesOwn(cmd, checked) {
					needs = Member
				}
				if got := needsOf(cmd, checked); got != needs {
					t.Errorf("%s needs %s for %s %s; want %s", cmd.kind(), got, what, user, needs)
				}
				hasRole := checked.Class == record.ClassPerson || checked.Class == record.ClassSession || checked.Class == record.ClassSignIn
				want := slices.Contains(row.Classes, checked.Class) && !(checked.Worker && row.Worker != "") && !(hasRole && checked.Role < needs)
				_, err := cmd.check(f.s, c, f.now)
				refusedByPermits := Permits(cmd.kind(), checked, needs) != nil
				if refusedByPermits == want {
					t.Errorf("Permits(%s as %s %s of role %s, needs %s) allowed=%v; want %v", cmd.kind(), what, user, checked.Role, needs, !refusedByPermits, want)
				}
				var refused *wire.Refused
				switch {
				case !want && (err == nil || !errorsAs(err, &refused) || refused.Code != wire.NotAllowed):
					t.Errorf("Check(%s as %s %s) = %v; want not_allowed", cmd.kind(), what, user, err)
				case want && err != nil && errorsAs(err, &refused) && refused.Code == wire.NotAllowed:
					t.Errorf("Check(%s as %s %s) = %v; want it past permits", cmd.kind(), what, user, err)
				}
			}
		}
	}
}

// wantNeeds is the role that each command of the people needs, as the
// seeds give it (a revoke of the own sign-ins needs a member).
var wantNeeds = map[record.Command]Role{
	record.CommandInvite: Admin, record.CommandRemove: Admin, record.CommandSetAdmin: Owner,
	record.CommandPassOwner: Owner, record.CommandTakeOwner: Admin, record.CommandDenyOwner: Owner,
	record.CommandRevoke: Admin, record.CommandGrantOwner: Member, record.CommandEndOwner: Member,
}

// revokesOwn says whether a revoke names no email or the email of c.
func revokesOwn(cmd step, c Caller) bool {
	r := cmd.(cmdOf[wire.EndedReply]).c.(Revoke)
	return r.Email == "" || (c.Email != "" && r.Email == c.Email)
}

// needsOf gives the role that a command needs for c.
func needsOf(cmd step, c Caller) Role {
	switch x := cmd.(type) {
	case cmdOf[wire.InviteReply]:
		return x.c.Needs(c)
	case cmdOf[wire.EndedReply]:
		return x.c.Needs(c)
	case cmdOf[wire.TextReply]:
		return x.c.Needs(c)
	case cmdOf[wire.OwnerReply]:
		return x.c.Needs(c)
	case cmdOf[struct{}]:
		return x.c.Needs(c)
	}
	panic("needsOf: a command of another reply")
}

func TestGivenARevokeThenItNeedsAMemberForTheOwnSignInsAndAnAdminForAnother(t *testing.T) {
	carl := Caller{URI: uri("carl"), Class: record.ClassPerson, Email: "carl@example.com"}
	for _, tc := range []struct {
		email string
		want  Role
	}{{"", Member}, {"carl@example.com", Member}, {" CARL@example.com", Member}, {"eve@example.com", Admin}, {"not an email", Admin}} {
		if got := (Revoke{Revoke: wire.Revoke{Email: tc.email}}).Needs(carl); got != tc.want {
			t.Errorf("a revoke of %q needs %s; want %s", tc.email, got, tc.want)
		}
	}
	// A caller with no email revokes no other person by a name.
	if got := (Revoke{Revoke: wire.Revoke{Email: "carl@example.com"}}).Needs(Caller{URI: uri("carl"), Class: record.ClassPerson}); got != Admin {
		t.Errorf("a revoke of a name by a caller with no email needs %s; want admin", got)
	}
}

func errorsAs(err error, target **wire.Refused) bool { return errors.As(err, target) }

// keptPeopleCases hold each command of the people that a person sends,
// in a riff with sign-in, with a case that makes records and one that
// makes none where it has one.
func keptPeopleCases() []keptCase {
	return []keptCase{
		{"invite", "bob", inviteOf("fred@example.com")},
		{"invite again", "bob", inviteOf("fred@example.com")},
		{"set_admin", "ann", setAdminOf("fred@example.com", true)},
		{"set_admin again", "ann", setAdminOf("fred@example.com", true)},
		{"set_admin off", "ann", setAdminOf("fred@example.com", false)},
		{"take_owner", "bob", takeOwner()},
		{"take_owner again", "bob", takeOwner()},
		{"deny_owner", "ann", denyOwner()},
		{"revoke", "carl", revokeOf("")},
		{"revoke of another", "bob", revokeOf("eve@example.com")},
		{"remove", "bob", removeOf("dan@example.com")},
		{"pass_owner", "ann", passOwnerOf("carl@example.com")},
	}
}

func TestGivenAKeptCallOfThePeopleWhenACheckpointAndAReplayCameThenItsRepeatGetsTheLiveReply(t *testing.T) {
	f := givenTeam(t)
	s := f.s
	for i, tc := range keptPeopleCases() {
		f.now.Ms += second
		c := CallerOf(uri(tc.who))
		id := fmt.Sprintf("people-%02d", i)
		before := reload(t, s)
		live, made, repeat, err := callWithID(s, tc.cmd, c, id, f.now)
		if err != nil || repeat {
			t.Fatalf("%s: the live call = %v, repeat %v", tc.name, err, repeat)
		}
		t.Run(tc.name, func(t *testing.T) {
			after := reload(t, s)
			got, _, repeat, err := callWithID(after, tc.cmd, c, id, f.now)
			if err != nil || !repeat {
				t.Fatalf("the repeat after a checkpoint = %v, repeat %v; want the kept reply", err, repeat)
			}
			if diff := cmp.Diff(live, got); diff != "" {
				t.Errorf("the reply after a checkpoint differs from the live reply (-live +repeat):\n%s", diff)
			}
			if len(made) == 0 {
				return
			}
			before.Replay(made...)
			got, _, repeat, err = callWithID(before, tc.cmd, c, id, f.now)
			if err != nil || !repeat {
				t.Fatalf("the repeat after a replay = %v, repeat %v; want the kept reply", err, repeat)
			}
			if diff := cmp.Diff(live, got); diff != "" {
				t.Errorf("the reply after a replay differs from the live reply (-live +repeat):\n%s", diff)
			}
		})
	}
}

func TestGivenARemoveOrARevokeWhenItsRecordIsWrittenThenTheEffectsEndTheSignInsOfItsUserAtItsPosition(t *testing.T) {
	f := givenTeam(t)
	_, effects := f.mustRun("bob", removeOf("carl@example.com"))
	want := []SignInsEnd{{User: "carl", Email: "carl@example.com", Position: f.riff().Position}}
	if diff := cmp.Diff(want, effects.Ends); diff != "" {
		t.Errorf("the ends of a remove (-want +got):\n%s", diff)
	}
	if got := f.riff().People.Ended["carl@example.com"]; got != f.riff().Position {
		t.Errorf("the end of the sign-ins of carl = %d; want %d", got, f.riff().Position)
	}
	_, effects = f.mustRun("eve", revokeOf(""))
	want = []SignInsEnd{{User: "eve", Email: "eve@example.com", Position: f.riff().Position}}
	if diff := cmp.Diff(want, effects.Ends); diff != "" {
		t.Errorf("the ends of a revoke (-want +got):\n%s", diff)
	}
	// Another command ends no sign-in.
	if _, effects = f.mustRun("bob", inviteOf("fred@example.com")); len(effects.Ends) != 0 {
		t.Errorf("an invite ends the sign-ins %v", effects.Ends)
	}
	if got := f.riff().People.Ended["bob@example.com"]; got != 0 {
		t.Errorf("the end of the sign-ins of bob = %d; want 0", got)
	}
}

// whenSigned runs the post p of who in f, signed as riff signs it: the
// draft of the server, signed with a device key of the caller's token.
func whenSigned(t *testing.T, f *fixture, who string, p wire.Post) *signedFixture {
	t.Helper()
	sf := &signedFixture{fixture: f, ann: newDevice(t)}
	sf.whenAt(sf.callerWith(who, sf.ann), postOf(sf.signedBy(who, sf.ann, p)))
	return sf
}
