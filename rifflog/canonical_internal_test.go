package rifflog

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// marshalsUnchanged is the rule that canonicalJSON stands for: valid JSON
// that json.Marshal gives back byte for byte.
func marshalsUnchanged(data []byte) bool {
	out, err := json.Marshal(json.RawMessage(data))
	return err == nil && bytes.Equal(out, data)
}

var canonicalSeeds = []string{
	`{}`, `[]`, `0`, `"x"`, `{"a":1}`, `{"a": 1}`, "{\"a\":\n1}", `{"a":"b c"}`, `{"a":"<"}`, `{"a":"\u003c"}`,
	`{"a":"&"}`, `{"a":"\\"}`, `{"a":"\\\""}`, `{"a":"\""}`, "{\"a\":\"\u2028\"}", "{\"a\":\"\u2029\"}", "{\"a\":\"\u2027\"}",
	`{"a":"\u2028"}`, `[1, 2]`, `[1,2]`, ` 1`, `1 `, "\t{}", `{"a":"x\\ y"}`, `{"a":"é漢"}`, `{"a":[{"b":null,"c":true}]}`,
	`"\\\\"`, `"a\\\\" `, `{"k\"ey":" "}`,
}

// Given valid JSON of each kind, when canonicalJSON reads it, then it says
// true exactly when json.Marshal gives it back unchanged: the bytes of a
// checkpoint are those of json.Marshal, as before the one scan.
func TestGivenValidJSONWhenCanonicalIsAskedThenItIsExactlyWhatMarshalGivesBack(t *testing.T) {
	check := func(data []byte) {
		if !json.Valid(data) {
			return
		}
		if got, want := canonicalJSON(data), marshalsUnchanged(data); got != want {
			t.Errorf("canonicalJSON(%q) = %v; json.Marshal gives it back: %v", data, got, want)
		}
	}
	for _, s := range canonicalSeeds {
		check([]byte(s))
	}
	// Random JSON made of pieces that matter: spaces in and out of
	// strings, escapes, the HTML characters, U+2028.
	pieces := []string{" ", "\t", "\n", `\\`, `\"`, "<", "&", "\u2028", "\u2029", "a", "é", `\u0026`}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b bytes.Buffer
		b.WriteString(`{"k":[`)
		for j := range r.IntN(4) {
			if j > 0 {
				b.WriteString([]string{",", ", ", " ,", ",\n"}[r.IntN(4)])
			}
			b.WriteByte('"')
			for range r.IntN(6) {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
			b.WriteByte('"')
		}
		b.WriteString([]string{"]}", "] }", "]}"}[r.IntN(3)])
		check(b.Bytes())
	}
}

// FuzzCanonicalJSON: the same rule on any input.
func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range canonicalSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		if got, want := canonicalJSON(data), marshalsUnchanged(data); got != want {
			t.Errorf("canonicalJSON(%q) = %v; json.Marshal gives it back: %v", data, got, want)
		}
	})
}

// Given checkpoints of states of each form, when they are written and
// read, then the object is the bytes of json.Marshal of the checkpoint
// and a newline (the format of before), and it reads back with its
// state; a state that is not canonical is written in its canonical form.
func TestGivenACheckpointWhenItIsWrittenThenItsBytesAreThoseOfMarshal(t *testing.T) {
	for _, s := range canonicalSeeds {
		if !json.Valid([]byte(s)) {
			continue
		}
		c := Checkpoint{Position: 7, WrittenAtMs: 1790000000000, Build: "1.2.3", State: json.RawMessage(s)}
		canon, _ := json.Marshal(c.State)
		c.StateSum = Sum(sha256.Sum256(canon))
		want, _ := json.Marshal(Checkpoint{Position: c.Position, WrittenAtMs: c.WrittenAtMs, Build: c.Build, StateSum: c.StateSum, State: canon})
		want = append(want, '\n')
		st := newMapStore()
		name, err := WriteCheckpoint(t.Context(), st, c)
		if err != nil {
			t.Fatalf("WriteCheckpoint(%q) = %v", s, err)
		}
		if got := st.objects[name]; !bytes.Equal(got, want) {
			t.Errorf("the object of %q = %s; want %s", s, got, want)
		}
		// The same object when the state comes framed, with the room of
		// the head in front of it or any other room (then by a copy).
		room, err := CheckpointRoom(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []int{room, 0, room + 5} {
			framed := append(make([]byte, r, r+len(s)), s...)
			fst := newMapStore()
			fname, err := WriteFramedCheckpoint(t.Context(), fst, c, framed, r)
			if err != nil {
				t.Fatalf("WriteFramedCheckpoint(%q, room %d) = %v", s, r, err)
			}
			if got := fst.objects[fname]; fname != name || !bytes.Equal(got, want) {
				t.Errorf("the framed object of %q (room %d, the head's %d) = %s %s; want %s %s", s, r, room, fname, got, name, want)
			}
		}
		back, err := ReadCheckpoint(t.Context(), st, name)
		if err != nil || !bytes.Equal(back.State, canon) {
			t.Errorf("ReadCheckpoint of %q = %s, %v; want %s", s, back.State, err, canon)
		}
		// A state that is not in its canonical form in the object does
		// not read.
		if !bytes.Equal(canon, []byte(s)) {
			head, _ := checkpointHead(Checkpoint{Position: c.Position, WrittenAtMs: c.WrittenAtMs, Build: c.Build, StateSum: Sum(sha256.Sum256([]byte(s)))})
			st.objects[name] = append(append(head, s...), '}', '\n')
			if _, err := ReadCheckpoint(t.Context(), st, name); err == nil {
				t.Errorf("ReadCheckpoint of the state %q not in its canonical form read", s)
			}
		}
	}
}
