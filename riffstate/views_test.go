package riffstate

import (
	"slices"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// read runs the read view of who and sets its signals, as the engine
// does; it gives the seqs of each page by thread name.
func (f *fixture) read(who string, q wire.Read) (wire.ReadReply, map[string][]uint64) {
	f.t.Helper()
	c := f.caller(who)
	reply, signals, err := f.s.Written().Read(c, q, f.now)
	if err != nil {
		f.t.Fatalf("Read(%s, %+v) = %v", who, q, err)
	}
	for _, s := range signals {
		s.Set(f.s.presence, c.Who(), f.now)
	}
	got := map[string][]uint64{}
	for _, p := range reply.Threads {
		for _, m := range p.Messages {
			got[p.Thread] = append(got[p.Thread], m.Seq)
		}
	}
	return reply, got
}

func seqs(from, to uint64) []uint64 {
	var out []uint64
	for s := from; s <= to; s++ {
		out = append(out, s)
	}
	return out
}

func TestReadGivesDirectThreadsFirst(t *testing.T) {
	f := given(t, member("ann/wrk1", true), member("ann/lead", false), joinRec("ann/wrk1", "chat"),
		postRec("ann/lead", repo, 1, "Wave 34 starts"),
		postRec("bob/bwk1", "chat", 1, "the build is green"),
		postRec("ann/lead", "dm:lead+wrk1", 1, "request: claim issue-12"))
	reply, _ := f.read("ann/wrk1", wire.Read{})
	var order []string
	for _, p := range reply.Threads {
		order = append(order, p.Thread)
	}
	if want := []string{"dm:lead", "chat", repo}; !slices.Equal(order, want) {
		t.Errorf("Read order = %v; want %v", order, want)
	}
	if reply.Threads[0].Title != "direct with ann@pangolin:repo" {
		t.Errorf("title = %q", reply.Threads[0].Title)
	}
}

func TestReadGivesOnlyTheOwnDirectThreads(t *testing.T) {
	f := given(t, member("ann/wrk1", true), member("ann/wrk2", true), member("bob/bwk1", true),
		postRec("ann/wrk2", "dm:bwk1+wrk2", 1, "private"))
	_, got := f.read("ann/wrk1", wire.Read{})
	if len(got) != 0 {
		t.Errorf("ann/wrk1 read %v; want nothing of a direct thread of others", got)
	}
	if _, _, err := f.s.Written().Read(f.caller("ann/wrk1"), wire.Read{Thread: "dm:bwk1+wrk2"}, f.now); err == nil {
		t.Error("a read of a direct thread of others was not refused")
	}
	_, got = f.read("bob/bwk1", wire.Read{Thread: "dm:wrk2"})
	if !slices.Equal(got["dm:wrk2"], []uint64{1}) {
		t.Errorf("bob reads %v; want the message of its direct thread", got)
	}
}

func TestReadPagesHold50(t *testing.T) {
	var posts []record.Record
	for seq := uint64(1); seq <= 120; seq++ {
		posts = append(posts, postRec("bob/bwk1", repo, seq, "m"))
	}
	f := given(t, rec("ann/wrk1", "register", started("ann/wrk1", record.ReasonJoin, true)),
		rec("ann/wrk1", "join", joined("ann/wrk1", repo)), posts)
	reply, got := f.read("ann/wrk1", wire.Read{})
	if !slices.Equal(got[repo], seqs(1, 50)) || !reply.Threads[0].More || reply.Threads[0].Last != 50 {
		t.Fatalf("page 1 = %v (more %v, last %d); want 1..50 with more", got[repo], reply.Threads[0].More, reply.Threads[0].Last)
	}
	_, got = f.read("ann/wrk1", wire.Read{})
	if !slices.Equal(got[repo], seqs(51, 100)) {
		t.Fatalf("page 2 = %v; want 51..100", got[repo])
	}
	reply, got = f.read("ann/wrk1", wire.Read{})
	if !slices.Equal(got[repo], seqs(101, 120)) || reply.Threads[0].More {
		t.Fatalf("page 3 = %v; want 101..120 and no more", got[repo])
	}
	_, got = f.read("ann/wrk1", wire.Read{Thread: repo, All: true, After: 50})
	if !slices.Equal(got[repo], seqs(51, 100)) {
		t.Errorf("read all after 50 = %v; want 51..100", got[repo])
	}
}

func TestReadGivesTheMessagesToYouAfterThePage(t *testing.T) {
	var posts []record.Record
	for seq := uint64(1); seq <= 60; seq++ {
		posts = append(posts, postRec("bob/bwk1", repo, seq, "m"))
	}
	posts = append(posts, postRec("bob/bwk1", repo, 61, "can you look at #1110?", "ann/wrk1"))
	f := given(t, rec("ann/wrk1", "register", started("ann/wrk1", record.ReasonJoin, true)),
		rec("ann/wrk1", "join", joined("ann/wrk1", repo)), posts)
	reply, _ := f.read("ann/wrk1", wire.Read{})
	if len(reply.ToYou) != 1 || len(reply.ToYou[0].Messages) != 1 || reply.ToYou[0].Messages[0].Seq != 61 {
		t.Fatalf("ToYou = %+v; want the message 61 that woke the session", reply.ToYou)
	}
	if _, ok := f.s.MissedWake(whoOf("ann/wrk1")); ok {
		t.Error("a watch wakes again for a message of the part to you")
	}
	_, got := f.read("ann/wrk1", wire.Read{})
	if !slices.Equal(got[repo], seqs(51, 61)) {
		t.Errorf("page 2 = %v; want 51..61: later pages show it again in its place", got[repo])
	}
}

func TestASessionThatJoinsFindsOlderMessagesRead(t *testing.T) {
	f := given(t, member("bob/bwk1", true), postRec("bob/bwk1", repo, 1, "a"), postRec("bob/bwk1", repo, 2, "b"),
		member("ann/wrk1", true), postRec("bob/bwk1", repo, 3, "c"))
	_, got := f.read("ann/wrk1", wire.Read{})
	if !slices.Equal(got[repo], []uint64{3}) {
		t.Errorf("unread = %v; want only the message after the join", got[repo])
	}
	_, got = f.read("ann/wrk1", wire.Read{All: true})
	if !slices.Equal(got[repo], []uint64{1, 2, 3}) {
		t.Errorf("read all = %v; want each kept message", got[repo])
	}
}

func TestReadAllNeverMovesTheCursorBack(t *testing.T) {
	f := given(t, member("ann/wrk1", true), member("bob/bwk1", true),
		postRec("bob/bwk1", repo, 1, "a"), postRec("bob/bwk1", repo, 2, "b"), postRec("bob/bwk1", repo, 3, "c"))
	f.read("ann/wrk1", wire.Read{})
	f.read("ann/wrk1", wire.Read{Thread: repo, All: true, After: 0})
	if cur, _ := f.s.presence.Cursor(whoOf("ann/wrk1"), repo); cur != 3 {
		t.Errorf("cursor = %d; want 3", cur)
	}
	Read{Thread: repo, Seq: 1, All: true}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	if cur, _ := f.s.presence.Cursor(whoOf("ann/wrk1"), repo); cur != 3 {
		t.Errorf("cursor after a read of all up to 1 = %d; want 3", cur)
	}
}

func TestReadLeavesOutTheOwnPostsUnlessAll(t *testing.T) {
	f := given(t, member("ann/wrk1", true), member("bob/bwk1", true),
		postRec("ann/wrk1", repo, 1, "mine"), postRec("bob/bwk1", repo, 2, "theirs"))
	_, got := f.read("ann/wrk1", wire.Read{Thread: repo})
	if !slices.Equal(got[repo], []uint64{2}) {
		t.Errorf("unread = %v; want [2]", got[repo])
	}
	_, got = f.read("ann/wrk1", wire.Read{Thread: repo, All: true})
	if !slices.Equal(got[repo], []uint64{1, 2}) {
		t.Errorf("read all = %v; want [1 2]", got[repo])
	}
}

func TestReadSaysHowManyMessagesOfABreakAreLost(t *testing.T) {
	var posts []record.Record
	for seq := uint64(1); seq <= 210; seq++ {
		posts = append(posts, postRec("bob/bwk1", repo, seq, "m"))
	}
	f := given(t, member("ann/wrk1", true), posts)
	reply, _ := f.read("ann/wrk1", wire.Read{Thread: repo, All: true, After: 5})
	if reply.Threads[0].Lost != 5 {
		t.Errorf("lost = %d; want 5 (messages 6..10 are no longer kept)", reply.Threads[0].Lost)
	}
}

func TestThreadsCountTheUnreadMessages(t *testing.T) {
	f := given(t, member("ann/wrk1", true), postRec("bob/bwk1", repo, 1, "a"), postRec("bob/bwk1", repo, 2, "b"),
		postRec("ann/wrk1", repo, 3, "mine"), postRec("bob/bwk1", "dm:bwk1+wrk1", 1, "hi"))
	got := f.s.Written().Threads(f.caller("ann/wrk1"), f.now)
	if len(got.Threads) != 2 || got.Threads[0].Thread != "dm:bwk1" || got.Threads[0].Unread != 1 ||
		got.Threads[1].Thread != repo || got.Threads[1].Unread != 2 || got.Threads[1].Last != 3 {
		t.Errorf("Threads = %+v; want the direct thread with 1 unread, then o/repo with 2 (not the own post)", got.Threads)
	}
}

func TestWhoamiShowsThePausesAndTheBuild(t *testing.T) {
	f := given(t, member("ann/wrk1", true), pauseRec("bob/bwk1", record.RepoScope("o/strata"), record.Paused))
	got := f.s.Written().Whoami(f.caller("ann/wrk1"), f.now)
	if got.Build != "test" || got.Here != record.Running || got.Pauses.Riff != nil ||
		len(got.Pauses.Repositories) != 1 || got.Pauses.Repositories[0].By != "the session bob/bwk1" {
		t.Errorf("Whoami = %+v", got)
	}
}

// rowOf gives the row of who in the who view of the fixture.
func (f *fixture) rowOf(who string, all bool) (wire.WhoRow, bool) {
	for _, r := range f.s.Written().Who(f.caller("ann"), all, f.now).Rows {
		if r.URI.Who() == whoOf(who) {
			return r, true
		}
	}
	return wire.WhoRow{}, false
}

func TestWhoDerivesTheStateOfASession(t *testing.T) {
	for _, tc := range []struct {
		name   string
		given  []record.Record
		setup  func(f *fixture)
		state  string
		detail string
	}{
		{"idle worker", member("ann/wrk1", true), nil, "idle", "ready for work for"},
		{"busy with a claim", recs(member("ann/wrk1", true), claimRec("ann/wrk1", repo, "issue-6")), nil, "busy", "working on #6"},
		{"busy with a fact of work", member("ann/wrk1", true), func(f *fixture) {
			Alive{Activity: "runs Bash: run just ci"}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
		}, "busy", "runs Bash: run just ci"},
		{"blocked", member("ann/wrk1", true), func(f *fixture) {
			BlockedSet{Reason: "which of two designs?"}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
		}, "blocked", "which of two designs?"},
		{"a lead waits", recs(member("ann/lead", false), leadRec("ann", "ann/lead", repo)), func(f *fixture) {
			BlockedSet{Reason: "run riff owner --take"}.Set(f.s.presence, whoOf("ann/lead"), f.now)
		}, "waiting", "waits for ann: run riff owner --take"},
		{"must clear", recs(member("ann/wrk1", true), claimRec("ann/wrk1", repo, "issue-6"), releaseRec("ann/wrk1", repo, "issue-6", true)), nil, "must clear", "released its last item"},
		{"paused", recs(member("ann/wrk1", true), pauseRec("bob", record.RepoScope(repo), record.Paused)), nil, "paused", "paused by the person bob"},
		{"offline with no open watch", member("ann/wrk1", true), func(f *fixture) {
			WatchEnded{}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
			f.after(ReconnectMs)
		}, "offline", "seen 45s ago"},
		{"not offline with a watch", member("ann/wrk1", true), func(f *fixture) {
			f.after(100 * second)
		}, "idle", ""},
		{"a lead monitors", recs(member("ann/lead", false), leadRec("ann", "ann/lead", repo)), nil, "idle", "monitoring work for"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := given(t, tc.given)
			if tc.setup != nil {
				tc.setup(f)
			}
			who := tc.given[0].Change.(record.SessionStarted).Session.Who().String()
			row, ok := f.rowOf(who, false)
			if !ok {
				t.Fatalf("who has no row of %s", who)
			}
			if row.State != tc.state || !strings.Contains(row.Detail, tc.detail) {
				t.Errorf("row = %s %q; want %s %q", row.State, row.Detail, tc.state, tc.detail)
			}
		})
	}
}

