package riffstate

import (
	"slices"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/wire"
)

var signIn = Options{SignIn: true, Build: "test"}

// twoRepos: a lead and a worker of ann in o/repo, a worker of bob in
// o/repo, and a worker of carl in o/other.
func twoRepos() []record.Record {
	carl := []record.Record{
		rec("carl/cwk1", "register", record.SessionStarted{Session: uriIn("carl/cwk1", "o/other"), Reason: record.ReasonJoin, Worker: true}),
		rec("carl/cwk1", "register", record.JoinedThread{Session: uriIn("carl/cwk1", "o/other"), Thread: "o/other"}),
	}
	return recs(member("ann/lead", false), member("ann/wrk1", true), member("bob/bwk1", true), carl,
		leadRec("ann", "ann/lead", repo))
}

func TestAPersonPausesItsRepository(t *testing.T) {
	given(t, twoRepos()).when("ann", pause(false, "")).then(paused(record.RepoScope(repo), record.Paused))
}

func TestASessionPausesOnlyWhenItIsTheLead(t *testing.T) {
	given(t, twoRepos()).when("ann/lead", pause(false, "")).then(paused(record.RepoScope(repo), record.Paused))
	given(t, twoRepos()).when("bob/bwk1", pause(false, "")).
		thenReason(wire.NotAllowed, "only the lead can pause", "is not the lead of o/repo")
}

func TestALeadPausesOnlyItsOwnRepository(t *testing.T) {
	given(t, twoRepos()).when("ann/lead", pause(false, "o/other")).
		thenReason(wire.NotAllowed, "a lead can pause only its own repository o/repo")
}

func TestALeadThatIsAnAdminPausesTheWholeRiff(t *testing.T) {
	given(t, twoRepos()).when("ann/lead", pause(true, "")).then(paused(record.RiffScope(), record.Paused))
}

func TestAPauseOfTheWholeRiffOrARepositoryByItsNameNeedsAnAdmin(t *testing.T) {
	for _, tc := range []struct {
		name string
		cmd  step
		verb string
	}{
		{"pause the riff", pause(true, ""), "pause"},
		{"resume the riff", resume(true, ""), "resume"},
		{"pause by name", pause(false, "o/other"), "pause"},
		{"resume by name", resume(false, "o/other"), "resume"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			givenIn(t, signIn, twoRepos()).as(Member).when("ann", tc.cmd).
				thenReason(wire.NotAllowed, "ann is not an admin; only the owner or an admin can "+tc.verb+" the whole riff or a repository by its name")
			givenIn(t, signIn, twoRepos()).as(Admin).when("ann", tc.cmd).then(f0(tc.cmd)...)
		})
	}
}

// f0 gives the changes of a pause command of an admin in twoRepos with
// no pause yet: one pause_set, or none for a resume.
func f0(cmd step) []record.Change {
	p, ok := cmd.(cmdOf[wire.PauseReply]).c.(Pause)
	if !ok {
		return nil
	}
	scope := record.RepoScope(p.Repository)
	if p.Riff {
		scope = record.RiffScope()
	}
	return []record.Change{paused(scope, record.Paused)}
}

func TestInARiffWithNoSignInEachPersonSetsEachPause(t *testing.T) {
	given(t, twoRepos()).when("bob", pause(false, "o/other")).then(paused(record.RepoScope("o/other"), record.Paused))
	given(t, twoRepos()).when("bob", pause(true, "")).then(paused(record.RiffScope(), record.Paused))
}

func TestAPauseOfAPausedScopeMakesNoRecord(t *testing.T) {
	given(t, twoRepos(), pauseRec("ann", record.RepoScope(repo), record.Paused)).when("ann", pause(false, "")).then()
	given(t, twoRepos()).when("ann", resume(true, "")).then()
}

