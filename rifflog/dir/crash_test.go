package dir_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/dir"
	"github.com/google/go-cmp/cmp"
)

// history is an epoch: chunk writes, and a checkpoint after chunk
// checkpointAfter (0: none).
type history struct {
	sizes           []int
	checkpointAfter int
	// prepare: the temporary file of each next chunk is made ahead
	// (Store.Prepare), as the log writer of riffengine does.
	prepare bool
	// prune: a Prune after the checkpoint (it deletes the chunks behind
	// it with one flush of the directory).
	prune bool
	// after: the sizes of the chunks written after the prune, over the
	// files of the chunks that it recycled.
	after []int
}

// outcome is what an epoch did before the power went out.
type outcome struct {
	chunks     [][][]byte // the records of each chunk it tried
	acked      int        // the chunks acknowledged
	checkpoint *rifflog.Checkpoint
	ckAcked    bool
	pruneTried bool
}

func line(pos uint64) []byte {
	return fmt.Appendf(nil, `{"position":%d,"written_at_ms":%d,"by":{"session":"ann/s1"},"command":"post","change":{"posted":{"thread":"o/repo","seq":%d,"body":"hi"}}}`, pos, 1790000000000+pos, pos)
}

// run runs h on fsys until it ends or the power goes out.
func run(fsys dir.FS, h history) outcome {
	ctx := context.Background()
	var o outcome
	s, err := dir.OpenFS(fsys, "/riff")
	if err != nil {
		return o
	}
	var r rifflog.Replayed
	prepare := func() bool {
		return !h.prepare || s.Prepare(rifflog.ChunkName(r.Last+1)) == nil
	}
	if !prepare() {
		return o
	}
	write := func(n int) (rifflog.Written, bool) {
		recs := make([][]byte, n)
		for j := range recs {
			recs[j] = line(r.Last + 1 + uint64(j))
		}
		o.chunks = append(o.chunks, recs)
		w, err := rifflog.Write(ctx, s, r.Next(recs))
		if err != nil {
			return w, false
		}
		o.acked++
		r.Last, r.Chain = w.Last(), w.Chain()
		return w, prepare()
	}
	for i, n := range h.sizes {
		w, ok := write(n)
		if !ok {
			return o
		}
		if i+1 == h.checkpointAfter {
			c := rifflog.CheckpointAt(w, 1790000000000, "1.0.0", []byte(fmt.Sprintf(`{"at":%d}`, w.Last())))
			o.checkpoint = &c
			if _, err := rifflog.WriteCheckpoint(ctx, s, c); err != nil {
				return o
			}
			o.ckAcked = true
		}
	}
	if h.prune && o.ckAcked {
		o.pruneTried = true
		if _, err := rifflog.Prune(ctx, s, time.UnixMilli(1790000000000)); err != nil {
			return o
		}
		for _, n := range h.after {
			if _, ok := write(n); !ok {
				return o
			}
		}
	}
	return o
}

