package rifflog_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/dir"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// smallLog writes 10 records in chunks of 3, 4 and 3 to a new directory
// store, with a checkpoint at 7.
func smallLog(t *testing.T) *dir.Store {
	t.Helper()
	s, err := dir.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := writeLog(t, s, 3, 4, 3)
	if _, err := rifflog.WriteCheckpoint(context.Background(), s, rifflog.CheckpointAt(ws[1], 1790000000000, "1.0.0", []byte(`{"n":7}`))); err != nil {
		t.Fatal(err)
	}
	return s
}

func lines(t *testing.T, s rifflog.Store) [][]byte {
	t.Helper()
	var got [][]byte
	if _, err := rifflog.Replay(context.Background(), s, rifflog.From{}, func(line []byte, _ uint64) error {
		got = append(got, bytes.Clone(line))
		return nil
	}); err != nil {
		t.Fatalf("Replay = %v", err)
	}
	return got
}

func snapshot(t *testing.T, s rifflog.Store) map[string]string {
	ctx := context.Background()
	names, _ := s.List(ctx, "")
	out := map[string]string{}
	for _, n := range names {
		b, _ := s.Get(ctx, n)
		out[n] = string(b)
	}
	return out
}

func TestCutAtEachPosition(t *testing.T) {
	ctx := context.Background()
	now := time.UnixMilli(1790000000000)
	for p := uint64(0); p <= 10; p++ {
		t.Run(fmt.Sprintf("after %d", p), func(t *testing.T) {
			s := smallLog(t)
			before := snapshot(t, s)
			plan, err := rifflog.CutAfter(ctx, s, p, false, now)
			if err != nil {
				t.Fatalf("CutAfter(no yes) = %v", err)
			}
			if diff := cmp.Diff(before, snapshot(t, s)); diff != "" || plan.Done {
				t.Fatalf("CutAfter without yes changed the store (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(records(p+1, int(10-p)), plan.Removed, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("removed records (-want +got):\n%s", diff)
			}
			wantThreads := []string{"o/repo"} // the status records name a session, no thread
			if p == 10 {
				wantThreads = nil
			}
			if diff := cmp.Diff(wantThreads, plan.Threads); diff != "" {
				t.Errorf("threads (-want +got):\n%s", diff)
			}
			cut, err := rifflog.CutAfter(ctx, s, p, true, now)
			if err != nil || !cut.Done {
				t.Fatalf("CutAfter(yes) = %+v, %v", cut, err)
			}
			if diff := cmp.Diff(records(1, int(p)), lines(t, s), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("the log after the cut (-want +got):\n%s", diff)
			}
			v, err := rifflog.Verify(ctx, s)
			if err != nil || len(v.Problems) != 0 {
				t.Errorf("Verify after the cut = %v, %v; want no problem", v.Problems, err)
			}
			l, err := rifflog.LoadCheckpoint(ctx, s, nil)
			if p < 7 && !errors.Is(err, rifflog.ErrNoCheckpoint) {
				t.Errorf("LoadCheckpoint after a cut before 7 = %v; want ErrNoCheckpoint", err)
			}
			if p >= 7 && (err != nil || l.Checkpoint.Position != 7) {
				t.Errorf("LoadCheckpoint = %+v, %v; want the checkpoint at 7", l, err)
			}
			// The log goes on after the cut.
			r, err := rifflog.Replay(ctx, s, rifflog.From{}, func([]byte, uint64) error { return nil })
			if err != nil || r.Last != p {
				t.Fatalf("Replay = %+v, %v; want last %d", r, err, p)
			}
			if _, err := rifflog.Write(ctx, s, r.Next(records(p+1, 2))); err != nil {
				t.Errorf("Write after the cut = %v", err)
			}
		})
	}
}

func TestCutRefuses(t *testing.T) {
	ctx := context.Background()
	now := time.UnixMilli(1790000000000)
	t.Run("while a server holds the lease", func(t *testing.T) {
		s := smallLog(t)
		if _, err := rifflog.TakeLease(ctx, s, "server-1", now); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, s)
		if _, err := rifflog.CutAfter(ctx, s, 5, true, now.Add(time.Minute)); !errors.Is(err, rifflog.ErrLeaseHeld) {
			t.Errorf("CutAfter = %v; want ErrLeaseHeld", err)
		}
		if diff := cmp.Diff(before, snapshot(t, s)); diff != "" {
			t.Errorf("a refused cut changed the store:\n%s", diff)
		}
		// A lease that ended by age holds no more.
		if _, err := rifflog.CutAfter(ctx, s, 5, false, now.Add(rifflog.LeaseAge)); err != nil {
			t.Errorf("CutAfter after the lease aged = %v", err)
		}
	})
	t.Run("before the oldest kept checkpoint when the chunks before it are gone", func(t *testing.T) {
		s := smallLog(t)
		s.Delete(ctx, rifflog.ChunkName(1))
		s.Delete(ctx, rifflog.ChunkName(4))
		if _, err := rifflog.CutAfter(ctx, s, 5, true, now); !errors.Is(err, rifflog.ErrGap) {
			t.Errorf("CutAfter(5) = %v; want ErrGap", err)
		}
		c, err := rifflog.CutAfter(ctx, s, 8, true, now)
		if err != nil || !c.Done {
			t.Fatalf("CutAfter(8) = %v", err)
		}
		r, err := rifflog.Replay(ctx, s, rifflog.From{Position: 7, Chain: mustLoad(t, s).Chain}, func([]byte, uint64) error { return nil })
		if err != nil || r.Last != 8 {
			t.Errorf("Replay from the checkpoint after the cut = %+v, %v; want last 8", r, err)
		}
	})
	t.Run("past the end of the log", func(t *testing.T) {
		s := smallLog(t)
		if _, err := rifflog.CutAfter(ctx, s, 11, true, now); err == nil {
			t.Errorf("CutAfter(11) = nil; want an error")
		}
	})
}

