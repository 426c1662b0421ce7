package rifflog_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/dir"
	"github.com/como-technologies/riff/rifflog/mem"
)

// eachLeaseStore runs test as a subtest on each store of the lease tests:
// memory (the lease check reads the lease) and a directory (it looks up
// two names), from the same time.
func eachLeaseStore(t *testing.T, test func(t *testing.T, ctx context.Context, s rifflog.Store, now time.Time)) {
	t.Helper()
	d, err := dir.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]rifflog.Store{"memory": mem.New(), "directory": d} {
		t.Run(name, func(t *testing.T) {
			test(t, context.Background(), s, time.UnixMilli(1790000000000))
		})
	}
}

// takeLeaseAs takes the lease for instance of revision at now, or fails
// the test.
func takeLeaseAs(t *testing.T, ctx context.Context, s rifflog.Store, instance string, revision uint64, now time.Time) *rifflog.Lease {
	t.Helper()
	l, err := rifflog.TakeLeaseAs(ctx, s, instance, revision, now)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestGivenChunkWritesWhenTheLeaseRenewsMeanwhileThenNoWriteSeesALostLease
// renews the lease on one goroutine (the lease loop of the server) while
// another writes chunks with WriteHeld (the writer). Before the lease had
// a lock, the check read the generation while the renew wrote it: the
// race detector flagged it, and a check that met a renew half done
// concluded that another instance took the lease, which stops the
// server. Run it with -race.
func TestGivenChunkWritesWhenTheLeaseRenewsMeanwhileThenNoWriteSeesALostLease(t *testing.T) {
	eachLeaseStore(t, func(t *testing.T, ctx context.Context, s rifflog.Store, now time.Time) {
		l, err := rifflog.TakeLease(ctx, s, "serving", now)
		if err != nil {
			t.Fatal(err)
		}
		const rounds = 200
		var wg sync.WaitGroup
		renewErr := make(chan error, 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				if err := l.Renew(ctx, now.Add(time.Duration(i)*time.Millisecond)); err != nil {
					renewErr <- err
					return
				}
			}
		}()
		prev, first := rifflog.Sum{}, uint64(1)
		for range rounds {
			w, err := l.WriteHeld(ctx, rifflog.Chunk{Prev: prev, First: first, Records: [][]byte{fmt.Appendf(nil, `{"position":%d}`, first)}})
			if err != nil {
				wg.Wait()
				t.Fatalf("WriteHeld at %d while the lease renews = %v; want the chunk written", first, err)
			}
			prev, first = w.Chain(), w.Last()+1
		}
		wg.Wait()
		select {
		case err := <-renewErr:
			t.Fatalf("Renew while chunks are written = %v", err)
		default:
		}
		if err := l.Check(ctx); err != nil {
			t.Errorf("Check after the renews = %v; want the lease held", err)
		}
	})
}

// TestGivenTheLeaseOfALaterRevisionWhenAnInstanceOfAnOlderRevisionStartsThenItDoesNotTakeIt
// is the second instance of the old revision that Cloud Run can start
// during a deploy: it must not take the lease of the new instance in its
// wait, or that wait starts again.
func TestGivenTheLeaseOfALaterRevisionWhenAnInstanceOfAnOlderRevisionStartsThenItDoesNotTakeIt(t *testing.T) {
	eachLeaseStore(t, func(t *testing.T, ctx context.Context, s rifflog.Store, now time.Time) {
		newer := takeLeaseAs(t, ctx, s, "new", 42, now)
		_, err := rifflog.TakeLeaseAs(ctx, s, "old-2", 41, now.Add(time.Second))
		var nerr *rifflog.NewerLeaseError
		if !errors.Is(err, rifflog.ErrLeaseNewer) || !errors.As(err, &nerr) || nerr.Holder.Instance != "new" || nerr.Holder.Revision != 42 {
			t.Fatalf("TakeLeaseAs of revision 41 over a live lease of 42 = %v; want ErrLeaseNewer naming new of 42", err)
		}
		if err := newer.Check(ctx); err != nil {
			t.Errorf("the new instance's Check after the refused take = %v; want its lease held", err)
		}
		r, _, _, _ := rifflog.ReadLease(ctx, s)
		if r.Instance != "new" || r.Revision != 42 {
			t.Errorf("the lease = %+v; want new of revision 42", r)
		}
		// The same revision and a later one take it: a move of the
		// instance, or the next deploy.
		if _, err := rifflog.TakeLeaseAs(ctx, s, "new-2", 42, now.Add(2*time.Second)); err != nil {
			t.Errorf("TakeLeaseAs of the same revision = %v; want the lease", err)
		}
		if _, err := rifflog.TakeLeaseAs(ctx, s, "next", 43, now.Add(3*time.Second)); err != nil {
			t.Errorf("TakeLeaseAs of a later revision = %v; want the lease", err)
		}
	})
}

