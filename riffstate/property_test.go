package riffstate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The property tests: a generator of command sequences over a few users,
// sessions, threads and items, with a fake clock, run through the live
// path; the records that it makes are then replayed with Apply alone.

// call is one generated call: a command of a caller at a time, or a
// signal of a caller.
type call struct {
	caller Caller
	cmd    step
	signal Signal
	now    Now
}

var (
	genSessions = []string{"ann/a001", "ann/a002", "ann/a003", "bob/b001", "bob/b002", "carl/c001"}
	genPeople   = []string{"ann", "bob", "carl"}
	genRepos    = []string{"o/repo", "o/other"}
	genThreads  = []string{"o/repo", "o/other", "chat"}
	genItems    = []string{"issue-1", "issue-2", "issue-3", "issue-4"}
	genReasons  = []record.Reason{record.ReasonProcess, record.ReasonResume, record.ReasonClear, record.ReasonJoin}
	genKinds    = []record.MessageKind{record.MessagePlain, record.MessagePlain, record.MessageNote, record.MessageStatus}
	genRelays   = []string{"relay-1", "relay-2", "relay-3"}
	genSels     = []string{"user=ann", "user=bob", "lead=true", "claim=issue-1", "repo=o/repo", "session=a002", "user=ann,lead=true", "person=true"}
)

// generate gives n calls of one seed. The clock moves 0 to 4 minutes
// between calls, so the time rules (5 minutes of a claim, 3 minutes of
// gone) come into play; now and then it jumps 31 days for forget.
func generate(seed uint64, n int) []call {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	now := t0
	out := make([]call, 0, n)
	for len(out) < n {
		now += rng.Int64N(4 * minute)
		if rng.IntN(200) == 0 {
			now += 31 * day
		}
		sess := pick(genSessions)
		r := genRepos[rng.IntN(len(genRepos))]
		if sess[0] == 'c' {
			r = "o/other"
		} else if rng.IntN(4) != 0 {
			r = repo
		}
		session := CallerOf(uriIn(sess, r))
		person := CallerOf(uriIn(pick(genPeople), r))
		thread := ""
		if rng.IntN(3) == 0 {
			thread = pick(genThreads)
		}
		item := pick(genItems)
		c := call{caller: session, now: Now{Ms: now}}
		var to []string
		for range rng.IntN(3) {
			to = append(to, pick(genSels))
		}
		switch k := rng.IntN(100); {
		case k < 4:
			c.cmd = register(rng.IntN(2) == 0)
			if rng.IntN(2) == 0 {
				c.cmd = registerRelay(pick(genRelays))
			}
		case k < 7:
			c.cmd = start(genReasons[rng.IntN(len(genReasons))], rng.IntN(3) != 0)
		case k < 9:
			c.cmd = end()
			if rng.IntN(2) == 0 {
				c.cmd = endRelay(pick(genRelays))
			}
		case k < 12:
			c.cmd = join(pick(genThreads))
		case k < 13:
			c.cmd = leave(pick(genThreads))
		case k < 25:
			c.cmd = postKind(thread, genKinds[rng.IntN(len(genKinds))], fmt.Sprintf("message %d", len(out)), to...)
			if rng.IntN(5) == 0 {
				c.cmd = postKey("keyed", pick(genItems), to...)
			}
		case k < 29:
			c.cmd = tell(pick([]string{"lead", "a001", "a002", "b001", "~bob", "c001"}), "a word")
		case k < 42:
			c.cmd = claim(thread, item)
			if rng.IntN(5) == 0 {
				c.caller = person
			}
		case k < 52:
			c.cmd = release(thread, item)
		case k < 55:
			c.cmd = releaseFor("", item, pick([]string{"a001", "a002", "a003", "b001"}))
		case k < 60:
			c.caller, c.cmd = person, lead(pick([]string{"a001", "a002", "a003", "b001", "b002", "c001"}))
		case k < 64:
			c.caller, c.cmd = person, pause(rng.IntN(3) == 0, "")
			if rng.IntN(2) == 0 {
				c.caller = session
			}
		case k < 70:
			c.caller, c.cmd = person, resume(rng.IntN(3) == 0, "")
			if rng.IntN(2) == 0 {
				c.caller = session
			}
		case k < 73:
			c.cmd = hold("", item, "waits for the word of Mike")
		case k < 75:
			c.cmd = free("", item)
		case k < 77:
			c.cmd = setPlan("", fmt.Sprintf("wave %d", rng.IntN(9)))
		case k < 78:
			c.cmd = planOff("")
		case k < 80:
			c.cmd = setNotes("", fmt.Sprintf("the running state %d", rng.IntN(9)))
		case k < 81:
			c.caller, c.cmd = person, setIdle(person.URI.User, "pangolin", repo, rng.IntN(4))
		case k < 83:
			// Another session takes the item: after 5 minutes with no
			// sign of life of its holder it may.
			c.cmd = claim(thread, item)
		case k < 84:
			c.caller, c.cmd = ServerCaller(), forget(pick(genSessions))
		case k < 85:
			c.caller, c.cmd = ServerCaller(), makeRiff("01RIFF")
		case k < 86:
			c.caller, c.cmd = ServerCaller(), announce(pick(genThreads), "the server stops soon")
		case k < 92:
			c.signal = Alive{Activity: "works"}
			if rng.IntN(2) == 0 {
				c.signal = Alive{Activity: "works", Relay: pick(genRelays)}
			}
		case k < 95:
			c.signal = Read{Thread: name.Thread(pick(genThreads)), Seq: uint64(rng.IntN(20))}
		case k < 97:
			c.signal = BlockedSet{Reason: "which design?"}
		default:
			c.signal = StatusSet{Text: "write the tests"}
		}
		out = append(out, c)
	}
	return out
}

