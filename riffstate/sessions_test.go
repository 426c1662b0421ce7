package riffstate

import (
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

func TestARegisterOfAnUnknownSessionStartsItWithJoinAndJoinsItsRepository(t *testing.T) {
	given(t).
		when("ann/wrk1", register(true)).
		then(started("ann/wrk1", record.ReasonJoin, true), joined("ann/wrk1", repo))
}

func TestARegisterWithAnotherWorkerMarkStartsTheSessionWithJoinAndTheNewMark(t *testing.T) {
	given(t, member("ann/wrk1", false)).
		when("ann/wrk1", register(true)).
		then(started("ann/wrk1", record.ReasonJoin, true))
}

func TestARegisterWithTheSameMarkMakesNoRecord(t *testing.T) {
	given(t, member("ann/wrk1", true)).when("ann/wrk1", register(true)).then()
}

func TestTheRegisterThatTheEngineRunsFirstKeepsTheWorkerMarkAndMakesNoLead(t *testing.T) {
	f := given(t, member("ann/wrk1", true))
	// A known worker: Arrive makes nothing, and keeps the mark.
	f.when("ann/wrk1", arrive()).then()
	// An unknown session: a start with the reason join, no worker mark.
	f.when("ann/new1", arrive()).then(started("ann/new1", record.ReasonJoin, false), joined("ann/new1", repo))
	f.mustRun("ann/new1", arrive())
	if _, ok := f.riff().LeadOf("ann", repo); ok {
		t.Error("the first register of a session made it the lead")
	}
}

func TestRunRegistersAnUnknownCallerFirstAlsoWhenItsCommandIsRefused(t *testing.T) {
	f := given(t, member("bob/bwk1", true), claimRec("bob/bwk1", repo, "issue-7"))
	_, _, err := f.run("ann/new1", claim("", "issue-7"))
	if err == nil {
		t.Fatal("the claim of a held item was granted")
	}
	s := f.riff().Session(whoOf("ann/new1"))
	if s == nil || s.Worker {
		t.Fatalf("session after a refused first call = %+v; want a session that is no worker", s)
	}
	if !f.riff().Member(repo, whoOf("ann/new1")) {
		t.Error("the first call did not join the repository thread")
	}
}

func TestAnEndOfAnUnknownSessionRegistersNothing(t *testing.T) {
	f := given(t)
	f.mustRun("ann/new1", end())
	if f.riff().Position != 0 || f.riff().Session(whoOf("ann/new1")) != nil {
		t.Errorf("an end of an unknown session made records: position %d", f.riff().Position)
	}
}

func TestAStartReasonOfAnotherBuildIsRefused(t *testing.T) {
	given(t, member("ann/wrk1", true)).when("ann/wrk1", start("compact", true)).thenRefused(wire.BadRequest)
}

func TestTheLogHasNoRecordForTheEndOfASession(t *testing.T) {
	f := given(t, member("ann/wrk1", true))
	f.mustRun("ann/wrk1", end())
	if f.riff().Position != 2 {
		t.Errorf("position after an end = %d; want 2", f.riff().Position)
	}
	if !f.s.Written().Gone(whoOf("ann/wrk1"), f.now) {
		t.Error("a session that ended is not gone")
	}
}

func TestJoinOfAThreadTwiceMakesNoRecord(t *testing.T) {
	f := given(t, member("ann/wrk1", true))
	f.when("ann/wrk1", join("chat")).then(joined("ann/wrk1", "chat"))
	f.when("ann/wrk1", join(repo)).then()
}

func TestASessionCannotJoinADirectThreadOfTwoOthers(t *testing.T) {
	given(t, member("ann/wrk1", true)).when("ann/wrk1", join("dm:bob1+bob2")).thenRefused(wire.NotAllowed)
}

func TestALeaveOfAThreadThatTheSessionIsNotInMakesNoRecord(t *testing.T) {
	given(t, member("ann/wrk1", true)).when("ann/wrk1", leave("chat")).then()
}

func TestALeadThatLeavesItsRepositoryThreadIsNotTheLead(t *testing.T) {
	f := given(t, member("ann/lead", false), leadRec("ann", "ann/lead", repo))
	f.when("ann/lead", leave(repo)).then(left("ann/lead", repo))
	f.mustRun("ann/lead", leave(repo))
	if _, ok := f.riff().LeadOf("ann", repo); ok {
		t.Error("a lead that left its thread is still the lead")
	}
}

func TestForgetReleasesEachClaimThenForgetsTheSession(t *testing.T) {
	given(t, member("ann/wrk1", true), claimRec("ann/wrk1", repo, "issue-7")).
		after(30*day).
		whenServer(forget("ann/wrk1")).
		then(released("ann/wrk1", repo, "issue-7", false), forgotten("ann/wrk1"))
}

func TestForgetRefusesASessionWithASignOfLifeInTheLast30Days(t *testing.T) {
	given(t, member("ann/wrk1", true)).after(30*day - 1).whenServer(forget("ann/wrk1")).thenRefused(wire.BadRequest)
}

func TestOnlyTheServerForgetsASession(t *testing.T) {
	given(t, member("ann/wrk1", true)).after(31*day).when("ann/wrk2", forget("ann/wrk1")).
		thenReason(wire.NotAllowed, "a session cannot send the command forget")
}

func TestForgetDropsTheSessionItsThreadsAndItsDirectThreads(t *testing.T) {
	f := given(t, member("ann/wrk1", true), member("bob/bwk1", true), member("ann/wrk2", true),
		joinRec("ann/wrk1", "chat"),
		leadRec("ann", "ann/wrk1", repo),
		postRec("ann/wrk1", "dm:wrk1+wrk2", 1, "hello"),
		postRec("ann/wrk1", "dm:wrk1+~bob", 1, "hi bob"),
		postRec("ann/wrk1", "dm:wrk1+~riff", 1, "from the server"),
		forgetRec("ann/wrk2"),
		forgetRec("ann/wrk1"))
	r := f.riff()
	if r.Session(whoOf("ann/wrk1")) != nil {
		t.Error("the session is still there")
	}
	for _, thread := range []name.Thread{repo, "chat"} {
		if r.Member(thread, whoOf("ann/wrk1")) {
			t.Errorf("the session is still in %s", thread)
		}
	}
	if _, ok := r.LeadOf("ann", repo); ok {
		t.Error("the lead of the forgotten session stays")
	}
	for _, thread := range []name.Thread{"dm:wrk1+wrk2", "dm:wrk1+~bob", "dm:wrk1+~riff"} {
		if r.Threads[thread] != nil {
			t.Errorf("the direct thread %s of two gone sides stays", thread)
		}
	}
	if r.Warnings != 0 {
		t.Errorf("warnings = %d; want 0", r.Warnings)
	}
}

func TestForgetKeepsADirectThreadWhoseOtherSessionStays(t *testing.T) {
	f := given(t, member("ann/wrk1", true), member("ann/wrk2", true),
		postRec("ann/wrk1", "dm:wrk1+wrk2", 1, "hello"), forgetRec("ann/wrk1"))
	if f.riff().Threads["dm:wrk1+wrk2"] == nil {
		t.Error("forget dropped a direct thread whose other session stays")
	}
}

func TestForgetDropsTheReadCursorsOfTheSession(t *testing.T) {
	f := given(t, member("ann/wrk1", true))
	Read{Thread: repo, Seq: 3}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	f.s.Replay(numbered(recs(forgetRec("ann/wrk1")), f.riff().Position+1)...)
	if _, ok := f.s.presence.Cursor(whoOf("ann/wrk1"), repo); ok {
		t.Error("the read cursor of a forgotten session stays")
	}
}

func TestToForgetListsTheSessionsWithNoSignOfLifeFor30Days(t *testing.T) {
	f := given(t, member("ann/wrk1", true), member("bob/bwk1", true)).after(30 * day)
	f.seen("bob/bwk1")
	if got := f.s.Pending().ToForget(f.now); len(got) != 1 || got[0] != whoOf("ann/wrk1") {
		t.Errorf("ToForget = %v; want ann/wrk1", got)
	}
}

func TestANewRiffIsPaused(t *testing.T) {
	given(t).whenServer(makeRiff("01RIFF")).
		then(record.RiffMade{Riff: "01RIFF"}, paused(record.RiffScope(), record.Paused))
}

func TestMakeRiffNeverReplacesAnID(t *testing.T) {
	given(t, rec("server", "make_riff", record.RiffMade{Riff: "01OLD"})).
		whenServer(makeRiff("01NEW")).thenRefused(wire.BadRequest)
	// apply keeps the first ID too, and counts a warning.
	f := given(t, rec("server", "make_riff", record.RiffMade{Riff: "01OLD"}), rec("server", "import", record.RiffMade{Riff: "01NEW"}))
	if f.riff().ID != "01OLD" || f.riff().Warnings != 1 {
		t.Errorf("ID = %s, warnings = %d; want 01OLD and 1", f.riff().ID, f.riff().Warnings)
	}
}

func TestMakeRiffInALogWithRecordsAndNoIDMakesOnlyRiffMade(t *testing.T) {
	given(t, member("ann/wrk1", true)).whenServer(makeRiff("01RIFF")).then(record.RiffMade{Riff: "01RIFF"})
}

func TestTheRecordsOfMakeRiffHaveTheServerAsCause(t *testing.T) {
	s := New(Options{})
	if _, _, err := Run(s, MakeRiff{ID: "01RIFF"}, ServerCaller(), Now{Ms: t0}); err != nil {
		t.Fatal(err)
	}
	if p := s.Written().Riff().Pauses.Riff; p == nil || p.By != nil {
		t.Errorf("the pause of a new riff = %+v; want one with no cause", p)
	}
}

func TestAnnounceIsANoteOfTheServer(t *testing.T) {
	given(t, member("ann/wrk1", true)).whenServer(announce(repo, "the server stops at 18:00")).
		then(posted("riff@server", repo, 1, record.MessageNote, nil))
}

func TestAPersonHasNoLifeCycle(t *testing.T) {
	given(t).when("ann", start(record.ReasonProcess, false)).thenReason(wire.NotAllowed, "a person cannot send the command start")
}

func TestASessionTakesThePlaceOfItsLastRecord(t *testing.T) {
	f := given(t, member("ann/wrk1", true))
	f.s.Replay(numbered(recs(rec("ann/wrk1", "join", record.JoinedThread{Session: uriIn("ann/wrk1", "o/other"), Thread: "o/other"})), 3)...)
	if got := f.riff().Session(whoOf("ann/wrk1")).URI.Repo; got != "o/other" {
		t.Errorf("place of the session = %s; want o/other", got)
	}
}
