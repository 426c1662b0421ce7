package riffstate

import (
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The unanswered block (the guide, "A blocked session"): the block wakes
// the lead; lead.wake minutes (15) with no answer give the lead a second
// wake, "... has no answer after 15 minutes"; lead.wake minutes more and
// the block is unanswered: who shows "the lead gave no answer", and the
// keep-alive of the lead lists it for the desktop notification.

// blockedTeam is a worker with a claim and its live lead, at t0.
func blockedTeam(t *testing.T) *fixture {
	f := given(t, member("ann/wrk1", true), member("ann/lead", false), leadRec("ann", "ann/lead", repo),
		claimRec("ann/wrk1", repo, "issue-8"))
	BlockedSet{Reason: "which of two designs?"}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	return f
}

// keepAlive gives the signs of life of a keep-alive to each session: the
// relay of each sends one each minute.
func (f *fixture) keepAlive(who ...string) *fixture { return f.seen(who...) }

func TestGivenABlockedWorkerWhenFifteenMinutesPassWithNoAnswerThenTheLeadGetsASecondWake(t *testing.T) {
	f := blockedTeam(t)
	f.after(15*minute-second).keepAlive("ann/wrk1", "ann/lead")
	if due := f.s.Written().RemindsDue(f.now); len(due) != 0 {
		t.Fatalf("second wakes due before 15 minutes = %+v; want none", due)
	}
	f.after(second).keepAlive("ann/wrk1", "ann/lead")
	due := f.s.Written().RemindsDue(f.now)
	if len(due) != 1 || due[0].Session != whoOf("ann/wrk1") {
		t.Fatalf("second wakes due at 15 minutes = %+v; want the one of wrk1", due)
	}
	_, effects, err := Run(f.s, due[0], ServerCaller(), f.now)
	if err != nil {
		t.Fatalf("remind_lead refused: %v", err)
	}
	if len(effects.Wakes) != 1 || effects.Wakes[0].To != whoOf("ann/lead") || effects.Wakes[0].Wake.From != ServerURI().Named() {
		t.Fatalf("wakes of remind_lead = %+v; want one wake of the lead from riff@server", effects.Wakes)
	}
	if len(effects.Messages) != 1 {
		t.Fatalf("messages of remind_lead = %+v; want one", effects.Messages)
	}
	text := effects.Messages[0].Body
	if !strings.HasPrefix(text, "blocked: ") || !strings.HasSuffix(text, `"which of two designs?" has no answer after 15 minutes`) ||
		!strings.Contains(text, "(wrk1)") || !strings.Contains(text, "working on #8") {
		t.Errorf("the second wake = %q; want blocked: SESSION, working on #8: \"REASON\" has no answer after 15 minutes", text)
	}
	// One second wake: it is not due again.
	if due := f.s.Written().RemindsDue(f.now); len(due) != 0 {
		t.Errorf("second wakes due after the second wake = %+v; want none", due)
	}
	if row, _ := f.rowOf("ann/wrk1", false); row.Unanswered || strings.Contains(row.Detail, NoAnswerText) {
		t.Errorf("row right after the second wake = %+v; want no unanswered mark yet", row)
	}

	// 15 minutes more with no answer: unanswered.
	f.after(15*minute-second).keepAlive("ann/wrk1", "ann/lead")
	if row, _ := f.rowOf("ann/wrk1", false); row.Unanswered {
		t.Errorf("row 1 s before the end of the second wait = %+v; want no unanswered mark", row)
	}
	f.after(second).keepAlive("ann/wrk1", "ann/lead")
	row, _ := f.rowOf("ann/wrk1", false)
	if row.State != "blocked" || !row.Unanswered || row.Detail != "which of two designs? (30m ago)  the lead gave no answer  working on #8" {
		t.Errorf("row after 30 minutes = %s %q unanswered %v; want blocked, \"which of two designs? (30m ago)  the lead gave no answer  working on #8\", unanswered",
			row.State, row.Detail, row.Unanswered)
	}
	list := f.s.Written().UnansweredFor(f.caller("ann/lead"), f.now)
	if len(list) != 1 || list[0].Session.Who() != whoOf("ann/wrk1") || list[0].Reason != "which of two designs?" ||
		len(list[0].Items) != 1 || list[0].Items[0] != "issue-8" {
		t.Errorf("the unanswered blocks of the lead = %+v; want wrk1 on issue-8 with its reason", list)
	}
	if list := f.s.Written().UnansweredFor(f.caller("ann/wrk1"), f.now); len(list) != 0 {
		t.Errorf("the unanswered blocks of a worker = %+v; want none: only the lead gets them", list)
	}
	reply := KeepAlive{Alive: wire.Alive{Me: uri("ann/lead")}}.Reply(f.caller("ann/lead"), f.s.Written(), Told{}, f.now)
	if len(reply.Unanswered) != 1 {
		t.Errorf("the reply to the keep-alive of the lead = %+v; want the unanswered block", reply)
	}
}

func TestGivenAnUnansweredBlockWhenAMessageWakesTheSessionThenTheLineEndsAtOnce(t *testing.T) {
	f := blockedTeam(t)
	f.after(15*minute).keepAlive("ann/wrk1", "ann/lead")
	f.remindAll()
	f.after(15*minute).keepAlive("ann/wrk1", "ann/lead")
	if row, _ := f.rowOf("ann/wrk1", false); !row.Unanswered {
		t.Fatalf("row = %+v; want unanswered", row)
	}
	// A note is no answer.
	f.mustRun("ann/lead", postKind("", record.MessageNote, "a note is no answer", "session=wrk1"))
	if row, _ := f.rowOf("ann/wrk1", false); !row.Unanswered {
		t.Fatalf("row after a note = %+v; want still unanswered", row)
	}
	f.mustRun("ann/lead", tell("wrk1", "the first design"))
	row, _ := f.rowOf("ann/wrk1", false)
	if row.Unanswered || strings.Contains(row.Detail, NoAnswerText) || row.State != "blocked" {
		t.Errorf("row after the answer = %s %q unanswered %v; want blocked until the next work, with no unanswered line", row.State, row.Detail, row.Unanswered)
	}
	if list := f.s.Written().UnansweredFor(f.caller("ann/lead"), f.now); len(list) != 0 {
		t.Errorf("the unanswered blocks after the answer = %+v; want none", list)
	}
}

// remindAll runs each due second wake of the lead through Run.
func (f *fixture) remindAll() {
	f.t.Helper()
	for _, r := range f.s.Written().RemindsDue(f.now) {
		if _, _, err := Run(f.s, r, ServerCaller(), f.now); err != nil {
			f.t.Fatalf("remind_lead of %s refused: %v", r.Session, err)
		}
	}
}

func TestGivenTheLeadWakeOfTheLeadWhenItsKeepAliveTellsItThenBothWaitsFollowIt(t *testing.T) {
	f := blockedTeam(t)
	Alive{LeadWakeMs: 5 * minute}.Set(f.s.presence, whoOf("ann/lead"), f.now)
	f.after(5*minute).keepAlive("ann/wrk1", "ann/lead")
	due := f.s.Written().RemindsDue(f.now)
	if len(due) != 1 || due[0].AfterMs != 5*minute {
		t.Fatalf("second wakes due after 5 minutes with lead.wake 5 = %+v; want one with a wait of 5 minutes", due)
	}
	_, effects, err := Run(f.s, due[0], ServerCaller(), f.now)
	if err != nil || len(effects.Messages) != 1 || !strings.HasSuffix(effects.Messages[0].Body, "has no answer after 5 minutes") {
		t.Fatalf("remind_lead = %+v, %v; want the text \"... has no answer after 5 minutes\"", effects.Messages, err)
	}
	f.after(5*minute).keepAlive("ann/wrk1", "ann/lead")
	if row, _ := f.rowOf("ann/wrk1", false); !row.Unanswered {
		t.Errorf("row 5 minutes after the second wake with lead.wake 5 = %+v; want unanswered", row)
	}
}

func TestGivenAKeepAliveWhenItsLeadWakeIsOutOfBoundsThenItIsRefused(t *testing.T) {
	c := CallerOf(uri("ann/lead"))
	for _, m := range []int64{0, -1, wire.MaxLeadWake + 1} {
		if _, err := (KeepAlive{Alive: wire.Alive{LeadWake: &m}}).Check(c); !isRefused(err, wire.BadRequest) {
			t.Errorf("a keep-alive with lead_wake %d = %v; want bad_request", m, err)
		}
	}
	one := int64(1)
	if sig, err := (KeepAlive{Alive: wire.Alive{LeadWake: &one}}).Check(c); err != nil || sig.(Alive).LeadWakeMs != minute {
		t.Errorf("a keep-alive with lead_wake 1 = %+v, %v; want 1 minute", sig, err)
	}
}

func TestGivenABlockWhenItWasAnsweredOrANewBlockCameThenTheSecondWakeIsRefused(t *testing.T) {
	f := blockedTeam(t)
	f.after(15*minute).keepAlive("ann/wrk1", "ann/lead")
	due := f.s.Written().RemindsDue(f.now)
	if len(due) != 1 {
		t.Fatalf("due = %+v", due)
	}
	// The answer comes between the look of the timer and its command.
	f.mustRun("ann/lead", tell("wrk1", "the first design"))
	if _, _, err := Run(f.s, due[0], ServerCaller(), f.now); !isRefused(err, wire.BadRequest) {
		t.Errorf("remind_lead of an answered block = %v; want bad_request", err)
	}
	BlockedSet{Reason: "and now?"}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	if _, _, err := Run(f.s, due[0], ServerCaller(), f.now); !isRefused(err, wire.BadRequest) {
		t.Errorf("remind_lead of a block that a new one replaced = %v; want bad_request", err)
	}
}

func TestGivenABlockedLeadThenItHasNoSecondWake(t *testing.T) {
	f := given(t, member("ann/lead", false), leadRec("ann", "ann/lead", repo))
	BlockedSet{Reason: "run riff owner --take"}.Set(f.s.presence, whoOf("ann/lead"), f.now)
	f.after(hour).keepAlive("ann/lead")
	if due := f.s.Written().RemindsDue(f.now); len(due) != 0 {
		t.Errorf("second wakes of a lead that waits for its person = %+v; want none", due)
	}
}

func TestGivenABlockedWorkerWithNoLeadWhenTheWaitPassesThenTheBlockIsUnansweredWithNoMessage(t *testing.T) {
	f := given(t, member("ann/wrk1", true))
	BlockedSet{Reason: "which of two designs?"}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	f.after(15 * minute).keepAlive("ann/wrk1")
	due := f.s.Written().RemindsDue(f.now)
	if len(due) != 1 {
		t.Fatalf("due = %+v; want one", due)
	}
	_, effects, err := Run(f.s, due[0], ServerCaller(), f.now)
	if err != nil || len(effects.Messages) != 0 {
		t.Fatalf("remind_lead with no lead = %+v, %v; want no message", effects, err)
	}
	f.after(15 * minute).keepAlive("ann/wrk1")
	if row, _ := f.rowOf("ann/wrk1", false); !row.Unanswered {
		t.Errorf("row = %+v; want unanswered", row)
	}
}

// An answered block ends only at the next work after the answer: a tool
// call, a claim, a release, a new start; no other call ends it.

func TestGivenAnAnsweredBlockWhenTheSessionCallsAnythingButWorkThenItStaysBlocked(t *testing.T) {
	f := blockedTeam(t)
	f.after(second)
	f.mustRun("ann/lead", tell("wrk1", "the first design"))
	f.after(second)
	for _, c := range []step{tell("lead", "thanks"), post("", "a word to all"), join("chat")} {
		f.mustRun("ann/wrk1", c)
		if row, _ := f.rowOf("ann/wrk1", false); row.State != "blocked" {
			t.Fatalf("row after a %s of the answered session = %s %q; want still blocked", c.kind(), row.State, row.Detail)
		}
	}
	StatusSet{Text: "reading the answer"}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	if row, _ := f.rowOf("ann/wrk1", false); row.State != "blocked" {
		t.Fatalf("row after a status = %s; want still blocked", row.State)
	}
}

func TestGivenAnAnsweredBlockWhenTheSessionClaimsReleasesOrStartsThenTheBlockEnds(t *testing.T) {
	for _, tc := range []struct {
		name string
		work step
	}{
		{"a claim", claim("", "issue-9")},
		{"a release", release("", "issue-8")},
		{"a new start", start(record.ReasonResume, true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := blockedTeam(t)
			// Work before the answer ends no block.
			f.after(second)
			f.mustRun("ann/wrk1", claim("", "issue-10"))
			if row, _ := f.rowOf("ann/wrk1", false); row.State != "blocked" {
				t.Fatalf("row after a claim before the answer = %s; want blocked", row.State)
			}
			f.after(second)
			f.mustRun("ann/lead", tell("wrk1", "the first design"))
			f.after(second)
			f.mustRun("ann/wrk1", tc.work)
			if row, _ := f.rowOf("ann/wrk1", false); row.State == "blocked" {
				t.Errorf("row after %s after the answer = %s %q; want the block ended", tc.name, row.State, row.Detail)
			}
		})
	}
}

func TestGivenAnAnsweredBlockWhenAToolCallOfBeforeTheAnswerComesThenTheBlockStays(t *testing.T) {
	f := blockedTeam(t)
	f.after(10 * second)
	f.mustRun("ann/lead", tell("wrk1", "the first design"))
	f.after(5 * second)
	// The hook saw the tool 8 s ago: after the block, before the answer.
	Alive{Activity: "runs Edit", ActivitySecs: secs(8)}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	if row, _ := f.rowOf("ann/wrk1", false); row.State != "blocked" {
		t.Fatalf("row after a tool of before the answer = %s; want blocked", row.State)
	}
	Alive{Activity: "runs Edit", ActivitySecs: secs(2)}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	if row, _ := f.rowOf("ann/wrk1", false); row.State != "busy" {
		t.Errorf("row after a tool of after the answer = %s; want busy", row.State)
	}
}

// A block survives a start of the server, as the status and the step.

func TestGivenABlockWithItsSecondWakeWhenTheServerStartsAgainThenTheSessionIsStillBlocked(t *testing.T) {
	f := blockedTeam(t)
	f.after(15*minute).keepAlive("ann/wrk1", "ann/lead")
	f.remindAll()
	f.restart()
	f.after(minute)
	f.s.Loaded(f.now)
	f.keepAlive("ann/wrk1", "ann/lead")
	WatchStarted{}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	row, _ := f.rowOf("ann/wrk1", false)
	if row.State != "blocked" || !strings.HasPrefix(row.Detail, "which of two designs? (16m ago)") {
		t.Fatalf("row after a start = %s %q; want blocked with its reason and its age", row.State, row.Detail)
	}
	if due := f.s.Written().RemindsDue(f.now); len(due) != 0 {
		t.Errorf("second wakes due after a start = %+v; want none: the lead had it", due)
	}
	f.after(14*minute).keepAlive("ann/wrk1", "ann/lead")
	if row, _ := f.rowOf("ann/wrk1", false); !row.Unanswered {
		t.Errorf("row 15 minutes after the second wake, across a start = %+v; want unanswered", row)
	}
}

// The step of the lead from its own calls (the guide, "See what the lead
// does").

func TestGivenTheLeadWhenItTellsPostsPausesOrResumesThenItsStepSaysIt(t *testing.T) {
	f := given(t, member("ann/lead", false), leadRec("ann", "ann/lead", repo), member("ann/075ff6a7-1234", true))
	f.after(second)
	f.mustRun("ann/lead", tell("075f", "claim issue-7"))
	f.after(12 * second)
	row, _ := f.rowOf("ann/lead", false)
	if !strings.HasSuffix(row.Detail, "12s ago: told 075ff6a7") {
		t.Errorf("row of the lead after a tell = %q; want \"… 12s ago: told 075ff6a7\"", row.Detail)
	}
	long := "wave 3 starts now:\n" + strings.Repeat("each worker claims its item ", 5)
	f.mustRun("ann/lead", post("", long))
	row, _ = f.rowOf("ann/lead", false)
	want := "0s ago: posted: " + oneLine(long, MaxPostStep)
	if !strings.HasSuffix(row.Detail, want) || strings.Contains(row.Detail, "\n") {
		t.Errorf("row of the lead after a post = %q; want it to end with %q", row.Detail, want)
	}
	if n := len([]rune(oneLine(long, MaxPostStep))); n != MaxPostStep {
		t.Errorf("the message in the step has %d characters; want %d", n, MaxPostStep)
	}
	f.mustRun("ann/lead", pause(false, ""))
	if row, _ := f.rowOf("ann/lead", false); !strings.HasSuffix(row.Detail, "0s ago: paused "+repo) {
		t.Errorf("row of the lead after a pause = %q; want the step paused %s", row.Detail, repo)
	}
	f.mustRun("ann/lead", resume(false, ""))
	if row, _ := f.rowOf("ann/lead", false); !strings.HasSuffix(row.Detail, "0s ago: resumed "+repo) {
		t.Errorf("row of the lead after a resume = %q; want the step resumed %s", row.Detail, repo)
	}
	// The step of each other session changes only when it sets it.
	f.mustRun("ann/075ff6a7-1234", tell("lead", "on it"))
	if row, _ := f.rowOf("ann/075ff6a7-1234", false); strings.Contains(row.Detail, "told") {
		t.Errorf("row of a worker after its tell = %q; want no step", row.Detail)
	}
}

// offline is "no open watch": a watch that ended has the reconnect bound
// of the stream to come back.

func TestGivenASessionWhoseWatchEndedWhenTheReconnectBoundPassesThenItIsOffline(t *testing.T) {
	f := given(t, member("ann/wrk1", true))
	WatchEnded{}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	f.after(ReconnectMs - second)
	Called{Place: uri("ann/wrk1").Place()}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	if row, _ := f.rowOf("ann/wrk1", false); row.State == "offline" {
		t.Errorf("row %d s after the end of the watch = %s; want its state: the watch may come back", (ReconnectMs-second)/second, row.State)
	}
	f.after(second)
	if row, _ := f.rowOf("ann/wrk1", false); row.State != "offline" {
		t.Errorf("row at the reconnect bound with no watch = %s %q; want offline, also with a call 1 s ago", row.State, row.Detail)
	}
	WatchStarted{}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	if row, _ := f.rowOf("ann/wrk1", false); row.State == "offline" {
		t.Errorf("row with a watch again = %s; want online", row.State)
	}
	if ReconnectMs != 45*second {
		t.Errorf("ReconnectMs = %d; want the 45 s of the stall limit of a stream", ReconnectMs)
	}
}

func TestGivenASessionThatNeverWatchedWhenItCallsThenItIsOffline(t *testing.T) {
	f := given(t, member("ann/wrk1", true))
	WatchEnded{}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	f.s.presence.Live(whoOf("ann/wrk1")).WatchEndedMs = 0
	Called{Place: uri("ann/wrk1").Place()}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	if row, _ := f.rowOf("ann/wrk1", false); row.State != "offline" {
		t.Errorf("row of a session that calls with no watch = %s; want offline", row.State)
	}
}

func TestGivenAStatusOf401CharactersThenTheRefusalSaysStep(t *testing.T) {
	c := CallerOf(uri("ann/wrk1"))
	long := strings.Repeat("x", wire.MaxStatus+1)
	_, err := (SetStatus{Status: wire.Status{Text: long}}).Check(c)
	if !isRefused(err, wire.BadRequest) || err.(*wire.Refused).Reason != "the step has more than 400 characters" {
		t.Errorf("a status of 401 characters = %v; want the guide's \"the step has more than 400 characters\"", err)
	}
	_, err = (SetStep{Step: wire.Step{Start: long}}).Check(c)
	if !isRefused(err, wire.BadRequest) || err.(*wire.Refused).Reason != "the step has more than 400 characters" {
		t.Errorf("a step of 401 characters = %v; want \"the step has more than 400 characters\"", err)
	}
}

// The checkpoint of the engine encodes its Shadow: each change of a
// block (the second wake, the answer, its end at the next work) reaches
// the Shadow, which then gives the bytes of the state.
func TestGivenABlockWhenItsSecondWakeItsAnswerAndItsEndComeThenTheShadowGivesTheBytesOfTheState(t *testing.T) {
	f := blockedTeam(t)
	sh, err := f.s.NewShadow()
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, records []record.Record) {
		t.Helper()
		if err := sh.Advance([]ShadowStep{{Records: records}}, f.s.ShadowChanges()); err != nil {
			t.Fatal(err)
		}
		got, err := sh.Encode()
		if err != nil {
			t.Fatal(err)
		}
		want, err := f.s.EncodeCheckpoint()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("after %s the Shadow encodes\n%s\nthe state\n%s", what, got, want)
		}
	}
	// run runs a command through the steps of the writer and gives its
	// records.
	run := func(c Caller, cmd step) []record.Record {
		t.Helper()
		h, err := cmd.check(f.s, c, f.now)
		if err != nil {
			t.Fatalf("%s refused: %v", cmd.kind(), err)
		}
		recs := f.s.Queue(c, cmd.kind(), "", h.Changes, f.now)
		f.s.WrittenRecords(recs, f.now)
		return recs
	}
	f.after(15*minute).keepAlive("ann/wrk1", "ann/lead")
	due := f.s.Written().RemindsDue(f.now)
	if len(due) != 1 {
		t.Fatalf("due = %+v", due)
	}
	check("the keep-alives", nil)
	check("the second wake", run(ServerCaller(), as[struct{}](due[0])))
	f.after(minute)
	check("the answer", run(f.caller("ann/lead"), tell("wrk1", "the first design")))
	f.after(minute)
	check("the next work", run(f.caller("ann/wrk1"), claim("", "issue-9")))
	if l := f.s.presence.Live(whoOf("ann/wrk1")); l.Block != nil {
		t.Errorf("the block after the next work = %+v; want none", l.Block)
	}
}