// drive runs calls on s through Run, and on a twin through the same
// steps with a call ID, collecting the records that the twin makes. It
// gives the twin and its records.
func drive(t testing.TB, s *State, calls []call) (*State, []record.Record) {
	t.Helper()
	twin := New(s.opts)
	var made []record.Record
	for i, c := range calls {
		if c.signal != nil {
			if c.caller.Class == record.ClassServer {
				continue
			}
			c.signal.Set(s.presence, c.caller.Who(), c.now)
			c.signal.Set(twin.presence, c.caller.Who(), c.now)
			continue
		}
		c.cmd.run(s, c.caller, c.now)
		made = append(made, stepOf(twin, c, fmt.Sprintf("call-%d", i))...)
	}
	return twin, made
}

// stepOf runs the steps of Run with a call ID, and gives the records.
func stepOf(s *State, c call, id string) []record.Record {
	var made []record.Record
	if !s.Knows(c.caller) && c.cmd.kind() != "end" && c.caller.Class != record.ClassServer {
		if h, err := Check[wire.RegisterReply](s, Arrive{}, c.caller, c.now); err == nil {
			recs := s.Queue(c.caller, "register", "", h.Changes, c.now)
			s.WrittenRecords(recs, c.now)
			made = append(made, recs...)
		}
	}
	h, err := c.cmd.check(s, c.caller, c.now)
	if err != nil {
		return made
	}
	recs := s.Queue(c.caller, c.cmd.kind(), id, h.Changes, c.now)
	s.WrittenRecords(recs, c.now)
	if len(recs) > 0 {
		s.Answer(KeyOf(s.Caller(c.caller), id), c.cmd.asked(), Done{Made: recs}, c.now)
	}
	return append(made, recs...)
}

// riffOpts compare two riffs: an empty map or list equals none.
func riffOpts() cmp.Options { return cmp.Options{cmpopts.EquateEmpty(), ignoreKept} }

// ignoreKept leaves out the array that the kept messages of a thread
// move in: memory, not state (Thread.kept).
var ignoreKept = cmpopts.IgnoreFields(Thread{}, "kept")

