package riffengine_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/mem"
)

// The decision (docs/decisions.md, "The checkpoint maker at the lowest
// priority"): a checkpoint encodes on a thread of its own, SCHED_IDLE at
// nice 19, which ends with it, so that no goroutine of the calls ever
// runs at that priority.
func TestGivenACheckpointWhenItEncodesThenItsThreadHasTheLowestPriorityAndEndsWithIt(t *testing.T) {
	nice, policy, tid := checkpointThread(t, func(*riffengine.Engine) {})
	if nice != 19 || policy != 5 {
		t.Fatalf("the thread of the checkpoint runs at nice %d, policy %d; want nice 19, policy 5 (SCHED_IDLE)", nice, policy)
	}
	if tid == syscall.Gettid() {
		t.Fatal("the checkpoint ran on the thread of the test")
	}
}

// checkpointThread runs the riff until a checkpoint comes to its encode,
// after f set the engine up, and gives the nice value, the policy and
// the thread of that checkpoint; then it waits for the checkpoint to be
// written and its thread to end (the thread ends with the goroutine of
// the checkpoint).
func checkpointThread(t *testing.T, f func(e *riffengine.Engine)) (nice, policy, tid int) {
	t.Helper()
	return checkpointThreadOn(t, mem.New(), f)
}

// checkpointThreadOn is checkpointThread on the store st.
func checkpointThreadOn(t *testing.T, st rifflog.Store, f func(e *riffengine.Engine)) (nice, policy, tid int) {
	t.Helper()
	r := start2(t, st, newClock())
	f(r.e)
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
	until(t, "a checkpoint", func() bool { return len(checkpointNames(t, st)) > 0 })
	until(t, "the CPU of the checkpoint", func() bool { return r.e.CheckpointCPU() > 0 })
	if !riffengine.ThreadEnds(got.tid) {
		t.Fatalf("the thread %d of the checkpoint did not end", got.tid)
	}
	return got.nice, got.policy, got.tid
}

// The decision (docs/decisions.md, "A cheap checkpoint runs at the
// priority of the calls"): after a checkpoint of the instance that took
// under 5 ms of CPU, the next runs at the priority of the calls (nice
// 0, SCHED_OTHER), on a thread of its own that ends with it; after one
// of 5 ms or more, at the lowest; and each checkpoint leaves its CPU
// time for the next.
func TestGivenACheapCheckpointBeforeWhenTheNextEncodesThenItRunsAtThePriorityOfTheCalls(t *testing.T) {
	callsNice, callsPolicy, _, err := riffengine.ThreadNice()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		last         time.Duration
		nice, policy int
	}{
		{last: time.Millisecond, nice: callsNice, policy: callsPolicy},
		{last: 4 * time.Millisecond, nice: callsNice, policy: callsPolicy},
		{last: 5 * time.Millisecond, nice: 19, policy: 5},
		{last: time.Second, nice: 19, policy: 5},
	} {
		nice, policy, _ := checkpointThread(t, func(e *riffengine.Engine) { e.SetCheckpointCPU(c.last) })
		if nice != c.nice || policy != c.policy {
			t.Errorf("after a checkpoint of %v of CPU, the next runs at nice %d, policy %d; want nice %d, policy %d", c.last, nice, policy, c.nice, c.policy)
		}
	}
}

// The decision (docs/decisions.md, "The checkpoint maker holds no lock at
// the lowest priority"): only the CPU of a checkpoint (the copy, the
// encode, the sum) runs at the lowest priority; its write, the prune
// and the facts take locks that the calls and the writer take (the
// store's, the engine's), so they run at the priority of the calls. A
// thread at the lowest priority that holds one of them is kept off the
// CPU while any other thread wants it, the collector's idle workers
// among them, and each call waits for that lock meanwhile.
func TestGivenACheckpointAtTheLowestPriorityWhenItWritesAndPrunesThenTheStoreSeesThePriorityOfTheCalls(t *testing.T) {
	callsNice, callsPolicy, _, err := riffengine.ThreadNice()
	if err != nil {
		t.Fatal(err)
	}
	st := &priorityStore{Store: mem.New()}
	nice, policy, _ := checkpointThreadOn(t, st, func(*riffengine.Engine) {})
	if nice != 19 || policy != 5 {
		t.Fatalf("the encode ran at nice %d, policy %d; want nice 19, policy 5 (SCHED_IDLE)", nice, policy)
	}
	seen := st.seen()
	var puts, lists int
	for _, s := range seen {
		if s.err != nil {
			t.Fatalf("%s %s: %v", s.op, s.name, s.err)
		}
		if s.nice != callsNice || s.policy != callsPolicy {
			t.Errorf("%s %s ran at nice %d, policy %d; want those of the calls, nice %d, policy %d", s.op, s.name, s.nice, s.policy, callsNice, callsPolicy)
		}
		switch {
		case s.op == "put" && strings.HasPrefix(s.name, rifflog.CheckpointPrefix):
			puts++
		case s.op == "list" && s.name == rifflog.CheckpointPrefix:
			lists++
		}
	}
	if puts == 0 || lists == 0 {
		t.Fatalf("the store saw %d writes of a checkpoint and %d lists of the checkpoints (the prune); want one or more of each: %v", puts, lists, seen)
	}
}

// priorityStore notes the nice value and the policy of the thread of
// each write, list and delete of its store.
type priorityStore struct {
	rifflog.Store
	mu  sync.Mutex
	ops []storeOp
}

type storeOp struct {
	op, name     string
	nice, policy int
	err          error
}

func (s *priorityStore) note(op, name string) {
	nice, policy, _, err := riffengine.ThreadNice()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, storeOp{op: op, name: name, nice: nice, policy: policy, err: err})
}

func (s *priorityStore) seen() []storeOp {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ops)
}

func (s *priorityStore) Put(ctx context.Context, name string, data []byte) error {
	s.note("put", name)
	return s.Store.Put(ctx, name, data)
}

func (s *priorityStore) List(ctx context.Context, prefix string) ([]string, error) {
	s.note("list", prefix)
	return s.Store.List(ctx, prefix)
}

func (s *priorityStore) Delete(ctx context.Context, name string) error {
	s.note("delete", name)
	return s.Store.Delete(ctx, name)
}
