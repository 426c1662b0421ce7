package rifflog

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"testing"
)

// decodeCheckpointWhole is the read of a checkpoint object before the
// decode of its envelope alone: encoding/json decodes the whole object
// (the state as a json.RawMessage), then the same checks of its form and
// its checksum. decodeCheckpoint must read exactly what it reads.
func decodeCheckpointWhole(data []byte) (Checkpoint, error) {
	var c Checkpoint
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Checkpoint{}, err
	}
	head, err := checkpointHead(c)
	if err != nil {
		return Checkpoint{}, err
	}
	rest, ok := bytes.CutPrefix(data, head)
	n := len(c.State)
	if !ok || len(rest) != n+2 || !bytes.Equal(rest[:n], c.State) || string(rest[n:]) != "}\n" || !canonicalJSON(c.State) {
		return Checkpoint{}, errors.New("not in its canonical form")
	}
	if sha256.Sum256(c.State) != c.StateSum {
		return Checkpoint{}, errors.New("the state does not match its checksum")
	}
	return c, nil
}

// checkpointObject gives the object that WriteCheckpoint writes of state.
func checkpointObject(t testing.TB, build string, state string) []byte {
	c := Checkpoint{Position: 7, WrittenAtMs: 1790000000000, Build: build, State: json.RawMessage(state)}
	c.StateSum = sha256.Sum256(c.State)
	data, err := encodeCheckpoint(c)
	if err != nil {
		t.Fatal(err)
	}
	return append(data, '\n')
}

// FuzzDecodeCheckpointIsTheDecodeOfTheWholeObject: over arbitrary bytes,
// the read of the envelope alone takes exactly the objects that the
// decode of the whole object by encoding/json takes, with the same
// checkpoint.
func FuzzDecodeCheckpointIsTheDecodeOfTheWholeObject(f *testing.F) {
	good := checkpointObject(f, "1.0.0", `{"riff":{"id":"r1"},"threads":[{"id":"o/repo","messages":["a","b"]}]}`)
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add(bytes.ToUpper(good))
	f.Add(append(bytes.Clone(good), ' '))
	f.Add(bytes.Replace(good, []byte(`"a"`), []byte(`"c"`), 1))
	f.Add(bytes.Replace(good, []byte(`,"state":`), []byte(`,"state" :`), 1))
	f.Add(bytes.Replace(good, []byte(`"position":7`), []byte(`"position":7,"position":7`), 1))
	f.Add(checkpointObject(f, `a,"state":b`, `{"x":1}`))
	f.Add(checkpointObject(f, `"`, `null`))
	f.Add(checkpointObject(f, "", `{"a":1},"state":{"a":1}`))
	f.Add(checkpointObject(f, "", `{"a":1`))
	f.Add(checkpointObject(f, "", ``))
	f.Add(checkpointObject(f, "", `{"a": 1}`))
	f.Add([]byte("{}\n"))
	f.Add([]byte(`{"position":7,"written_at_ms":1790000000000,"build":"","chain":"` + Sum{}.String() + `","state_sum":"` + Sum{}.String() + `","state":null}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, werr := decodeCheckpointWhole(data)
		got, gerr := decodeCheckpoint(data)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("decodeCheckpoint(%q) = %v; the decode of the whole object: %v", data, gerr, werr)
		}
		if werr != nil {
			return
		}
		if got.Position != want.Position || got.WrittenAtMs != want.WrittenAtMs || got.Build != want.Build ||
			got.Chain != want.Chain || got.StateSum != want.StateSum || !bytes.Equal(got.State, want.State) {
			t.Fatalf("decodeCheckpoint(%q) = %+v; the decode of the whole object: %+v", data, got, want)
		}
	})
}
