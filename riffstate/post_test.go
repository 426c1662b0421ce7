package riffstate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/wire"
)

// three members of the repository thread: a worker of ann with a claim,
// a worker of ann with none, and a worker of bob.
func threeMembers() []record.Record {
	return recs(member("ann/mine", false), member("ann/wrk1", true), member("ann/wrk2", true), member("bob/bwk1", true),
		claimRec("ann/wrk1", repo, "issue-6"))
}

func TestAPostWakesTheSessionsThatMatchASelector(t *testing.T) {
	f := given(t, threeMembers())
	f.when("ann/mine", post("", "API is ready", "claim=issue-6")).
		then(posted("ann/mine", repo, 1, record.MessagePlain, sels("claim=issue-6"), "ann/wrk1"))
	f.when("ann/mine", post("", "all of ann", "user=ann")).
		then(posted("ann/mine", repo, 1, record.MessagePlain, sels("user=ann"), "ann/wrk1", "ann/wrk2"))
	f.when("ann/mine", post("", "two selectors", "user=bob", "claim=issue-6")).
		then(posted("ann/mine", repo, 1, record.MessagePlain, sels("user=bob", "claim=issue-6"), "ann/wrk1", "bob/bwk1"))
}

func TestASelectorNeedsEachNamedField(t *testing.T) {
	given(t, threeMembers()).
		when("ann/mine", post("", "x", "user=bob,claim=issue-6")).
		then(posted("ann/mine", repo, 1, record.MessagePlain, sels("user=bob,claim=issue-6")))
}

func TestTheReplyOfAPostNamesTheSelectorsThatMatchedNoSession(t *testing.T) {
	f := given(t, threeMembers())
	reply, _ := f.mustRun("ann/mine", post("", "x", "claim=issue-99", "claim=issue-6"))
	got := reply.(wire.PostReply)
	if len(got.Unmatched) != 1 || got.Unmatched[0].Claim != "issue-99" {
		t.Errorf("Post unmatched = %v; want claim=issue-99", got.Unmatched)
	}
	if len(got.Woke) != 1 || got.Woke[0].Session != "wrk1" {
		t.Errorf("Post woke = %v; want wrk1", got.Woke)
	}
}

func TestAnEmptyToListWakesNobody(t *testing.T) {
	given(t, threeMembers()).when("ann/mine", post("", "hello")).
		then(posted("ann/mine", repo, 1, record.MessagePlain, nil))
}

func TestTheSenderNeverWakesItself(t *testing.T) {
	given(t, threeMembers()).when("ann/wrk1", post("", "me", "claim=issue-6")).
		then(posted("ann/wrk1", repo, 1, record.MessagePlain, sels("claim=issue-6")))
}

func TestAGoneSessionIsNotWoken(t *testing.T) {
	given(t, threeMembers()).stopped("ann/wrk2", 3*minute).ended("bob/bwk1").
		when("ann/mine", post("", "x", "user=ann", "user=bob")).
		then(posted("ann/mine", repo, 1, record.MessagePlain, sels("user=ann", "user=bob"), "ann/wrk1"))
}

func TestAPostWakesOnlyTheMembersOfTheThread(t *testing.T) {
	given(t, threeMembers(), joinRec("ann/mine", "chat"), joinRec("ann/wrk2", "chat")).
		when("ann/mine", post("chat", "x", "user=ann")).
		then(posted("ann/mine", "chat", 1, record.MessagePlain, sels("user=ann"), "ann/wrk2"))
}

func TestALeadSelectorFallsBackToFreeSessions(t *testing.T) {
	given(t, threeMembers()).
		when("ann/mine", post("", "who leads?", "lead=true")).
		then(posted("ann/mine", repo, 1, record.MessagePlain, sels("lead=true"), "ann/wrk2"))
	given(t, threeMembers()).
		when("ann/mine", post("", "bob, who leads?", "user=bob,lead=true")).
		then(posted("ann/mine", repo, 1, record.MessagePlain, sels("user=bob,lead=true"), "bob/bwk1"))
}

