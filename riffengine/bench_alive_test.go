package riffengine_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
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
	send, setup := benchHandler(b)
	const sessions = 100
	alives := make([][]byte, sessions)
	for s := range sessions {
		me := name.SessionURI{User: fmt.Sprintf("u%d", s%10), Host: "h", Repo: "o/repo", Session: fmt.Sprintf("s%04d", s)}
		setup("/v1/register", wire.Register{Me: me})
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
