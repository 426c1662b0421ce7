package main

// The load benchmark of the real riff-server (issue 5: durable commands
// through HTTP on the directory store with 64 concurrent clients, beside
// the raw fsync rate of the same disk and the HTTP ceiling of a trivial
// handler, measured in the same run). Three processes: riff-server (or
// the trivial server), the load (riffload, of the tool module tools/)
// and this test, which only starts them and reads their results. Command and figures: docs/performance.md,
// section riffengine.
//
//	cd cmd/riff-server && go test -run '^$' -bench '^BenchmarkServerLoad$' -benchtime 60000x -count 3 .

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/tools/loadtool"
)

// loadClients is the number of concurrent clients of the issue.
const loadClients = 64

// cpuPerCall gives the CPU time of a process (user and system, its whole
// life) in µs per call of a load, counting the warm-up calls too: the
// CPU includes the start-up and the warm-up of the process, so the
// divisor does.
func cpuPerCall(cpu time.Duration, r loadtool.Result) float64 {
	n := r.Calls + r.WarmupCalls
	if n == 0 {
		return 0
	}
	return float64(cpu.Microseconds()) / float64(n)
}

// cpuTime gives the CPU time (user and system) of a process that has
// exited.
func cpuTime(st *os.ProcessState) time.Duration {
	if st == nil {
		return 0
	}
	ru, ok := st.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var (
	riffloadOnce sync.Once
	riffloadBin  string
	riffloadErr  error
)

// riffload builds the load program of the tool module once per test run
// (with no race detector), next to the riff-server that TestMain built:
// the load runs in a process of its own, so that the clients and the
// server do not share a Go runtime.
func riffload(b *testing.B) string {
	b.Helper()
	if buildErr != nil {
		b.Fatalf("riff-server did not build: %v", buildErr)
	}
	riffloadOnce.Do(func() {
		out := filepath.Join(filepath.Dir(binary), "riffload")
		cmd := exec.Command("go", "build", "-o", out, "github.com/como-technologies/riff/tools/riffload")
		if data, err := cmd.CombinedOutput(); err != nil {
			riffloadErr = fmt.Errorf("go build riffload: %v\n%s", err, data)
			return
		}
		riffloadBin = out
	})
	if riffloadErr != nil {
		b.Fatal(riffloadErr)
	}
	return riffloadBin
}

// runJSON runs a command to its end and decodes its stdout into v; it
// gives the CPU time (user and system) of the command.
func runJSON(b *testing.B, v any, bin string, args ...string) time.Duration {
	b.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = cleanEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %v: %v\n%s", filepath.Base(bin), args, err, errb.Bytes())
	}
	if err := json.Unmarshal(out.Bytes(), v); err != nil {
		b.Fatalf("%s %v printed %q: %v", filepath.Base(bin), args, out.Bytes(), err)
	}
	return cpuTime(cmd.ProcessState)
}

// writeScript writes the calls of each client as a riffload script.
func writeScript(b *testing.B, path string, clients [][]loadtool.Call) {
	b.Helper()
	data, err := json.Marshal(loadtool.Script{Clients: clients})
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
}

// process is a server of the benchmark, in a process of its own.
type process struct {
	cmd    *exec.Cmd
	exited chan struct{}
	err    error
}

// begin starts a server; its stderr goes to a file (riff-server writes a
// line for each command: a pipe that this process reads would take a
// share of the 2 cores that a real log does not take from the clients).
func begin(b *testing.B, stderrPath, bin string, args ...string) (*process, *bufio.Reader) {
	b.Helper()
	return beginEnv(b, stderrPath, cleanEnv(), bin, args...)
}

// beginEnv is begin with the environment env.
func beginEnv(b *testing.B, stderrPath string, env []string, bin string, args ...string) (*process, *bufio.Reader) {
	b.Helper()
	f, err := os.Create(stderrPath)
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stderr = f
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	p := &process{cmd: cmd, exited: make(chan struct{})}
	out := bufio.NewReader(stdout)
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	b.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-p.exited
	})
	return p, out
}

// stop sends SIGTERM and waits for the exit; it gives the CPU time (user
// and system) of the whole life of the process.
func (p *process) stop(b *testing.B) time.Duration {
	b.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		b.Fatalf("%s did not stop in 30 s after SIGTERM", p.cmd.Path)
	}
	if p.err != nil {
		b.Fatalf("%s exited with %v after SIGTERM", p.cmd.Path, p.err)
	}
	return cpuTime(p.cmd.ProcessState)
}