func TestALeadSelectorWakesTheLiveLeadAndNoOther(t *testing.T) {
	given(t, threeMembers(), member("ann/lead", false), leadRec("ann", "ann/lead", repo)).
		when("ann/wrk2", post("", "done", "lead=true")).
		then(posted("ann/wrk2", repo, 1, record.MessagePlain, sels("lead=true"), "ann/lead"))
}

func TestALeadThatPostsToItsOwnLeadSelectorWakesNobody(t *testing.T) {
	f := given(t, threeMembers(), member("ann/lead", false), leadRec("ann", "ann/lead", repo))
	f.when("ann/lead", post("", "note to self", "lead=true"))
	p := f.handled.Changes[0].(record.Posted)
	if len(p.Woken) != 0 || !p.Lead {
		t.Errorf("a post of the lead to lead=true woke %v (lead mark %v); want nobody, and the lead mark", p.Woken, p.Lead)
	}
}

func TestALeadSelectorFallsBackWhenTheLeadStopped(t *testing.T) {
	given(t, threeMembers(), member("ann/lead", false), leadRec("ann", "ann/lead", repo)).
		stopped("ann/lead", 5*minute).
		when("ann/mine", post("", "anyone?", "lead=true")).
		then(posted("ann/mine", repo, 1, record.MessagePlain, sels("lead=true"), "ann/wrk2"))
}

func TestANoteWakesNobody(t *testing.T) {
	given(t, threeMembers()).
		when("ann/mine", postKind("", record.MessageNote, "Board: Wave 4 starts.", "repo=o/repo")).
		then(posted("ann/mine", repo, 1, record.MessageNote, sels("repo=o/repo")))
}

func TestAStatusRequestWakesTheSessionsThatItSelects(t *testing.T) {
	given(t, threeMembers()).
		when("ann/mine", postKind("", record.MessageStatus, "", "repo=o/repo")).
		then(posted("ann/mine", repo, 1, record.MessageStatus, sels("repo=o/repo"), "ann/wrk1", "ann/wrk2", "bob/bwk1"))
}

func TestAPostOfAKindOfAnotherBuildIsRefused(t *testing.T) {
	given(t, threeMembers()).when("ann/mine", postKind("", "shout", "x")).thenRefused(wire.BadRequest)
}

func TestAPostWithASelectorOfAnotherBuildIsRefused(t *testing.T) {
	other := as[wire.PostReply](Post{Post: wire.Post{Body: "x", To: []selector.Selector{{Other: json.RawMessage(`{"team":"red"}`)}}}})
	given(t, threeMembers()).when("ann/mine", other).thenRefused(wire.BadRequest)
}

func TestAMessageNeedsAText(t *testing.T) {
	given(t, threeMembers()).when("ann/mine", post("", "")).thenRefused(wire.BadRequest)
}

func TestTheSeqOfAThreadCountsOnlyItsMessages(t *testing.T) {
	given(t, threeMembers(), postRec("ann/mine", repo, 1, "a"), postRec("ann/mine", "chat", 1, "b"),
		postRec("ann/mine", repo, 2, "c")).
		when("ann/mine", post("", "d")).
		then(posted("ann/mine", repo, 3, record.MessagePlain, nil))
}

func TestAnImportedThreadCanStartAtASeqThatIsNot1(t *testing.T) {
	f := given(t, threeMembers(), postRec("ann/mine", repo, 287, "old"))
	f.when("ann/mine", post("", "new")).then(posted("ann/mine", repo, 288, record.MessagePlain, nil))
	if w := f.riff().Warnings; w != 0 {
		t.Errorf("warnings = %d; want 0", w)
	}
}

