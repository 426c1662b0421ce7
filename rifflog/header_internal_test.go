package rifflog

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// randomHeader gives a header with each field drawn from the edges and
// from the whole range.
func randomHeader(rng *rand.Rand) header {
	ints := []int{0, 1, -1, 9, 10, math.MaxInt64, math.MinInt64, rng.Int(), -rng.Int()}
	uints := []uint64{0, 1, 9, 10, math.MaxUint64, rng.Uint64()}
	h := header{Format: ints[rng.IntN(len(ints))], First: uints[rng.IntN(len(uints))], Count: ints[rng.IntN(len(ints))]}
	for i := range h.Sum {
		h.Sum[i], h.Prev[i] = byte(rng.Uint32()), byte(rng.Uint32())
	}
	return h
}

// The canonical form of a header is the bytes of json.Marshal, and
// readCanonicalHeader reads it back.
func TestHeaderAppendIsJSONMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 7))
	for range 10_000 {
		h := randomHeader(rng)
		want, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		got := h.append(nil)
		if !bytes.Equal(got, want) {
			t.Fatalf("append(%+v) = %s, json.Marshal = %s", h, got, want)
		}
		if len(got) > headerMaxLen {
			t.Fatalf("append(%+v) is %d bytes, over headerMaxLen %d", h, len(got), headerMaxLen)
		}
		if back, ok := readCanonicalHeader(got); !ok || back != h {
			t.Fatalf("readCanonicalHeader(%s) = %+v, %v; want %+v", got, back, ok, h)
		}
	}
}

// readCanonicalHeader reads a line exactly when encoding/json reads it
// with no unknown field and json.Marshal gives the line back, and then
// to the same header: its fast path never takes what the reference
// refuses, nor reads anything else than it.
func FuzzReadCanonicalHeaderAgreesWithJSON(f *testing.F) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 8 {
		f.Add(randomHeader(rng).append(nil))
	}
	f.Add([]byte(`{"format":01,"first":1,"count":1,"sum":"` + string(bytes.Repeat([]byte("a"), 64)) + `","prev":"` + string(bytes.Repeat([]byte("b"), 64)) + `"}`))
	f.Add([]byte(`{"format":-0,"first":1,"count":1,"sum":"` + string(bytes.Repeat([]byte("a"), 64)) + `","prev":"` + string(bytes.Repeat([]byte("b"), 64)) + `"}`))
	f.Add([]byte(`{"format":1,"first":1,"count":1,"sum":"` + string(bytes.Repeat([]byte("A"), 64)) + `","prev":"` + string(bytes.Repeat([]byte("b"), 64)) + `"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		got, ok := readCanonicalHeader(line)
		var want header
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		refOK := dec.Decode(&want) == nil && !dec.More()
		if refOK {
			canon, _ := json.Marshal(want)
			refOK = bytes.Equal(canon, line)
		}
		if ok != refOK || (ok && got != want) {
			t.Fatalf("readCanonicalHeader(%q) = %+v, %v; encoding/json reads %+v, canonical %v", line, got, ok, want, refOK)
		}
	})
}
