package riffengine_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/pprof"
	"sync/atomic"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/rifflog/mem"
)

// The loads of issue 23 that grow the riff, through the handler of
// riff-server on the memory store with no network (the in-process twin
// of BenchmarkGrowth of cmd/riff-server, for a profile and for the heap):
//
//	cd riffengine && go test -run '^$' -bench 'HandlerFresh|HandlerPileUp' -benchtime 80000x -count 3 .

// heapInUse gives the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// storeBytes gives the bytes of the objects of the memory store.
func storeBytes(b *testing.B, st *mem.Store) int64 {
	names, err := st.List(context.Background(), "")
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, name := range names {
		data, err := st.Get(context.Background(), name)
		if err != nil {
			b.Fatal(err)
		}
		n += int64(len(data))
	}
	return n
}

// BenchmarkHandlerFreshSessions: each op is a claim by a session of its
// own (a new session, registered by its first call), from 64 goroutines,
// so the riff grows by b.N sessions. heap-B/session is the live heap
// that the b.N sessions added, after a collection.
func BenchmarkHandlerFreshSessions(b *testing.B) {
	st := mem.New()
	send, setup := benchHandlerOn(b, st)
	setup("/v1/resume", wire.Resume{Me: name.SessionURI{User: "admin", Host: "h"}, Riff: true})
	heap0, store0 := heapInUse(), storeBytes(b, st)
	var next atomic.Int64
	b.SetParallelism(32)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU(b)
	b.RunParallel(func(pb *testing.PB) {
		w := &benchWriter{header: http.Header{}}
		body := bytes.NewReader(nil)
		r := httptest.NewRequest(http.MethodPost, "/v1/claim", body)
		var buf []byte
		for pb.Next() {
			n := next.Add(1)
			buf = fmt.Appendf(buf[:0], `{"me":"riff://f%d@h/o/repo?session=f%dx%d","item":"f%d"}`, n%64, n%64, n, n)
			send(w, r, body, "/v1/claim", buf)
		}
	})
	cpu := processCPU(b) - cpu0
	b.StopTimer()
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/call")
	heap := int64(heapInUse()) - int64(heap0)
	b.ReportMetric(float64(heap)/float64(b.N), "heap-B/session")
	// The memory store holds the log and the checkpoints in the heap,
	// which the directory store of riff-server keeps on its disk.
	b.ReportMetric(float64(heap-(storeBytes(b, st)-store0))/float64(b.N), "heap-but-store-B/session")
	// With RIFF_HEAP_PROFILE, the heap of the grown riff (the engine
	// lives until the cleanup) goes to that file, for go tool pprof.
	if path := os.Getenv("RIFF_HEAP_PROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if err := pprof.WriteHeapProfile(f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHandlerPileUp: 64 sessions, each claims a new item at each
// op and releases none; with -benchtime 64000x each session ends with
// 1,000 claims.
func BenchmarkHandlerPileUp(b *testing.B) {
	send, setup := benchHandler(b)
	setup("/v1/resume", wire.Resume{Me: name.SessionURI{User: "admin", Host: "h"}, Riff: true})
	var next, client atomic.Int64
	b.SetParallelism(32)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU(b)
	b.RunParallel(func(pb *testing.PB) {
		c := client.Add(1)
		w := &benchWriter{header: http.Header{}}
		body := bytes.NewReader(nil)
		r := httptest.NewRequest(http.MethodPost, "/v1/claim", body)
		var buf []byte
		for pb.Next() {
			buf = fmt.Appendf(buf[:0], `{"me":"riff://p%d@h/o/repo?session=p%d","item":"p%dx%d"}`, c, c, c, next.Add(1))
			send(w, r, body, "/v1/claim", buf)
		}
	})
	cpu := processCPU(b) - cpu0
	b.StopTimer()
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/call")
}

// BenchmarkHandlerClaimReleaseAt1000: the steady pair of
// BenchmarkHandlerClaimRelease (each op a claim or a release of the
// item of its session, in turn) by 64 sessions that each hold 999 other
// claims: a claim at 1,000 claims of its session, read against the
// steady pair at 1 claim in the same run (goal 2 of issue 23).
//
//	cd riffengine && go test -run '^$' -bench 'HandlerClaimRelease' -benchtime 64000x -count 1 .
func BenchmarkHandlerClaimReleaseAt1000(b *testing.B) { benchClaimRelease(b, 999) }
