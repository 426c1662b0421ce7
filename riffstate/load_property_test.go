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
// loads each one (as it is, and at every third position also with the
// threads decoded in pieces whatever their size), then it gives the state of the decode one by one
// by encoding/json (both copies, the presence, the answered calls, nil
// and empty alike), and its two copies share nothing: records applied to
// the pending copy leave the written one as it was, and records applied
// to the written copy then leave the pending one as it was.
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
			want, err := loadCheckpointOneByOne(data, opts)
			if err != nil {
				t.Fatalf("seed %d, position %d: the decode one by one = %v", seed, p, err)
			}
			for _, minThreads := range []int{splitThreadsAt, 0} {
				if minThreads == 0 && p%3 != 0 {
					continue // the split at every third position: the suite stays fast
				}
				got, err := loadCheckpoint(data, opts, minThreads)
				if err != nil {
					t.Fatalf("seed %d, position %d, threads in pieces from %d bytes: LoadCheckpoint = %v", seed, p, minThreads, err)
				}
				loads++
				for _, c := range []struct {
					what      string
					want, got any
				}{{"the pending copy", want.pending, got.pending}, {"the written copy", want.written, got.written},
					{"the presence", want.presence, got.presence}, {"the answered calls", want.answered.order, got.answered.order},
					{"the answers", want.answered.calls, got.answered.calls},
					{"the checkpoint", want.Checkpoint(), got.Checkpoint()}} {
					if diff := cmp.Diff(c.want, c.got, cmp.AllowUnexported(Presence{}), ignoreKept); diff != "" {
						t.Fatalf("seed %d, position %d, threads in pieces from %d bytes: %s differs from the decode one by one (-want +got):\n%s", seed, p, minThreads, c.what, diff)
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
					t.Fatalf("seed %d, position %d, threads in pieces from %d bytes: records applied to the pending copy changed the written one", seed, p, minThreads)
				}
				// Other records than the pending copy took (one less), so
				// that a list that both copies share shows.
				pending := jsonOf(t, got.pending)
				for _, rec := range log[min(p+1, len(log)):] {
					Apply(got.written, rec)
				}
				if !bytes.Equal(pending, jsonOf(t, got.pending)) {
					t.Fatalf("seed %d, position %d, threads in pieces from %d bytes: records applied to the written copy changed the pending one", seed, p, minThreads)
				}
			}
		}
	}
	if loads < 1300 {
		t.Errorf("the property loaded %d checkpoints; want at least 1,300", loads)
	}
	t.Logf("%d checkpoints loaded", loads)
}

// decodeWhole is what LoadCheckpoint decodes with no split: the
// checkpoint and a second copy of its riff, each by encoding/json from
// the whole of data.
func decodeWhole(data []byte) (Checkpoint, *Riff, error) {
	cp, err := decodeCheckpoint(data)
	if err != nil {
		return cp, nil, err
	}
	var twin struct {
		Riff *Riff `json:"riff"`
	}
	err = json.Unmarshal(data, &twin)
	return cp, twin.Riff, err
}

// Given any bytes (from checkpoints of generated states, and forms that
// encoding/json reads as the same names), when the split decodes them,
// then it either leaves them to the decode of the whole, or fails where
// the decode of the whole fails and gives its checkpoint and its second
// copy of the riff where it does not.
func FuzzDecodeSplitIsTheDecodeOfTheWhole(f *testing.F) {
	// Small states: the fuzzer stalls on inputs of many kilobytes.
	for seed := range uint64(4) {
		log, _ := longLog(f, 2000+seed, 60)
		s := New(Options{Build: "test"})
		s.Replay(log[:len(log)/(6+2*int(seed))]...)
		data, err := s.EncodeCheckpoint()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, form := range []string{
		`{"version":"1","riff":{"threads":{"o/r":{"name":"o/r","members":{}},"o/s":{"name":"o/s","last_seq":2}}}}`,
		`{"riff":{"threads":{}},"riff":{"threads":{"o/r":{"name":"o/r"}}}}`,
		`{"riff":{"threads":{"o/r":{"name":"o/r"}}},"riff":{"threads":{}}}`,
		`{"riff":{"threads":{"o/r":{"name":"o/r"}},"threads":{}}}`,
		`{"riff":{"threads":{"o/r":{"name":"o/r"}},"Threads":{}}}`,
		`{"riff":{"thre\u0061ds":{"o/r":{"name":"o/r"}}}}`,
		`{"RIFF":{"threads":{}},"riff":{"threads":{"o/r":{"name":"o/r"}}}}`,
		`{"riff":{"threads":{"o/r":{"name":"o/r"},"o/r":{"name":"o/r","last_seq":9}}}}`,
		`{"riff":{"threads":{"o/r":null}}}`,
		`{"riff":{"threads":{"o/r":{"name":"o/r"}}}} `,
		`{"riff":{"threads":{"o/r":{"name":"o/r"}]}}`,
		`{"riff":{"threads":{"o/r":{"name":"o/r"} }}}`,
		`{"riff":{"threads":{"o/r":{"name":"o/r","members":{"a":1,}}}}}`,
		`{"riff":{"threads":{"bad name":{"name":"o/r"}}}}`,
	} {
		f.Add([]byte(form))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cp, twin, ok, err := decodeSplit(data, 0)
		if !ok {
			return
		}
		wantCP, wantTwin, wantErr := decodeWhole(data)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("decodeSplit(%q) = %v; the decode of the whole = %v", data, err, wantErr)
		}
		if err != nil {
			return
		}
		if diff := cmp.Diff(wantCP, cp, ignoreKept); diff != "" {
			t.Fatalf("decodeSplit(%q): the checkpoint differs from the decode of the whole (-want +got):\n%s", data, diff)
		}
		if diff := cmp.Diff(wantTwin, twin, ignoreKept); diff != "" {
			t.Fatalf("decodeSplit(%q): the second copy differs from the decode of the whole (-want +got):\n%s", data, diff)
		}
	})
}
