package riffstate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// loadCheckpointOneByOne is LoadCheckpoint as it was before its two
// decodes ran at once: the checkpoint, then the second copy of the riff,
// one after the other, by encoding/json.
func loadCheckpointOneByOne(data []byte, opts Options) (*State, error) {
	cp, err := decodeCheckpoint(data)
	if err != nil {
		return nil, err
	}
	var twin struct {
		Riff *Riff `json:"riff"`
	}
	if err := json.Unmarshal(data, &twin); err != nil {
		return nil, fmt.Errorf("load checkpoint: %w", err)
	}
	s := New(opts)
	s.pending, s.written = cp.Riff.fill(), twin.Riff.fill()
	if cp.Cursors != nil {
		s.presence.Cursors = cp.Cursors
	}
	for key, saved := range cp.Lives {
		s.presence.Lives[key] = &Live{Status: saved.Status, Step: saved.Step, CalledMs: saved.CalledMs, Block: saved.Block, Daemon: saved.Daemon}
	}
	s.answered = answeredOf(cp.Calls)
	s.origin = &origin{base: data}
	return s, nil
}

// Given the checkpoints of many generated states, when LoadCheckpoint
// loads each one, then it gives the state of the decode one by one by
// encoding/json (both copies, the presence, the answered calls, nil and
// empty alike), and its two copies share nothing: records applied to the
// pending copy leave the written one as it was.
func TestGivenGeneratedCheckpointsWhenLoadedThenTheStateIsThatOfTheDecodeOneByOne(t *testing.T) {
	opts := Options{Build: "test"}
	loads := 0
	for seed := range uint64(60) {
		log, _ := longLog(t, 1000+seed, 60)
		s := New(opts)
		for p := 0; p <= len(log); p += 1 + int(seed%7) {
			if p > 0 {
				s.Replay(log[max(0, p-1-int(seed%7)):p]...)
			}
			data, err := s.EncodeCheckpoint()
			if err != nil {
				t.Fatal(err)
			}
			got, err := LoadCheckpoint(data, opts)
			if err != nil {
				t.Fatalf("seed %d, position %d: LoadCheckpoint = %v", seed, p, err)
			}
			want, err := loadCheckpointOneByOne(data, opts)
			if err != nil {
				t.Fatalf("seed %d, position %d: the decode one by one = %v", seed, p, err)
			}
			loads++
			for _, c := range []struct {
				what      string
				want, got any
			}{{"the pending copy", want.pending, got.pending}, {"the written copy", want.written, got.written},
				{"the presence", want.presence, got.presence}, {"the answered calls", want.answered.order, got.answered.order},
				{"the answers", want.answered.calls, got.answered.calls},
				{"the checkpoint", want.Checkpoint(), got.Checkpoint()}} {
				if diff := cmp.Diff(c.want, c.got, cmp.AllowUnexported(Presence{})); diff != "" {
					t.Fatalf("seed %d, position %d: %s differs from the decode one by one (-want +got):\n%s", seed, p, c.what, diff)
				}
			}
			if !bytes.Equal(got.origin.base, data) {
				t.Fatalf("seed %d, position %d: the origin differs from the decode one by one", seed, p)
			}
			written := jsonOf(t, got.written)
			for _, rec := range log[p:] {
				Apply(got.pending, rec)
			}
			if !bytes.Equal(written, jsonOf(t, got.written)) {
				t.Fatalf("seed %d, position %d: records applied to the pending copy changed the written one", seed, p)
			}
		}
	}
	if loads < 1000 {
		t.Errorf("the property loaded %d checkpoints; want at least 1,000", loads)
	}
	t.Logf("%d checkpoints loaded", loads)
}
