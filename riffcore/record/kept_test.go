package record_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/record"
)

// postedAt is the form of a kept message in a checkpoint: a Posted with
// the position and the time of its record.
type postedAt struct {
	record.Posted
	Position uint64 `json:"position"`
	AtMs     int64  `json:"at_ms"`
}

// keptMessages are forms of a kept message that DecodePostedAt reads,
// as json.Marshal writes them.
var keptMessages = []string{
	`{"thread":"o/r","seq":3,"sender":"riff://mike@pangolin/o/r?session=a6cf","kind":"note","payload":"e30=","position":9,"at_ms":1700000000000}`,
	`{"thread":"chat","seq":1,"sender":"riff://mike@pangolin","kind":"poll","to":[{"user":"ann","lead":true},{"claim":"issue-7"}],"key":"k1","lead":true,"payload":"eyJ0ZXh0IjoiaGkifQ==","sig":"a..b","woken":["ann/s1","bob"],"position":18446744073709551615,"at_ms":-5}`,
}

// Given the forms of a kept message, when DecodePostedAt reads them,
// then it reads each as encoding/json does, on its fast path.
func TestGivenKeptMessagesWhenDecodePostedAtReadsThemThenTheyAreTheDecodeOfEncodingJSON(t *testing.T) {
	d := record.NewDecoder()
	for _, m := range keptMessages {
		if !postedAtAgrees(t, d, []byte(m)) {
			t.Errorf("DecodePostedAt(%s) is not read on the fast path", m)
		}
	}
}

// Given forms that the fast path leaves, when DecodePostedAt reads them,
// then it reports false.
func TestGivenOtherFormsWhenDecodePostedAtReadsThemThenItLeavesThem(t *testing.T) {
	d := record.NewDecoder()
	for _, m := range []string{
		`{"thread":"o/r","seq":3,"sender":"","kind":"note","payload":"e30=","at_ms":1}`,                                // no position
		`{"thread":"o/r","seq":3,"sender":"","kind":"note","payload":"e30=","position":1}`,                             // no at_ms
		`{"thread":"o/r","seq":3,"sender":"","kind":"note","payload":"e30=","position":1,"Position":2,"at_ms":1}`,      // another case
		`{"thread":"o/r","seq":3,"sender":"","kind":"note","payload":"e30=","position":1,"position":2,"at_ms":1}`,      // twice
		`{"thread":"o/r","seq":3,"sender":"","kind":"note","payload":"e30=","position":1,"at_ms":1,"more":true}`,       // a key of no field
		`{"thread":"o/r","seq":3,"sender":"","kind":"note","payload":"e30=","position":1.5,"at_ms":1}`,                 // a fraction
		`{"thread":"o/r","seq":3,"sender":"","kind":"note","payload":"e30=","position":1,"at_ms":1} x`,                 // after the object
		`{"Thread":"o/r","seq":3,"sender":"","kind":"note","payload":"e30=","position":1,"at_ms":1}`,                   // a key of Posted in another case
		`{"thread":"o/r","seq":3,"sender":"","kind":"note","payload":"e30=","position":-1,"at_ms":1}`,                  // a negative position
		`{"thread":"o/r","seq":3,"sender":"","kind":"note","payload":"e30=","position":1,"at_ms":9223372036854775808}`, // over int64
	} {
		if postedAtAgrees(t, d, []byte(m)) {
			t.Errorf("DecodePostedAt(%s) reads it on the fast path; want it left to encoding/json", m)
		}
	}
}

// postedAtAgrees checks that DecodePostedAt, when it reads b, reads it as
// json.Unmarshal does, and reports whether it read it.
func postedAtAgrees(t *testing.T, d *record.Decoder, b []byte) bool {
	t.Helper()
	p, position, atMs, ok := d.DecodePostedAt(b)
	if !ok {
		return false
	}
	var want postedAt
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("DecodePostedAt(%q) reads it; json.Unmarshal: %v", b, err)
	}
	got := postedAt{Posted: p, Position: position, AtMs: atMs}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("DecodePostedAt(%q) mismatch (-json.Unmarshal +DecodePostedAt):\n%s", b, diff)
	}
	return true
}

// FuzzDecodePostedAtIsTheDecodeOfEncodingJSON checks, over any bytes,
// that what DecodePostedAt reads it reads as json.Unmarshal does.
func FuzzDecodePostedAtIsTheDecodeOfEncodingJSON(f *testing.F) {
	for _, m := range keptMessages {
		f.Add([]byte(m))
	}
	d := record.NewDecoder()
	f.Fuzz(func(t *testing.T, b []byte) { postedAtAgrees(t, d, b) })
}