func TestAPostAtOrBelowTheLastSeqChangesNothing(t *testing.T) {
	f := given(t, threeMembers(), postRec("ann/mine", repo, 2, "a"), postRec("ann/mine", repo, 2, "again"))
	if n := len(f.riff().Threads[repo].Messages); n != 1 || f.riff().Warnings != 1 {
		t.Errorf("messages = %d, warnings = %d; want 1 and 1", n, f.riff().Warnings)
	}
}

func TestASecondPostWithTheSameKeyIsDropped(t *testing.T) {
	f := given(t, threeMembers())
	f.mustRun("ann/mine", postKey("issue-6 is merged", "merge-6", "user=ann"))
	f.when("ann/wrk2", postKey("issue-6 is merged", "merge-6", "user=ann")).then()
	reply, _ := f.mustRun("ann/wrk2", postKey("issue-6 is merged", "merge-6", "user=ann"))
	if got := reply.(wire.PostReply); !got.Dropped || got.Seq != 1 {
		t.Errorf("Post reply = %+v; want dropped with the seq of the kept message", got)
	}
}

func TestAPostWithTheKeyOfAnotherPersonIsKept(t *testing.T) {
	f := given(t, threeMembers())
	f.mustRun("ann/mine", postKey("merged", "merge-6"))
	want := posted("bob/bwk1", repo, 2, record.MessagePlain, nil)
	want.Key = "merge-6"
	f.when("bob/bwk1", postKey("merged", "merge-6")).then(want)
}

func TestTellLeadFailsWithNoLead(t *testing.T) {
	given(t, threeMembers()).when("ann/wrk1", tell("lead", "merge now?")).
		thenReason(wire.BadRequest, "ann has no lead in o/repo: ask your own user")
}

func TestTellLeadGoesToTheLiveLeadOfTheUser(t *testing.T) {
	given(t, threeMembers(), member("ann/lead", false), leadRec("ann", "ann/lead", repo)).
		when("ann/wrk1", tell("lead", "merge now?")).
		then(posted("ann/wrk1", "dm:lead+wrk1", 1, record.MessagePlain, sels("session=lead"), "ann/lead"))
}

func TestTellLeadFailsWhenTheLeadStopped(t *testing.T) {
	given(t, threeMembers(), member("ann/lead", false), leadRec("ann", "ann/lead", repo)).
		stopped("ann/lead", 5*minute).
		when("ann/wrk1", tell("lead", "merge now?")).
		thenRefused(wire.BadRequest)
}

func TestTellLeadFailsWhenTheLeadWorksInAnotherRepository(t *testing.T) {
	given(t, threeMembers(), member("ann/lead", false), leadRec("ann", "ann/lead", repo)).
		at("ann/lead", "o/other").
		when("ann/wrk1", tell("lead", "merge now?")).
		thenRefused(wire.BadRequest)
}

func TestATellGoesToTheDirectThreadOfTheTwoSessions(t *testing.T) {
	given(t, threeMembers()).when("ann/wrk1", tell("bwk1", "can I take #14?")).
		then(posted("ann/wrk1", "dm:bwk1+wrk1", 1, record.MessagePlain, sels("session=bwk1"), "bob/bwk1"))
}

func TestATellToAPersonWakesItsTerminals(t *testing.T) {
	given(t, threeMembers()).when("ann/wrk1", tell("~bob", "ping")).
		then(posted("ann/wrk1", "dm:wrk1+~bob", 1, record.MessagePlain,
			[]selector.Selector{{User: "bob", Person: ptr(true)}}))
}

func ptr[T any](v T) *T { return &v }

func TestATellToAGoneSessionFails(t *testing.T) {
	given(t, threeMembers()).ended("bob/bwk1").when("ann/wrk1", tell("bwk1", "x")).
		thenReason(wire.BadRequest, "is gone: it gets no messages")
}

func TestASessionCannotTellItself(t *testing.T) {
	given(t, threeMembers()).when("ann/wrk1", tell("wrk1", "x")).thenRefused(wire.BadRequest)
}