func TestResumeOfARepositoryWhileTheRiffIsPausedSaysSo(t *testing.T) {
	f := given(t, twoRepos(), pauseRec("ann", record.RiffScope(), record.Paused), pauseRec("ann", record.RepoScope(repo), record.Paused))
	f.when("ann", resume(false, "")).then(paused(record.RepoScope(repo), record.Running))
	reply, effects := f.mustRun("ann", resume(false, ""))
	got := reply.(wire.PauseReply)
	if !strings.Contains(got.Text, "The riff is still paused") || got.Here != record.Paused || got.Pauses.Riff == nil {
		t.Errorf("Resume reply = %+v; want the riff still paused", got)
	}
	if len(effects.Wakes) != 0 {
		t.Errorf("wakes = %v; want none: the pause of the riff still stops each session", effects.Wakes)
	}
}

func TestAPauseWakesEachSessionThatItStops(t *testing.T) {
	f := given(t, twoRepos())
	reply, effects := f.mustRun("ann", pause(false, ""))
	var woke []string
	for _, w := range effects.Wakes {
		woke = append(woke, w.To.String())
	}
	slices.Sort(woke)
	if want := []string{"ann/lead", "ann/wrk1", "bob/bwk1"}; !slices.Equal(woke, want) {
		t.Errorf("a pause of o/repo woke %v; want %v", woke, want)
	}
	if got := reply.(wire.PauseReply); len(got.Woke) != 3 || !strings.Contains(got.Text, "o/repo is paused now. Woke ") {
		t.Errorf("Pause reply = %+v; want the three sessions that it woke", got)
	}
}

func TestAPauseOfTheRiffDoesNotWakeASessionThatAnotherPauseStops(t *testing.T) {
	f := given(t, twoRepos(), pauseRec("ann", record.RepoScope("o/other"), record.Paused))
	_, effects := f.mustRun("ann", pause(true, ""))
	for _, w := range effects.Wakes {
		if w.To == whoOf("carl/cwk1") {
			t.Error("a pause of the riff woke a session that the pause of its repository stops")
		}
	}
}

func TestAResumeOfTheRiffTellsTheLeadOfAPausedRepository(t *testing.T) {
	f := given(t, twoRepos(), pauseRec("bob", record.RiffScope(), record.Paused), pauseRec("bob/bwk1", record.RepoScope(repo), record.Paused))
	f.when("carl", resume(true, "")).then(
		paused(record.RiffScope(), record.Running),
		posted("riff@server", repo, 1, record.MessagePlain, []selector.Selector{{Session: "lead"}}, "ann/lead"),
	)
	if got := bodyOf(t, f.handled.Changes[1]); !strings.Contains(got, "the riff runs again, and o/repo is still paused by the session bob/bwk1") {
		t.Errorf("the message to the lead = %q", got)
	}
	reply, _ := f.mustRun("carl", resume(true, ""))
	got := reply.(wire.PauseReply).Text
	for _, part := range []string{"The riff is running now.", "Woke carl@thelio:other (cwk1)", "Told the lead of o/repo: ann@pangolin:repo (lead)",
		"Still paused: o/repo. Its user or its lead resumes it with `riff resume`."} {
		if !strings.Contains(got, part) {
			t.Errorf("Resume text = %q; want it to hold %q", got, part)
		}
	}
}

func TestAPauseOfTheRiffTellsTheLeadOfAPausedRepository(t *testing.T) {
	f := given(t, twoRepos(), pauseRec("bob", record.RepoScope(repo), record.Paused))
	f.when("carl", pause(true, ""))
	if len(f.handled.Changes) != 2 || !strings.Contains(bodyOf(t, f.handled.Changes[1]), "the riff is paused. The pause of o/repo by the person bob") {
		t.Errorf("changes = %v; want the pause and a message to the lead of o/repo", f.handled.Changes)
	}
}

