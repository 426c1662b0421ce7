package riffengine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/como-technologies/riff/riffstate"
)

// The measure of the lock (docs/performance.md, "How long a call holds
// the lock and waits for it"). Each call runs the steps of Dispatch
// with a clock between them:
//
//   - check: from the call of check to the return of queue: the wait for
//     the lock, then the hold (register, permits, handle, positions, the
//     apply to the pending copy, the entry in the queue);
//   - writer: the wait for the writer (the group commit, the chunk write,
//     finish);
//   - reply: the reply from the written copy, under the lock again.
//
// With one client nobody waits for the lock, so its check and reply are
// the holds; with 64 clients the difference is the wait. A probe
// goroutine takes and gives back the lock in a loop and measures how
// long an arrival waits for it. The store is memory, to measure the lock
// and not the disk. Results: docs/performance.md, section riffengine.
func BenchmarkDispatchPhases(b *testing.B) {
	for _, clients := range []int{1, 64} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) { benchPhases(b, clients) })
	}
}

// phase keeps the durations of one phase.
type phase []time.Duration

func (p phase) at(q float64) float64 {
	if len(p) == 0 {
		return 0
	}
	s := slices.Clone(p)
	slices.Sort(s)
	return float64(s[int(q*float64(len(s)-1))].Nanoseconds()) / 1e3
}

func benchPhases(b *testing.B, clients int) {
	e := New(riffstate.New(riffstate.Options{}), rifflog.Replayed{}, Options{Store: mem.New(), TimerEvery: time.Hour})
	defer e.Halt(fmt.Errorf("the benchmark ends"))
	ctx := context.Background()
	proofs := make([]Proof, clients)
	for i := range proofs {
		me := name.SessionURI{User: fmt.Sprintf("u%d", i), Host: "h", Repo: "o/repo", Session: fmt.Sprintf("s%04d", i)}
		proofs[i] = Proof{caller: riffstate.CallerOf(me)}
		if _, err := Dispatch[riffstate.Register, wire.RegisterReply](ctx, e, Authenticate(proofs[i], riffstate.Register{Register: wire.Register{Me: me}})); err != nil {
			b.Fatal(err)
		}
	}

	stop := make(chan struct{})
	var probe phase
	probed := make(chan struct{})
	go func() {
		defer close(probed)
		for {
			select {
			case <-stop:
				return
			default:
			}
			t0 := time.Now()
			e.mu.Lock()
			probe = append(probe, time.Since(t0))
			e.mu.Unlock()
			time.Sleep(50 * time.Microsecond)
		}
	}()

	checks, writers, replies := make([]phase, clients), make([]phase, clients), make([]phase, clients)
	var mu sync.Mutex
	next := 0
	take := func() bool {
		mu.Lock()
		defer mu.Unlock()
		next++
		return next <= b.N
	}
	b.ResetTimer()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			item := name.Item(fmt.Sprintf("item-%d", c))
			for n := 0; take(); n++ {
				var t [4]time.Time
				var err error
				if n%2 == 0 {
					t, err = timed[riffstate.Claim, wire.ClaimReply](ctx, e, Authenticate(proofs[c], riffstate.Claim{Claim: wire.Claim{Item: item}}))
				} else {
					t, err = timed[riffstate.Release, wire.ReleaseReply](ctx, e, Authenticate(proofs[c], riffstate.Release{Release: wire.Release{Item: item}}))
				}
				if err != nil {
					b.Error(err)
					return
				}
				checks[c] = append(checks[c], t[1].Sub(t[0]))
				writers[c] = append(writers[c], t[2].Sub(t[1]))
				replies[c] = append(replies[c], t[3].Sub(t[2]))
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	close(stop)
	<-probed
	all := func(ps []phase) phase { return slices.Concat(ps...) }
	check, writer, reply := all(checks), all(writers), all(replies)
	b.ReportMetric(check.at(0.5), "check-p50-µs")
	b.ReportMetric(check.at(0.99), "check-p99-µs")
	b.ReportMetric(writer.at(0.5), "writer-p50-µs")
	b.ReportMetric(reply.at(0.5), "reply-p50-µs")
	b.ReportMetric(reply.at(0.99), "reply-p99-µs")
	b.ReportMetric(probe.at(0.5), "lockwait-p50-µs")
	b.ReportMetric(probe.at(0.99), "lockwait-p99-µs")
	b.ReportMetric(float64(e.ChunkMedian()), "chunk-median")
}

// timed runs the steps of Dispatch for a call with no call ID and gives
// the time before check, after queue, after the writer and after the
// reply.
func timed[C riffstate.Command[R], R any](ctx context.Context, e *Engine, call Authenticated[C]) ([4]time.Time, error) {
	var t [4]time.Time
	t[0] = time.Now()
	cmd := riffstate.Command[R](call.cmd)
	checked, _, _, err := check(e, cmd, call.caller, call.call, riffstate.Asked{})
	if err != nil {
		return t, err
	}
	checked.queue()
	t[1] = time.Now()
	q := Queued[R]{e: e, en: checked.en, cmd: cmd, caller: call.caller}
	applied, err := q.applied(ctx)
	if err != nil {
		return t, err
	}
	t[2] = time.Now()
	if _, _, err := applied.reply(nil); err != nil {
		return t, err
	}
	t[3] = time.Now()
	return t, nil
}