// check opens the file system after a crash and checks the crash laws:
// every acknowledged chunk is there, only a prefix of the tried chunks
// is read, and nothing else.
func check(t *testing.T, fsys dir.FS, o outcome) {
	t.Helper()
	ctx := context.Background()
	s, err := dir.OpenFS(fsys, "/riff")
	if err != nil {
		t.Fatalf("OpenFS after the crash = %v", err)
	}
	// After a prune the chunks behind the checkpoint may be gone, some of
	// them or all: the log is read from the checkpoint, as a start does.
	from, skip := rifflog.From{}, 0
	if o.pruneTried {
		from, skip = o.checkpoint.From(), int(o.checkpoint.Position)
	}
	var got [][]byte
	r, err := rifflog.Replay(ctx, s, from, func(line []byte, _ uint64) error {
		got = append(got, bytes.Clone(line))
		return nil
	})
	if err != nil {
		t.Fatalf("Replay after the crash (from %d) = %v", from.Position, err)
	}
	var want [][]byte
	ok := false
	for j := 0; j <= len(o.chunks); j++ {
		if j > 0 {
			want = append(want, o.chunks[j-1]...)
		}
		if j >= o.acked && len(want) >= skip && bytes.Equal(bytes.Join(want[skip:], nil), bytes.Join(got, nil)) && len(want)-skip == len(got) {
			ok = true
		}
	}
	if !ok {
		t.Fatalf("after the crash the log holds %d records of %d tried chunks (%d acknowledged); want a prefix of the tried chunks with each acknowledged one:\n%s",
			len(got), len(o.chunks), o.acked, bytes.Join(got, []byte("\n")))
	}
	l, err := rifflog.LoadCheckpoint(ctx, s, nil)
	switch {
	case errors.Is(err, rifflog.ErrNoCheckpoint):
		if o.ckAcked {
			t.Fatalf("LoadCheckpoint = %v; want the acknowledged checkpoint", err)
		}
	case err != nil:
		t.Fatalf("LoadCheckpoint = %v", err)
	default:
		if o.checkpoint == nil || !cmp.Equal(l.Checkpoint.From(), o.checkpoint.From()) || string(l.Checkpoint.State) != string(o.checkpoint.State) {
			t.Fatalf("LoadCheckpoint = %+v; want the checkpoint that was tried", l.Checkpoint)
		}
		if _, err := rifflog.Replay(ctx, s, l.Checkpoint.From(), func([]byte, uint64) error { return nil }); err != nil {
			t.Fatalf("Replay from the checkpoint = %v", err)
		}
	}
	names, err := s.List(ctx, "")
	if err != nil {
		t.Fatalf("List = %v", err)
	}
	for _, n := range names {
		_, isChunk := rifflog.ParseChunkName(n)
		_, _, isCheckpoint := rifflog.ParseCheckpointName(n)
		if !isChunk && !isCheckpoint {
			t.Errorf("List after the crash has %q; want chunks and checkpoints only", n)
		}
	}
	if v, err := rifflog.Verify(ctx, s); err != nil || len(v.Problems) != 0 {
		t.Fatalf("Verify after the crash = %+v, %v; want no problem", v, err)
	}
	// The log goes on after the crash.
	if _, err := rifflog.Write(ctx, s, r.Next([][]byte{line(r.Last + 1)})); err != nil {
		t.Fatalf("Write after the crash = %v", err)
	}
	if _, err := rifflog.Replay(ctx, s, from, func([]byte, uint64) error { return nil }); err != nil {
		t.Fatalf("Replay after a write after the crash = %v", err)
	}
	// A later prune removes what the crash brought back.
	if o.pruneTried {
		if _, err := rifflog.Prune(ctx, s, time.UnixMilli(1790000000000)); err != nil {
			t.Fatalf("Prune after the crash = %v", err)
		}
		names, _ := s.List(ctx, rifflog.ChunkPrefix)
		for _, n := range names {
			if first, _ := rifflog.ParseChunkName(n); first <= o.checkpoint.Position {
				t.Errorf("after a prune after the crash, %s is still there; the checkpoint is at %d", n, o.checkpoint.Position)
			}
		}
		if v, err := rifflog.Verify(ctx, s); err != nil || len(v.Problems) != 0 {
			t.Fatalf("Verify after the prune after the crash = %+v, %v; want no problem", v, err)
		}
	}
}

// steps counts the steps of h with no crash.
func steps(h history) int {
	f := newSimFS()
	run(f, h)
	return f.steps
}

func crashAt(t *testing.T, h history, limit int, rng *rand.Rand, how loss) {
	t.Helper()
	f := newSimFS()
	f.limit = limit
	o := run(f, h)
	check(t, f.crash(rng, how), o)
}

