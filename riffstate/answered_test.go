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

// callWithID runs a call with a call ID as the engine does: the arrival of
// an unknown caller, the look-up of the call ID, check, queue (the
// records carry the call ID), the write, keep, and the reply. A kept
// call gets the first reply with no handle (repeat is true).
func callWithID(s *State, cmd step, c Caller, id string, now Now) (reply any, made []record.Record, repeat bool, err error) {
	if !s.Knows(c) && cmd.kind() != "end" {
		if h, err := Check[wire.RegisterReply](s, Arrive{}, c, now); err == nil {
			s.WrittenRecords(s.Queue(c, Arrive{}.Kind(), "", h.Changes, now), now)
		}
	}
	key := KeyOf(s.Caller(c), id)
	done, ok, refused := s.AnsweredCall(key, cmd.asked())
	if refused != nil {
		return nil, nil, false, refused
	}
	if ok {
		return cmd.reply(s, c, done, now), done.Made, true, nil
	}
	h, err := cmd.check(s, c, now)
	if err != nil {
		return nil, nil, false, err
	}
	made = s.Queue(c, cmd.kind(), id, h.Changes, now)
	s.WrittenRecords(made, now)
	s.Answer(key, cmd.asked(), Done{Made: made}, now)
	return cmd.reply(s, c, Done{Made: made}, now), made, false, nil
}

// keptCase is one call of the test of the kept replies.
type keptCase struct {
	name string
	who  string // "user/session", or "user" for a person
	cmd  step
}

// keptCases hold each kind of command that a client sends with a call
// ID, with the cases of its reply: a call that makes records, and one
// that makes none (a join of a thread that the session is in, a free of
// an item with no hold, a post with the key of a kept message).
func keptCases() []keptCase {
	return []keptCase{
		{"register", "bob/bob2", register(false)},
		{"join", "ann/wrk1", join("o/other")},
		{"join again", "ann/wrk1", join("o/other")},
		{"leave", "ann/wrk1", leave("o/other")},
		{"leave again", "ann/wrk1", leave("o/other")},
		{"hold", "ann/lead", hold("", "issue-1", "waits for the design")},
		{"claim of a held item", "bob/bob1", claim("", "issue-1")},
		{"claim of an own item", "bob/bob1", claim("", "issue-1")},
		{"claim", "ann/wrk1", claim("", "issue-2")},
		{"post", "ann/lead", post("", "to each worker", "user=ann", "host=nowhere")},
		{"post with a key", "ann/lead", postKey("keyed", "key-1", "user=bob")},
		{"post of a kept key", "ann/lead", postKey("keyed again", "key-1", "user=bob")},
		{"tell", "ann/lead", tell("wrk1", "a word")},
		{"release_for", "ann/lead", releaseFor("", "issue-2", "wrk1")},
		{"claim of a worker", "ann/wrk1", claim("", "issue-3")},
		{"release", "ann/wrk1", release("", "issue-3")},
		{"free", "ann/lead", free("", "issue-1")},
		{"free of no hold", "ann/lead", free("", "issue-1")},
		{"plan", "ann/lead", setPlan("", "wave 1: issue-4")},
		{"plan_off", "ann/lead", planOff("")},
		{"plan_off of no plan", "ann/lead", planOff("")},
		{"notes", "ann/lead", setNotes("", "the state of wave 1")},
		{"set_idle", "ann", setIdle("ann", "pangolin", repo, 2)},
		{"pause", "ann/lead", pause(false, "")},
		{"pause again", "ann/lead", pause(false, "")},
		{"resume", "ann/lead", resume(false, "")},
		{"lead", "ann", lead("lead2")},
		{"lead again", "ann", lead("lead2")},
		{"pause of a repository", "ann", pause(false, "o/repo")},
		{"pause of the riff", "ann", pause(true, "")},
		{"resume of the riff", "ann", resume(true, "")},
		{"start", "bob/bob1", start(record.ReasonClear, false)},
		{"end", "ann/wrk1", end()},
	}
}

func keptGiven(t *testing.T) *fixture {
	return given(t,
		member("ann/lead", false), member("ann/lead2", false), member("ann/wrk1", true),
		member("bob/bob1", false), leadRec("ann", "ann/lead", repo))
}

// relive gives each session of a loaded state the sign of life that it
// had before the stop, at its place: the presence is no part of a
// checkpoint, and the sessions of a replay call again after a start.
func relive(s *State, now Now) {
	for _, sess := range sortedSessions(s.written) {
		Called{Place: sess.URI.Place()}.Set(s.presence, sess.URI.Who(), now)
	}
}