func TestAPostToADirectThreadOfOthersIsRefused(t *testing.T) {
	given(t, threeMembers()).when("ann/wrk1", post("dm:bwk1+wrk2", "x")).thenRefused(wire.NotAllowed)
}

func TestThePostOfALeadHasTheLeadMark(t *testing.T) {
	f := given(t, threeMembers(), member("ann/lead", false), leadRec("ann", "ann/lead", repo))
	f.when("ann/lead", post("", "Wave 34 starts"))
	if p := f.handled.Changes[0].(record.Posted); !p.Lead {
		t.Error("the post of the live lead has no lead mark")
	}
}

func TestAThreadKeepsItsLast200Messages(t *testing.T) {
	var posts []record.Record
	for seq := uint64(1); seq <= 205; seq++ {
		posts = append(posts, postRec("ann/mine", repo, seq, "m"))
	}
	f := given(t, threeMembers(), posts)
	msgs := f.riff().Threads[repo].Messages
	if len(msgs) != KeptMessages || msgs[0].Seq != 6 || msgs[len(msgs)-1].Seq != 205 {
		t.Errorf("kept messages = %d from %d; want 200 from 6", len(msgs), msgs[0].Seq)
	}
}

func TestTheServerMakesThePayloadOfAPostFromItsFields(t *testing.T) {
	f := given(t, threeMembers())
	f.when("ann/mine", post("", "hello there", "user=bob"))
	if got := bodyOf(t, f.handled.Changes[0]); got != "hello there" {
		t.Errorf("payload body = %q; want the body of the call", got)
	}
}

func TestThePayloadOfAPostMustAgreeWithTheCall(t *testing.T) {
	f := given(t, threeMembers())
	p := posted("bob/bwk1", repo, 1, record.MessagePlain, nil)
	forged := as[wire.PostReply](Post{Post: wire.Post{Body: "x", Payload: payloadOf(p, "x")}})
	f.when("ann/mine", forged).thenReason(wire.BadRequest, "signed fields")
}

func TestLeadNamesTheSessionThatAPersonNames(t *testing.T) {
	f := given(t, threeMembers(), member("ann/lead", false))
	f.when("ann", lead("lead")).then(leadSet("ann/lead", repo, ""))
	reply, _ := f.mustRun("ann", lead("lead"))
	if got := reply.(wire.LeadReply); !got.Lead.Lead || !strings.Contains(got.Text, "is your lead in o/repo now") {
		t.Errorf("Lead reply = %+v; want the new lead with lead=true", got)
	}
}

func TestASessionCannotNameTheLead(t *testing.T) {
	given(t, threeMembers(), member("ann/lead", false)).when("ann/lead", lead("lead")).
		thenReason(wire.NotAllowed, LeadByPerson)
}

func TestAWorkerIsNeverTheLead(t *testing.T) {
	given(t, threeMembers()).when("ann", lead("wrk2")).
		thenReason(wire.NotAllowed, "a worker cannot be the lead")
}

func TestAPersonNamesOnlyItsOwnLead(t *testing.T) {
	given(t, threeMembers(), member("bob/blead", false)).when("ann", lead("blead")).thenRefused(wire.OtherUser)
}

func TestANewLeadReplacesTheOldLeadAndTheOldLeadGetsAMessage(t *testing.T) {
	f := given(t, threeMembers(), member("ann/lead", false), member("ann/lea2", false), leadRec("ann", "ann/lead", repo))
	f.when("ann", lead("lea2")).then(
		leadSet("ann/lea2", repo, "ann/lead"),
		posted("riff@server", "dm:lead+~riff", 1, record.MessagePlain, sels("session=lead"), "ann/lead"),
	)
	if got := bodyOf(t, f.handled.Changes[1]); !strings.Contains(got, "you are not the lead of o/repo now") {
		t.Errorf("the message to the old lead = %q", got)
	}
}