// TestCrashAtEveryStep crashes an epoch of three chunk writes and one
// checkpoint at every step, losing nothing, everything, or a random part
// of what was not flushed; with a prune, and with chunks written after
// it over the files that it recycled.
func TestCrashAtEveryStep(t *testing.T) {
	t.Run("new temporary files", func(t *testing.T) { crashEveryStep(t, false, false, nil) })
	t.Run("temporary files made ahead", func(t *testing.T) { crashEveryStep(t, true, false, nil) })
	t.Run("a prune after the checkpoint", func(t *testing.T) { crashEveryStep(t, true, true, nil) })
	t.Run("chunks over the recycled files of a prune", func(t *testing.T) { crashEveryStep(t, true, true, []int{2, 1, 3}) })
	t.Run("chunks over the recycled files of a prune, none made ahead", func(t *testing.T) { crashEveryStep(t, false, true, []int{2, 1, 3}) })
}

func crashEveryStep(t *testing.T, prepare, prune bool, after []int) {
	h := history{sizes: []int{2, 3, 1}, checkpointAfter: 2, prepare: prepare, prune: prune, after: after}
	n := steps(h)
	if n < 30 {
		t.Fatalf("the epoch has %d steps; the count is wrong", n)
	}
	for limit := 0; limit <= n; limit++ {
		// Each loss by chance keeps or loses each change that no flush
		// made durable: 12 of them reach each mix of two removals of a
		// prune with odds of 1 - (3/4)^12 (97 %).
		hows := []loss{loseAll, loseNone}
		for range 12 {
			hows = append(hows, loseRandom)
		}
		for i, how := range hows {
			t.Run(fmt.Sprintf("step %d loss %d try %d", limit, how, i), func(t *testing.T) {
				crashAt(t, h, limit, rand.New(rand.NewPCG(uint64(limit), uint64(i))), how)
			})
		}
	}
}

// TestCrashRandomHistories crashes 120 random histories at a random
// step, half of them with the temporary files made ahead, and half of
// each with a prune after the checkpoint (and up to 3 chunks after it,
// over the files that it recycled).
func TestCrashRandomHistories(t *testing.T) {
	for seed := range uint64(120) {
		rng := rand.New(rand.NewPCG(seed, 7))
		h := history{sizes: make([]int, 1+rng.IntN(5))}
		for i := range h.sizes {
			h.sizes[i] = 1 + rng.IntN(4)
		}
		h.checkpointAfter = rng.IntN(len(h.sizes) + 1)
		h.prepare = seed%2 == 1
		h.prune = seed%4 >= 2
		if h.prune {
			h.after = make([]int, rng.IntN(4))
			for i := range h.after {
				h.after[i] = 1 + rng.IntN(4)
			}
		}
		limit := rng.IntN(steps(h) + 1)
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			crashAt(t, h, limit, rng, loseRandom)
		})
	}
}

// TestTornTemporaryFileIsNeverRead leaves a torn temporary file beside
// the chunks: it is never listed or read, and an open removes it once it
// is old.
func TestTornTemporaryFileIsNeverRead(t *testing.T) {
	ctx := context.Background()
	f := newSimFS()
	s, err := dir.OpenFS(f, "/riff")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rifflog.Write(ctx, s, rifflog.Chunk{First: 1, Records: [][]byte{line(1)}}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"/riff/log/.tmp-1-1", "/riff/log/.tmp-8999999999999999999-1"} {
		tf, err := f.CreateExcl(name)
		if err != nil {
			t.Fatal(err)
		}
		tf.Write([]byte(`{"format":1,"first":2,"cou`))
	}
	s, err = dir.OpenFS(f, "/riff")
	if err != nil {
		t.Fatal(err)
	}
	names, _ := s.List(ctx, "")
	if diff := cmp.Diff([]string{"log/00000000000000000001.jsonl"}, names); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	entries, _ := f.ReadDir("/riff/log")
	var left []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name, ".tmp-") {
			left = append(left, e.Name)
		}
	}
	// The old one is gone; the one from the future (a live writer) stays.
	if diff := cmp.Diff([]string{".tmp-8999999999999999999-1"}, left); diff != "" {
		t.Errorf("temporary files after an open (-want +got):\n%s", diff)
	}
}
