package rifflog_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/google/go-cmp/cmp"
)

// record is a record line of the fixture mix at position pos.
func record(pos uint64) []byte {
	kinds := []string{
		`"command":"post","change":{"posted":{"thread":"o/repo","seq":%d,"body":"hello there"}}`,
		`"command":"claim","change":{"claimed":{"session":"riff://ann@host/o/repo?session=s1","thread":"o/repo","item":"issue-%d"}}`,
		`"command":"release","change":{"released":{"session":"riff://ann@host/o/repo?session=s1","thread":"o/repo","item":"issue-%d"}}`,
		`"command":"keep_alive","change":{"status_set":{"session":"riff://bob@host/o/other?session=s2","status":"working on %d"}}`,
	}
	body := fmt.Sprintf(kinds[pos%uint64(len(kinds))], pos)
	return fmt.Appendf(nil, `{"position":%d,"written_at_ms":%d,"by":{"session":"ann/s1"},%s}`, pos, 1790000000000+int64(pos), body)
}

func records(first uint64, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = record(first + uint64(i))
	}
	return out
}

// writeLog writes chunks of the given sizes and returns the proof of each.
func writeLog(t testing.TB, s rifflog.Store, sizes ...int) []rifflog.Written {
	t.Helper()
	var out []rifflog.Written
	var r rifflog.Replayed
	for _, n := range sizes {
		w, err := rifflog.Write(context.Background(), s, r.Next(records(r.Last+1, n)))
		if err != nil {
			t.Fatalf("Write: %v", err)
		}
		out = append(out, w)
		r.Last, r.Chain = w.Last(), w.Chain()
	}
	return out
}

// replayAll replays from from and returns the positions it got.
func replayAll(s rifflog.Store, from rifflog.From) ([]uint64, rifflog.Replayed, error) {
	var got []uint64
	r, err := rifflog.Replay(context.Background(), s, from, func(line []byte, pos uint64) error {
		got = append(got, pos)
		return nil
	})
	return got, r, err
}

func span(first, last uint64) []uint64 {
	var out []uint64
	for p := first; p <= last; p++ {
		out = append(out, p)
	}
	return out
}

func TestNames(t *testing.T) {
	if got, want := rifflog.ChunkName(1234), "log/00000000000000001234.jsonl"; got != want {
		t.Errorf("ChunkName(1234) = %q; want %q", got, want)
	}
	if got, want := rifflog.CheckpointName(1234, 1790000000000), "checkpoint/00000000000000001234-1790000000000.json"; got != want {
		t.Errorf("CheckpointName = %q; want %q", got, want)
	}
	for _, tc := range []struct {
		name string
		ok   bool
		pos  uint64
	}{
		{"log/00000000000000001234.jsonl", true, 1234},
		{"log/1234.jsonl", false, 0},
		{"log/00000000000000000000.jsonl", false, 0},
		{"log/0000000000000000123x.jsonl", false, 0},
		{"log/00000000000000001234.json", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pos, ok := rifflog.ParseChunkName(tc.name)
			if ok != tc.ok || pos != tc.pos {
				t.Errorf("ParseChunkName(%q) = %d, %v; want %d, %v", tc.name, pos, ok, tc.pos, tc.ok)
			}
		})
	}
}

func TestWriteAndReplay(t *testing.T) {
	ctx := context.Background()
	s := mem.New()
	ws := writeLog(t, s, 3, 1, 5)
	if !ws[2].Covers(5, 5) || ws[2].Object() != "log/00000000000000000005.jsonl" {
		t.Errorf("Write = %d..%d %q; want 5..9 log/00000000000000000005.jsonl", ws[2].First(), ws[2].Last(), ws[2].Object())
	}
	got, r, err := replayAll(s, rifflog.From{})
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	if diff := cmp.Diff(span(1, 9), got); diff != "" {
		t.Errorf("Replay positions (-want +got):\n%s", diff)
	}
	if r.Last != 9 || r.Chain != ws[2].Chain() || r.Chunks != 3 || r.Records != 9 {
		t.Errorf("Replay = %+v; want last 9, 3 chunks, 9 records, the chain of the last write", r)
	}
	// A replay from any position gives the positions after it.
	for p := uint64(0); p <= 9; p++ {
		t.Run(fmt.Sprintf("from %d", p), func(t *testing.T) {
			var chain rifflog.Sum
			if p > 0 {
				_, r, _ := replayUpTo(t, s, p)
				chain = r
			}
			got, r, err := replayAll(s, rifflog.From{Position: p, Chain: chain})
			if err != nil {
				t.Fatalf("Replay: %v", err)
			}
			if diff := cmp.Diff(span(p+1, 9), got); diff != "" {
				t.Errorf("Replay positions (-want +got):\n%s", diff)
			}
			if r.Last != 9 {
				t.Errorf("Replay last = %d; want 9", r.Last)
			}
		})
	}
	// A wrong chain value at the start is a chain break.
	_, _, err = replayAll(s, rifflog.From{Position: 4, Chain: rifflog.Sum{1}})
	if !errors.Is(err, rifflog.ErrChain) {
		t.Errorf("Replay from a wrong chain = %v; want ErrChain", err)
	}
	// A write of no record needs no object.
	w, err := rifflog.Write(ctx, s, rifflog.Chunk{Prev: r.Chain, First: 10})
	if err != nil || w.Object() != "" || !w.Covers(10, 0) || w.Chain() != r.Chain {
		t.Errorf("Write(no record) = %+v, %v; want a proof of nothing at 10 with the same chain", w, err)
	}
	if names, _ := s.List(ctx, "log/"); len(names) != 3 {
		t.Errorf("objects after a write of no record = %v; want 3", names)
	}
	// A taken name is never replaced.
	_, err = rifflog.Write(ctx, s, rifflog.Chunk{Prev: r.Chain, First: 5, Records: records(5, 1)})
	if !errors.Is(err, rifflog.ErrExists) {
		t.Errorf("Write(taken name) = %v; want ErrExists", err)
	}
}