func TestWhoShowsAGoneSessionOnlyWithAll(t *testing.T) {
	f := given(t, member("ann/wrk1", true)).after(3 * minute)
	if _, ok := f.rowOf("ann/wrk1", false); ok {
		t.Error("who shows a session with no sign of life for 3 minutes")
	}
	row, ok := f.rowOf("ann/wrk1", true)
	if !ok || row.State != "gone" || !row.Gone || row.Detail != "seen 3m ago" {
		t.Errorf("who --all row = %+v; want gone, seen 3m ago", row)
	}
	f = given(t, member("ann/wrk1", true)).ended("ann/wrk1")
	if row, _ := f.rowOf("ann/wrk1", true); row.Detail != "ended" {
		t.Errorf("row of an ended session = %+v; want ended", row)
	}
}

func TestWhoTagsTheLeadAndTheWorkers(t *testing.T) {
	f := given(t, member("ann/lead", false), member("ann/wrk1", true), leadRec("ann", "ann/lead", repo))
	if row, _ := f.rowOf("ann/lead", false); row.Role != "lead" || !row.URI.Lead {
		t.Errorf("row of the lead = %+v", row)
	}
	if row, _ := f.rowOf("ann/wrk1", false); row.Role != "worker" {
		t.Errorf("row of a worker = %+v", row)
	}
	if got := f.s.Written().Who(f.caller("ann"), false, f.now); got.Act != "" {
		t.Errorf("act = %q; want none in a running riff", got.Act)
	}
}

