package riffstate

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/como-technologies/riff/riffcore/record"
)

// writeStep runs one generated command as the engine does (check, queue,
// write, keep) and gives the step of the written copy for a Shadow.
func writeStep(s *State, c call, id string) ShadowStep {
	var st ShadowStep
	if !s.Knows(c.caller) && c.cmd.kind() != "end" && c.caller.Class != record.ClassServer {
		if h, err := Check(s, Arrive{}, c.caller, c.now); err == nil {
			recs := s.Queue(c.caller, "register", "", h.Changes, c.now)
			s.WrittenRecords(recs, c.now)
			st.Records = append(st.Records, recs...)
		}
	}
	h, err := c.cmd.check(s, c.caller, c.now)
	if err != nil {
		return st
	}
	recs := s.Queue(c.caller, c.cmd.kind(), id, h.Changes, c.now)
	s.WrittenRecords(recs, c.now)
	st.Records = append(st.Records, recs...)
	key := KeyOf(s.Caller(c.caller), id)
	asked := c.cmd.asked()
	s.Answer(key, asked, Done{Made: recs}, c.now)
	st.Answers = append(st.Answers, ShadowAnswer{Key: key, Asked: asked, Made: recs, AtMs: c.now.Ms})
	return st
}

// The store design: "The server encodes a copy of the state outside the
// lock." The Shadow of a state, moved on by the steps of the written
// copy and the changes of the presence, encodes the same bytes as the
// state itself, at every checkpoint of a long generated history, with
// signals (reads, statuses, steps, blocks) between the commands. Each
// history starts three ways: from a checkpoint of half the log and a
// replay of the rest (the Shadow keeps the records), from the empty log
// and a replay of all of it, and from a checkpoint of the first records
// and a replay of the rest (both past the bound of cloneCheaper: the
// Shadow is a clone of the written copy).
func TestGivenAShadowMovedOnByTheWrittenStepsWhenItEncodesThenItGivesTheBytesOfTheState(t *testing.T) {
	checked, clones := 0, 0
	for seed := range uint64(40) {
		calls := generate(seed, 240)
		// The first part is the log before the start.
		before := New(Options{Build: "test"})
		_, made := drive(t, before, calls[:80])
		var live *State
		var cut int
		switch seed % 3 {
		case 0:
			cut = len(made) / 2
		case 1:
			cut = -1 // no checkpoint
		case 2:
			cut = 3
		}
		if cut < 0 {
			live = New(Options{Build: "test"})
			live.Replay(made...)
			live.Split()
			if !live.origin.clone {
				t.Fatalf("seed %d: a replay of %d records from the empty log kept them; want a clone", seed, len(made))
			}
		} else {
			head := New(Options{Build: "test"})
			head.Replay(made[:cut]...)
			for i, c := range calls[:80] {
				if c.signal != nil && i%2 == 0 && c.caller.Class != record.ClassServer {
					c.signal.Set(head.presence, c.caller.Who(), c.now)
				}
			}
			data, err := head.EncodeCheckpoint()
			if err != nil {
				t.Fatal(err)
			}
			if live, err = LoadCheckpoint(data, Options{Build: "test"}); err != nil {
				t.Fatal(err)
			}
			live.Replay(made[cut:]...)
			if want := cloneCheaper(len(data), len(made)-cut); live.origin.clone != want {
				t.Fatalf("seed %d: a checkpoint of %d bytes and %d records after it: origin.clone %v, want %v",
					seed, len(data), len(made)-cut, live.origin.clone, want)
			}
		}
		if live.origin.clone {
			clones++
		}
		sh, err := live.NewShadow()
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(seed, 7))
		var steps []ShadowStep
		for i, c := range calls[80:] {
			if c.signal != nil {
				if c.caller.Class != record.ClassServer {
					c.signal.Set(live.presence, c.caller.Who(), c.now)
				}
			} else {
				steps = append(steps, writeStep(live, c, fmt.Sprintf("call-%d", i)))
			}
			if c.caller.Class == record.ClassSession && rng.IntN(6) == 0 {
				step := []Signal{StepChange{Start: "verify"}, StepChange{Fail: "the tests fail"}, StepChange{Done: true}}[rng.IntN(3)]
				step.Set(live.presence, c.caller.Who(), c.now)
			}
			if rng.IntN(15) != 0 && i != len(calls)-81 {
				continue
			}
			if err := sh.Advance(steps, live.ShadowChanges()); err != nil {
				t.Fatal(err)
			}
			steps = nil
			got, err := sh.Encode()
			if err != nil {
				t.Fatal(err)
			}
			want, err := live.EncodeCheckpoint()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("seed %d (cut %d), call %d: the Shadow encodes\n%s\nthe state\n%s", seed, cut, 80+i, got, want)
			}
			checked++
		}
	}
	// Both ways of the Shadow ran: the keep (seeds 0, 3, ...) and the
	// clone (the other two starts).
	if clones == 0 || clones == 40 {
		t.Fatalf("%d of the 40 Shadows were clones: the test covers one way only", clones)
	}
	t.Logf("%d checkpoints compared, %d of 40 Shadows by a clone", checked, clones)
}