func TestGivenManyBlocksThenTheSecondWakesAndTheUnansweredBlocksComeInTheSameOrderEachTime(t *testing.T) {
	var first []byte
	for run := range 30 {
		f := given(t, member("ann/lead", false), leadRec("ann", "ann/lead", repo),
			member("ann/w003", true), member("ann/w001", true), member("ann/w004", true), member("ann/w002", true))
		for _, w := range []string{"ann/w003", "ann/w001", "ann/w004", "ann/w002"} {
			BlockedSet{Reason: "which of two designs?"}.Set(f.s.presence, whoOf(w), f.now)
		}
		f.after(15*minute).keepAlive("ann/lead", "ann/w001", "ann/w002", "ann/w003", "ann/w004")
		due := f.s.Written().RemindsDue(f.now)
		var made []Effects
		for _, r := range due {
			_, effects, err := Run(f.s, r, ServerCaller(), f.now)
			if err != nil {
				t.Fatal(err)
			}
			made = append(made, effects)
		}
		f.after(15*minute).keepAlive("ann/lead", "ann/w001", "ann/w002", "ann/w003", "ann/w004")
		list := f.s.Written().UnansweredFor(f.caller("ann/lead"), f.now)
		if len(due) != 4 || len(list) != 4 || due[0].Session != whoOf("ann/w001") || list[3].Session.Who() != whoOf("ann/w004") {
			t.Fatalf("run %d: due %+v, unanswered %+v; want 4 of each in the order of the sessions", run, due, list)
		}
		got := jsonOf(t, []any{due, made, list})
		if run == 0 {
			first = got
		} else if string(first) != string(got) {
			t.Fatalf("run %d differs from the first:\n%s\n%s", run, first, got)
		}
	}
}

// The guide, "A blocked session": a prompt in a worker ends no block (the
// riff daemon gives each input of a worker, not a person); the prompt of
// the person ends the block of a session that is no worker.
func TestGivenABlockedWorkerWhenItsKeepAliveCarriesAPromptThenItStaysBlocked(t *testing.T) {
	for _, worker := range []bool{true, false} {
		f := given(t, member("ann/wrk1", worker))
		BlockedSet{Reason: "which of two designs?"}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
		f.after(10 * second)
		secs := int64(5)
		c := f.s.Caller(f.caller("ann/wrk1"))
		if c.Worker != worker {
			t.Fatalf("the caller's worker mark = %v; want %v", c.Worker, worker)
		}
		sig, err := KeepAlive{Alive: wire.Alive{Me: uri("ann/wrk1"), PromptSecs: &secs}}.Check(c)
		if err != nil {
			t.Fatalf("keep-alive refused: %v", err)
		}
		sig.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
		row, _ := f.rowOf("ann/wrk1", false)
		if worker && row.State != "blocked" {
			t.Errorf("a worker after a prompt: %+v; want still blocked", row)
		}
		if !worker && row.State == "blocked" {
			t.Errorf("a session of a person after a prompt: %+v; want the block ended", row)
		}
	}
}