func TestASessionIsPausedWhenItsRepositoryOrTheRiffIsPaused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pauses []record.Record
		here   record.PauseState
	}{
		{"no pause", nil, record.Running},
		{"its repository", recs(pauseRec("ann", record.RepoScope(repo), record.Paused)), record.Paused},
		{"another repository", recs(pauseRec("ann", record.RepoScope("o/other"), record.Paused)), record.Running},
		{"the riff", recs(pauseRec("ann", record.RiffScope(), record.Paused)), record.Paused},
		{"paused and resumed", recs(pauseRec("ann", record.RiffScope(), record.Paused), pauseRec("ann", record.RiffScope(), record.Running)), record.Running},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := given(t, twoRepos(), tc.pauses)
			if got := f.s.Written().Whoami(f.caller("ann/wrk1"), f.now).Here; got != tc.here {
				t.Errorf("Whoami here = %s; want %s", got, tc.here)
			}
		})
	}
}

func TestAPauseRecordOfANewRiffHasNoCause(t *testing.T) {
	f := given(t, rec("server", "make_riff", paused(record.RiffScope(), record.Paused)))
	if p := f.riff().Pauses.Riff; p == nil || p.By != nil {
		t.Errorf("pause = %+v; want a pause with no cause", p)
	}
	f = given(t, pauseRec("bob/bwk1", record.RiffScope(), record.Paused))
	if p := f.riff().Pauses.Riff; p == nil || p.By.String() != "the session bob/bwk1" || p.AtMs != t0 {
		t.Errorf("pause = %+v; want the cause and the time of its record", p)
	}
}

func TestAHoldReasonHas1To200Characters(t *testing.T) {
	for _, tc := range []struct {
		reason string
		ok     bool
	}{
		{"", false},
		{"   ", false},
		{"x", true},
		{strings.Repeat("é", 200), true},
		{strings.Repeat("x", 201), false},
	} {
		f := given(t, twoRepos()).when("ann/lead", hold("", "issue-12", tc.reason))
		if tc.ok {
			f.then(held(repo, "issue-12", tc.reason))
		} else {
			f.thenReason(wire.BadRequest, "1 to 200 characters")
		}
	}
}

func TestOnlyALeadTheOwnerOrAnAdminHoldsAnItem(t *testing.T) {
	givenIn(t, signIn, twoRepos(), member("ann/mine", false)).as(Member).when("ann/mine", hold("", "issue-12", "x")).
		thenReason(wire.NotAllowed, "only a lead of o/repo, the owner or an admin can hold an item")
	givenIn(t, signIn, twoRepos()).as(Member).when("ann/lead", hold("", "issue-12", "x")).then(held(repo, "issue-12", "x"))
	givenIn(t, signIn, twoRepos()).as(Admin).when("bob", hold(repo, "issue-12", "x")).then(held(repo, "issue-12", "x"))
	givenIn(t, signIn, twoRepos()).as(Member).when("bob", hold(repo, "issue-12", "x")).thenRefused(wire.NotAllowed)
}

func TestAWorkerCannotHoldAnItem(t *testing.T) {
	given(t, twoRepos()).when("ann/wrk1", hold("", "issue-12", "x")).
		thenReason(wire.NotAllowed, "a worker cannot hold an item. Tell the lead.")
	given(t, twoRepos()).when("ann/wrk1", free("", "issue-12")).
		thenReason(wire.NotAllowed, "a worker cannot free an item. Tell the lead.")
}

func TestAHoldIsAHoldOfAnItemOfARepositoryThread(t *testing.T) {
	given(t, twoRepos()).when("ann/lead", hold("chat", "tea", "x")).thenRefused(wire.BadRequest)
}

func TestAHoldOfAHeldItemReplacesItsReason(t *testing.T) {
	f := given(t, twoRepos(), holdRec("ann/lead", repo, "issue-12", "first"), holdRec("ann/lead", repo, "issue-12", "second"))
	if h := f.riff().Holds[claimKey(repo, "issue-12")]; h == nil || h.Reason != "second" {
		t.Errorf("hold = %+v; want the reason second", h)
	}
}