// reload gives the state that a start makes from a checkpoint of s.
func reload(t *testing.T, s *State) *State {
	t.Helper()
	data, err := s.EncodeCheckpoint()
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadCheckpoint(data, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	return loaded
}

func TestGivenAKeptCallWhenACheckpointAndAReplayCameThenItsRepeatGetsTheLiveReply(t *testing.T) {
	f := keptGiven(t)
	s := f.s
	for i, tc := range keptCases() {
		f.now.Ms += second
		c := CallerOf(uri(tc.who)).With(Admin)
		id := fmt.Sprintf("call-%02d", i)
		before := reload(t, s)
		live, made, repeat, err := callWithID(s, tc.cmd, c, id, f.now)
		if err != nil || repeat {
			t.Fatalf("%s: the live call = %v, repeat %v", tc.name, err, repeat)
		}
		t.Run(tc.name, func(t *testing.T) {
			// A checkpoint after the call: the kept call comes from the
			// checkpoint.
			after := reload(t, s)
			relive(after, f.now)
			got, _, repeat, err := callWithID(after, tc.cmd, c, id, f.now)
			if err != nil || !repeat {
				t.Fatalf("the repeat after a checkpoint = %v, repeat %v; want the first reply", err, repeat)
			}
			if diff := cmp.Diff(live, got); diff != "" {
				t.Errorf("the reply after a checkpoint differs from the live reply (-live +repeat):\n%s", diff)
			}
			// A checkpoint before the call, and the replay of its
			// records: the kept call comes from the records.
			before.Replay(made...)
			relive(before, f.now)
			if len(made) == 0 {
				// A call with no record is not in the log: its repeat
				// runs handle again, as a first try does.
				return
			}
			got, _, repeat, err = callWithID(before, tc.cmd, c, id, f.now)
			if err != nil || !repeat {
				t.Fatalf("the repeat after a replay = %v, repeat %v; want the first reply", err, repeat)
			}
			if diff := cmp.Diff(live, got); diff != "" {
				t.Errorf("the reply after a replay differs from the live reply (-live +repeat):\n%s", diff)
			}
		})
	}
}

// TestTheKeptCasesHoldEachCommandOfACaller fails when a command that a
// session or a person sends (a row of the permits table) has no case in
// keptCases, or in keptPeopleCases for a command of the people: the
// tests of the kept replies cover each one.
func TestTheKeptCasesHoldEachCommandOfACaller(t *testing.T) {
	covered := map[record.Command]bool{}
	for _, tc := range append(keptCases(), keptPeopleCases()...) {
		covered[tc.cmd.kind()] = true
	}
	for kind, row := range Table() {
		byCaller := slices.Contains(row.Classes, record.ClassSession) || slices.Contains(row.Classes, record.ClassPerson)
		if byCaller && !covered[kind] {
			t.Errorf("the command %s has no case in keptCases", kind)
		}
	}
}

// TestGivenTheKeptRepliesThenEachTellsWhatTheCallDid checks a few of the
// live replies of the cases, so that the comparison above compares
// replies that say something.
func TestGivenTheKeptRepliesThenEachTellsWhatTheCallDid(t *testing.T) {
	f := keptGiven(t)
	want := map[string]string{
		"hold":                  "issue-1 in o/repo is on hold now",
		"claim of a held item":  "issue-1 is on hold: held by the lead since",
		"free":                  "issue-1 in o/repo is free of its hold",
		"free of no hold":       "issue-1 in o/repo has no hold",
		"plan":                  "The plan of o/repo is kept.",
		"plan_off of no plan":   "o/repo has no plan now.",
		"notes":                 "The notes of the lead of ann in o/repo are saved",
		"pause":                 "o/repo is paused now. Woke",
		"lead":                  "is not the lead any more, and got a message.",
		"pause of the riff":     "Told the lead of o/repo",
		"release":               "riff clears your context when your turn ends.",
		"release_for":           "You released issue-2 in o/repo for the session",
		"post of a kept key":    `"dropped":true`,
		"post":                  `"unmatched":[{"host":"nowhere"}]`,
		"claim of an own item":  "You hold issue-1 in o/repo.",
		"join again":            `"thread":"o/other"`,
		"leave again":           `"thread":"o/other"`,
		"resume of the riff":    "The riff is running now.",
		"pause of a repository": "o/repo is paused now.",
	}
	for i, tc := range keptCases() {
		f.now.Ms += second
		c := CallerOf(uri(tc.who)).With(Admin)
		reply, _, _, err := callWithID(f.s, tc.cmd, c, fmt.Sprintf("call-%02d", i), f.now)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		part, ok := want[tc.name]
		if !ok {
			continue
		}
		text := string(jsonOf(t, reply))
		if !strings.Contains(text, part) {
			t.Errorf("%s: reply %s; want it to hold %q", tc.name, text, part)
		}
	}
}

func TestGivenAKeptCallWhenItsIDComesWithAnotherCommandThenItIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		second step
		want   string
	}{
		{"another command", claim("", "reuse-item"), "the ID of an earlier post call of this caller, and this call is a claim"},
		{"another body", post("", "another text"), "the ID of an earlier post call of this caller with another body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := keptGiven(t)
			c := CallerOf(uri("bob/bob1")).With(Admin)
			if _, _, _, err := callWithID(f.s, post("", "the first text"), c, "reused-id", f.now); err != nil {
				t.Fatal(err)
			}
			for _, s := range []*State{f.s, reload(t, f.s)} {
				reply, made, repeat, err := callWithID(s, tc.second, c, "reused-id", f.now)
				var refused *wire.Refused
				if !errors.As(err, &refused) || refused.Code != wire.BadRequest {
					t.Fatalf("the second call = %+v, %v, repeat %v, %v; want bad_request", reply, made, repeat, err)
				}
				if !strings.Contains(refused.Reason, tc.want) || !strings.Contains(refused.Reason, `"reused-id"`) {
					t.Errorf("refusal %q; want it to name the call ID and hold %q", refused.Reason, tc.want)
				}
				if s.written.Holder(name.Thread(repo), "reuse-item") != nil {
					t.Errorf("the refused claim holds the item")
				}
			}
			// The same call again is a repeat.
			if _, _, repeat, err := callWithID(f.s, post("", "the first text"), c, "reused-id", f.now); err != nil || !repeat {
				t.Errorf("the same post again = %v, repeat %v; want the first reply", err, repeat)
			}
		})
	}
}

