package riffengine_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog/mem"
)

// The decision (docs/decisions.md, "The checkpoint maker at the lowest
// priority"): a checkpoint encodes and writes on a thread of its own,
// SCHED_IDLE at nice 19, which ends with it, so that no goroutine of the
// calls ever runs at that priority.
func TestGivenACheckpointWhenItEncodesThenItsThreadHasTheLowestPriorityAndEndsWithIt(t *testing.T) {
	st := mem.New()
	r := start2(t, st, newClock())
	type seen struct{ nice, policy, tid int }
	threads := make(chan seen, 16)
	errs := make(chan error, 16)
	r.e.OnEncodes(func() {
		nice, policy, tid, err := riffengine.ThreadNice()
		if err != nil {
			errs <- err
			return
		}
		threads <- seen{nice, policy, tid}
	})
	r.register("ann/s1", "ann/s2", "bob/s3", "carl/s4")
	exercise(r, 0, 90)
	var got seen
	select {
	case got = <-threads:
	case err := <-errs:
		t.Fatal(err)
	case <-time.After(time.Minute):
		t.Fatalf("no checkpoint came to its encode in a minute: position %d", r.position())
	}
	if got.nice != 19 || got.policy != 5 {
		t.Fatalf("the thread of the checkpoint runs at nice %d, policy %d; want nice 19, policy 5 (SCHED_IDLE)", got.nice, got.policy)
	}
	if got.tid == syscall.Gettid() {
		t.Fatal("the checkpoint ran on the thread of the test")
	}
	until(t, "a checkpoint", func() bool { return len(checkpointNames(t, st)) > 0 })
	// The thread ends with the goroutine of the checkpoint.
	if !riffengine.ThreadEnds(got.tid) {
		t.Fatalf("the thread %d of the checkpoint did not end", got.tid)
	}
}