func TestOnlyFreeEndsAHold(t *testing.T) {
	f := given(t, twoRepos(), holdRec("ann/lead", repo, "issue-12", "x"))
	f.when("ann/lead", free("", "issue-12")).then(record.ItemFreed{Thread: repo, Item: "issue-12"})
	f.when("ann/lead", free("", "issue-13")).then()
	reply, _ := f.mustRun("ann/lead", free("", "issue-12"))
	if got := reply.(wire.TextReply).Text; got != "issue-12 in o/repo is free of its hold: a worker can claim it." {
		t.Errorf("Free reply = %q", got)
	}
}

func TestTheReplyOfAHoldSaysHowToFreeIt(t *testing.T) {
	f := given(t, twoRepos())
	reply, _ := f.mustRun("ann/lead", hold("", "issue-12", "waits for the word of Mike"))
	if got := reply.(wire.TextReply).Text; got != "issue-12 in o/repo is on hold now: no worker can claim it. `riff plan free issue-12` frees it." {
		t.Errorf("Hold reply = %q", got)
	}
}

func TestAPlanIsKeptAsText(t *testing.T) {
	f := given(t, twoRepos())
	f.when("ann/lead", setPlan("", "wave 4: issue-12, issue-13")).
		then(record.PlanSet{Thread: repo, Plan: "wave 4: issue-12, issue-13"})
	f.mustRun("ann/lead", setPlan("", "wave 4: issue-12, issue-13"))
	if p := f.riff().Plans[repo]; p == nil || p.Text != "wave 4: issue-12, issue-13" {
		t.Errorf("plan = %+v", p)
	}
	f.when("ann/lead", planOff("")).then(record.PlanEnded{Thread: repo})
	f.when("ann/lead", planOff("o/other")).then()
}

func TestOnlyASessionInTheThreadTheOwnerOrAnAdminSendsAPlan(t *testing.T) {
	givenIn(t, signIn, twoRepos(), sessionRec("ann/mine")).as(Member).when("ann/mine", setPlan("o/other", "x")).
		thenReason(wire.NotAllowed, "only a session in o/other, the owner or an admin sends a plan")
	givenIn(t, signIn, twoRepos()).as(Member).when("ann", setPlan(repo, "x")).thenRefused(wire.NotAllowed)
	givenIn(t, signIn, twoRepos()).as(Admin).when("ann", setPlan(repo, "x")).then(record.PlanSet{Thread: repo, Plan: "x"})
	given(t, twoRepos()).when("ann/wrk1", setPlan("", "x")).thenReason(wire.NotAllowed, "a worker cannot send plan. Tell the lead.")
}

func TestNotesRefuseATokenAndTextOver64KiB(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		ok   bool
	}{
		{"plain", "the running state: wave 4\nwaits for Mike: #12", true},
		{"64 KiB", strings.Repeat("x", 64<<10), true},
		{"over 64 KiB", strings.Repeat("x", 64<<10+1), false},
		{"a GitHub token", "token ghp_" + strings.Repeat("a1B2", 10), false},
		{"an AWS key", "key AKIAABCDEFGHIJKLMNOP", false},
		{"a private key", "-----BEGIN OPENSSH PRIVATE KEY-----", false},
		{"a JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig", false},
		{"a long mixed run", "x " + strings.Repeat("aB3", 14), false},
		{"a commit hash", "merged 1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := given(t, twoRepos()).when("ann/lead", setNotes("", tc.text))
			if tc.ok {
				f.then(record.NotesSet{User: "ann", Thread: repo, Text: tc.text})
			} else {
				f.thenRefused(wire.BadRequest)
			}
		})
	}
}

func TestNotesKeepEachOldText(t *testing.T) {
	f := given(t, twoRepos())
	f.mustRun("ann/lead", setNotes("", "one"))
	f.mustRun("ann", setNotes(repo, "two"))
	got, err := f.s.Written().Notes(f.caller("ann"), wire.Notes{Thread: repo, History: true}, f.now)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "two" || len(got.History) != 2 || got.History[0].Text != "one" || got.History[0].By != "the session ann/lead" {
		t.Errorf("Notes = %+v; want two with the history one, two", got)
	}
}

