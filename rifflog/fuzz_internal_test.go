package rifflog

import (
	"bytes"
	"testing"
)

// FuzzDecodeChunk: any bytes under any chunk name never panic, and a
// chunk that decodes is the one canonical encoding of its header and
// lines: it encodes again to the same bytes.
func FuzzDecodeChunk(f *testing.F) {
	var prev Sum
	prev[0] = 0xab
	good, _ := encodeChunk(prev, 4, [][]byte{
		[]byte(`{"position":4,"written_at_ms":1790000000000,"command":"claim","change":{"claimed":{"thread":"o/r","item":"i-1"}}}`),
		[]byte(`{"position":5,"change":{"released":{"thread":"o/r","item":"i-1"}}}`),
	})
	empty, _ := encodeChunk(Sum{}, 1, nil)
	f.Add(ChunkName(4), good)
	f.Add(ChunkName(1), empty)
	f.Add(ChunkName(4), good[:len(good)-1])          // torn
	f.Add(ChunkName(4), bytes.ToUpper(good))         // keys and hex in upper case
	f.Add(ChunkName(5), good)                        // the name says another first position
	f.Add("log/x", good)                             // not a chunk name
	f.Add(ChunkName(1), []byte("\n"))                // empty header
	f.Add(ChunkName(1), []byte(`{"format":1}`+"\n")) // short header
	f.Add(ChunkName(1), []byte(`{"format":1,"first":1,"count":-1,"sum":"","prev":""}`+"\n"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		d, err := decodeChunk(name, data)
		if err != nil {
			if _, ok := err.(*LogError); !ok {
				t.Fatalf("decodeChunk error %T %v; want a *LogError", err, err)
			}
			return
		}
		if d.Count != len(d.lines) {
			t.Fatalf("decoded count %d with %d lines", d.Count, len(d.lines))
		}
		again, _ := encodeChunk(d.Prev, d.First, d.lines)
		if !bytes.Equal(again, data) {
			t.Fatalf("decodeChunk then encodeChunk:\n%q\nwant\n%q", again, data)
		}
		for _, line := range d.lines {
			peekPosition(line) // never panics
		}
	})
}