func TestWhoTellsThePersonToResumeAPausedRiff(t *testing.T) {
	f := given(t, member("ann/wrk1", true), rec("server", "make_riff", paused(record.RiffScope(), record.Paused)))
	if got := f.s.Written().Who(f.caller("ann"), false, f.now).Act; !strings.Contains(got, "riff resume --riff") {
		t.Errorf("act = %q; want the resume of the riff", got)
	}
}

func TestAStepIsStaleAfterAChangeOfTheSession(t *testing.T) {
	f := given(t, member("ann/wrk1", true))
	StepChange{Start: "live window"}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	if row, _ := f.rowOf("ann/wrk1", false); !strings.Contains(row.Detail, "live window for 0s") || strings.Contains(row.Detail, "stale") {
		t.Errorf("row = %q; want the current step", row.Detail)
	}
	f.after(minute)
	f.mustRun("ann/wrk1", claim("", "issue-6"))
	if row, _ := f.rowOf("ann/wrk1", false); !strings.Contains(row.Detail, "live window for 1m (stale)") {
		t.Errorf("row after a claim = %q; want the step stale", row.Detail)
	}
	StepChange{Fail: "the stage gave 502"}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	if row, _ := f.rowOf("ann/wrk1", false); !strings.Contains(row.Detail, "live window failed 0s ago: the stage gave 502") {
		t.Errorf("row after a fail = %q", row.Detail)
	}
}