func TestOnlyTheUserAndTheOwnerReadTheNotes(t *testing.T) {
	f := givenIn(t, signIn, twoRepos(), rec("ann", "notes", record.NotesSet{User: "ann", Thread: repo, Text: "mine"})).as(Member)
	if _, err := f.s.Written().Notes(f.caller("bob"), wire.Notes{Thread: repo, User: "ann"}, f.now); err == nil {
		t.Error("bob read the notes of ann")
	}
	got, err := f.s.Written().Notes(f.as(Owner).caller("bob"), wire.Notes{Thread: repo, User: "ann"}, f.now)
	if err != nil || got.Text != "mine" {
		t.Errorf("the owner reads %+v, %v; want the notes of ann", got, err)
	}
}

func TestAWorkerCannotWriteTheNotes(t *testing.T) {
	given(t, twoRepos()).when("ann/wrk1", setNotes("", "x")).thenRefused(wire.NotAllowed)
}

func TestSetIdleNeedsAPersonWhoIsAnAdmin(t *testing.T) {
	given(t, twoRepos()).when("ann/lead", setIdle("ann", "pangolin", repo, 2)).
		thenReason(wire.NotAllowed, "a session cannot send the command set_idle")
	givenIn(t, signIn, twoRepos()).as(Member).when("ann", setIdle("ann", "pangolin", repo, 2)).
		thenReason(wire.NotAllowed, "ann is not an admin; only an admin can change the settings of idle workers")
	want := record.IdleWorkers{User: "ann", Host: "pangolin", Repo: repo, Count: 2}
	f := given(t, twoRepos())
	f.when("ann", setIdle("ann", "pangolin", repo, 2)).then(record.SettingChanged{IdleWorkers: &want})
	f.mustRun("ann", setIdle("ann", "pangolin", repo, 2))
	f.when("ann", setIdle("ann", "pangolin", repo, 2)).then()
	if got := f.s.Written().Idle().Settings; len(got) != 1 || got[0] != want {
		t.Errorf("Idle = %v; want %v", got, want)
	}
	f.when("ann", setIdle("ann", "pangolin", repo, 65)).thenRefused(wire.BadRequest)
}

// invite stands for a command of the people, which come with sign-in.
type invite struct{ base }

func (invite) Kind() record.Command { return record.CommandInvite }
func (invite) Handle(Caller, View, Now) (Handled, error) {
	return Handled{Changes: []record.Change{record.MemberInvited{Email: "bob@example.com"}}}, nil
}
func (invite) Reply(Caller, View, Done, Now) struct{} { return struct{}{} }
func (invite) Needs(Caller) Role                      { return Admin }

func TestACommandOfThePeopleIsRefusedWithNoSignIn(t *testing.T) {
	given(t, twoRepos()).when("ann", as[struct{}](invite{})).thenRefused(wire.NoSignIn)
	givenIn(t, signIn, twoRepos()).as(Admin).when("ann", as[struct{}](invite{})).then(record.MemberInvited{Email: "bob@example.com"})
}

func TestInARiffWithNoSignInTheCallerIsAnAdmin(t *testing.T) {
	s := New(Options{})
	if got := s.Caller(CallerOf(uri("ann"))).Role; got != Admin {
		t.Errorf("role = %s; want admin", got)
	}
	s = New(signIn)
	if got := s.Caller(CallerOf(uri("ann"))).Role; got != Member {
		t.Errorf("role in a riff with sign-in = %s; want the role of the token layer", got)
	}
}

func TestTheWorkerMarkComesFromThePendingCopy(t *testing.T) {
	f := given(t, twoRepos())
	if c := f.s.Caller(CallerOf(uri("ann/wrk1"))); !c.Worker {
		t.Error("a worker of the log has no worker mark")
	}
	if c := f.s.Caller(CallerOf(uri("ann/new1")).AsWorker()); c.Worker {
		t.Error("a session that the state does not know is a worker")
	}
}
