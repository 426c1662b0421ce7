package rifflog_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/rifflog"
)

// scheduler runs one store call at a time, picking among the waiting
// instances with a seeded random source.
type scheduler struct {
	calls    chan call
	finished chan struct{}
	done     chan struct{}

	mu    sync.Mutex
	steps []step // what each step did
}

type call struct {
	who int
	ok  chan int
}

type step struct {
	who int
	op  string
	err error
}

func (s *scheduler) run(rng *rand.Rand, instances int) {
	var pending []call
	n := 0
	for instances > 0 {
		if len(pending) < instances {
			select {
			case c := <-s.calls:
				pending = append(pending, c)
			case <-s.done:
				instances--
			}
			continue
		}
		i := rng.IntN(len(pending))
		c := pending[i]
		pending = append(pending[:i], pending[i+1:]...)
		c.ok <- n
		n++
		<-s.finished
	}
}

// gate is a store whose calls each wait for the scheduler.
type gate struct {
	rifflog.Store
	who   int
	sched *scheduler
}

func (g gate) do(op string, f func() error) {
	c := call{who: g.who, ok: make(chan int)}
	g.sched.calls <- c
	<-c.ok
	err := f()
	g.sched.mu.Lock()
	g.sched.steps = append(g.sched.steps, step{g.who, op, err})
	g.sched.mu.Unlock()
	g.sched.finished <- struct{}{}
}

func (g gate) Put(ctx context.Context, name string, data []byte) (err error) {
	g.do("put "+name, func() error { err = g.Store.Put(ctx, name, data); return err })
	return err
}

func (g gate) Get(ctx context.Context, name string) (b []byte, err error) {
	g.do("get "+name, func() error { b, err = g.Store.Get(ctx, name); return err })
	return b, err
}

func (g gate) List(ctx context.Context, prefix string) (names []string, err error) {
	g.do("list "+prefix, func() error { names, err = g.Store.List(ctx, prefix); return err })
	return names, err
}

func (g gate) Load(ctx context.Context, name string) (b []byte, gen int64, err error) {
	g.do("load "+name, func() error { b, gen, err = g.Store.Load(ctx, name); return err })
	return b, gen, err
}

func (g gate) Swap(ctx context.Context, name string, data []byte, gen int64) (next int64, err error) {
	g.do("swap "+name, func() error { next, err = g.Store.Swap(ctx, name, data, gen); return err })
	return next, err
}

// Newest is the lookup of the lease of a store that has it (the
// directory store); on another store it says no, and the lease check
// reads the lease, as with no lookup.
func (g gate) Newest(ctx context.Context, name string, gen int64) (newest bool, err error) {
	looker, ok := g.Store.(interface {
		Newest(ctx context.Context, name string, gen int64) (bool, error)
	})
	if !ok {
		return false, nil
	}
	g.do("newest "+name, func() error { newest, err = looker.Newest(ctx, name, gen); return err })
	return newest, err
}

type ack struct {
	who   int
	after int // the number of steps when the write returned
	lines [][]byte
}

