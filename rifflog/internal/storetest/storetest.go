// Package storetest holds the conformance suite that every
// [rifflog.Store] backend runs: the same tests on memory, a directory
// and GCS (a fake server). It holds tests only and is never imported by
// code that ships.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/como-technologies/riff/rifflog"
	"github.com/google/go-cmp/cmp"
)

// Run runs the suite; newStore gives an empty store for each test.
func Run(t *testing.T, newStore func(t *testing.T) rifflog.Store) {
	ctx := context.Background()
	t.Run("put then get", func(t *testing.T) {
		s := newStore(t)
		if err := s.Put(ctx, "log/a", []byte("one\n")); err != nil {
			t.Fatalf("Put = %v", err)
		}
		got, err := s.Get(ctx, "log/a")
		if err != nil || string(got) != "one\n" {
			t.Errorf("Get = %q, %v; want %q", got, err, "one\n")
		}
	})
	t.Run("put never replaces", func(t *testing.T) {
		s := newStore(t)
		if err := s.Put(ctx, "log/a", []byte("one")); err != nil {
			t.Fatalf("Put = %v", err)
		}
		err := s.Put(ctx, "log/a", []byte("two"))
		if !errors.Is(err, rifflog.ErrExists) {
			t.Errorf("second Put = %v; want ErrExists", err)
		}
		if got, _ := s.Get(ctx, "log/a"); string(got) != "one" {
			t.Errorf("Get after a refused Put = %q; want %q", got, "one")
		}
	})
	t.Run("get of nothing", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Get(ctx, "log/none"); !errors.Is(err, rifflog.ErrNotExist) {
			t.Errorf("Get = %v; want ErrNotExist", err)
		}
	})
	t.Run("list by prefix in name order", func(t *testing.T) {
		s := newStore(t)
		for _, n := range []string{"log/00000000000000000003.jsonl", "checkpoint/00000000000000000002-5.json", "log/00000000000000000001.jsonl", "log/00000000000000000002.jsonl", "logx"} {
			if err := s.Put(ctx, n, []byte(n)); err != nil {
				t.Fatalf("Put(%s) = %v", n, err)
			}
		}
		got, err := s.List(ctx, "log/")
		if err != nil {
			t.Fatalf("List = %v", err)
		}
		want := []string{"log/00000000000000000001.jsonl", "log/00000000000000000002.jsonl", "log/00000000000000000003.jsonl"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("List(log/) (-want +got):\n%s", diff)
		}
		got, _ = s.List(ctx, "log/00000000000000000002")
		if diff := cmp.Diff(want[1:2], got); diff != "" {
			t.Errorf("List(log/...2) (-want +got):\n%s", diff)
		}
		got, _ = s.List(ctx, "none/")
		if len(got) != 0 {
			t.Errorf("List(none/) = %v; want nothing", got)
		}
	})
	t.Run("delete", func(t *testing.T) {
		s := newStore(t)
		s.Put(ctx, "log/a", []byte("x"))
		if err := s.Delete(ctx, "log/a"); err != nil {
			t.Fatalf("Delete = %v", err)
		}
		if _, err := s.Get(ctx, "log/a"); !errors.Is(err, rifflog.ErrNotExist) {
			t.Errorf("Get after Delete = %v; want ErrNotExist", err)
		}
		if err := s.Delete(ctx, "log/a"); err != nil {
			t.Errorf("Delete of nothing = %v; want nil", err)
		}
		if got, _ := s.List(ctx, "log/"); len(got) != 0 {
			t.Errorf("List after Delete = %v; want nothing", got)
		}
	})
	t.Run("one create of many wins", func(t *testing.T) {
		s := newStore(t)
		oneWins(t, "Put", 6, rifflog.ErrExists, func(i int) error {
			return s.Put(ctx, "log/race", []byte{byte('a' + i)})
		})
	})
	t.Run("swap and load", func(t *testing.T) {
		s := newStore(t)
		if _, _, err := s.Load(ctx, "lease"); !errors.Is(err, rifflog.ErrNotExist) {
			t.Errorf("Load of nothing = %v; want ErrNotExist", err)
		}
		g1, err := s.Swap(ctx, "lease", []byte("a"), 0)
		if err != nil || g1 < 1 {
			t.Fatalf("Swap(0) = %d, %v; want a generation", g1, err)
		}
		if _, err := s.Swap(ctx, "lease", []byte("b"), 0); !errors.Is(err, rifflog.ErrChanged) {
			t.Errorf("Swap(0) of a taken name = %v; want ErrChanged", err)
		}
		g2, err := s.Swap(ctx, "lease", []byte("c"), g1)
		if err != nil || g2 == g1 {
			t.Fatalf("Swap(g1) = %d, %v; want a new generation", g2, err)
		}
		if _, err := s.Swap(ctx, "lease", []byte("d"), g1); !errors.Is(err, rifflog.ErrChanged) {
			t.Errorf("Swap of an old generation = %v; want ErrChanged", err)
		}
		data, gen, err := s.Load(ctx, "lease")
		if err != nil || gen != g2 || string(data) != "c" {
			t.Errorf("Load = %q, %d, %v; want %q, %d", data, gen, err, "c", g2)
		}
	})
	t.Run("one swap of many wins", func(t *testing.T) {
		s := newStore(t)
		g, err := s.Swap(ctx, "lease", []byte("a"), 0)
		if err != nil {
			t.Fatal(err)
		}
		oneWins(t, "Swap", 5, rifflog.ErrChanged, func(i int) error {
			_, err := s.Swap(ctx, "lease", []byte{byte('b' + i)}, g)
			return err
		})
	})
	t.Run("a log round trip", func(t *testing.T) {
		s := newStore(t)
		var r rifflog.Replayed
		var want [][]byte
		for i, n := range []int{2, 1, 3} {
			recs := make([][]byte, n)
			for j := range recs {
				pos := r.Last + 1 + uint64(j)
				recs[j] = fmt.Appendf(nil, `{"position":%d,"change":{"c%d":{}}}`, pos, i)
			}
			w, err := rifflog.Write(ctx, s, r.Next(recs))
			if err != nil {
				t.Fatalf("Write = %v", err)
			}
			r.Last, r.Chain = w.Last(), w.Chain()
			want = append(want, recs...)
		}
		if _, err := rifflog.WriteCheckpoint(ctx, s, rifflog.Checkpoint{Position: 3, WrittenAtMs: 1, Build: "1.0.0", Chain: chainAt(t, s, 3), State: []byte(`{"a":1}`)}); err != nil {
			t.Fatalf("WriteCheckpoint = %v", err)
		}
		var got [][]byte
		if _, err := rifflog.Replay(ctx, s, rifflog.From{}, func(line []byte, _ uint64) error {
			got = append(got, bytes.Clone(line))
			return nil
		}); err != nil {
			t.Fatalf("Replay = %v", err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Replay (-want +got):\n%s", diff)
		}
		l, err := rifflog.LoadCheckpoint(ctx, s, nil)
		if err != nil || l.Checkpoint.Position != 3 || string(l.Checkpoint.State) != `{"a":1}` {
			t.Fatalf("LoadCheckpoint = %+v, %v", l, err)
		}
		rr, err := rifflog.Replay(ctx, s, l.Checkpoint.From(), func([]byte, uint64) error { return nil })
		if err != nil || rr.Records != 3 || rr.Last != 6 {
			t.Errorf("Replay from the checkpoint = %+v, %v; want 3 records to 6", rr, err)
		}
	})
	t.Run("lease handover", func(t *testing.T) {
		s := newStore(t)
		Handover(t, s)
	})
	t.Run("newest generation", func(t *testing.T) {
		s := newStore(t)
		looker, ok := s.(interface {
			Newest(ctx context.Context, name string, gen int64) (bool, error)
		})
		if !ok {
			t.Skip("the store reads the lease to check it")
		}
		ctx := context.Background()
		var gen int64
		for range 5 {
			next, err := s.Swap(ctx, "obj", []byte("x"), gen)
			if err != nil {
				t.Fatalf("Swap(%d) = %v", gen, err)
			}
			gen = next
		}
		for g := int64(0); g <= gen+1; g++ {
			got, err := looker.Newest(ctx, "obj", g)
			if err != nil || got != (g == gen) {
				t.Errorf("Newest(%d) = %v, %v; want %v (the newest is %d)", g, got, err, g == gen, gen)
			}
		}
		if got, err := looker.Newest(ctx, "none", 1); err != nil || got {
			t.Errorf("Newest of an object that is not there = %v, %v; want false", got, err)
		}
	})
}

// oneWins runs n calls of op at once: exactly one returns nil, each
// other an error that wraps lost.
func oneWins(t *testing.T, op string, n int, lost error, call func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range errs {
		wg.Go(func() { errs[i] = call(i) })
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, lost):
			t.Errorf("%s = %v; want nil or %v", op, err, lost)
		}
	}
	if won != 1 {
		t.Errorf("%d calls of %s won; want 1", won, op)
	}
}

// chainAt gives the chain value at position p of the log in s.
func chainAt(t *testing.T, s rifflog.Store, p uint64) rifflog.Sum {
	t.Helper()
	sum, err := rifflog.ChainAt(context.Background(), s, rifflog.From{}, p)
	if err != nil {
		t.Fatalf("ChainAt(%d) = %v", p, err)
	}
	return sum
}
