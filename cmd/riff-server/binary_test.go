package main

// The helpers of the tests that drive the real binary as a person runs
// it: TestMain builds riff-server once per test run, and start runs it on
// a free loopback port with a temporary RIFF_DIR.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
)

// binary is the path of the riff-server that TestMain built, or "" with
// buildErr when it could not build one. TestMain sets both before any
// test runs; no test changes them.
var (
	binary   string
	buildErr error
)

func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "riff-server-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary, buildErr = buildBinary(tmp)
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// buildBinary builds riff-server (with no race detector: the loop wants
// a fast binary) into dir.
func buildBinary(dir string) (string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go tool to build riff-server: %w", err)
	}
	out := filepath.Join(dir, "riff-server")
	cmd := exec.Command(goTool, "build", "-o", out, ".")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, b)
	}
	return out, nil
}

// needBinary gives the built binary, and skips the test in -short mode.
func needBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("drives the real binary; skipped in -short mode")
	}
	if buildErr != nil {
		t.Fatalf("riff-server did not build: %v", buildErr)
	}
	return binary
}

// cleanEnv is the environment of the test with no RIFF_ variable, so a
// setting of the person who runs the tests does not leak in.
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RIFF_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// freePort gives a loopback port that was free a moment ago. The flag
// --listen cannot take port 0 (the address is in the lines and in the
// README), so the test picks one; start tries again on a collision.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("pick a free port: %v", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// logLine is one JSON line of riff-server on stderr.
type logLine struct {
	Severity string `json:"severity"`
	Time     string `json:"time"`
	Message  string `json:"message"`
	Target   string `json:"target"`
	Raw      string `json:"-"`
}

// server is one run of the binary.
type server struct {
	t    testing.TB
	cmd  *exec.Cmd
	Addr string // 127.0.0.1:PORT
	URL  string // http://127.0.0.1:PORT
	Dir  string

	mu        sync.Mutex
	lines     []logLine
	bad       []string // stderr lines that are not JSON log lines
	listening chan struct{}
	serving   chan struct{}
	exited    chan struct{}
	exitErr   error
}

// serverOpts are the settings of one run.
type serverOpts struct {
	dir  string   // RIFF_DIR ("" for memory)
	args []string // more flags, after --listen and --lease-wait
	// leaseWait is --lease-wait; "" gives 0s.
	leaseWait string
	// noListenFlag gives the port through RIFF_LISTEN, not --listen.
	noListenFlag bool
	// onlyListens waits only for the line "riff-server listens on", not
	// for "riff-server serves".
	onlyListens bool
	// noWait returns at once after the process starts (for a start that
	// must fail).
	noWait bool
	// addr is the address to listen on ("": a free loopback port); a
	// second instance of a handover listens on the address of the first.
	addr string
	// env are more variables of the environment (after cleanEnv).
	env []string
	// umask, when set ("000", "022"), is the umask of the process: a
	// shell sets it and execs riff-server.
	umask string
}

// start runs riff-server and waits for its line "riff-server serves" (or
// "listens on"). It tries another port when the port was taken in the
// meantime. The test's cleanup kills the process if it still runs.
func start(t testing.TB, o serverOpts) *server {
	t.Helper()
	for try := 0; ; try++ {
		s, err := tryStart(t, o)
		if err == nil {
			return s
		}
		if try < 4 && strings.Contains(err.Error(), "address already in use") {
			continue
		}
		t.Fatalf("start riff-server: %v", err)
	}
}

func tryStart(t testing.TB, o serverOpts) (*server, error) {
	bin := binary
	if buildErr != nil {
		t.Fatalf("riff-server did not build: %v", buildErr)
	}
	addr := o.addr
	if addr == "" {
		addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(freePort(t)))
	}
	wait := o.leaseWait
	if wait == "" {
		wait = "0s"
	}
	var args []string
	env := cleanEnv(o.env...)
	if o.noListenFlag {
		env = append(env, "RIFF_LISTEN="+addr)
	} else {
		args = append(args, "--listen", addr)
	}
	args = append(args, "--lease-wait", wait)
	args = append(args, o.args...)
	if o.dir != "" {
		env = append(env, "RIFF_DIR="+o.dir)
	}
	cmd := exec.Command(bin, args...)
	if o.umask != "" {
		cmd = exec.Command("/bin/sh", append([]string{"-c", `umask "$1"; shift; exec "$@"`, "sh", o.umask, bin}, args...)...)
	}
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	s := &server{t: t, cmd: cmd, Addr: addr, URL: "http://" + addr, Dir: o.dir,
		listening: make(chan struct{}), serving: make(chan struct{}), exited: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		s.readLines(stderr)
	}()
	go func() {
		<-read
		err := cmd.Wait()
		s.mu.Lock()
		s.exitErr = err
		s.mu.Unlock()
		close(s.exited)
	}()
	t.Cleanup(func() { s.kill() })
	if o.noWait {
		return s, nil
	}
	want := s.serving
	if o.onlyListens {
		want = s.listening
	}
	select {
	case <-want:
		return s, nil
	case <-s.exited:
		return nil, fmt.Errorf("riff-server exited before it served: %v\n%s", s.exitErr, s.stderrText())
	case <-time.After(30 * time.Second):
		s.kill()
		return nil, fmt.Errorf("riff-server did not serve in 30 s:\n%s", s.stderrText())
	}
}

