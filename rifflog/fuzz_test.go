package rifflog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/mem"
)

// FuzzReadCheckpoint: ReadCheckpoint over arbitrary bytes never panics;
// a checkpoint that reads is written again by WriteCheckpoint to the
// same bytes.
func FuzzReadCheckpoint(f *testing.F) {
	ctx := context.Background()
	seed := mem.New()
	name, err := rifflog.WriteCheckpoint(ctx, seed, rifflog.Checkpoint{Position: 7, WrittenAtMs: 1790000000000, Build: "1.0.0",
		State: json.RawMessage(`{"riff":{"id":"r1"},"threads":[{"id":"o/repo","messages":["a","b"]}]}`)})
	if err != nil {
		f.Fatal(err)
	}
	good, _ := seed.Get(ctx, name)
	f.Add(name, good)
	f.Add(name, good[:len(good)-1])
	f.Add(name, bytes.ToUpper(good))
	f.Add(name, append(bytes.Clone(good), ' '))
	f.Add(rifflog.CheckpointName(8, 1790000000000), good)
	f.Add("checkpoint/x.json", good)
	f.Add(name, []byte("{}\n"))
	f.Add(name, []byte(`{"position":7,"written_at_ms":1790000000000,"build":"","chain":"`+rifflog.Sum{}.String()+`","state_sum":"`+rifflog.Sum{}.String()+`","state":null}`+"\n"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		s := mem.New()
		if err := s.Put(ctx, name, data); err != nil {
			return
		}
		c, err := rifflog.ReadCheckpoint(ctx, s, name)
		if err != nil {
			return
		}
		again := mem.New()
		name2, err := rifflog.WriteCheckpoint(ctx, again, c)
		if err != nil {
			t.Fatalf("WriteCheckpoint of a checkpoint that reads = %v", err)
		}
		if name2 != name {
			t.Fatalf("WriteCheckpoint name = %q; want %q", name2, name)
		}
		got, _ := again.Get(ctx, name2)
		if !bytes.Equal(got, data) {
			t.Fatalf("ReadCheckpoint then WriteCheckpoint:\n%q\nwant\n%q", got, data)
		}
	})
}

// FuzzWriteCheckpoint: each valid JSON state that WriteCheckpoint takes
// reads back with ReadCheckpoint, with the same state up to compaction.
func FuzzWriteCheckpoint(f *testing.F) {
	ctx := context.Background()
	for _, s := range []string{`{}`, `{"a": [1, 2, "x"]}`, `"<b> & </b>"`, "\"\u2028\"", `{"body":"a > b"}`, `null`, `"\u00e9"`} {
		f.Add(int64(1790000000000), "1.0.0", []byte(s))
	}
	f.Fuzz(func(t *testing.T, atMs int64, build string, state []byte) {
		s := mem.New()
		c := rifflog.Checkpoint{Position: 3, WrittenAtMs: atMs, Build: build, State: state}
		name, err := rifflog.WriteCheckpoint(ctx, s, c)
		if err != nil {
			return
		}
		got, err := rifflog.ReadCheckpoint(ctx, s, name)
		if err != nil {
			t.Fatalf("ReadCheckpoint(WriteCheckpoint(state %q)) = %v", state, err)
		}
		wb, werr := canonical(state)
		hb, herr := canonical(got.State)
		if werr != nil || herr != nil {
			t.Fatalf("state %q read as %q: not JSON (%v, %v)", state, got.State, werr, herr)
		}
		if !bytes.Equal(wb, hb) {
			t.Fatalf("state %q read as %q", state, got.State)
		}
	})
}

// canonical decodes JSON (numbers as their text) and encodes it again.
func canonical(b []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// FuzzChunkName: ParseChunkName takes exactly the names ChunkName gives.
func FuzzChunkName(f *testing.F) {
	for _, s := range []string{rifflog.ChunkName(1), rifflog.ChunkName(1<<64 - 1), "log/00000000000000000000.jsonl",
		"log/99999999999999999999.jsonl", "log/+0000000000000000001.jsonl", "log/1.jsonl", "checkpoint/00000000000000000001-1.json"} {
		f.Add(s, uint64(7))
	}
	f.Fuzz(func(t *testing.T, name string, n uint64) {
		if first, ok := rifflog.ParseChunkName(name); ok {
			if got := rifflog.ChunkName(first); got != name {
				t.Errorf("ChunkName(ParseChunkName(%q) = %d) = %q", name, first, got)
			}
		}
		if n == 0 {
			return
		}
		if got, ok := rifflog.ParseChunkName(rifflog.ChunkName(n)); !ok || got != n {
			t.Errorf("ParseChunkName(ChunkName(%d)) = %d, %v", n, got, ok)
		}
	})
}

// FuzzCheckpointName: ParseCheckpointName takes exactly the names
// CheckpointName gives.
func FuzzCheckpointName(f *testing.F) {
	for _, s := range []string{rifflog.CheckpointName(7, 1790000000000), rifflog.CheckpointName(0, 0),
		"checkpoint/00000000000000000007-+1.json", "checkpoint/00000000000000000007-01.json",
		"checkpoint/00000000000000000007--1.json", "checkpoint/7-1.json", "checkpoint/00000000000000000007-1-2.json"} {
		f.Add(s, uint64(7), int64(1790000000000))
	}
	f.Fuzz(func(t *testing.T, name string, p uint64, at int64) {
		if pos, atMs, ok := rifflog.ParseCheckpointName(name); ok {
			if got := rifflog.CheckpointName(pos, atMs); got != name {
				t.Errorf("CheckpointName(ParseCheckpointName(%q) = %d, %d) = %q", name, pos, atMs, got)
			}
		}
		if at < 0 {
			return
		}
		if gp, ga, ok := rifflog.ParseCheckpointName(rifflog.CheckpointName(p, at)); !ok || gp != p || ga != at {
			t.Errorf("ParseCheckpointName(CheckpointName(%d, %d)) = %d, %d, %v", p, at, gp, ga, ok)
		}
	})
}

// FuzzSum: UnmarshalText takes exactly the 64 lowercase hex digits that
// MarshalText gives.
func FuzzSum(f *testing.F) {
	f.Add([]byte(rifflog.Sum{}.String()))
	f.Add([]byte("ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789"))
	f.Add([]byte("g000000000000000000000000000000000000000000000000000000000000000"))
	f.Add([]byte("00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var s rifflog.Sum
		if err := s.UnmarshalText(b); err != nil {
			return
		}
		got, _ := s.MarshalText()
		if !bytes.Equal(got, b) {
			t.Errorf("MarshalText(UnmarshalText(%q)) = %q", b, got)
		}
	})
}
