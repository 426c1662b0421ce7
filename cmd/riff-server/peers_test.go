package main

// The loads of issue 23 (docs/performance.md, "Issue 23"): riff beside
// PostgreSQL and etcd (the same exclusive claim and release of the key of
// each client), the fresh-session and the pile-up loads as the riff grows,
// and riff-server on a bucket whose writes take 200 ms. Each server and
// each load runs in a process of its own (riffload, of the tool module);
// this test starts them and reads their results.
//
//	cd cmd/riff-server && go test -run '^$' -bench '^BenchmarkVersusPeers$' -benchtime 3x .
//	cd cmd/riff-server && go test -run '^$' -bench '^BenchmarkGrowth$' -benchtime 1x .
//	cd cmd/riff-server && go test -run '^$' -bench '^BenchmarkBucket$' -benchtime 1x .

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/tools/loadtool"
)

// peerSeconds is the measured time of each load of the side-by-side run,
// after 1 s of warm-up.
const peerSeconds = 10

// sharedTemp makes a temp dir that the user postgres can reach (as root
// the PostgreSQL of the run runs as postgres; t.TempDir's parent is
// root's alone).
func sharedTemp(b *testing.B) string {
	b.Helper()
	dir, err := os.MkdirTemp("", "riff-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	return dir
}

// steadyScript writes the script of the steady pair: client c claims
// item-C as its session riff://uC@h/o/repo?session=sCCCC and releases it,
// in turn. It gives the sessions (registered by setupRiff).
func steadyScript(b *testing.B, path string) []name.SessionURI {
	b.Helper()
	clients := make([][]loadtool.Call, loadClients)
	mes := make([]name.SessionURI, loadClients)
	for c := range loadClients {
		mes[c] = name.SessionURI{User: fmt.Sprintf("u%d", c+1), Host: "h", Repo: "o/repo", Session: fmt.Sprintf("s%04d", c+1)}
		item := name.Item(fmt.Sprintf("item-%d", c+1))
		clients[c] = []loadtool.Call{
			{Path: "/v1/claim", Body: mustJSON(b, wire.Claim{Me: mes[c], Item: item})},
			{Path: "/v1/release", Body: mustJSON(b, wire.Release{Me: mes[c], Item: item})},
		}
	}
	writeScript(b, path, clients)
	return mes
}

// writeTemplate writes a script of one call a client whose body is a
// template of riffload (Expand: {c} the client, {i} its turn).
func writeTemplate(b *testing.B, path, callPath, body string) {
	b.Helper()
	data, err := json.Marshal(loadtool.Script{Expand: true, Clients: [][]loadtool.Call{{{Path: callPath, Body: json.RawMessage(body)}}}})
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
}

// loadArgs are the arguments of "riffload run" for a load of the 64
// clients.
func loadArgs(url, script string, extra ...string) []string {
	return append([]string{"run", "-url", url, "-script", script, "-clients", strconv.Itoa(loadClients), "-warmup", "1s"}, extra...)
}

// peerResult is what "riffload postgres|etcd" prints: a result, or the
// peer that is missing.
type peerResult struct {
	loadtool.Result
	Missing string `json:"missing"`
}

// median gives the median of xs (the lower of the two middle ones).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// BenchmarkVersusPeers is the side-by-side run of issue 23: in each round
// (b.N rounds; give -benchtime 3x), one after the other on the same temp
// dir, 64 clients for 10 s after 1 s of warm-up against: the trivial
// handler (the HTTP ceiling), the durable trivial handler (the ceiling
// of any server that keeps each call in a chunk file before its reply,
// and deletes its old chunks by riff-server's rule, each 1,000 calls
// all but the last 3,000, writing new chunks over their files as
// riff-server's directory store does),
// riff-server on the directory store (the steady pair: a claim of the
// item of the client, then its release), PostgreSQL 15 (pgbench: INSERT
// … ON CONFLICT DO NOTHING and DELETE on the primary key, each its own
// transaction, synchronous commit) and etcd (a transaction that puts the
// key if its create revision is 0, then a delete). A peer that is not
// installed is skipped with a line that says so. It reports the medians
// of the rounds and logs each round.
func BenchmarkVersusPeers(b *testing.B) {
	if testing.Short() {
		b.Skip("drives the real binaries; skipped in -short mode")
	}
	load := riffload(b)
	root := sharedTemp(b)
	script := filepath.Join(root, "steady.json")
	mes := steadyScript(b, script)
	dur := []string{"-duration", strconv.Itoa(peerSeconds) + "s"}
	var riff, pg, etcd, trivial, durTrivial, riffP99, pgP99, etcdP99 []float64
	missing := map[string]string{}
	b.ResetTimer()
	for round := range b.N {
		dir := func(name string) string {
			d := filepath.Join(root, fmt.Sprintf("%s-%d", name, round))
			if err := os.MkdirAll(d, 0o755); err != nil {
				b.Fatal(err)
			}
			return d
		}
		tr, trURL := startTrivial(b, load, filepath.Join(root, fmt.Sprintf("trivial-%d.log", round)))
		var rt loadtool.Result
		runJSON(b, &rt, load, loadArgs(trURL, script, dur...)...)
		tr.stop(b)

		dt, dtURL := startTrivial(b, load, filepath.Join(root, fmt.Sprintf("durable-trivial-%d.log", round)), "-dir", dir("chunks"),
			"-prune-every", "1000", "-prune-keep", "3000", "-prune-recycle")
		var rd loadtool.Result
		runJSON(b, &rd, load, loadArgs(dtURL, script, dur...)...)
		dt.stop(b)

		srv, url := startRiffServer(b, root, dir("store"))
		setupRiff(b, url, mes)
		var rr loadtool.Result
		runJSON(b, &rr, load, loadArgs(url, script, dur...)...)
		srv.stop(b)

		var rp, re peerResult
		runJSON(b, &rp, load, "postgres", "-dir", filepath.Join(dir("pg"), "cluster"), "-clients", strconv.Itoa(loadClients), "-duration", strconv.Itoa(peerSeconds+1)+"s")
		runJSON(b, &re, load, append([]string{"etcd", "-dir", dir("etcd"), "-clients", strconv.Itoa(loadClients), "-warmup", "1s"}, dur...)...)

		trivial, durTrivial, riff = append(trivial, rt.CallsPerS), append(durTrivial, rd.CallsPerS), append(riff, rr.CallsPerS)
		riffP99 = append(riffP99, rr.P99Ms)
		line := fmt.Sprintf("round %d: riff-server %.0f commands/s (p50 %.2f ms, p99 %.2f ms, p999 %.2f ms); durable trivial %.0f (p99 %.2f ms); trivial %.0f",
			round+1, rr.CallsPerS, rr.P50Ms, rr.P99Ms, rr.P999Ms, rd.CallsPerS, rd.P99Ms, rt.CallsPerS)
		if rp.Missing != "" {
			missing["PostgreSQL"] = rp.Missing
		} else {
			pg, pgP99 = append(pg, rp.CallsPerS), append(pgP99, rp.P99Ms)
			line += fmt.Sprintf("; PostgreSQL %.0f commands/s (a pair: p50 %.2f ms, p99 %.2f ms), riff / PostgreSQL %.2f", rp.CallsPerS, rp.P50Ms, rp.P99Ms, rr.CallsPerS/rp.CallsPerS)
		}
		if re.Missing != "" {
			missing["etcd"] = re.Missing
		} else {
			etcd, etcdP99 = append(etcd, re.CallsPerS), append(etcdP99, re.P99Ms)
			line += fmt.Sprintf("; etcd %.0f commands/s (p50 %.2f ms, p99 %.2f ms), riff / etcd %.2f", re.CallsPerS, re.P50Ms, re.P99Ms, rr.CallsPerS/re.CallsPerS)
		}
		b.Log(line + fmt.Sprintf("; riff / durable trivial %.2f", rr.CallsPerS/rd.CallsPerS))
	}
	b.StopTimer()
	for peer, why := range missing {
		b.Logf("skipped %s: %s", peer, why)
	}
	b.ReportMetric(median(riff), "riff-cmds/s")
	b.ReportMetric(median(riffP99), "riff-p99-ms")
	b.ReportMetric(median(durTrivial), "durable-trivial-cmds/s")
	b.ReportMetric(median(trivial), "trivial-cmds/s")
	b.ReportMetric(median(riff)/median(durTrivial), "riff/durable-trivial")
	if len(pg) > 0 {
		b.ReportMetric(median(pg), "postgres-cmds/s")
		b.ReportMetric(median(pgP99), "postgres-pair-p99-ms")
		b.ReportMetric(median(riff)/median(pg), "riff/postgres")
	}
	if len(etcd) > 0 {
		b.ReportMetric(median(etcd), "etcd-cmds/s")
		b.ReportMetric(median(etcdP99), "etcd-p99-ms")
		b.ReportMetric(median(riff)/median(etcd), "riff/etcd")
	}
}

// loadWindow is the window of a load of count calls (the pile-up, the
// fresh sessions) on a server whose steady pair ran at rate calls a
// second: about a sixth of the time the load would take at that rate,
// in steps of 250 ms, from 500 ms (shorter ones swing with each
// collection and checkpoint) to 2 s. A fixed window fell short as
// the server got faster: at 16,000 calls a second the 64,000 calls of
// the pile-up held one whole window of 2 s, and at 25,000 the 80,000
// fresh sessions one of 2 s too; the loads run slower than the steady
// pair, so they hold six whole windows or more.
func loadWindow(count int, rate float64) time.Duration {
	const step = 250 * time.Millisecond
	if rate <= 0 {
		return 2 * time.Second
	}
	w := time.Duration(float64(count) / rate / 6 * float64(time.Second))
	return min(max(w/step*step, 2*step), 2*time.Second)
}

// BenchmarkGrowth runs, on one riff-server on the directory store (b.N
// rounds, each on a new store): the steady pair for 10 s (the reference
// rate), then the pile-up load (each client a session of its own that
// claims a new item at each call and releases none, 1,000 claims a
// session: 64,000 calls), then the fresh-session load (each call a claim
// by a new session: 80,000 calls, so the riff grows by 80,000 sessions),
// each with its figures by windows (1 s for the pile-up, 2 s for the
// fresh sessions), and the resident memory of
// the server after each. It writes the windows of the fresh-session load
// of the last round as JSON to the file of RIFF_GROWTH_OUT when set (the
// plot of docs/performance.md; X.json is written as X-0.json, X-1.json
// for each build). With RIFF_SERVER_BASE, the path of another
// riff-server (the build before), each round runs it first, side by
// side.
func BenchmarkGrowth(b *testing.B) {
	if testing.Short() {
		b.Skip("drives the real binary; skipped in -short mode")
	}
	load := riffload(b)
	root := sharedTemp(b)
	steady := filepath.Join(root, "steady.json")
	mes := steadyScript(b, steady)
	pileup := filepath.Join(root, "pileup.json")
	writeTemplate(b, pileup, "/v1/claim", `{"me":"riff://p{c}@h/o/repo?session=p{c}","item":"p{c}x{i}"}`)
	fresh := filepath.Join(root, "fresh.json")
	writeTemplate(b, fresh, "/v1/claim", `{"me":"riff://f{c}@h/o/repo?session=f{c}x{i}","item":"f{c}x{i}"}`)
	bins := []struct{ label, path string }{{"this build", binary}}
	if base := os.Getenv("RIFF_SERVER_BASE"); base != "" {
		// The build before, side by side in each round, first.
		bins = append([]struct{ label, path string }{{"base build", base}}, bins...)
	}
	type figures struct{ steadyRate, pileRatio, freshRatio, freshWorstP99, kbSession []float64 }
	all := make([]figures, len(bins))
	var ceilingRatio []float64
	b.ResetTimer()
	for round := range b.N {
		// The ceiling of the pile-up: the durable trivial handler, with the
		// reply of riff-server to a session of 1 claim, then of 1,000 (the
		// end of the pile-up): what the bytes of the reply cost alone.
		var ceiling [2]loadtool.Result
		for i, claims := range []string{"1", "1000"} {
			chunks := filepath.Join(root, fmt.Sprintf("ceiling-%d-%s", round, claims))
			if err := os.Mkdir(chunks, 0o755); err != nil {
				b.Fatal(err)
			}
			dt, dtURL := startTrivial(b, load, filepath.Join(root, fmt.Sprintf("ceiling-%d-%s.log", round, claims)), "-dir", chunks, "-claims", claims)
			runJSON(b, &ceiling[i], load, loadArgs(dtURL, steady, "-duration", "10s")...)
			dt.stop(b)
		}
		ceilingRatio = append(ceilingRatio, ceiling[1].CallsPerS/ceiling[0].CallsPerS)
		b.Logf("round %d, the ceiling of the pile-up: the durable trivial handler %.0f calls/s (p99 %.2f ms) with the reply of 1 claim, %.0f (p99 %.2f ms) with the reply of 1,000 (%d bytes) = %.2f",
			round+1, ceiling[0].CallsPerS, ceiling[0].P99Ms, ceiling[1].CallsPerS, ceiling[1].P99Ms, len(loadtool.ClaimReply(1000)), ceilingRatio[round])
		for k, bin := range bins {
			f := &all[k]
			store := filepath.Join(root, fmt.Sprintf("store-%d-%d", round, k))
			if err := os.Mkdir(store, 0o755); err != nil {
				b.Fatal(err)
			}
			srv, url := startRiffServerBin(b, root, bin.path, []string{"--dir", store}, nil)
			setupRiff(b, url, mes)
			rss0 := rssKB(b, srv)
			var rs, rp, rf loadtool.Result
			runJSON(b, &rs, load, loadArgs(url, steady, "-duration", "10s")...)
			pileWin, freshWin := loadWindow(64000, rs.CallsPerS), loadWindow(80000, rs.CallsPerS)
			runJSON(b, &rp, load, loadArgs(url, pileup, "-window", pileWin.String(), "-count", "64000", "-warmup", "0s")...)
			rssPile := rssKB(b, srv)
			runJSON(b, &rf, load, loadArgs(url, fresh, "-window", freshWin.String(), "-count", "80000", "-warmup", "0s")...)
			rssFresh := rssKB(b, srv)
			facts, _ := serverFacts(url)
			srv.stop(b)

			pw, fw := whole(rp.Windows), whole(rf.Windows)
			if len(pw) < 2 || len(fw) < 2 {
				b.Fatalf("too few whole windows: pile-up %d, fresh %d", len(pw), len(fw))
			}
			worst := 0.0
			for _, w := range fw {
				worst = max(worst, w.P99Ms)
			}
			f.steadyRate = append(f.steadyRate, rs.CallsPerS)
			f.pileRatio = append(f.pileRatio, pw[len(pw)-1].CallsPerS/rs.CallsPerS)
			f.freshRatio = append(f.freshRatio, fw[len(fw)-1].CallsPerS/fw[0].CallsPerS)
			f.freshWorstP99 = append(f.freshWorstP99, worst)
			f.kbSession = append(f.kbSession, float64(rssFresh-rssPile)/80000)
			b.Logf("round %d, %s: windows of %v (pile-up) and %v (fresh)", round+1, bin.label, pileWin, freshWin)
			b.Logf("round %d, %s: steady %.0f calls/s (p99 %.2f ms); pile-up %.0f calls/s, first window %.0f (p99 %.2f ms), last %.0f (p99 %.2f ms) = %.2f of steady; "+
				"fresh %.0f calls/s, first window %.0f (p99 %.2f ms), last %.0f (p99 %.2f ms, p999 %.2f ms) = %.2f of the first, worst p99 %.2f ms; "+
				"resident %d KB at the start, %d after the pile-up, %d after the fresh sessions (%.2f KB a session); %d records, %d chunks",
				round+1, bin.label, rs.CallsPerS, rs.P99Ms, rp.CallsPerS, pw[0].CallsPerS, pw[0].P99Ms, pw[len(pw)-1].CallsPerS, pw[len(pw)-1].P99Ms, f.pileRatio[round],
				rf.CallsPerS, fw[0].CallsPerS, fw[0].P99Ms, fw[len(fw)-1].CallsPerS, fw[len(fw)-1].P99Ms, fw[len(fw)-1].P999Ms, f.freshRatio[round], worst,
				rss0, rssPile, rssFresh, f.kbSession[round], facts.Position, facts.Chunks)
			for _, w := range rf.Windows {
				b.Logf("  %s, fresh window to %4.0f s: %6d sessions before, %6.0f calls/s, p50 %6.2f ms, p99 %6.2f ms, p999 %6.2f ms", bin.label, w.EndS, w.CallsBefore, w.CallsPerS, w.P50Ms, w.P99Ms, w.P999Ms)
			}
			if out := os.Getenv("RIFF_GROWTH_OUT"); out != "" && round == b.N-1 {
				data, _ := json.Marshal(map[string]any{"fresh": rf, "pileup": rp, "steady": rs,
					"resident_kb": map[string]int{"start": rss0, "after_pileup": rssPile, "after_fresh": rssFresh}})
				if err := os.WriteFile(strings.TrimSuffix(out, ".json")+fmt.Sprintf("-%d.json", k), data, 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.StopTimer()
	f := all[len(all)-1]
	b.ReportMetric(median(f.steadyRate), "steady-calls/s")
	b.ReportMetric(median(f.pileRatio), "pileup-last/steady")
	b.ReportMetric(median(ceilingRatio), "ceiling-1000/1")
	b.ReportMetric(median(f.freshRatio), "fresh-last/first")
	b.ReportMetric(median(f.freshWorstP99), "fresh-worst-p99-ms")
	b.ReportMetric(median(f.kbSession), "rss-KB/session")
}

// whole gives the windows of a load but the last, which the end of the
// load cuts short.
func whole(ws []loadtool.Window) []loadtool.Window {
	if len(ws) == 0 {
		return nil
	}
	return ws[:len(ws)-1]
}

// rssKB gives the resident memory of a running server, from
// /proc/PID/status.
func rssKB(b *testing.B, p *process) int {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				b.Fatalf("VmRSS %q", v)
			}
			return n
		}
	}
	b.Fatal("no VmRSS in /proc/PID/status")
	return 0
}

// bucketDelay is the time of a write to the bucket in BenchmarkBucket.
const bucketDelay = 200 * time.Millisecond

// delayed wraps the handler of the fake GCS server: each write (a POST
// or a PUT: an upload, a compose, a copy) waits delay before it is
// served, as a write to Cloud Storage takes; reads and deletes are not
// delayed. It counts the writes.
type delayed struct {
	next   http.Handler
	delay  time.Duration
	mu     sync.Mutex
	writes int
}

func (d *delayed) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost || r.Method == http.MethodPut {
		d.mu.Lock()
		d.writes++
		d.mu.Unlock()
		time.Sleep(d.delay) // the latency of the bucket: what this benchmark measures against
	}
	d.next.ServeHTTP(w, r)
}

// BenchmarkBucket runs riff-server on a bucket of the fake GCS server in
// this process, each write of which takes 200 ms, under the steady pair
// of 64 clients for 20 s after 2 s of warm-up (b.N rounds, each on a new
// bucket; with RIFF_SERVER_BASE, that riff-server first in each round,
// side by side). The goal of issue 23: at least 0.9 × clients ÷ write latency
// commands/s (288), with a p99 under 2.5 × the write latency (500 ms).
func BenchmarkBucket(b *testing.B) {
	if testing.Short() {
		b.Skip("drives the real binary; skipped in -short mode")
	}
	load := riffload(b)
	root := sharedTemp(b)
	script := filepath.Join(root, "steady.json")
	mes := steadyScript(b, script)
	var rates, p99s []float64
	bins := []struct{ label, path string }{{"this build", binary}}
	if base := os.Getenv("RIFF_SERVER_BASE"); base != "" {
		bins = append([]struct{ label, path string }{{"base build", base}}, bins...)
	}
	b.ResetTimer()
	for n := range b.N * len(bins) {
		round, bin := n/len(bins), bins[n%len(bins)]
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		host := ln.Addr().String()
		fake, err := fakestorage.NewServerWithOptions(fakestorage.Options{NoListener: true, PublicHost: host})
		if err != nil {
			b.Fatal(err)
		}
		bucket := fmt.Sprintf("riff-%d", n)
		fake.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: bucket})
		d := &delayed{next: fake.HTTPHandler(), delay: bucketDelay}
		hs := &http.Server{Handler: d}
		go func() { _ = hs.Serve(ln) }()

		srv, url := startRiffServerBin(b, root, bin.path, []string{"--bucket", bucket}, []string{"STORAGE_EMULATOR_HOST=" + host})
		setupRiff(b, url, mes)
		before, _ := serverFacts(url)
		d.mu.Lock()
		w0 := d.writes
		d.mu.Unlock()
		var r loadtool.Result
		runJSON(b, &r, load, loadArgs(url, script, "-duration", "20s", "-warmup", "2s")...)
		after, _ := serverFacts(url)
		d.mu.Lock()
		writes := d.writes - w0
		d.mu.Unlock()
		srv.stop(b)
		hs.Close()
		fake.Stop()

		goal := 0.9 * loadClients / bucketDelay.Seconds()
		if bin.path == binary {
			rates, p99s = append(rates, r.CallsPerS), append(p99s, r.P99Ms)
		}
		perChunk := 0.0
		if n := after.Chunks - before.Chunks; n > 0 {
			perChunk = float64(after.Position-before.Position) / float64(n)
		}
		b.Logf("round %d, %s: %.0f commands/s (goal %.0f: %.2f of it), p50 %.0f ms, p99 %.0f ms (goal under %.0f ms), max %.0f ms; %d chunks, %.1f records a chunk, %d writes to the bucket (warm-up and the load)",
			round+1, bin.label, r.CallsPerS, goal, r.CallsPerS/goal, r.P50Ms, r.P99Ms, 2.5*float64(bucketDelay.Milliseconds()), r.MaxMs,
			after.Chunks-before.Chunks, perChunk, writes)
	}
	b.StopTimer()
	b.ReportMetric(median(rates), "cmds/s")
	b.ReportMetric(median(rates)/(loadClients/bucketDelay.Seconds()), "of-clients/latency")
	b.ReportMetric(median(p99s), "p99-ms")
}

// startRiffServerBin starts the riff-server bin with more arguments
// and variables of the environment, and waits until it serves.
func startRiffServerBin(b *testing.B, logDir, bin string, args, env []string) (*process, string) {
	b.Helper()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(freePort(b)))
	stderr := filepath.Join(logDir, fmt.Sprintf("riff-server-%d.log", time.Now().UnixNano()))
	p, _ := beginEnv(b, stderr, cleanEnv(env...), bin, append([]string{"--lease-wait", "0s", "--listen", addr}, args...)...)
	url := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-p.exited:
			data, _ := os.ReadFile(stderr)
			b.Fatalf("riff-server exited before it served: %v\n%s", p.err, data)
		default:
		}
		if f, ok := serverFacts(url); ok && f.Serves {
			return p, url
		}
		if time.Now().After(deadline) {
			data, _ := os.ReadFile(stderr)
			b.Fatalf("riff-server did not serve in 30 s:\n%s", data)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
