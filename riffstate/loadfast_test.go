package riffstate

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
)

// fastThreadsAgree checks that decodeThreadsFast, when it reads piece,
// reads it as json.Unmarshal does into a nil map, and reports whether it
// read it.
func fastThreadsAgree(t *testing.T, piece []byte, d *record.Decoder) bool {
	t.Helper()
	got, ok := decodeThreadsFast(piece, d)
	if !ok {
		return false
	}
	var want map[name.Thread]*Thread
	if err := json.Unmarshal(piece, &want); err != nil {
		t.Fatalf("decodeThreadsFast(%q) reads it; json.Unmarshal: %v", piece, err)
	}
	if diff := cmp.Diff(want, got, ignoreKept); diff != "" {
		t.Fatalf("decodeThreadsFast(%q) mismatch (-json.Unmarshal +fast):\n%s", piece, diff)
	}
	return true
}

// Given the checkpoints of generated states, when the fast path reads
// their threads, then it reads each one, as encoding/json does: the
// form that appendCheckpoint writes never goes to the slow path.
func TestGivenGeneratedCheckpointsWhenTheirThreadsAreReadFastThenTheyAreTheDecodeOfEncodingJSON(t *testing.T) {
	d := record.NewDecoder()
	messages := 0
	for seed := range uint64(40) {
		log, _ := longLog(t, 3000+seed, 60)
		s := New(Options{Build: "test"})
		for p := 0; p < len(log); p += 1 + len(log)/8 {
			s.Replay(log[p:min(len(log), p+1+len(log)/8)]...)
			data, err := s.EncodeCheckpoint()
			if err != nil {
				t.Fatal(err)
			}
			threads, _, ok := threadsOf(data)
			if !ok {
				t.Fatalf("seed %d, position %d: the checkpoint is not in the compact form", seed, p)
			}
			piece := data[threads.start:threads.end]
			if !fastThreadsAgree(t, piece, d) {
				t.Fatalf("seed %d, position %d: the fast path leaves the threads of the checkpoint (%d bytes) to encoding/json", seed, p, len(piece))
			}
			got, _ := decodeThreadsFast(piece, d)
			for _, th := range got {
				messages += len(th.Messages)
			}
		}
	}
	if messages < 1000 {
		t.Errorf("the checkpoints kept %d messages in all; want at least 1,000", messages)
	}
}

// Given forms that are not the compact form of a checkpoint, when the
// fast path reads them, then it leaves each to encoding/json.
func TestGivenOtherFormsWhenTheThreadsAreReadFastThenTheyGoToEncodingJSON(t *testing.T) {
	d := record.NewDecoder()
	for _, piece := range []string{
		`{"o/r":null}`,
		`{"o/r":{"name":"o/r","members":{}}}`,                                                             // no last_seq
		`{"o/r":{"name":"o/r","last_seq":1,"members":null}}`,                                              // null
		`{"o/r":{"name":"o/r","last_seq":1,"members":{},"Name":"o/s"}}`,                                   // a key in another case
		`{"o/r":{"name":"o/r","last_seq":1,"last_seq":2,"members":{}}}`,                                   // a key twice
		`{"o/r":{"name":"o/r","last_seq":1,"members":{}},"o/r":{"name":"o/r","last_seq":2,"members":{}}}`, // a name twice
		`{"o/r":{"name":"o/r","last_seq":1,"members":{},"more":1}}`,                                       // a key of no field
		`{"o/r":{"name":"o\/r","last_seq":1,"members":{}}}`,                                               // an escape
		`{"o/r":{"name":"o/r","last_seq":1,"members":{"a":1.0}}}`,                                         // a fraction
		`{"o/r":{"name":"o/r","last_seq":01,"members":{}}}`,                                               // a leading zero
		`{"o/r":{"name":"o/r","last_seq":1,"members":{}} }`,                                               // a space
		`{"o/r":{"name":"o/r","last_seq":1,"members":{},"messages":null}}`,                                // null
		`{"o/r":{"name":"o/r","last_seq":1,"members":{},"messages":[{"thread":"o/r"}]}}`,                  // a message of another form
		`{"o/r":{"name":"o/r","last_seq":1,"members":{}}}x`,                                               // after the object
		"{\"o/r\":{\"name\":\"o/r\",\"last_seq\":1,\"members\":{\"\xff\":1}}}",                            // not UTF-8
	} {
		if fastThreadsAgree(t, []byte(piece), d) {
			t.Errorf("decodeThreadsFast(%s) reads it; want it left to encoding/json", piece)
		}
	}
}

// FuzzDecodeThreadsFastIsTheDecodeOfEncodingJSON checks, over any
// bytes, that what decodeThreadsFast reads it reads as json.Unmarshal.
func FuzzDecodeThreadsFastIsTheDecodeOfEncodingJSON(f *testing.F) {
	for seed := range uint64(3) {
		log, _ := longLog(f, 4000+seed, 60)
		s := New(Options{Build: "test"})
		s.Replay(log[:len(log)/(8+4*int(seed))]...)
		data, err := s.EncodeCheckpoint()
		if err != nil {
			f.Fatal(err)
		}
		threads, _, _ := threadsOf(data)
		f.Add(data[threads.start:threads.end])
	}
	f.Add([]byte(`{"o/r":{"name":"o/r","last_seq":3,"members":{"ann/s1":1,"bob":0}}}`))
	d := record.NewDecoder()
	f.Fuzz(func(t *testing.T, piece []byte) { fastThreadsAgree(t, piece, d) })
}