// fencing: the old instance holds the lease and wrote 2 chunks; it goes
// on writing from its own view while a new instance takes the lease,
// checks it, replays and writes. The store calls of the two interleave
// in the order of the seed.
func fencing(t *testing.T, seed uint64, base rifflog.Store) {
	ctx := context.Background()
	now := time.UnixMilli(1790000000000)
	sched := &scheduler{calls: make(chan call), finished: make(chan struct{}), done: make(chan struct{})}
	oldStore := gate{Store: base, who: 0, sched: sched}
	newStore := gate{Store: base, who: 1, sched: sched}

	// The setup runs alone: the scheduler has one instance.
	go sched.run(rand.New(rand.NewPCG(seed, 0)), 1)
	old, err := rifflog.TakeLease(ctx, oldStore, "old", now)
	if err != nil {
		t.Fatal(err)
	}
	var r rifflog.Replayed
	for _, n := range []int{2, 2} {
		w, err := old.WriteHeld(ctx, r.Next(records(r.Last+1, n)))
		if err != nil {
			t.Fatal(err)
		}
		r.Last, r.Chain = w.Last(), w.Chain()
	}
	sched.done <- struct{}{}
	sched.mu.Lock()
	sched.steps = nil
	sched.mu.Unlock()

	var mu sync.Mutex
	var acks []ack
	record := func(who int, lines [][]byte) {
		sched.mu.Lock()
		n := len(sched.steps)
		sched.mu.Unlock()
		mu.Lock()
		acks = append(acks, ack{who, n, lines})
		mu.Unlock()
	}
	finished := make(chan struct{})
	go func() {
		sched.run(rand.New(rand.NewPCG(seed, 1)), 2)
		close(finished)
	}()
	var wg sync.WaitGroup
	wg.Go(func() {
		defer func() { sched.done <- struct{}{} }()
		view := r
		for i := range 3 {
			recs := recordsBy("old", view.Last+1, 1+i)
			w, err := old.WriteHeld(ctx, view.Next(recs))
			if err != nil {
				return
			}
			record(0, recs)
			view.Last, view.Chain = w.Last(), w.Chain()
		}
	})
	wg.Go(func() {
		defer func() { sched.done <- struct{}{} }()
		l, err := rifflog.TakeLease(ctx, newStore, "new", now.Add(time.Second))
		if err != nil {
			return
		}
		if l.Check(ctx) != nil { // the wait
			return
		}
		view, err := rifflog.Replay(ctx, newStore, rifflog.From{}, func([]byte, uint64) error { return nil })
		if err != nil {
			t.Errorf("the new instance's replay = %v", err)
			return
		}
		for i := range 2 {
			recs := recordsBy("new", view.Last+1, 2+i)
			w, err := l.WriteHeld(ctx, view.Next(recs))
			if err != nil {
				return
			}
			record(1, recs)
			view.Last, view.Chain = w.Last(), w.Chain()
		}
	})
	wg.Wait()
	<-finished

	// The step at which the new instance took the lease.
	take := -1
	for i, s := range sched.steps {
		if s.who == 1 && s.op == "swap lease" && s.err == nil {
			take = i
			break
		}
	}
	for _, a := range acks {
		if a.who != 0 || take < 0 {
			continue
		}
		// The old instance's acknowledged write ended with a lease
		// check; that check must come before the take.
		if a.after-1 > take {
			t.Errorf("the old instance acknowledged a write whose check came at step %d, after the take at step %d:\n%v", a.after-1, take, sched.steps)
		}
	}
	// The old instance's puts after the take are never acknowledged.
	for i, s := range sched.steps {
		if s.who == 0 && take >= 0 && i > take && len(s.op) > 4 && s.op[:4] == "put " && s.err == nil {
			for _, a := range acks {
				if a.who == 0 && a.after > i {
					t.Errorf("the old instance put at step %d after the take at %d and acknowledged it", i, take)
				}
			}
		}
	}
	// The log never forks, and holds each acknowledged chunk.
	var log [][]byte
	if _, err := rifflog.Replay(ctx, base, rifflog.From{}, func(line []byte, _ uint64) error {
		log = append(log, bytes.Clone(line))
		return nil
	}); err != nil {
		t.Fatalf("Replay after the interleaving = %v", err)
	}
	joined := bytes.Join(log, []byte("\n"))
	for _, a := range acks {
		if !bytes.Contains(joined, bytes.Join(a.lines, []byte("\n"))) {
			t.Errorf("an acknowledged chunk of instance %d is not in the log", a.who)
		}
	}
}

// recordsBy gives records that name the instance that wrote them.
func recordsBy(who string, first uint64, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = fmt.Appendf(nil, `{"position":%d,"by":{"server":%q},"command":"x","change":{"noted":{}}}`, first+uint64(i), who)
	}
	return out
}
