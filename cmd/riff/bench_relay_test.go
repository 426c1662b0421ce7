package main

// The measures of the relay (issue 13), with real binaries on loopback:
// the time from a post to the line of riff relay watch with 100 sessions
// watching, beside the reply to the post; the server's CPU a keep-alive
// with 100 sessions each sending keep-alives, beside the trivial handler
// of tools/loadtool under the same load. Command and figures:
// docs/performance.md, section "The relay".
//
//	cd cmd && go test -run '^$' -bench 'BenchmarkRelay' -benchtime 1000x -count 3 ./riff/

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/door"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// relaySessions is the number of sessions of the measures.
const relaySessions = 100

// benchProc is a process of a measure; a cleanup ends it.
type benchProc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func startBenchProc(b *testing.B, cmd *exec.Cmd) *benchProc {
	b.Helper()
	p := &benchProc{cmd: cmd, done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		b.Fatalf("start %s: %v", cmd.Path, err)
	}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	b.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// cpu gives the CPU time (user and system) of a running process so far,
// from /proc (clock ticks of 10 ms).
func (p *benchProc) cpu(b *testing.B) time.Duration {
	b.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// startBenchServer starts riff-server --dir on loopback, waits until it
// serves and resumes the riff.
func startBenchServer(b *testing.B, bin string) (*benchProc, string) {
	b.Helper()
	addr := freePortTB(b)
	cmd := exec.Command(filepath.Join(bin, "riff-server"), "--listen", addr, "--dir", b.TempDir(), "--lease-wait", "0s")
	p := startBenchProc(b, cmd)
	server := "http://" + addr
	c := benchClient(b, server, nil)
	deadline := time.Now().Add(30 * time.Second)
	for {
		facts, err := c.Facts(context.Background())
		if err == nil && facts.Serves {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("riff-server did not serve in 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := riffclient.Send(context.Background(), c, wire.Resume{Me: name.SessionURI{User: "mike", Host: "pangolin"}, Riff: true}); err != nil {
		b.Fatalf("resume the riff: %v", err)
	}
	return p, server
}

func freePortTB(b *testing.B) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// benchClient is a client of server with a connection of its own, as
// the client of each relay has; rt counts its round trips (nil: none).
func benchClient(b *testing.B, server string, rt *atomic.Int64) *riffclient.Client {
	b.Helper()
	u, err := riffclient.ParseServer(server)
	if err != nil {
		b.Fatal(err)
	}
	var transport http.RoundTripper = &http.Transport{MaxIdleConnsPerHost: 1}
	if rt != nil {
		transport = countTrips{next: transport, n: rt}
	}
	return riffclient.New(u, riffclient.Options{Build: build.FromBuildInfo(defaultVersion), Budget: 10 * time.Second,
		HTTP: &http.Client{Transport: transport}})
}

// countTrips counts the replies that come.
type countTrips struct {
	next http.RoundTripper
	n    *atomic.Int64
}

func (c countTrips) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err == nil {
		c.n.Add(1)
	}
	return resp, err
}

func benchSession(i int) string { return fmt.Sprintf("w%03d-0000", i) }

// BenchmarkRelayWatchWake: 100 riff relay watch --follow processes, one
// session each; each op is one tell to one of them (in turn), from its
// send to the line on the stdout of its watch. It reports the p50 and
// p99 of the line, of the reply to the post, and of the line after the
// reply (the wake goes out when the writer applied the chunk, as the
// reply does).
func BenchmarkRelayWatchWake(b *testing.B) {
	bin := buildRelayBinaries(b)
	_, server := startBenchServer(b, bin)
	dir := repoDirTB(b)
	home := b.TempDir()
	lines := make([]chan time.Time, relaySessions)
	var open sync.WaitGroup
	for i := range relaySessions {
		lines[i] = make(chan time.Time, 16)
		cmd := exec.Command(filepath.Join(bin, "riff"), "relay", "watch", "--follow")
		cmd.Dir = dir
		cmd.Env = append(riffEnv(server, benchSession(i)), "RIFF_HOME="+home, envWatchMarks+"=1")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		stderr, err := cmd.StderrPipe()
		if err != nil {
			b.Fatal(err)
		}
		startBenchProc(b, cmd)
		open.Add(1)
		go func() {
			s := bufio.NewScanner(stderr)
			opened := false
			for s.Scan() {
				if s.Text() == "(open)" && !opened {
					opened = true
					open.Done()
				}
			}
		}()
		go func(ch chan time.Time) {
			s := bufio.NewScanner(stdout)
			for s.Scan() {
				ch <- time.Now()
			}
		}(lines[i])
	}
	open.Wait()
	sender := name.SessionURI{User: "mike", Host: "pangolin", Repo: "acme/app", Session: "sender-0000"}
	c := benchClient(b, server, nil)
	ctx := context.Background()
	var line, reply, after []time.Duration
	b.ResetTimer()
	for n := range b.N {
		i := n % relaySessions
		start := time.Now()
		if _, err := riffclient.Send(ctx, c, wire.Post{Me: sender, Tell: benchSession(i), Body: "wake " + strconv.Itoa(n)}); err != nil {
			b.Fatalf("post %d: %v", n, err)
		}
		replied := time.Now()
		select {
		case at := <-lines[i]:
			line, reply, after = append(line, at.Sub(start)), append(reply, replied.Sub(start)), append(after, at.Sub(replied))
		case <-time.After(10 * time.Second):
			b.Fatalf("the watch of %s wrote no line in 10 s for post %d", benchSession(i), n)
		}
	}
	b.StopTimer()
	report := func(ds []time.Duration, what string) {
		slices.Sort(ds)
		b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1e3, what+"-p50-ms")
		b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds())/1e3, what+"-p99-ms")
	}
	report(line, "line")
	report(reply, "reply")
	// after can be below 0: the line may come before the reply.
	report(after, "after-reply")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkRelayKeepAliveCPU: 100 sessions, each with the keep-alive loop
// of the relay (keepAlive) and a connection of its own, each 20 ms, for
// b.N keep-alives in all; first against riff-server --dir, then against
// the trivial handler of tools/loadtool (riffload trivial) in a process
// of its own, the ceiling of HTTP on this machine. It reports the CPU of
// each server process a keep-alive (user and system, from /proc).
func BenchmarkRelayKeepAliveCPU(b *testing.B) {
	bin := buildRelayBinaries(b, "github.com/como-technologies/riff/tools/riffload")
	measure := func(p *benchProc, server string) (float64, float64) {
		var trips atomic.Int64
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		home := b.TempDir()
		before, start := p.cpu(b), time.Now()
		for i := range relaySessions {
			c := benchClient(b, server, &trips)
			me := name.SessionURI{User: "mike", Host: "pangolin", Repo: "acme/app", Session: benchSession(i)}
			wg.Go(func() {
				door.KeepAlive{Client: c, Me: me, Files: door.Files{Dir: home}, Every: 20 * time.Millisecond}.Run(ctx)
			})
		}
		for trips.Load() < int64(b.N) {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
		wg.Wait()
		n, took := trips.Load(), time.Since(start)
		cpu := p.cpu(b) - before
		return float64(cpu.Microseconds()) / float64(n), float64(n) / took.Seconds()
	}
	srv, server := startBenchServer(b, bin)
	triv := exec.Command(filepath.Join(bin, "riffload"), "trivial", "--listen", freePortTB(b))
	out, err := triv.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	tp := startBenchProc(b, triv)
	first, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	trivial := strings.TrimSpace(strings.TrimPrefix(first, "listening on "))
	b.ResetTimer()
	riffCPU, riffRate := measure(srv, server)
	trivCPU, trivRate := measure(tp, trivial)
	b.StopTimer()
	b.ReportMetric(riffCPU, "server-µs/keepalive")
	b.ReportMetric(riffRate, "server-keepalives/s")
	b.ReportMetric(trivCPU, "trivial-µs/call")
	b.ReportMetric(trivRate, "trivial-calls/s")
	b.ReportMetric(riffCPU/trivCPU, "server/trivial")
	b.ReportMetric(0, "ns/op")
}

// repoDirTB is repoDir for a benchmark.
func repoDirTB(b *testing.B) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "app")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", "git@github.com:acme/app.git"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}