// replayUpTo gives the chain value at position p.
func replayUpTo(t *testing.T, s rifflog.Store, p uint64) ([]uint64, rifflog.Sum, error) {
	t.Helper()
	var chain rifflog.Sum
	var stop = errors.New("stop")
	var got []uint64
	// The chain at p is the chain of a log cut at p: replay it into a copy.
	cp := mem.New()
	var recs [][]byte
	_, err := rifflog.Replay(context.Background(), s, rifflog.From{}, func(line []byte, pos uint64) error {
		if pos > p {
			return stop
		}
		recs = append(recs, append([]byte(nil), line...))
		got = append(got, pos)
		return nil
	})
	if err != nil && !errors.Is(err, stop) {
		t.Fatalf("Replay: %v", err)
	}
	w, err := rifflog.Write(context.Background(), cp, rifflog.Chunk{First: 1, Records: recs})
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	chain = w.Chain()
	return got, chain, nil
}

func TestWriteRefusesBadChunks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		chunk rifflog.Chunk
	}{
		{"first position 0", rifflog.Chunk{First: 0, Records: records(1, 1)}},
		{"wrong position", rifflog.Chunk{First: 2, Records: records(1, 1)}},
		{"newline", rifflog.Chunk{First: 1, Records: [][]byte{[]byte("{\"position\":1,\n\"a\":1}")}}},
		{"not JSON", rifflog.Chunk{First: 1, Records: [][]byte{[]byte(`{"position":1,`)}}},
		{"no position", rifflog.Chunk{First: 1, Records: [][]byte{[]byte(`{"command":"x"}`)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mem.New()
			_, err := rifflog.Write(context.Background(), s, tc.chunk)
			if !errors.Is(err, rifflog.ErrInvalid) {
				t.Errorf("Write = %v; want ErrInvalid", err)
			}
			if names, _ := s.List(context.Background(), ""); len(names) != 0 {
				t.Errorf("objects = %v; want none", names)
			}
		})
	}
}

// rawChunk encodes a chunk with any records, through a store of its own.
func rawChunk(t *testing.T, prev rifflog.Sum, first uint64, recs [][]byte) []byte {
	t.Helper()
	// Write checks the positions; build the bytes by writing a valid
	// chunk and swapping in the records and the checksum by hand.
	s := mem.New()
	if _, err := rifflog.Write(context.Background(), s, rifflog.Chunk{Prev: prev, First: first, Records: records(first, len(recs))}); err != nil {
		t.Fatal(err)
	}
	data, _ := s.Get(context.Background(), rifflog.ChunkName(first))
	head, _, _ := strings.Cut(string(data), "\n")
	var body strings.Builder
	for _, r := range recs {
		body.Write(r)
		body.WriteByte('\n')
	}
	return []byte(fixSum(head, body.String()) + "\n" + body.String())
}

