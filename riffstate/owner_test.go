package riffstate

import (
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The owner role (docs/people.md).

// note is a note of the server in chat with seq.
func note(seq uint64) record.Posted {
	return posted("riff@server", peopleChat, seq, record.MessageNote, nil)
}

// thenNote checks that the last change of the command is a note of the
// server in chat that holds each part.
func (f *fixture) thenNote(parts ...string) {
	f.t.Helper()
	if f.err != nil || len(f.handled.Changes) == 0 {
		f.t.Fatalf("handle = %v, %v; want a note", f.handled.Changes, f.err)
	}
	body := bodyOf(f.t, f.handled.Changes[len(f.handled.Changes)-1])
	for _, p := range parts {
		if !strings.Contains(body, p) {
			f.t.Errorf("the note %q; want it to hold %q", body, p)
		}
	}
}

func TestGivenTheOwnerWhenItPassesTheOwnerRoleThenTheOldOwnerStaysAnAdminInTheSameChunk(t *testing.T) {
	// ann, named by the settings, is no member and no admin of the log.
	givenTeam(t).when("ann", passOwnerOf("carl@example.com")).then(
		record.MemberInvited{Email: "ann@example.com"},
		record.AdminSet{Email: "ann@example.com", Admin: true},
		record.OwnerSet{Email: "carl@example.com"})
	// An owner who is a member and an admin already needs neither record.
	givenTeam(t, invitedRec("ann"), adminRec("ann", true)).when("ann", passOwnerOf("carl@example.com")).
		then(record.OwnerSet{Email: "carl@example.com"})
	f := givenTeam(t)
	got := replyOf[wire.TextReply](t, f, "ann", passOwnerOf("carl@example.com"))
	if got.Text != "carl@example.com is the owner of the riff now. You stay an admin." {
		t.Errorf("the reply = %q", got.Text)
	}
	if c := f.s.Caller(CallerOf(uri("ann"))); c.Role != Admin {
		t.Errorf("the old owner has the role %s; want admin", c.Role)
	}
	if c := f.s.Caller(CallerOf(uri("carl/c001"))); c.Role != Owner {
		t.Errorf("a session of the new owner has the role %s; want owner", c.Role)
	}
}

func TestGivenAPersonWhoIsNotAMemberWhenTheOwnerPassesItTheRoleThenItIsRefusedNotMember(t *testing.T) {
	givenTeam(t).when("ann", passOwnerOf("eve@example.com")).thenRefused(wire.NotMember)
	givenTeam(t).when("ann", passOwnerOf("ann@example.com")).thenRefused(wire.BadRequest)
	givenTeam(t).when("bob", passOwnerOf("carl@example.com")).thenReason(wire.NotAllowed, "bob is not the owner; only the owner passes the owner role")
}

func TestGivenARiffWithNoOwnerWhenAnAdminTakesTheOwnerRoleThenItIsTheOwnerAtOnceWithANote(t *testing.T) {
	noOwner := recs(joinedRec("bob"), invitedRec("bob"), adminRec("bob", true))
	f := givenIn(t, signIn, noOwner).when("bob", takeOwner())
	f.then(record.OwnerSet{Email: "bob@example.com"}, note(1))
	f.thenNote("bob (bob@example.com) took the owner role")
	got := replyOf[wire.OwnerReply](t, givenIn(t, signIn, noOwner), "bob", takeOwner())
	if !got.Owner || got.Text != "You are the owner of the riff now." {
		t.Errorf("the reply = %+v", got)
	}
}

func TestGivenAnOwnerWhenAnAdminTakesTheOwnerRoleThenTheRequestWaitsWithANote(t *testing.T) {
	f := givenTeam(t).when("bob", takeOwner())
	f.then(record.OwnerAsked{Email: "bob@example.com"}, note(1))
	f.thenNote("bob (bob@example.com) asks for the owner role", "ann@example.com can deny it until", "riff owner --deny")
	g := givenTeam(t)
	got := replyOf[wire.OwnerReply](t, g, "bob", takeOwner())
	if got.Owner || got.DueMs != t0+DefaultOwnerWaitMs || !strings.Contains(got.Text, "Your request for the owner role waits until") {
		t.Errorf("the reply = %+v", got)
	}
	// The same request again changes nothing, and its reply gives the
	// same time.
	g.after(hour)
	g.when("bob", takeOwner()).then()
	if again := replyOf[wire.OwnerReply](t, g, "bob", takeOwner()); again.DueMs != got.DueMs {
		t.Errorf("the reply of the same request again has the time %d; want %d", again.DueMs, got.DueMs)
	}
}

func TestGivenARequestThatWaitsWhenAnotherAdminTakesTheOwnerRoleThenItIsRefused(t *testing.T) {
	givenTeam(t, askedRec("bob"), joinedRec("fay"), invitedRec("fay"), adminRec("fay", true)).
		when("fay", takeOwner()).thenReason(wire.NotAllowed, "one request waits at a time")
}

func TestGivenAMemberOrTheOwnerWhenItTakesTheOwnerRoleThenItIsRefused(t *testing.T) {
	givenTeam(t).when("carl", takeOwner()).thenReason(wire.NotAllowed, "carl is not an admin; only an admin can take the owner role")
	givenTeam(t).when("ann", takeOwner()).thenRefused(wire.BadRequest)
}

func TestGivenARequestWhenTheOwnerDeniesItThenOwnerDeniedWithANote(t *testing.T) {
	f := givenTeam(t, askedRec("bob")).when("ann", denyOwner())
	f.then(record.OwnerDenied{Email: "bob@example.com"}, note(1))
	f.thenNote("the owner denied the request of bob@example.com")
	givenTeam(t).when("ann", denyOwner()).thenRefused(wire.BadRequest)
	givenTeam(t, askedRec("bob")).when("bob", denyOwner()).thenReason(wire.NotAllowed, "bob is not the owner; only the owner denies the owner role")
}

func TestGivenARequestWhenItsTimeEndsThenTheServerGrantsItAndTheOldOwnerStaysAnAdmin(t *testing.T) {
	f := givenTeam(t, askedRec("bob"))
	if _, due := f.s.Written().OwnerRequestDue(f.now); due {
		t.Error("a request is due at once")
	}
	f.after(DefaultOwnerWaitMs - 1).whenServer(grantOwner("bob@example.com")).thenRefused(wire.BadRequest)
	f.after(1)
	if email, due := f.s.Written().OwnerRequestDue(f.now); !due || email != "bob@example.com" {
		t.Errorf("OwnerRequestDue = %q, %v; want the request of bob", email, due)
	}
	f.whenServer(grantOwner("bob@example.com")).then(
		record.MemberInvited{Email: "ann@example.com"},
		record.AdminSet{Email: "ann@example.com", Admin: true},
		record.OwnerSet{Email: "bob@example.com"},
		note(1))
	f.thenNote("bob@example.com is the owner now", "ann@example.com stays an admin")
	// A grant names the request that it grants.
	f.whenServer(grantOwner("carl@example.com")).thenRefused(wire.BadRequest)
	// Only the server grants it.
	f.when("bob", grantOwner("bob@example.com")).thenRefused(wire.NotAllowed)
}

func TestGivenARequestOfAPersonWhoIsNoAdminNowWhenItsTimeEndsThenItEndsWithNoOwnerRole(t *testing.T) {
	f := givenTeam(t, askedRec("bob"), adminRec("bob", false)).after(DefaultOwnerWaitMs)
	f.whenServer(grantOwner("bob@example.com")).then(record.OwnerDenied{Email: "bob@example.com"}, note(1))
	f.thenNote("the person is no admin now")
}

func TestGivenTheTimesOfTheSettingsThenTheTimersUseThem(t *testing.T) {
	opts := signIn
	opts.OwnerWaitMs, opts.OwnerGoneMs, opts.OwnerWarnMs = hour, 2*hour, 30*minute
	f := givenIn(t, opts, team(), askedRec("bob"))
	f.s.Loaded(f.now)
	f.after(hour)
	if _, due := f.s.Written().OwnerRequestDue(f.now); !due {
		t.Error("the request is not due after the wait of the settings")
	}
	f.after(30 * minute)
	if _, ok := f.s.Written().OwnerWarning(f.now); !ok {
		t.Error("no warning 30 minutes before the end of the settings")
	}
	f.after(30 * minute)
	if !f.s.Written().OwnerGone(f.now) {
		t.Error("the owner is not gone after the time of the settings")
	}
}

func TestGivenAnOwnerWithNoSignOfLifeWhenTheTimeOfGoneEndsThenTheServerEndsTheRoleAndTheOwnerStaysAnAdmin(t *testing.T) {
	f := givenTeam(t, member("ann/a001", false)).seen("ann/a001")
	f.after(DefaultOwnerGoneMs - 1)
	if f.s.Written().OwnerGone(f.now) {
		t.Error("the owner is gone before its time")
	}
	f.whenServer(endOwner("ann@example.com")).thenRefused(wire.BadRequest)
	f.after(1)
	if !f.s.Written().OwnerGone(f.now) {
		t.Fatal("the owner is not gone after 30 days with no sign of life")
	}
	f.whenServer(endOwner("ann@example.com")).then(
		record.MemberInvited{Email: "ann@example.com"},
		record.AdminSet{Email: "ann@example.com", Admin: true},
		record.OwnerEnded{Email: "ann@example.com"},
		note(1))
	f.thenNote("the owner role of ann@example.com ended", "riff owner --take")
	f.whenServer(endOwner("bob@example.com")).thenRefused(wire.BadRequest)
	// After the end the riff had an owner and has none; an admin takes it
	// at once.
	f.s.Replay(numbered(recs(rec("server", "end_owner", record.OwnerEnded{Email: "ann@example.com"})), f.s.Position()+1)...)
	if p := f.riff().People; p.Owner != "" || !p.HadOwner {
		t.Errorf("the people after owner_ended: %+v", p)
	}
	f.when("bob", takeOwner()).then(record.OwnerSet{Email: "bob@example.com"}, note(1))
}

func TestGivenASignOfLifeOfAnySessionOfTheOwnerThenTheOwnerIsNotGone(t *testing.T) {
	f := givenTeam(t, member("ann/a001", false), member("ann/a002", false))
	f.after(DefaultOwnerGoneMs - day).seen("ann/a002")
	f.after(day)
	if f.s.Written().OwnerGone(f.now) {
		t.Error("the owner is gone while a session of its user gave a sign of life a day ago")
	}
	// A sign of life of another user does not count.
	g := givenTeam(t, member("ann/a001", false))
	g.after(DefaultOwnerGoneMs).seen("carl/c001")
	if !g.s.Written().OwnerGone(g.now) {
		t.Error("a call of carl kept the owner ann")
	}
	// A start of the server starts the time again: its stop is no
	// silence of the owner.
	h := givenTeam(t).after(DefaultOwnerGoneMs)
	h.s.Loaded(h.now)
	if h.s.Written().OwnerGone(h.now) {
		t.Error("the owner is gone at once after a start of the server")
	}
}

func TestGivenAnOwnerThatGoesSilentThenTheServerWarnsItOnceBeforeTheEnd(t *testing.T) {
	f := givenTeam(t, member("ann/a001", false)).seen("ann/a001")
	f.after(DefaultOwnerGoneMs - DefaultOwnerWarnMs - 1)
	if _, ok := f.s.Written().OwnerWarning(f.now); ok {
		t.Error("a warning before its time")
	}
	f.after(1)
	warn, ok := f.s.Written().OwnerWarning(f.now)
	if !ok {
		t.Fatal("no warning 7 days before the end")
	}
	person := true
	if warn.Thread != "chat" || !strings.Contains(warn.Text, "the owner role of ann@example.com ends at") ||
		len(warn.To) != 1 || warn.To[0].User != "ann" || warn.To[0].Person == nil || *warn.To[0].Person != person {
		t.Errorf("the warning = %+v", warn)
	}
	if _, _, err := Run(f.s, warn, ServerCaller(), f.now); err != nil {
		t.Fatal(err)
	}
	f.after(day)
	if _, ok := f.s.Written().OwnerWarning(f.now); ok {
		t.Error("a second warning with no sign of life between")
	}
	// The owner comes back, and goes silent again: a new warning.
	f.seen("ann/a001").after(DefaultOwnerGoneMs - DefaultOwnerWarnMs)
	if _, ok := f.s.Written().OwnerWarning(f.now); !ok {
		t.Error("no warning after a new silence")
	}
	// The warning is no change of the people.
	if got := f.riff().People.Owner; got != "ann@example.com" {
		t.Errorf("the owner after the warning = %q", got)
	}
}
