package riffengine_test

import (
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/wire"
)

// BenchmarkMemberCallsBesideAFlood: the calls of a member (whoami with
// its token and a new proof, one after the other, over loopback) alone,
// the ceiling, and beside a flood of refused calls (two clients that
// send garbage sign-ins, refreshes and calls, each with a new valid
// proof of their own key, as fast as they can). Each call of the member
// must pass: a flood with no valid token fills no replay cache. The
// figure is the time of one call of the member; refused/s is the rate
// of the flood.
//
//	go test -run '^$' -bench 'MemberCallsBesideAFlood' -benchtime 2000x -count 5 ./riffengine
//
// Results: docs/performance.md, "The replay cache of the proofs".
func BenchmarkMemberCallsBesideAFlood(b *testing.B) {
	for _, flood := range []bool{false, true} {
		name := "alone"
		if flood {
			name = "beside_a_flood"
		}
		b.Run(name, func(b *testing.B) {
			r := startSignedIn(b, adaOpts)
			d := newDevice(b)
			tr := r.signIn(d, "ada@example.com")
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var refused, wrong atomic.Int64
			if flood {
				for range 2 {
					flooder := newDevice(b)
					jwk := flooder.jwk(b)
					client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
					wg.Go(func() {
						for i := 0; ; i++ {
							select {
							case <-stop:
								return
							default:
							}
							resp, err := client.Do(floodCall(b, r, flooder, jwk, i, true))
							if err != nil {
								wrong.Add(1)
								continue
							}
							_, _ = io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
							if resp.StatusCode == http.StatusUnauthorized {
								refused.Add(1)
							} else {
								wrong.Add(1)
							}
						}
					})
				}
			}
			q := req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: tr.AccessToken, proofKey: d.key}
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				if rep, _ := r.do(q); rep.status != http.StatusOK {
					b.Fatalf("a call of the member beside the flood = %s; want 200", rep)
				}
			}
			took := time.Since(start)
			b.StopTimer()
			close(stop)
			wg.Wait()
			if wrong.Load() > 0 {
				b.Errorf("%d calls of the flood got another answer than 401", wrong.Load())
			}
			if flood {
				b.ReportMetric(float64(refused.Load())/took.Seconds(), "refused/s")
			}
		})
	}
}