func TestReplayFindsBrokenLogs(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		broken func(t *testing.T, s *mem.Store, ws []rifflog.Written)
		kind   error
		object string
		pos    uint64
	}{
		{
			name: "a missing chunk is a gap",
			broken: func(t *testing.T, s *mem.Store, ws []rifflog.Written) {
				s.Delete(ctx, ws[1].Object())
			},
			kind: rifflog.ErrGap, object: "log/00000000000000000007.jsonl", pos: 7,
		},
		{
			name: "a chunk that comes again is a repeat",
			broken: func(t *testing.T, s *mem.Store, ws []rifflog.Written) {
				data, _ := s.Get(ctx, ws[2].Object())
				s.Put(ctx, rifflog.ChunkName(8), append([]byte(nil), data...))
			},
			kind: rifflog.ErrUnreadable, object: "log/00000000000000000008.jsonl", // the name and the header differ
		},
		{
			name: "a chunk that starts at a position the log has",
			broken: func(t *testing.T, s *mem.Store, ws []rifflog.Written) {
				s.Delete(ctx, ws[2].Object())
				s.Put(ctx, rifflog.ChunkName(6), rawChunk(t, ws[1].Chain(), 6, records(6, 4)))
			},
			kind: rifflog.ErrRepeat, object: "log/00000000000000000006.jsonl", pos: 6,
		},
		{
			name: "a record that repeats inside a chunk",
			broken: func(t *testing.T, s *mem.Store, ws []rifflog.Written) {
				s.Delete(ctx, ws[1].Object())
				s.Put(ctx, ws[1].Object(), rawChunk(t, ws[0].Chain(), 4, [][]byte{record(4), record(5), record(5)}))
			},
			kind: rifflog.ErrRepeat, object: "log/00000000000000000004.jsonl", pos: 5,
		},
		{
			name: "a record that skips a position inside a chunk",
			broken: func(t *testing.T, s *mem.Store, ws []rifflog.Written) {
				s.Delete(ctx, ws[1].Object())
				s.Put(ctx, ws[1].Object(), rawChunk(t, ws[0].Chain(), 4, [][]byte{record(4), record(6), record(7)}))
			},
			kind: rifflog.ErrGap, object: "log/00000000000000000004.jsonl", pos: 6,
		},
		{
			name: "a line that does not read",
			broken: func(t *testing.T, s *mem.Store, ws []rifflog.Written) {
				s.Delete(ctx, ws[1].Object())
				s.Put(ctx, ws[1].Object(), rawChunk(t, ws[0].Chain(), 4, [][]byte{record(4), []byte("not json"), record(6)}))
			},
			kind: rifflog.ErrUnreadable, object: "log/00000000000000000004.jsonl", pos: 5,
		},
		{
			name: "a chunk of the same positions from another history breaks the chain",
			broken: func(t *testing.T, s *mem.Store, ws []rifflog.Written) {
				s.Delete(ctx, ws[1].Object())
				s.Put(ctx, ws[1].Object(), rawChunk(t, rifflog.Sum{7}, 4, records(4, 3)))
			},
			kind: rifflog.ErrChain, object: "log/00000000000000000004.jsonl", pos: 4,
		},
		{
			name: "a changed record is a checksum mismatch",
			broken: func(t *testing.T, s *mem.Store, ws []rifflog.Written) {
				data, _ := s.Get(ctx, ws[1].Object())
				s.Delete(ctx, ws[1].Object())
				s.Put(ctx, ws[1].Object(), []byte(strings.Replace(string(data), "issue-5", "issue-6", 1)))
			},
			kind: rifflog.ErrChecksum, object: "log/00000000000000000004.jsonl", pos: 4,
		},
		{
			name: "a torn chunk does not read",
			broken: func(t *testing.T, s *mem.Store, ws []rifflog.Written) {
				data, _ := s.Get(ctx, ws[1].Object())
				s.Delete(ctx, ws[1].Object())
				s.Put(ctx, ws[1].Object(), data[:len(data)-10])
			},
			kind: rifflog.ErrChecksum, object: "log/00000000000000000004.jsonl", pos: 4,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mem.New()
			ws := writeLog(t, s, 3, 3, 3)
			tc.broken(t, s, ws)
			_, _, err := replayAll(s, rifflog.From{})
			var le *rifflog.LogError
			if !errors.As(err, &le) || !errors.Is(err, tc.kind) {
				t.Fatalf("Replay = %v; want a LogError of kind %v", err, tc.kind)
			}
			if le.Object != tc.object || le.Position != tc.pos {
				t.Errorf("Replay error names %s position %d; want %s position %d (%v)", le.Object, le.Position, tc.object, tc.pos, err)
			}
			if !strings.HasPrefix(err.Error(), "replay: "+tc.object) {
				t.Errorf("Replay error = %q; want it to start with the chunk name", err)
			}
		})
	}
}

// fixSum puts the right checksum of body into a header line.
func fixSum(head, body string) string {
	return replaceField(head, "sum", sha256Hex(body))
}

// TestBitFlips flips each of 10,000 random bits of a log: every flip is found.
func TestBitFlips(t *testing.T) {
	ctx := context.Background()
	base := mem.New()
	writeLog(t, base, 4, 1, 6)
	names, _ := base.List(ctx, "log/")
	objects := map[string][]byte{}
	for _, n := range names {
		objects[n], _ = base.Get(ctx, n)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 10000 {
		name := names[rng.IntN(len(names))]
		data := append([]byte(nil), objects[name]...)
		bit := rng.IntN(len(data) * 8)
		data[bit/8] ^= 1 << (bit % 8)
		s := mem.New()
		for _, n := range names {
			if n == name {
				s.Put(ctx, n, data)
			} else {
				s.Put(ctx, n, objects[n])
			}
		}
		_, _, err := replayAll(s, rifflog.From{})
		var le *rifflog.LogError
		if !errors.As(err, &le) {
			t.Fatalf("flip %d: bit %d of %s: Replay = %v; want a LogError", i, bit, name, err)
		}
		if le.Object != name {
			t.Fatalf("flip %d: bit %d of %s: the error names %s (%v)", i, bit, name, le.Object, err)
		}
	}
}