// TestGivenTheLeaseOfALaterRevisionWhenItIsEndedThenAnOlderRevisionTakesIt
// is a failed deploy: Cloud Run stops the new instance in its wait, it
// ends its lease, and an instance of the old revision takes it.
func TestGivenTheLeaseOfALaterRevisionWhenItIsEndedThenAnOlderRevisionTakesIt(t *testing.T) {
	eachLeaseStore(t, func(t *testing.T, ctx context.Context, s rifflog.Store, now time.Time) {
		newer := takeLeaseAs(t, ctx, s, "new", 42, now)
		if err := newer.End(ctx, now.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		old, err := rifflog.TakeLeaseAs(ctx, s, "old", 41, now.Add(2*time.Second))
		if err != nil {
			t.Fatalf("TakeLeaseAs of revision 41 after the lease of 42 ended = %v; want the lease", err)
		}
		if err := old.Check(ctx); err != nil {
			t.Errorf("Check = %v", err)
		}
		r, _, _, _ := rifflog.ReadLease(ctx, s)
		if r.Instance != "old" || r.Revision != 41 || r.Ended {
			t.Errorf("the lease = %+v; want old of revision 41, not ended", r)
		}
	})
}

// TestGivenALeaseWithNoWriteForNinetySecondsThenItHasEnded is a new
// instance that crashed in its wait: it did not end its lease, and the
// lease ends by its age, 90 s after its last write. An instance of an
// older revision takes it then, and not a moment before.
func TestGivenALeaseWithNoWriteForNinetySecondsThenItHasEnded(t *testing.T) {
	eachLeaseStore(t, func(t *testing.T, ctx context.Context, s rifflog.Store, now time.Time) {
		if _, err := rifflog.TakeLeaseAs(ctx, s, "crashed", 42, now); err != nil {
			t.Fatal(err)
		}
		r, _, _, _ := rifflog.ReadLease(ctx, s)
		if !r.Holds(now.Add(rifflog.LeaseAge-time.Millisecond)) || r.Holds(now.Add(rifflog.LeaseAge)) {
			t.Errorf("the lease holds at 90 s less 1 ms: %v, at 90 s: %v; want true, false", r.Holds(now.Add(rifflog.LeaseAge-time.Millisecond)), r.Holds(now.Add(rifflog.LeaseAge)))
		}
		if _, err := rifflog.TakeLeaseAs(ctx, s, "old", 41, now.Add(rifflog.LeaseAge-time.Millisecond)); !errors.Is(err, rifflog.ErrLeaseNewer) {
			t.Errorf("TakeLeaseAs of an older revision 1 ms before the age = %v; want ErrLeaseNewer", err)
		}
		if _, err := rifflog.TakeLeaseAs(ctx, s, "old", 41, now.Add(rifflog.LeaseAge)); err != nil {
			t.Errorf("TakeLeaseAs of an older revision 90 s after the last write = %v; want the lease", err)
		}
	})
}