// startRiffServer starts the real binary as the issue says:
// --dir TMP --lease-wait 0s --listen ADDR (with dir "", on the memory
// store: no --dir); it waits until GET /v1/server says that it serves.
// Its stderr goes to a file in logDir.
func startRiffServer(b *testing.B, logDir, dir string) (*process, string) {
	b.Helper()
	for try := 0; ; try++ {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(freePort(b)))
		stderr := filepath.Join(logDir, fmt.Sprintf("riff-server-%s-%d.log", map[bool]string{true: "memory", false: "dir"}[dir == ""], try))
		args := []string{"--lease-wait", "0s", "--listen", addr}
		if dir != "" {
			args = append(args, "--dir", dir)
		}
		p, _ := begin(b, stderr, binary, args...)
		url := "http://" + addr
		deadline := time.Now().Add(30 * time.Second)
		for {
			select {
			case <-p.exited:
				data, _ := os.ReadFile(stderr)
				if try < 4 && bytes.Contains(data, []byte("address already in use")) {
					goto again
				}
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
	again:
	}
}

// serverFacts gives GET /v1/server, or false while there is no answer.
func serverFacts(url string) (wire.ServerFacts, bool) {
	resp, err := httpClient.Get(url + "/v1/server")
	if err != nil {
		return wire.ServerFacts{}, false
	}
	defer resp.Body.Close()
	var f wire.ServerFacts
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&f) != nil {
		return wire.ServerFacts{}, false
	}
	return f, true
}

// mustPost sends one call of the setup and fails unless it gets a 200.
func mustPost(b *testing.B, url, path string, body any) {
	b.Helper()
	r, err := post(b.Context(), url, path, "", body)
	if err != nil {
		b.Fatalf("POST %s: %v", path, err)
	}
	if r.Status != http.StatusOK {
		b.Fatalf("POST %s %v = %v; want 200", path, body, r)
	}
}