func TestAPromptOfThePersonEndsTheWaitOfTheLead(t *testing.T) {
	f := given(t, member("ann/lead", false), leadRec("ann", "ann/lead", repo))
	BlockedSet{Reason: "run riff owner --take"}.Set(f.s.presence, whoOf("ann/lead"), f.now)
	f.after(10 * second)
	secs := int64(5)
	Alive{PromptSecs: &secs}.Set(f.s.presence, whoOf("ann/lead"), f.now)
	if row, _ := f.rowOf("ann/lead", false); row.State != "idle" {
		t.Errorf("row after a prompt = %+v; want idle", row)
	}
}

func TestAnAnswerEndsABlockAtTheNextWork(t *testing.T) {
	f := given(t, member("ann/wrk1", true), member("ann/lead", false), leadRec("ann", "ann/lead", repo))
	BlockedSet{Reason: "which design?"}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	f.after(second)
	f.mustRun("ann/lead", postKind("", record.MessageNote, "a note is no answer", "session=wrk1"))
	Alive{Activity: "works"}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	if row, _ := f.rowOf("ann/wrk1", false); row.State != "blocked" {
		t.Fatalf("row after a note = %+v; want still blocked", row)
	}
	f.mustRun("ann/lead", tell("wrk1", "the first design"))
	if row, _ := f.rowOf("ann/wrk1", false); row.State != "blocked" {
		t.Fatalf("row after the answer = %+v; want blocked until the next work", row)
	}
	Alive{Activity: "works"}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	if row, _ := f.rowOf("ann/wrk1", false); row.State != "busy" {
		t.Errorf("row after the next work = %+v; want busy", row)
	}
}

func TestAgoShowsADurationAsPeopleReadIt(t *testing.T) {
	for _, tc := range []struct {
		ms   int64
		want string
	}{{0, "0s"}, {59 * second, "59s"}, {4 * minute, "4m"}, {2 * hour, "2h"}, {3 * day, "3d"}, {-5, "0s"}} {
		if got := Ago(tc.ms); got != tc.want {
			t.Errorf("Ago(%d) = %q; want %q", tc.ms, got, tc.want)
		}
	}
}
