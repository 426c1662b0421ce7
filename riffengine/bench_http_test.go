package riffengine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog/dir"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/como-technologies/riff/riffstate"
	"github.com/como-technologies/riff/tools/loadtool"
)

// The benchmarks of durable commands through HTTP (the issue, "Tests that
// must exist"), with the two ceilings beside them, measured in one run:
//
//	go test -run '^$' -bench 'DurableClaimsHTTP|FsyncRate|TrivialHTTP' -benchtime=20000x -count=5 ./riffengine
//
// Results and their reading: docs/performance.md, section riffengine.

// benchClients is the number of concurrent clients on loopback.
const benchClients = 64

// newBenchClient gives a client that keeps one connection per client.
func newBenchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 2 * benchClients, MaxIdleConnsPerHost: 2 * benchClients}}
}

// load runs b.N calls from benchClients goroutines; call i of client c
// is body(c, i). It reports the calls per second and the p50 and p99 of
// their latency.
func load(b *testing.B, client *http.Client, url string, body func(c, i int) (string, []byte)) {
	var next atomic.Int64
	lat := make([][]time.Duration, benchClients)
	b.ResetTimer()
	cpu0 := processCPU(b)
	start := time.Now()
	var wg sync.WaitGroup
	for c := range benchClients {
		wg.Go(func() {
			for i := 0; next.Add(1) <= int64(b.N); i++ {
				path, data := body(c, i)
				t0 := time.Now()
				resp, err := client.Post(url+path, "application/json", bytes.NewReader(data))
				if err != nil {
					b.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Errorf("POST %s = %d", path, resp.StatusCode)
					return
				}
				lat[c] = append(lat[c], time.Since(t0))
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	cpu := processCPU(b) - cpu0
	b.StopTimer()
	all := slices.Concat(lat...)
	slices.Sort(all)
	ms := func(q float64) float64 { return float64(all[int(q*float64(len(all)-1))].Microseconds()) / 1e3 }
	b.ReportMetric(float64(b.N)/took.Seconds(), "calls/s")
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/call")
}

// processCPU gives the CPU time (user and system) of this process: the
// clients and the server together. The CPU per call is steadier than the
// calls per second on a machine that other work shares.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// durableServer starts an engine on the directory store (each chunk
// fsynced, with the lease checked around each chunk, as riff-server
// runs) behind a loopback HTTP server, resumes the riff and registers a
// session for each client.
func durableServer(b *testing.B) (url string, client *http.Client, e *riffengine.Engine, mes []name.SessionURI) {
	ctx := context.Background()
	st, err := dir.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	loaded, err := riffengine.Load(ctx, st, riffstate.Options{Build: serverBuild().String()})
	if err != nil {
		b.Fatal(err)
	}
	e = riffengine.New(loaded.State, loaded.Replayed, riffengine.Options{Store: st, StoreName: "directory", Build: serverBuild(),
		Logger: slog.New(slog.DiscardHandler)})
	b.Cleanup(func() { e.Halt(errors.New("the benchmark ends")) })
	if err := e.TakeLease(ctx, riffengine.NewInstanceID(), 0); err != nil {
		b.Fatal(err)
	}
	if err := e.MakeRiff(ctx, "bench"); err != nil {
		b.Fatal(err)
	}
	e.SetServing(true, "")
	srv := httptest.NewServer(riffengine.NewHandler(e, riffengine.NoSignIn{}))
	b.Cleanup(srv.Close)
	client = newBenchClient()
	mustPost := func(path string, v any) {
		data, _ := json.Marshal(v)
		resp, err := client.Post(srv.URL+path, "application/json", bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("POST %s = %d", path, resp.StatusCode)
		}
	}
	mustPost("/v1/resume", wire.Resume{Me: name.SessionURI{User: "admin", Host: "h"}, Riff: true})
	for c := range benchClients {
		me := name.SessionURI{User: fmt.Sprintf("u%d", c), Host: "h", Repo: "o/repo", Session: fmt.Sprintf("s%04d", c)}
		mustPost("/v1/register", wire.Register{Me: me})
		mes = append(mes, me)
	}
	return srv.URL, client, e, mes
}

// BenchmarkDurableClaimsHTTP: each client claims its own item and
// releases it, in turn. Half the calls are claims.
func BenchmarkDurableClaimsHTTP(b *testing.B) {
	url, client, e, mes := durableServer(b)
	claims, releases := make([][]byte, benchClients), make([][]byte, benchClients)
	for c, me := range mes {
		item := name.Item(fmt.Sprintf("item-%d", c))
		claims[c], _ = json.Marshal(wire.Claim{Me: me, Item: item})
		releases[c], _ = json.Marshal(wire.Release{Me: me, Item: item})
	}
	load(b, client, url, func(c, i int) (string, []byte) {
		if i%2 == 0 {
			return "/v1/claim", claims[c]
		}
		return "/v1/release", releases[c]
	})
	b.ReportMetric(float64(e.ChunkMedian()), "chunk-median")
}

// BenchmarkTrivialHTTP is the ceiling of net/http on this machine under
// the same load: a handler that reads the body and writes a small JSON
// (loadtool.Trivial, the ceiling of the load benchmark of riff-server).
func BenchmarkTrivialHTTP(b *testing.B) {
	srv := httptest.NewServer(loadtool.Trivial(loadtool.ClaimReply(1)))
	defer srv.Close()
	body, _ := json.Marshal(wire.Claim{Me: name.SessionURI{User: "u1", Host: "h", Repo: "o/repo", Session: "s0001"}, Item: "item-1"})
	load(b, newBenchClient(), srv.URL, func(c, i int) (string, []byte) { return "/v1/claim", body })
}

// BenchmarkFsyncRate is the raw rate of durable small writes on the disk
// of b.TempDir (the same disk as the directory store of
// BenchmarkDurableClaimsHTTP): create a file, write 300 bytes, fsync it,
// close it, fsync the directory (loadtool.FsyncRate, the fsync figure
// of the load benchmark of riff-server).
func BenchmarkFsyncRate(b *testing.B) {
	d := b.TempDir()
	b.ResetTimer()
	res, err := loadtool.FsyncRate(d, b.N)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(res.PerS, "fsyncs/s")
}

// BenchmarkHandlerClaimRelease measures the server's own work on a call,
// with no network and no disk: the handler of riff-server (decode, the
// one path of the engine, the reply) on the memory store, called by 64
// goroutines, each a session that claims its own item and releases it in
// turn. It reports the allocations and the CPU (user and system) of a
// call; the load benchmarks read against it (docs/performance.md).
//
//	go test -run '^$' -bench HandlerClaimRelease -benchtime 200000x -count 5 ./riffengine
func BenchmarkHandlerClaimRelease(b *testing.B) { benchClaimRelease(b, 0) }

// benchClaimRelease is the steady pair of BenchmarkHandlerClaimRelease
// by 64 sessions that each hold held other claims first.
func benchClaimRelease(b *testing.B, held int) {
	send, setup := benchHandler(b)
	setup("/v1/resume", wire.Resume{Me: name.SessionURI{User: "admin", Host: "h"}, Riff: true})
	const goroutines = 64
	type calls struct{ claim, release []byte }
	perSession := make([]calls, goroutines)
	for c := range goroutines {
		me := name.SessionURI{User: fmt.Sprintf("u%d", c), Host: "h", Repo: "o/repo", Session: fmt.Sprintf("s%04d", c)}
		setup("/v1/register", wire.Register{Me: me})
		for i := range held {
			setup("/v1/claim", wire.Claim{Me: me, Item: name.Item(fmt.Sprintf("held-%d-%d", c, i))})
		}
		item := name.Item(fmt.Sprintf("item-%d", c))
		perSession[c].claim, _ = json.Marshal(wire.Claim{Me: me, Item: item})
		perSession[c].release, _ = json.Marshal(wire.Release{Me: me, Item: item})
	}
	var next atomic.Int64
	b.SetParallelism((goroutines + 1) / 2)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU(b)
	b.RunParallel(func(pb *testing.PB) {
		c := int(next.Add(1)-1) % goroutines
		w := &benchWriter{header: http.Header{}}
		body := bytes.NewReader(nil)
		r := httptest.NewRequest(http.MethodPost, "/v1/claim", body) // the handler reads body; send resets it
		for i := 0; pb.Next(); i++ {
			if i%2 == 0 {
				send(w, r, body, "/v1/claim", perSession[c].claim)
			} else {
				send(w, r, body, "/v1/release", perSession[c].release)
			}
		}
	})
	cpu := processCPU(b) - cpu0
	b.StopTimer()
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/call")
}

// benchHandler starts an engine on the memory store with one made riff,
// serving, and gives its handler as send, which posts data to path and
// fails the benchmark on a reply that is not 200, and setup, which
// posts one call of the set-up before the timer.
func benchHandler(b *testing.B) (send func(w *benchWriter, r *http.Request, body *bytes.Reader, path string, data []byte), setup func(path string, v any)) {
	b.Helper()
	return benchHandlerOn(b, mem.New())
}

// benchHandlerOn is benchHandler on the memory store st.
func benchHandlerOn(b *testing.B, st *mem.Store) (send func(w *benchWriter, r *http.Request, body *bytes.Reader, path string, data []byte), setup func(path string, v any)) {
	b.Helper()
	ctx := context.Background()
	loaded, err := riffengine.Load(ctx, st, riffstate.Options{Build: serverBuild().String()})
	if err != nil {
		b.Fatal(err)
	}
	e := riffengine.New(loaded.State, loaded.Replayed, riffengine.Options{Store: st, StoreName: "memory", Build: serverBuild(),
		Logger: slog.New(slog.DiscardHandler)})
	b.Cleanup(func() { e.Halt(errors.New("the benchmark ends")) })
	if err := e.MakeRiff(ctx, "bench"); err != nil {
		b.Fatal(err)
	}
	e.SetServing(true, "")
	h := riffengine.NewHandler(e, riffengine.NoSignIn{})
	send = func(w *benchWriter, r *http.Request, body *bytes.Reader, path string, data []byte) {
		w.reset()
		body.Reset(data)
		r.URL.Path = path
		r.ContentLength = int64(len(data))
		h.ServeHTTP(w, r)
		if w.status != 0 && w.status != http.StatusOK {
			b.Fatalf("POST %s = %d %s", path, w.status, w.body.Bytes())
		}
	}
	setup = func(path string, v any) {
		data, _ := json.Marshal(v)
		body := bytes.NewReader(nil)
		r := httptest.NewRequest(http.MethodPost, path, body)
		send(&benchWriter{header: http.Header{}}, r, body, path, data)
	}
	return send, setup
}

// benchWriter is a ResponseWriter that keeps the status and the body of
// one reply at a time.
type benchWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *benchWriter) reset() {
	clear(w.header)
	w.status = 0
	w.body.Reset()
}
func (w *benchWriter) Header() http.Header { return w.header }
func (w *benchWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}
func (w *benchWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(p)
}

// BenchmarkAskedOf measures what a call with a call ID adds to its path
// to know a reuse of the ID: the JSON and the SHA-256 of the command
// (riffstate.AskedOf), for a claim and a post of 1 KiB. Read it against
// the CPU of a whole call, BenchmarkHandlerClaimRelease, in the same run
// (docs/performance.md).
//
//	go test -run '^$' -bench 'HandlerClaimRelease|AskedOf' -benchtime 200000x -count 5 ./riffengine
func BenchmarkAskedOf(b *testing.B) {
	me := name.SessionURI{User: "ann", Host: "h", Repo: "o/repo", Session: "s0001"}
	for _, bc := range []struct {
		name string
		ask  func() riffstate.Asked
	}{
		{"claim", func() riffstate.Asked {
			return riffstate.AskedOf[wire.ClaimReply](riffstate.Claim{Claim: wire.Claim{Me: me, Item: "issue-12"}})
		}},
		{"post-1KiB", func() riffstate.Asked {
			return riffstate.AskedOf[wire.PostReply](riffstate.Post{Post: wire.Post{Me: me, Body: strings.Repeat("a", 1<<10)}})
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if bc.ask().Sum == "" {
					b.Fatal("no sum")
				}
			}
		})
	}
}