// BenchmarkServerLoad measures, in each round: the raw fsync rate of the
// disk of the temp dir (2,000 rounds of create, write 300 bytes, fsync,
// close, fsync the directory); the trivial handler of loadtool in a
// process of its own under the load below; the same handler answering
// each call only once its body is in a chunk file on that disk
// (loadtool.Durable: group commit with the steps of a chunk of the
// directory store, and no other work: the ceiling of any server that
// keeps each call in such a chunk before its reply); the same riff-server binary
// on the memory store (no disk: the ceiling of the server's own work);
// and the real riff-server on the directory store in that temp dir
// under the same load. The load is
// b.N measured calls (after 1 s of warm-up) from 64 keep-alive clients
// in the riffload process: client c claims item-c as its own session
// riff://uC@h/o/repo?session=sCCCC and releases it, in turn, so half the
// calls are claims. The trivial server gets the same paths and bodies.
// Beside the rates and latencies it reports the CPU time (user and
// system) of each process of the round per call: the trivial server,
// riff-server, and the load process while it drives each of them; and
// the share of the machine's CPU time that was busy during the durable
// load.
//
// It is a benchmark so that go test does not run it; give -benchtime as
// a count (60000x) so that each round starts its servers once.
func BenchmarkServerLoad(b *testing.B) {
	if testing.Short() {
		b.Skip("drives the real binary; skipped in -short mode")
	}
	load := riffload(b)
	root := b.TempDir()
	storeDir, fsyncDir, chunkDir := filepath.Join(root, "store"), filepath.Join(root, "fsync"), filepath.Join(root, "chunks")
	for _, d := range []string{storeDir, fsyncDir, chunkDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}

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
	script := filepath.Join(root, "script.json")
	writeScript(b, script, clients)
	runArgs := func(url string) []string {
		return []string{"run", "-url", url, "-script", script, "-clients", strconv.Itoa(loadClients),
			"-count", strconv.Itoa(b.N), "-warmup", "1s"}
	}
	b.ResetTimer()

	// The raw fsync rate of the same disk.
	var fs loadtool.FsyncResult
	runJSON(b, &fs, load, "fsync", "-dir", fsyncDir, "-count", "2000")

	// The ceiling: the trivial handler in a process of its own.
	trivial, trivialURL := startTrivial(b, load, filepath.Join(root, "trivial.log"))
	var ceiling loadtool.Result
	trivialLoadCPU := runJSON(b, &ceiling, load, runArgs(trivialURL)...)
	trivialCPU := trivial.stop(b)

	// The durable ceiling: the trivial handler that answers a call only
	// once its body is in a chunk file (group commit, the steps of a
	// chunk of the directory store), on the same disk.
	durTrivial, durTrivialURL := startTrivial(b, load, filepath.Join(root, "durable-trivial.log"), "-dir", chunkDir)
	var durCeiling loadtool.Result
	runJSON(b, &durCeiling, load, runArgs(durTrivialURL)...)
	durTrivialCPU := durTrivial.stop(b)
	durTrivialChunks := countFiles(b, chunkDir)

	// The second ceiling: the same binary on the memory store (no disk),
	// under the same load.
	memSrv, memURL := startRiffServer(b, root, "")
	setupRiff(b, memURL, mes)
	var memory loadtool.Result
	runJSON(b, &memory, load, runArgs(memURL)...)
	memCPU := memSrv.stop(b)

	// The real riff-server on the directory store.
	srv, url := startRiffServer(b, root, storeDir)
	setupRiff(b, url, mes)
	before, _ := serverFacts(url)
	var durable loadtool.Result
	busy0 := machineCPU(b)
	loadCPU := runJSON(b, &durable, load, runArgs(url)...)
	busy := machineCPU(b).busySince(busy0)
	after, _ := serverFacts(url)
	serverCPU := srv.stop(b)
	b.StopTimer()

	// The CPU of each process per call: its whole life (start-up and
	// warm-up included) over the measured and the warm-up calls of its
	// load. riff-server's also holds the setup (a resume and 64
	// registers) and two GET /v1/server: negligible beside the load.
	var (
		serverPerCall      = cpuPerCall(serverCPU, durable)
		loadPerCall        = cpuPerCall(loadCPU, durable)
		trivialPerCall     = cpuPerCall(trivialCPU, ceiling)
		trivialLoadPerCall = cpuPerCall(trivialLoadCPU, ceiling)
		memPerCall         = cpuPerCall(memCPU, memory)
		durTrivialPerCall  = cpuPerCall(durTrivialCPU, durCeiling)
		durTrivialPerChunk = 0.0
	)
	if durTrivialChunks > 0 {
		durTrivialPerChunk = float64(durCeiling.Calls+durCeiling.WarmupCalls) / float64(durTrivialChunks)
	}

	recordsPerChunk := 0.0
	if n := after.Chunks - before.Chunks; n > 0 {
		recordsPerChunk = float64(after.Position-before.Position) / float64(n)
	}
	claims := durable.CallsPerS / 2
	b.ReportMetric(durable.CallsPerS, "calls/s")
	b.ReportMetric(claims, "claims/s")
	b.ReportMetric(durable.P50Ms, "p50-ms")
	b.ReportMetric(durable.P99Ms, "p99-ms")
	b.ReportMetric(ceiling.CallsPerS, "trivial-calls/s")
	b.ReportMetric(ceiling.P50Ms, "trivial-p50-ms")
	b.ReportMetric(ceiling.P99Ms, "trivial-p99-ms")
	b.ReportMetric(durable.CallsPerS/ceiling.CallsPerS, "of-trivial")
	b.ReportMetric(fs.PerS, "fsyncs/s")
	b.ReportMetric(recordsPerChunk, "records/chunk")
	b.ReportMetric(serverPerCall, "server-cpu-us/call")
	b.ReportMetric(loadPerCall, "load-cpu-us/call")
	b.ReportMetric(trivialPerCall, "trivial-cpu-us/call")
	b.ReportMetric(trivialLoadPerCall, "trivial-load-cpu-us/call")
	b.ReportMetric(durCeiling.CallsPerS, "durable-trivial-calls/s")
	b.ReportMetric(durCeiling.P99Ms, "durable-trivial-p99-ms")
	b.ReportMetric(durTrivialPerCall, "durable-trivial-cpu-us/call")
	b.ReportMetric(durTrivialPerChunk, "durable-trivial-calls/chunk")
	b.ReportMetric(durable.CallsPerS/durCeiling.CallsPerS, "of-durable-trivial")
	b.ReportMetric(memory.CallsPerS, "memory-calls/s")
	b.ReportMetric(memory.P50Ms, "memory-p50-ms")
	b.ReportMetric(memPerCall, "memory-cpu-us/call")
	b.ReportMetric(durable.CallsPerS/memory.CallsPerS, "of-memory")
	b.ReportMetric(100*busy, "machine-busy-%")
	met := "met"
	if claims < 15000 || durable.P99Ms >= 20 {
		met = "not met"
	}
	b.Logf("riff-server: %d calls in %.2f s = %.0f calls/s = %.0f claims/s, p50 %.2f ms, p99 %.2f ms, max %.1f ms; "+
		"%d chunks, %.1f records a chunk; CPU µs a call: riff-server %.1f, load %.1f | "+
		"trivial: %.0f calls/s, p50 %.2f ms, p99 %.2f ms; CPU µs a call: trivial %.1f, load %.1f | "+
		"durable trivial: %.0f calls/s, p50 %.2f ms, p99 %.2f ms, %.1f calls a chunk, CPU µs a call %.1f | "+
		"fsync: %.0f/s, p50 %.2f ms, p99 %.2f ms | "+
		"memory store: %.0f calls/s, p50 %.2f ms, CPU µs a call %.1f | machine busy %.0f %% during the durable load | "+
		"riff-server / trivial %.2f, / durable trivial %.2f, / memory store %.2f; target (15,000 claims/s, p99 under 20 ms) %s",
		durable.Calls, durable.Seconds, durable.CallsPerS, claims, durable.P50Ms, durable.P99Ms, durable.MaxMs,
		after.Chunks-before.Chunks, recordsPerChunk, serverPerCall, loadPerCall,
		ceiling.CallsPerS, ceiling.P50Ms, ceiling.P99Ms, trivialPerCall, trivialLoadPerCall,
		durCeiling.CallsPerS, durCeiling.P50Ms, durCeiling.P99Ms, durTrivialPerChunk, durTrivialPerCall,
		fs.PerS, fs.P50Ms, fs.P99Ms, memory.CallsPerS, memory.P50Ms, memPerCall, 100*busy,
		durable.CallsPerS/ceiling.CallsPerS, durable.CallsPerS/durCeiling.CallsPerS, durable.CallsPerS/memory.CallsPerS, met)
}

