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
// state itself, at every checkpoint of a long generated history: from a
// state that was loaded from a checkpoint and replayed, with signals
// (reads, statuses, steps, blocks) between the commands.
func TestGivenAShadowMovedOnByTheWrittenStepsWhenItEncodesThenItGivesTheBytesOfTheState(t *testing.T) {
	checked := 0
	for seed := range uint64(40) {
		calls := generate(seed, 240)
		// The first part is the log before the start: a checkpoint of
		// its first half, and a replay of the rest.
		before := New(Options{Build: "test"})
		_, made := drive(t, before, calls[:80])
		half := len(made) / 2
		head := New(Options{Build: "test"})
		head.Replay(made[:half]...)
		for i, c := range calls[:80] {
			if c.signal != nil && i%2 == 0 && c.caller.Class != record.ClassServer {
				c.signal.Set(head.presence, c.caller.Who(), c.now)
			}
		}
		data, err := head.EncodeCheckpoint()
		if err != nil {
			t.Fatal(err)
		}
		live, err := LoadCheckpoint(data, Options{Build: "test"})
		if err != nil {
			t.Fatal(err)
		}
		live.Replay(made[half:]...)
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
				t.Fatalf("seed %d, call %d: the Shadow encodes\n%s\nthe state\n%s", seed, 80+i, got, want)
			}
			checked++
		}
	}
	t.Logf("%d checkpoints compared", checked)
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