func TestASessionThatRegistersOrStartsIsNotTheLead(t *testing.T) {
	f := given(t)
	f.mustRun("ann/lead", register(false))
	f.mustRun("ann/lead", start(record.ReasonProcess, false))
	if _, ok := f.riff().LeadOf("ann", repo); ok {
		t.Error("a register or a start made a lead")
	}
}

func TestALeadStaysTheLeadAfterAStart(t *testing.T) {
	f := given(t, member("ann/lead", false), leadRec("ann", "ann/lead", repo))
	f.mustRun("ann/lead", start(record.ReasonResume, false))
	if _, ok := f.s.Written().LiveLead("ann", repo, f.now); !ok {
		t.Error("a start ended the lead")
	}
}

func TestALeadThatStoppedFor5MinutesDoesNotCount(t *testing.T) {
	f := given(t, member("ann/lead", false), leadRec("ann", "ann/lead", repo))
	if _, ok := f.s.Written().LiveLead("ann", repo, f.now); !ok {
		t.Fatal("the lead does not count")
	}
	f.stopped("ann/lead", 5*minute)
	if _, ok := f.s.Written().LiveLead("ann", repo, f.now); ok {
		t.Error("a lead that stopped 5 minutes ago counts")
	}
	f.seen("ann/lead")
	if _, ok := f.s.Written().LiveLead("ann", repo, f.now); !ok {
		t.Error("a lead that came back does not count")
	}
}

func TestANewLeadTakesTheReadMarksOfTheOldLead(t *testing.T) {
	// The old lead read up to message 3; messages 4 and 5 came; the new
	// lead joins at message 5 and is named the lead: it reads 4 and 5.
	f := given(t, member("ann/lead", false), leadRec("ann", "ann/lead", repo),
		postRec("bob/bwk1", repo, 1, "1"), postRec("bob/bwk1", repo, 2, "2"), postRec("bob/bwk1", repo, 3, "3"))
	Read{Thread: repo, Seq: 3}.Set(f.s.presence, whoOf("ann/lead"), f.now)
	f.s.Replay(numbered(recs(postRec("bob/bwk1", repo, 4, "4"), postRec("bob/bwk1", repo, 5, "5")), f.riff().Position+1)...)
	f.mustRun("ann/lea2", register(false))
	f.mustRun("ann", lead("lea2"))
	page, _, err := f.s.Written().Read(f.caller("ann/lea2"), wire.Read{Thread: repo}, f.now)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []uint64
	for _, m := range page.Threads[0].Messages {
		seqs = append(seqs, m.Seq)
	}
	if len(seqs) != 2 || seqs[0] != 4 || seqs[1] != 5 {
		t.Errorf("the new lead reads %v; want [4 5]", seqs)
	}
}

func TestLeadOfASessionOutsideARepositoryIsRefused(t *testing.T) {
	f := given(t, rec("ann/lead", "register", record.SessionStarted{Session: uriIn("ann/lead", string(name.NoRepo)), Reason: record.ReasonJoin}))
	f.when("ann", lead("lead")).thenRefused(wire.BadRequest)
}

func TestGivenTheThreadDenialsWhenASessionPostsAMessageThereThenItIsRefusedAndANoteIsTaken(t *testing.T) {
	f := given(t, threeMembers())
	f.when("ann/wrk1", post("denials", "denied reason=x tool=Bash: ls", "user=ann")).
		thenReason(wire.BadRequest, "the thread denials takes notes only")
	f.when("ann/wrk1", postKind("denials", record.MessageStatus, "busy")).
		thenReason(wire.BadRequest, "the thread denials takes notes only")
	f.when("ann/wrk1", postKind("denials", record.MessageNote, "denied reason=x tool=Bash: ls", "user=ann")).
		then(posted("ann/wrk1", "denials", 1, record.MessageNote, sels("user=ann")))
}