// mustJSON gives the JSON of a body of a call.
func mustJSON(b *testing.B, v any) json.RawMessage {
	b.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// startTrivial starts "riffload trivial" with args and gives its URL.
func startTrivial(b *testing.B, load, stderrPath string, args ...string) (*process, string) {
	b.Helper()
	p, out := begin(b, stderrPath, load, append([]string{"trivial", "-listen", "127.0.0.1:0"}, args...)...)
	line, err := out.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening on ") {
		b.Fatalf("riffload trivial %v printed %q: %v", args, line, err)
	}
	return p, strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
}

// countFiles counts the files of dir whose names do not start with a dot.
func countFiles(b *testing.B, dir string) int {
	b.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			n++
		}
	}
	return n
}

// setupRiff resumes the new riff and registers the session of each client.
func setupRiff(b *testing.B, url string, mes []name.SessionURI) {
	b.Helper()
	mustPost(b, url, "/v1/resume", wire.Resume{Me: name.SessionURI{User: "admin", Host: "h"}, Riff: true})
	for _, me := range mes {
		mustPost(b, url, "/v1/register", wire.Register{Me: me})
	}
}

// cpuTimes are the times of all CPUs of the machine from /proc/stat, in
// clock ticks: the busy ones and all.
type cpuTimes struct{ busy, total uint64 }

// machineCPU reads the first line of /proc/stat. The 2 cores are shared
// by the server and the load (and by other work of the machine): the
// share of busy time during the load says how close to the CPU the
// figure is.
func machineCPU(b *testing.B) cpuTimes {
	b.Helper()
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		b.Fatalf("read /proc/stat: %v", err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	fields := strings.Fields(first)
	if len(fields) < 9 || fields[0] != "cpu" {
		b.Fatalf("/proc/stat starts with %q", first)
	}
	var t cpuTimes
	for i, f := range fields[1:9] { // user nice system idle iowait irq softirq steal
		n, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			b.Fatalf("/proc/stat: %v", err)
		}
		t.total += n
		if i != 3 && i != 4 { // idle and iowait are not busy
			t.busy += n
		}
	}
	return t
}

// busySince gives the share of busy CPU time since t0 (0 to 1).
func (t cpuTimes) busySince(t0 cpuTimes) float64 {
	if t.total <= t0.total {
		return 0
	}
	return float64(t.busy-t0.busy) / float64(t.total-t0.total)
}