func TestReplayEquivalence(t *testing.T) {
	seeds, perSeed := 300, 40
	total, records := 0, 0
	for seed := range uint64(seeds) {
		calls := generate(seed, perSeed)
		live := New(Options{Build: "test"})
		twin, made := drive(t, live, calls)
		total += len(calls)
		records += len(made)
		replayed := NewRiff()
		for _, rec := range made {
			Apply(replayed, rec)
		}
		// JSON writes maps in key order, so equal bytes are equal riffs;
		// cmp.Diff gives the message.
		want := jsonOf(t, replayed)
		for _, c := range []struct {
			what string
			riff *Riff
		}{{"the written riff of Run", live.written}, {"the pending riff of Run", live.pending},
			{"the written riff of the steps", twin.written}, {"the pending riff of the steps", twin.pending}} {
			if !bytes.Equal(want, jsonOf(t, c.riff)) {
				t.Fatalf("seed %d: %s differs from the replay with Apply alone (-replay +live):\n%s",
					seed, c.what, cmp.Diff(replayed, c.riff, riffOpts()))
			}
		}
		if replayed.Skipped != 0 {
			t.Errorf("seed %d: the live path made %d records that this build skips", seed, replayed.Skipped)
		}
	}
	if total < 10_000 {
		t.Errorf("the property ran %d commands; want at least 10,000", total)
	}
	t.Logf("%d seeds, %d calls, %d records", seeds, total, records)
}

// longLog gives the records of a long generated run, and the live state
// after it.
func longLog(t testing.TB, seed uint64, n int) ([]record.Record, *State) {
	twin, made := drive(t, New(Options{Build: "test"}), generate(seed, n))
	return made, twin
}

// checkpointAtEachPosition checks the law "prefix snapshot + later
// records = whole replay" at each position of log: a checkpoint of a
// replay up to p, loaded, plus the records after p, equals the replay of
// the whole log. It also checks that the loaded checkpoint equals the
// replay up to p.
func checkpointAtEachPosition(t *testing.T, log []record.Record) {
	t.Helper()
	opts := Options{Build: "test"}
	whole := New(opts)
	whole.Replay(log...)
	want, err := whole.EncodeCheckpoint()
	if err != nil {
		t.Fatal(err)
	}
	wantPending := jsonOf(t, whole.pending)
	// same compares two states by their checkpoints: the bytes first
	// (JSON writes maps in key order), and cmp.Diff for the message.
	same := func(p int, what string, a, b *State) {
		t.Helper()
		x, errA := a.EncodeCheckpoint()
		y, errB := b.EncodeCheckpoint()
		if errA != nil || errB != nil {
			t.Fatalf("position %d: %v, %v", p, errA, errB)
		}
		if bytes.Equal(x, y) && bytes.Equal(jsonOf(t, a.pending), jsonOf(t, b.pending)) {
			return
		}
		t.Fatalf("position %d: %s (-want +got):\n%s%s", p, what,
			cmp.Diff(a.Checkpoint(), b.Checkpoint(), riffOpts()), cmp.Diff(a.pending, b.pending, riffOpts()))
	}
	prefix := New(opts)
	for p := 0; p <= len(log); p++ {
		if p > 0 {
			prefix.Replay(log[p-1])
		}
		data, err := prefix.EncodeCheckpoint()
		if err != nil {
			t.Fatalf("position %d: %v", p, err)
		}
		loaded, err := LoadCheckpoint(data, opts)
		if err != nil {
			t.Fatalf("position %d: %v", p, err)
		}
		if p%16 == 0 {
			same(p, "the loaded checkpoint differs from the replay up to it", prefix, loaded)
		}
		loaded.Replay(log[p:]...)
		got, _ := loaded.EncodeCheckpoint()
		if !bytes.Equal(want, got) || (p%16 == 0 && !bytes.Equal(wantPending, jsonOf(t, loaded.pending))) {
			same(p, "checkpoint + later records differs from the whole replay", whole, loaded)
		}
	}
}