// The rule of cloneCheaper: a load keeps the records that it replays
// for the Shadow while they weigh less than the checkpoint it loaded
// (checkpointBytesPerKept bytes a record); at the record that passes
// that bound it drops them all, with the checkpoint's bytes, and the
// Shadow is a clone of the written copy, which shares nothing with it.
func TestGivenALoadWhoseReplayCostsMoreToKeepThanACloneWhenItGivesItsShadowThenTheShadowIsAClone(t *testing.T) {
	for _, c := range []struct {
		base, records int
		clone         bool
	}{
		{0, 0, false}, {0, 1, true}, {128 * 1000, 1000, false}, {128 * 1000, 1001, true}, {128*1000 + 127, 1000, false}, {40 << 20, 1000, false},
	} {
		if got := cloneCheaper(c.base, c.records); got != c.clone {
			t.Errorf("cloneCheaper(%d bytes, %d records) = %v, want %v", c.base, c.records, got, c.clone)
		}
	}
	calls := generate(11, 400)
	before := New(Options{Build: "test"})
	_, made := drive(t, before, calls)
	head := New(Options{Build: "test"})
	head.Replay(made[:20]...)
	data, err := head.EncodeCheckpoint()
	if err != nil {
		t.Fatal(err)
	}
	bound := len(data) / checkpointBytesPerKept
	if bound+1 > len(made)-20 {
		t.Fatalf("the checkpoint of %d bytes allows %d records; the log after it has only %d", len(data), bound, len(made)-20)
	}
	live, err := LoadCheckpoint(data, Options{Build: "test"})
	if err != nil {
		t.Fatal(err)
	}
	live.Replay(made[20 : 20+bound]...)
	if live.origin.clone || live.origin.kept != bound || len(live.origin.base) != len(data) {
		t.Fatalf("after %d records (the bound): clone %v, kept %d, %d bytes of checkpoint; want a keep of all, with the checkpoint",
			bound, live.origin.clone, live.origin.kept, len(live.origin.base))
	}
	live.Replay(made[20+bound])
	if !live.origin.clone || live.origin.replayed != nil || live.origin.base != nil {
		t.Fatalf("after %d records (past the bound): clone %v, %d blocks, %d bytes of checkpoint; want a clone, with nothing kept",
			bound+1, live.origin.clone, len(live.origin.replayed), len(live.origin.base))
	}
	live.Replay(made[21+bound:]...)
	sh, err := live.NewShadow()
	if err != nil {
		t.Fatal(err)
	}
	if sh.base != nil || sh.replayed != nil || sh.riff == nil {
		t.Fatal("the Shadow past the bound has a checkpoint or records to build from; want a clone")
	}
	want, _ := live.EncodeCheckpoint()
	// The clone moves apart from the state: calls on the state change
	// nothing in the Shadow until it is moved on.
	steps := 0
	for i, c := range generate(12, 60) {
		if c.signal == nil && len(writeStep(live, c, fmt.Sprintf("after-%d", i)).Records) > 0 {
			steps++
		}
	}
	if now, _ := live.EncodeCheckpoint(); steps == 0 || bytes.Equal(now, want) {
		t.Fatalf("the calls after the clone made %d steps and left the state as it was: the test shows nothing", steps)
	}
	got, err := sh.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the cloned Shadow encodes\n%s\nthe state at its clone\n%s", got, want)
	}
}

// A state that ran commands outside a replay has no origin to copy: its
// Shadow starts from the encoding of its written copy, and still gives
// the same bytes.
func TestGivenAStateThatRanCommandsWhenItGivesItsShadowThenTheShadowStartsFromItsEncoding(t *testing.T) {
	live := New(Options{Build: "test"})
	drive(t, live, generate(3, 60))
	sh, err := live.NewShadow()
	if err != nil {
		t.Fatal(err)
	}
	got, err := sh.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := live.EncodeCheckpoint()
	if !bytes.Equal(got, want) {
		t.Errorf("the Shadow encodes\n%s\nthe state\n%s", got, want)
	}
}

// A Shadow whose checkpoint does not decode gives no checkpoint, at its
// first use and at each one after it: never the encoding of a riff that
// lacks the checkpoint.
func TestGivenAShadowWhoseCheckpointDoesNotDecodeWhenItIsUsedAgainThenItStillFails(t *testing.T) {
	sh := &Shadow{opts: Options{Build: "test"}, base: []byte(`{"version":`)}
	for try := range 3 {
		if err := sh.Advance(nil, Changes{}); err == nil {
			t.Fatalf("try %d: Advance of a Shadow whose checkpoint does not decode gave no error", try)
		}
		if b, err := sh.Encode(); err == nil {
			t.Fatalf("try %d: Encode gave %s; want an error", try, b)
		}
	}
}