func TestGivenACallKeptFromTheRecordsOfAReplayWhenItsIDComesWithAnotherCommandThenItIsRefused(t *testing.T) {
	f := keptGiven(t)
	c := CallerOf(uri("bob/bob1")).With(Admin)
	before := reload(t, f.s)
	_, made, _, err := callWithID(f.s, post("", "the first text"), c, "reused-id", f.now)
	if err != nil {
		t.Fatal(err)
	}
	before.Replay(made...)
	_, _, _, err = callWithID(before, claim("", "reuse-item"), c, "reused-id", f.now)
	var refused *wire.Refused
	if !errors.As(err, &refused) || refused.Code != wire.BadRequest {
		t.Fatalf("a claim with the call ID of a replayed post = %v; want bad_request", err)
	}
}

// The Shadow of a long replay takes a clone of the answered calls
// (Answered.clone): the clone and the table move apart, whichever of the
// two goes on (a record of a call that has records, an answer that
// names its command and body, a trim of the calls of an hour ago), and
// each stays what a table moved on by its own steps alone is.
func TestGivenAnsweredCallsWhenTheyAreClonedThenTheCloneAndTheTableMoveApart(t *testing.T) {
	rec := func(who, call string, position uint64, atMs int64) record.Record {
		return record.Record{Position: position, Call: call, Command: "claim", WrittenAtMs: atMs, By: record.BySession(whoOf(who))}
	}
	before := func(k *Answered) {
		k.record(rec("ann/a001", "c1", 1, t0))
		k.record(rec("ann/a001", "c1", 2, t0))
		k.record(rec("ann/a001", "c1", 3, t0)) // three records: room for a fourth in the array
		k.record(rec("bob/b001", "c2", 3, t0+minute))
		k.add(Key{Caller: "ann/a001", Call: "c3"}, Asked{Kind: "release", Sum: "s3"}, Done{Made: []record.Record{rec("ann/a001", "c3", 4, t0+minute)}}, t0+minute)
	}
	// after moves a table on, with positions and a body of its own for
	// each side: a shared array or map would show the other side's.
	after := func(k *Answered, at uint64) {
		k.record(rec("ann/a001", "c1", at, t0+2*minute))
		k.record(rec("bob/b001", "c2", at+1, t0+2*minute))
		k.add(Key{Caller: whoOf("ann/a001").String(), Call: "c1"}, Asked{Kind: "claim", Sum: fmt.Sprint("s", at)}, Done{}, t0+2*minute)
		k.record(rec("dan/d001", fmt.Sprint("c", at), at+2, t0+3*minute))
	}
	trim := func(k *Answered) { k.record(rec("carl/c001", "c9", 100, t0+AnsweredCallMs+2*minute)) }
	made := func(steps ...func(*Answered)) *Answered {
		k := NewAnswered()
		for _, step := range steps {
			step(k)
		}
		return k
	}
	onTable := func(k *Answered) { after(k, 10) }
	onClone := func(k *Answered) { after(k, 20) }
	opt := cmp.AllowUnexported(Answered{}, answeredCall{})
	check := func(when string, got, want *Answered) {
		t.Helper()
		if d := cmp.Diff(want, got, opt); d != "" {
			t.Fatalf("%s (-want +got):\n%s", when, d)
		}
	}
	table := made(before)
	clone := table.clone()
	check("the clone is not the table", clone, made(before))
	onTable(table)
	check("the steps of the table changed its clone", clone, made(before))
	onClone(clone)
	check("the clone moved on by its steps", clone, made(before, onClone))
	check("the steps of the clone changed the table", table, made(before, onTable))
	trim(table)
	check("the trim of the table changed its clone", clone, made(before, onClone))
	trim(clone)
	check("the trim of the clone changed the table", table, made(before, onTable, trim))
	check("the clone after its trim", clone, made(before, onClone, trim))
	// The calls of the first two minutes are past their hour: the calls
	// of dan and carl stay.
	if len(clone.order) != 2 {
		t.Fatalf("the trim left %d calls (%v); want those of dan and carl: the test shows no trim", len(clone.order), clone.order)
	}
}
