package riffengine_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/como-technologies/riff/riffstate"
)

// prober takes the lock of the engine as a call does, again and again,
// and keeps the longest wait.
type prober struct {
	stop    chan struct{}
	done    chan struct{}
	longest time.Duration
	probes  int
}

func probe(e *riffengine.Engine) *prober {
	p := &prober{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for {
			select {
			case <-p.stop:
				return
			default:
			}
			t := time.Now()
			e.Closed() // takes the lock, as each call does
			if d := time.Since(t); d > p.longest {
				p.longest = d
			}
			p.probes++
			time.Sleep(50 * time.Microsecond)
		}
	}()
	return p
}

func (p *prober) end() time.Duration {
	close(p.stop)
	<-p.done
	return p.longest
}

// BenchmarkCheckpointLockWait measures the longest time that a call
// waits for the lock of the engine while a checkpoint of a riff at the
// scale of docs/performance.md (36 people, 8 sessions each, 24,800 direct
// threads) is made, in the two ways, in the same run: the encode of the
// written state under the lock (the old way, the ceiling), and the copy
// (the steps and the changes of the presence taken under the lock, the
// move and the encode of the copy with the lock free). Before each
// checkpoint, 400 calls change the state: claims, releases and posts of
// the sessions, reads and statuses. The figures are in
// docs/performance.md.
func BenchmarkCheckpointLockWait(b *testing.B) {
	if testing.Short() {
		b.Skip("the setup builds a riff at the scale of docs/performance.md")
	}
	ctx := context.Background()
	cp, lines := buildRiff(b, designScale, 1000)
	st := mem.New()
	if _, err := rifflog.WriteCheckpoint(ctx, st, cp); err != nil {
		b.Fatal(err)
	}
	writeLog(b, st, rifflog.Replayed{Last: cp.Position, Chain: cp.Chain}, len(lines), 8,
		func(p uint64) []byte { return lines[p-cp.Position-1] })
	loaded, err := riffengine.Load(ctx, st, riffstate.Options{Build: "1.0.0"})
	if err != nil {
		b.Fatal(err)
	}
	e := riffengine.New(loaded.State, loaded.Replayed, riffengine.Options{Store: st, StoreName: "memory", Build: serverBuild(),
		CheckpointEvery: 1 << 30, TimerEvery: time.Hour})
	defer e.Halt(context.Canceled)
	e.SetServing(true, "")

	var callers []name.SessionURI
	e.View(func(v riffstate.View, _ riffstate.Now) {
		for _, s := range v.Riff().Sessions {
			callers = append(callers, s.URI)
		}
	})
	slices.SortFunc(callers, func(a, b name.SessionURI) int { return strings.Compare(a.String(), b.String()) })
	round := 0
	change := func() {
		round++
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 50 {
					me := callers[(w*50+i)%len(callers)]
					c := prove(b, me).Caller()
					item := name.Item(fmt.Sprintf("bench-%d-%d-%d", round, w, i))
					switch i % 5 {
					case 0:
						_, _ = riffengine.Dispatch[riffstate.Claim, wire.ClaimReply](ctx, e, riffengine.Authenticate(prove(b, me), riffstate.Claim{Claim: wire.Claim{Me: me, Item: item}}))
					case 1:
						_, _ = riffengine.Dispatch[riffstate.Post, wire.PostReply](ctx, e, riffengine.Authenticate(prove(b, me), riffstate.Post{Post: wire.Post{Me: me, Body: "a word of the bench " + string(item)}}))
					case 2:
						_ = e.Signal(ctx, c, riffstate.StatusSet{Text: "works on " + string(item)})
					case 3:
						_ = e.Signal(ctx, c, riffstate.Read{Thread: name.Thread(me.Repo), Seq: uint64(round * 10)})
					default:
						_ = e.Signal(ctx, c, riffstate.StepChange{Start: "verify"})
					}
				}
			}()
		}
		wg.Wait()
	}
	// The first checkpoint of the copy builds it from the checkpoint of
	// the start: outside the lock too, and not in the figure.
	change()
	heapBefore := heapAfterGC()
	p := probe(e)
	t0 := time.Now()
	if _, _, err := e.EncodeByCopy(); err != nil {
		b.Fatal(err)
	}
	b.Logf("the first checkpoint by the copy (which builds it) took %v; the longest wait for the lock in it: %v; the heap grew by %d MB (from %d MB)",
		time.Since(t0).Round(time.Millisecond), p.end(), (heapAfterGC()-heapBefore)>>20, heapBefore>>20)

	var old, byCopy, oldTook, copyTook, held []time.Duration
	for b.Loop() {
		change()
		p := probe(e)
		t := time.Now()
		n, err := e.EncodeUnderLock()
		if err != nil {
			b.Fatal(err)
		}
		oldTook = append(oldTook, time.Since(t))
		old = append(old, p.end())

		change()
		p = probe(e)
		t = time.Now()
		m, h, err := e.EncodeByCopy()
		if err != nil {
			b.Fatal(err)
		}
		held = append(held, h)
		copyTook = append(copyTook, time.Since(t))
		byCopy = append(byCopy, p.end())
		if n == 0 || m == 0 {
			b.Fatal("an empty checkpoint")
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(median(old)), "ms-wait-under-lock")
	b.ReportMetric(ms(median(byCopy)), "ms-wait-by-copy")
	b.ReportMetric(ms(slices.Max(byCopy)), "ms-wait-by-copy-max")
	b.ReportMetric(ms(slices.Max(held)), "ms-held-by-capture-max")
	b.Logf("longest wait for the lock: under the lock %v (median of %d; the encode took %v), by the copy %v (median; the most %v; the checkpoint took %v; the capture held the lock %v at most)",
		median(old), len(old), median(oldTook), median(byCopy), slices.Max(byCopy), median(copyTook), slices.Max(held))
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// heapAfterGC gives the bytes of the heap in use after a collection.
func heapAfterGC() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
