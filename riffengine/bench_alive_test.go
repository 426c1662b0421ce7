package riffengine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/como-technologies/riff/riffstate"
)

// BenchmarkHandlerAlive is the cost of the keep-alives of 100 sessions,
// each with a riff relay mcp (issue 13, "Measure"): the CPU of the server
// for one keep-alive that carries a fact (an activity and prompt_secs),
// through the handler of riff-server with no network. Read it against
// BenchmarkHandlerClaimRelease, a durable call, in the same run
// (docs/performance.md).
//
//	go test -run '^$' -bench 'HandlerAlive|HandlerClaimRelease' -benchtime 200000x -count 3 ./riffengine
func BenchmarkHandlerAlive(b *testing.B) {
	ctx := context.Background()
	st := mem.New()
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
	send := func(w *benchWriter, r *http.Request, body *bytes.Reader, path string, data []byte) {
		w.reset()
		body.Reset(data)
		r.URL.Path = path
		r.ContentLength = int64(len(data))
		h.ServeHTTP(w, r)
		if w.status != 0 && w.status != http.StatusOK {
			b.Fatalf("POST %s = %d %s", path, w.status, w.body.Bytes())
		}
	}
	const sessions = 100
	alives := make([][]byte, sessions)
	for s := range sessions {
		me := name.SessionURI{User: fmt.Sprintf("u%d", s%10), Host: "h", Repo: "o/repo", Session: fmt.Sprintf("s%04d", s)}
		data, _ := json.Marshal(wire.Register{Me: me})
		body := bytes.NewReader(nil)
		send(&benchWriter{header: http.Header{}}, httptest.NewRequest(http.MethodPost, "/v1/register", body), body, "/v1/register", data)
		secs := int64(40)
		alives[s], _ = json.Marshal(wire.Alive{Me: me, Activity: "runs Bash: run the tests of the store", PromptSecs: &secs})
	}
	var next atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU(b)
	b.RunParallel(func(pb *testing.PB) {
		w := &benchWriter{header: http.Header{}}
		body := bytes.NewReader(nil)
		r := httptest.NewRequest(http.MethodPost, "/v1/alive", body)
		for pb.Next() {
			s := int(next.Add(1)-1) % sessions
			send(w, r, body, "/v1/alive", alives[s])
		}
	})
	cpu := processCPU(b) - cpu0
	b.StopTimer()
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/call")
}