// readLines reads the JSON lines of stderr and marks the start lines.
func (s *server) readLines(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		text := sc.Text()
		var l logLine
		err := json.Unmarshal([]byte(text), &l)
		l.Raw = text
		s.mu.Lock()
		if err != nil || l.Severity == "" || l.Time == "" || l.Message == "" {
			s.bad = append(s.bad, text)
		} else {
			s.lines = append(s.lines, l)
		}
		s.mu.Unlock()
		switch {
		case strings.HasPrefix(l.Message, "riff-server listens on http://"):
			close(s.listening)
		case l.Message == "riff-server serves":
			close(s.serving)
		}
	}
	io.Copy(io.Discard, r)
}

// Lines gives the JSON lines so far.
func (s *server) Lines() []logLine {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]logLine(nil), s.lines...)
}

// stderrText gives what the process wrote on stderr.
func (s *server) stderrText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, l := range s.lines {
		b.WriteString(l.Raw + "\n")
	}
	for _, l := range s.bad {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// checkLines fails the test for each stderr line that is not a JSON log
// line with severity, time, message and target.
func (s *server) checkLines() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.bad {
		s.t.Errorf("riff-server wrote a line that is not a JSON log line with severity, time and message: %s", l)
	}
	for _, l := range s.lines {
		if l.Target == "" {
			s.t.Errorf("the log line %s has no target", l.Raw)
		}
	}
}

// stop sends SIGTERM and waits for the exit: a stop writes what waits
// and a last checkpoint.
func (s *server) stop() {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.t.Fatalf("SIGTERM: %v", err)
	}
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		s.kill()
		s.t.Fatalf("riff-server did not stop in 20 s after SIGTERM:\n%s", s.stderrText())
	}
	s.mu.Lock()
	err := s.exitErr
	s.mu.Unlock()
	if err != nil {
		s.t.Fatalf("riff-server exited with %v after SIGTERM:\n%s", err, s.stderrText())
	}
}

// kill sends SIGKILL (kill -9) and waits for the exit.
func (s *server) kill() {
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
}

// exitCode waits for the exit, and gives its code and stderr.
func (s *server) wait(d time.Duration) (int, string) {
	s.t.Helper()
	select {
	case <-s.exited:
	case <-time.After(d):
		s.kill()
		s.t.Fatalf("riff-server did not exit in %v", d)
	}
	return s.cmd.ProcessState.ExitCode(), s.stderrText()
}

// reply is the answer to one call.
type reply struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r reply) String() string { return fmt.Sprintf("%d %s", r.Status, bytes.TrimSpace(r.Body)) }

// httpClient is the client of the tests: no retries, a time limit.
var httpClient = &http.Client{Timeout: 15 * time.Second}

// post sends a call as riff does: POST JSON to path, with a call ID when
// call is not empty.
func post(ctx context.Context, base, path, call string, body any) (reply, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return reply{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, bytes.NewReader(b))
	if err != nil {
		return reply{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	if call != "" {
		req.Header.Set("riff-call", call)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, err
	}
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: data}, nil
}

// must sends a call and fails the test unless it gets a 200.
func (s *server) must(path, call string, body any) reply {
	s.t.Helper()
	r, err := post(context.Background(), s.URL, path, call, body)
	if err != nil {
		s.t.Fatalf("POST %s: %v", path, err)
	}
	if r.Status != http.StatusOK {
		s.t.Fatalf("POST %s %v = %v; want 200", path, body, r)
	}
	return r
}

// get sends a GET.
func (s *server) get(path string) (reply, error) {
	resp, err := httpClient.Get(s.URL + path)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: data}, err
}

// runTool runs riff-server with args (a log tool) on dir, and gives its
// stdout, its stderr and its exit code.
func runTool(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(needBinary(t), args...)
	cmd.Env = cleanEnv("RIFF_DIR=" + dir)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("riff-server %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}