func mustLoad(t *testing.T, s rifflog.Store) rifflog.Checkpoint {
	t.Helper()
	l, err := rifflog.LoadCheckpoint(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return l.Checkpoint
}

func TestVerifyNamesEachProblem(t *testing.T) {
	ctx := context.Background()
	s := smallLog(t)
	// Chunk 4 gets a line that does not read and loses record 6.
	data, _ := s.Get(ctx, rifflog.ChunkName(4))
	parts := strings.Split(string(data), "\n")
	head, body := parts[0], []string{parts[1], "garbage", parts[4]}
	bodyText := strings.Join(body, "\n") + "\n"
	s.Delete(ctx, rifflog.ChunkName(4))
	s.Put(ctx, rifflog.ChunkName(4), []byte(fixSum(head, bodyText)+"\n"+bodyText))
	v, err := rifflog.Verify(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range v.Problems {
		got = append(got, fmt.Sprintf("%s line %d position %d: %v", p.Object, p.Line, p.Position, errors.Unwrap(p.Err) == nil))
	}
	want := []string{
		"log/00000000000000000004.jsonl line 0 position 0: false", // the count of lines differs from the header
		"log/00000000000000000004.jsonl line 3 position 5: false", // garbage
		"log/00000000000000000004.jsonl line 4 position 7: false", // 6 is gone
	}
	if len(v.Problems) < 3 {
		t.Fatalf("Verify = %v; want at least the three problems", v.Problems)
	}
	if diff := cmp.Diff(want, got[:3]); diff != "" {
		t.Errorf("Verify problems (-want +got):\n%s\nall: %v", diff, v.Problems)
	}
}

// printed gives what Print writes of s after position from.
func printed(t *testing.T, s rifflog.Store, from uint64) string {
	t.Helper()
	var b bytes.Buffer
	if err := rifflog.Print(context.Background(), s, from, &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestPrint(t *testing.T) {
	s := smallLog(t)
	want := "9 2026-09-21T14:13:20.009Z by={\"session\":\"ann/s1\"} claim claimed {\"session\":\"riff://ann@host/o/repo?session=s1\",\"thread\":\"o/repo\",\"item\":\"issue-9\"}\n" +
		"10 2026-09-21T14:13:20.01Z by={\"session\":\"ann/s1\"} release released {\"session\":\"riff://ann@host/o/repo?session=s1\",\"thread\":\"o/repo\",\"item\":\"issue-10\"}\n"
	if diff := cmp.Diff(want, printed(t, s, 8)); diff != "" {
		t.Errorf("Print (-want +got):\n%s", diff)
	}
}

// Chunks behind every kept checkpoint may be missing (a crash in a prune
// can bring back some of the ones it deleted and not others): Verify
// then starts at the oldest kept checkpoint. A missing chunk after it is
// a gap as ever.
func TestVerifyStartsAtTheCheckpointWhenChunksBehindItAreMissing(t *testing.T) {
	ctx := context.Background()
	s := smallLog(t) // chunks 1-3, 4-7, 8-10; a checkpoint at 7
	if v, err := rifflog.Verify(ctx, s); err != nil || len(v.Problems) != 0 || v.From.Position != 0 {
		t.Fatalf("Verify of the whole log = %+v, %v; want no problem, from the start", v, err)
	}
	if err := s.Delete(ctx, rifflog.ChunkName(4)); err != nil {
		t.Fatal(err)
	}
	v, err := rifflog.Verify(ctx, s)
	if err != nil || len(v.Problems) != 0 || v.From.Position != 7 || v.Records != 3 {
		t.Errorf("Verify with chunk 4-7 gone = %+v, %v; want no problem, from the checkpoint at 7, 3 records", v, err)
	}

	s = smallLog(t)
	w, err := rifflog.Write(ctx, s, rifflog.Replayed{Last: 10, Chain: chainAfter(t, s, 10)}.Next(records(11, 2)))
	if err != nil || w.Last() != 12 {
		t.Fatalf("Write = %v, %v", w, err)
	}
	if err := s.Delete(ctx, rifflog.ChunkName(8)); err != nil {
		t.Fatal(err)
	}
	v, err = rifflog.Verify(ctx, s)
	if err != nil || len(v.Problems) == 0 || !errors.Is(v.Problems[0].Err, rifflog.ErrGap) || v.Problems[0].Position != 11 {
		t.Errorf("Verify with chunk 8-10 gone (after the checkpoint at 7) = %+v, %v; want the gap at 11", v, err)
	}
}

// chainAfter gives the chain value of the log at position p.
func chainAfter(t *testing.T, s rifflog.Store, p uint64) rifflog.Sum {
	t.Helper()
	sum, err := rifflog.ChainAt(context.Background(), s, rifflog.From{}, p)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// One flipped bit in a record of an early chunk breaks the chain of
// every chunk after it: verify names the damage and the first break, and
// counts the later chunks that it cannot check, rather than a break for
// each of them.
func TestGivenOneFlippedBitWhenTheLogIsVerifiedThenItNamesTheDamageTheFirstBreakAndCountsTheChunksLeft(t *testing.T) {
	ctx := context.Background()
	s := mem.New()
	sizes := make([]int, 62)
	for i := range sizes {
		sizes[i] = 2
	}
	writeLog(t, s, sizes...)
	damaged := rifflog.ChunkName(3) // the second chunk: positions 3 and 4
	data, err := s.Get(ctx, damaged)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.LastIndex(data, []byte(`"ann/s1"`)) + 1
	flipped := bytes.Clone(data)
	flipped[at] ^= 0x01 // "ann" becomes "`nn": the line still reads
	_ = s.Delete(ctx, damaged)
	if err := s.Put(ctx, damaged, flipped); err != nil {
		t.Fatal(err)
	}
	v, err := rifflog.Verify(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Problems) != 2 {
		t.Fatalf("Verify found %d problems; want the checksum of %s and the first break: %v", len(v.Problems), damaged, v.Problems)
	}
	if p := v.Problems[0]; p.Object != damaged || !errors.Is(p.Err, rifflog.ErrChecksum) {
		t.Errorf("the first problem = %v; want the checksum of %s", p, damaged)
	}
	if p := v.Problems[1]; p.Object != rifflog.ChunkName(5) || !errors.Is(p.Err, rifflog.ErrChain) {
		t.Errorf("the second problem = %v; want the chain break at %s", p, rifflog.ChunkName(5))
	}
	want := rifflog.Unchecked{Chunks: 60, First: rifflog.ChunkName(5), Last: rifflog.ChunkName(123), FromPosition: 5, ToPosition: 124}
	if diff := cmp.Diff(want, v.Unchecked); diff != "" {
		t.Errorf("Verify unchecked (-want +got):\n%s", diff)
	}
}

// laterBuildLog writes a log of two records that a later build wrote: a
// claim with a field that this build does not know, and a change of a
// kind that this build does not know, which names a thread.
func laterBuildLog(t *testing.T) rifflog.Store {
	t.Helper()
	s := mem.New()
	var r rifflog.Replayed
	if _, err := rifflog.Write(context.Background(), s, r.Next([][]byte{
		[]byte(`{"position":1,"written_at_ms":1790000000001,"by":{"session":"ann/s1"},"command":"claim","change":{"claimed":{"session":"riff://ann@host/o/repo?session=s1","thread":"o/repo","item":"issue-1","until_ms":1790000600000}}}`),
		[]byte(`{"position":2,"written_at_ms":1790000000002,"by":{"session":"ann/s1"},"command":"rename","change":{"thread_renamed":{"thread":"o/renamed","from":{"thread":"o/old"}}}}`),
	})); err != nil {
		t.Fatal(err)
	}
	return s
}

// Given records of a later build, when the log is printed, then each
// line shows what the record holds, the field and the kind that this
// build does not know too (the reason why the log tools read the JSON of
// a record and not its typed record: see rifflog/tools.go).
func TestGivenRecordsOfALaterBuildWhenTheLogIsPrintedThenWhatThisBuildDoesNotKnowShows(t *testing.T) {
	want := "1 2026-09-21T14:13:20.001Z by={\"session\":\"ann/s1\"} claim claimed {\"session\":\"riff://ann@host/o/repo?session=s1\",\"thread\":\"o/repo\",\"item\":\"issue-1\",\"until_ms\":1790000600000}\n" +
		"2 2026-09-21T14:13:20.002Z by={\"session\":\"ann/s1\"} rename thread_renamed {\"thread\":\"o/renamed\",\"from\":{\"thread\":\"o/old\"}}\n"
	if diff := cmp.Diff(want, printed(t, laterBuildLog(t), 0)); diff != "" {
		t.Errorf("Print of the records of a later build (-want +got):\n%s", diff)
	}
}

// Given records of a later build, when a cut plans to remove them, then
// it names each thread that they touch, those of a kind that this build
// does not know too.
func TestGivenRecordsOfALaterBuildWhenACutRemovesThemThenItNamesEachThreadTheyTouch(t *testing.T) {
	c, err := rifflog.CutAfter(context.Background(), laterBuildLog(t), 0, false, time.UnixMilli(1790000000000))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"o/old", "o/renamed", "o/repo"}, c.Threads); diff != "" {
		t.Errorf("CutAfter threads (-want +got):\n%s", diff)
	}
}