func jsonOf(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCheckpointAtEachPositionOfALongGeneratedLog(t *testing.T) {
	log, _ := longLog(t, 7, 800)
	t.Logf("a log of %d records", len(log))
	if len(log) < 300 {
		t.Fatalf("the generated log has %d records; want a long one", len(log))
	}
	checkpointAtEachPosition(t, log)
}

func TestACheckpointKeepsTheReadCursorsStatusesStepsBlocksAndKeptCalls(t *testing.T) {
	_, live := longLog(t, 11, 600)
	ann := whoOf("ann/a001")
	Read{Thread: repo, Seq: 4}.Set(live.presence, ann, Now{Ms: t0})
	StatusSet{Text: "write the tests"}.Set(live.presence, ann, Now{Ms: t0})
	StepChange{Start: "live window"}.Set(live.presence, ann, Now{Ms: t0})
	BlockedSet{Reason: "which of two designs?"}.Set(live.presence, ann, Now{Ms: t0})
	BlockReminded{Session: ann, BlockAtMs: t0, AfterMs: 15 * minute}.Set(live.presence, ann, Now{Ms: t0 + 15*minute})
	loaded := reload(t, live)
	if l := loaded.presence.Live(ann); l == nil || l.Block == nil || l.Block.Text != "which of two designs?" || l.Block.RemindedMs != t0+15*minute {
		t.Errorf("the block after a load = %+v; want the block with its second wake", l)
	}
	if diff := cmp.Diff(live.Checkpoint(), loaded.Checkpoint(), riffOpts()); diff != "" {
		t.Errorf("checkpoint after a load (-live +loaded):\n%s", diff)
	}
	if cur, ok := loaded.presence.Cursor(ann, repo); !ok || cur < 4 {
		t.Errorf("cursor after a load = %d, %v; want at least 4", cur, ok)
	}
	if live.answered.Len() == 0 || loaded.answered.Len() != live.answered.Len() {
		t.Errorf("kept calls: live %d, loaded %d; want the same, more than 0", live.answered.Len(), loaded.answered.Len())
	}
	// A repeated call after the load gets the kept records.
	for _, key := range live.answered.order {
		want, _, _ := live.AnsweredCall(key, Asked{})
		got, ok, err := loaded.AnsweredCall(key, Asked{})
		if !ok || err != nil || !cmp.Equal(want.Made, got.Made) {
			t.Fatalf("kept call %v after a load = %+v, %v, %v; want its records", key, got, ok, err)
		}
		break
	}
}

// later holds records of a later build: each has a value that this build
// reads as other.
func later(t *testing.T) map[string]record.Record {
	t.Helper()
	lines := map[string]string{
		"unknown kind":        `{"position":1,"written_at_ms":1790000000000,"by":{"server":true},"command":"tidy","change":{"thread_archived":{"thread":"o/repo"}}}`,
		"unknown scope":       `{"position":1,"written_at_ms":1790000000000,"by":{"person":"ann"},"command":"pause","change":{"pause_set":{"scope":{"org":"o"},"state":"paused"}}}`,
		"unknown reason":      `{"position":1,"written_at_ms":1790000000000,"by":{"session":"ann/wrk1"},"command":"start","change":{"session_started":{"session":"riff://ann@pangolin/o/repo?session=wrk1","reason":"compact","worker":false}}}`,
		"unknown selector":    `{"position":1,"written_at_ms":1790000000000,"by":{"session":"ann/wrk1"},"command":"post","change":{"posted":{"thread":"o/repo","seq":1,"sender":"riff://ann@pangolin/o/repo?session=wrk1","kind":"message","to":[{"team":"red"}],"payload":"e30="}}}`,
		"unknown msg kind":    `{"position":1,"written_at_ms":1790000000000,"by":{"session":"ann/wrk1"},"command":"post","change":{"posted":{"thread":"o/repo","seq":1,"sender":"riff://ann@pangolin/o/repo?session=wrk1","kind":"poll","payload":"e30="}}}`,
		"unknown URI part":    `{"position":1,"written_at_ms":1790000000000,"by":{"session":"ann/wrk1"},"command":"claim","change":{"claimed":{"session":"riff://ann@pangolin/o/repo?session=wrk1&color=red","thread":"o/repo","item":"issue-7"}}}`,
		"unknown class of by": `{"position":1,"written_at_ms":1790000000000,"by":{"robot":"r2"},"command":"claim","change":{"claimed":{"session":"riff://ann@pangolin/o/repo?session=wrk1","thread":"o/repo","item":"issue-7"}}}`,
	}
	out := map[string]record.Record{}
	for k, line := range lines {
		r, err := record.Decode([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if !r.Skipped() {
			t.Fatalf("%s: this build does not skip the record", k)
		}
		out[k] = r
	}
	return out
}

func TestARecordOfALaterBuildChangesNothingAndIsCountedAsSkipped(t *testing.T) {
	for k, r := range later(t) {
		t.Run(k, func(t *testing.T) {
			f := given(t, member("ann/wrk1", false))
			before := f.s.Checkpoint()
			r.Position = f.riff().Position + 1
			f.s.Replay(r)
			after := f.s.Checkpoint()
			if after.Riff.Skipped != 1 || after.Riff.FirstSkipped != r.Position || after.Riff.Warnings != 0 {
				t.Errorf("skipped %d, first %d, warnings %d; want 1, %d, 0", after.Riff.Skipped, after.Riff.FirstSkipped, after.Riff.Warnings, r.Position)
			}
			if ok, why := f.s.CanCheckpoint(); ok || why == "" {
				t.Error("CanCheckpoint says yes past a skipped record")
			}
			ignore := cmp.Options{riffOpts(), cmpopts.IgnoreFields(Riff{}, "Position", "Skipped", "FirstSkipped"),
				cmpopts.IgnoreFields(Checkpoint{}, "Position")}
			if _, posted := r.Change.(record.Posted); posted {
				// The seed keeps a message of a later build in its thread,
				// and a reader shows it: only the messages change.
				ignore = append(ignore, cmpopts.IgnoreFields(Riff{}, "Threads"))
				th := f.riff().Threads[repo]
				if th == nil || th.LastSeq != 1 || len(th.Messages) != 1 {
					t.Errorf("thread after a message of a later build = %+v; want the message kept", th)
				}
			}
			if diff := cmp.Diff(before, after, ignore); diff != "" {
				t.Errorf("a record of a later build changed the state (-before +after):\n%s", diff)
			}
		})
	}
}

func TestANewThenAnOldThenANewBuildGiveTheSameState(t *testing.T) {
	// The new build writes a log with a record of a later build in it;
	// the old build (this one) replays it, skips it and writes no
	// checkpoint past it; the new build replays the whole log again.
	log, _ := longLog(t, 3, 200)
	for k, r := range later(t) {
		t.Run(k, func(t *testing.T) {
			mixed := append([]record.Record(nil), log...)
			at := len(mixed) / 2
			r.Position = mixed[at].Position
			mixed = append(mixed[:at:at], append([]record.Record{r}, mixed[at:]...)...)
			for i := range mixed {
				mixed[i].Position = uint64(i + 1)
			}
			old := New(Options{Build: "old"})
			old.Replay(mixed[:at]...)
			ok, _ := old.CanCheckpoint()
			if !ok {
				t.Fatal("CanCheckpoint says no before the record of a later build")
			}
			data, err := old.EncodeCheckpoint()
			if err != nil {
				t.Fatal(err)
			}
			old.Replay(mixed[at:]...)
			if ok, _ := old.CanCheckpoint(); ok {
				t.Fatal("CanCheckpoint says yes past the record of a later build")
			}
			again, err := LoadCheckpoint(data, Options{Build: "old"})
			if err != nil {
				t.Fatal(err)
			}
			again.Replay(mixed[at:]...)
			if diff := cmp.Diff(old.Checkpoint(), again.Checkpoint(), riffOpts()); diff != "" {
				t.Errorf("the last checkpoint before the record, plus the rest, differs (-replay +again):\n%s", diff)
			}
		})
	}
}
