package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// e2eStep is one command of the scenario of the guide, run by a person
// (no session) or by a session.
type e2eStep struct {
	name    string
	session string
	// worker registers the session as a worker first, as riff relay
	// does: riff cannot mark a worker.
	worker bool
	args   []string
}

// e2eScenario: two sessions and a person; a claim, a second claim refused
// as held (exit 1), a pause of the repository refusing claims, a resume,
// a hold refused to a worker and granted with a warning to another, a
// tell to the lead, a read with direct threads first, a release by the
// lead for another session.
func e2eScenario() []e2eStep {
	const a, b, w = "a6cf2205-aaaa", "b7d0aa11-bbbb", "c9e1bb22-cccc"
	return []e2eStep{
		{name: "01-resume-riff", args: []string{"resume", "--riff"}},
		{name: "02-whoami", args: []string{"whoami"}},
		{name: "03-whoami-a", session: a, args: []string{"whoami"}},
		{name: "04-whoami-b", session: b, args: []string{"whoami"}},
		{name: "05-lead", args: []string{"lead", "--session", a[:8]}},
		{name: "06-claim-b", session: b, args: []string{"claim", "issue-12"}},
		{name: "07-claim-a-held", session: a, args: []string{"claim", "issue-12"}},
		{name: "08-pause", args: []string{"pause"}},
		// who while the repository is paused: the sessions there are
		// paused, and the last line says what to run.
		{name: "09-who-paused", args: []string{"who"}},
		{name: "10-claim-paused", session: b, args: []string{"claim", "issue-13"}},
		{name: "11-resume", args: []string{"resume"}},
		{name: "12-plan-hold", session: a, args: []string{"plan", "hold", "issue-14", "waits", "for", "the", "word", "of", "Mike"}},
		// A worker cannot claim a held item (on_hold, exit 1); a session
		// that is no worker gets it with the hold as a warning.
		{name: "13-claim-worker-on-hold", session: w, worker: true, args: []string{"claim", "issue-14"}},
		{name: "14-claim-b-warning", session: b, args: []string{"claim", "issue-14"}},
		{name: "15-tell-lead", session: b, args: []string{"tell", "lead", "Merge issue-12 now?"}},
		{name: "16-post", args: []string{"post", "--to", "claim=issue-12", "API is ready"}},
		{name: "17-read-a", session: a, args: []string{"read"}},
		{name: "18-release-for", session: a, args: []string{"release", "issue-12", "--session", b[:8]}},
		{name: "19-who", args: []string{"who"}},
		{name: "20-threads", session: b, args: []string{"threads"}},
		{name: "21-read-all", session: b, args: []string{"read", "--all"}},
		{name: "22-status", session: b, args: []string{"status", "write", "the", "tests"}},
		{name: "23-step", session: b, args: []string{"step", "start", "live", "window"}},
		{name: "24-blocked", session: b, args: []string{"blocked", "which of two designs?"}},
		{name: "25-notes-edit", args: []string{"lead", "notes", "edit", "--file", "NOTES"}},
		{name: "26-notes", args: []string{"lead", "notes"}},
		{name: "27-plan-free", session: a, args: []string{"plan", "free", "issue-14"}},
		{name: "28-release", session: b, args: []string{"release", "issue-14"}},
		{name: "29-post-b", session: b, args: []string{"post", "the tests pass"}},
		// who again: b is blocked now.
		{name: "30-who", args: []string{"who"}},
		{name: "31-server", args: []string{"server"}},
	}
}

// TestEndToEnd builds riff and riff-server with go build, and runs them
// as a person would: the scenario of the guide against a server on
// loopback with a temporary RIFF_DIR, a command with no server, and riff
// tail across restarts of the server. It skips while cmd/riff-server does
// not exist.
func TestEndToEnd(t *testing.T) {
	if _, err := os.Stat(filepath.Join("..", "riff-server")); err != nil {
		t.Skip("cmd/riff-server does not exist yet")
	}
	if testing.Short() {
		t.Skip("the end-to-end test builds two binaries")
	}
	bin := binaries(t, "", "./riff", "./riff-server")
	// The scenario runs twice, each time against its own riff-server:
	// with --color never and with --color always. The riff of this
	// machine in riff server is the server itself (under the name
	// localhost, shown once) for the first, and the server of the first
	// for the second.
	plain := startServer(t, bin, freePort(t), t.TempDir())
	color := startServer(t, bin, freePort(t), t.TempDir())
	t.Run("scenario", func(t *testing.T) {
		testScenario(t, bin, plain, "never", "http://localhost:"+plain.port(), "e2e")
	})
	t.Run("scenario-color", func(t *testing.T) {
		testScenario(t, bin, color, "always", plain.url(), "e2e-color")
	})
	t.Run("no-server", func(t *testing.T) { testNoServer(t, bin) })
	t.Run("tail-restart", func(t *testing.T) { testTailRestart(t, bin) })
	t.Run("tail-lost", func(t *testing.T) { testTailLost(t, bin) })
	t.Run("pipe", func(t *testing.T) { testPipe(t, bin) })
	t.Run("no-user-env", func(t *testing.T) { testNoUserEnv(t, bin) })
	t.Run("terminal", func(t *testing.T) { testTerminal(t, bin) })
}

// testScenario runs the scenario of the guide against srv with --color
// COLOR, each step against the golden file testdata/DIR/STEP.golden,
// while riff tail follows the thread of the repository (DIR/tail.golden).
// local is the riff of this machine for riff server. With color, it
// checks that each session has the same color in riff who, riff read and
// riff tail.
func testScenario(t *testing.T, bin string, srv *riffServer, color, local, dir string) {
	server := srv.url()
	repo := repoDir(t)
	notes := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(notes, []byte("Wave 5: issue-20.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	norm := func(s string) string {
		s = strings.ReplaceAll(s, server, "http://SERVER")
		s = strings.ReplaceAll(s, local, "http://LOCAL")
		s = strings.ReplaceAll(s, notes, "NOTES")
		return normalizeFacts(normalizeTimes(s))
	}
	open := filepath.Join(t.TempDir(), "open")
	if err := os.WriteFile(open, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tail := startTail(t, bin, repo, server, "acme/app", color, open)
	colors := colorsOfSessions{}
	for _, step := range e2eScenario() {
		if step.worker {
			registerWorker(t, server, step.session)
		}
		args := append([]string{"--color", color}, replaceArg(step.args, "NOTES", notes)...)
		stdout, stderr, code := runRiffEnv(t, bin, repo, server, step.session, []string{testLocalEnv + "=" + local}, args...)
		shown := replaceArg(args, notes, "NOTES")
		if step.session != "" {
			shown = append([]string{"RIFF_SESSION=" + step.session}, shown...)
		}
		checkGolden(t, dir, step.name, transcript(shown, norm(stdout), norm(stderr), code, nil))
		colors.add(t, step.name, stdout)
	}
	tail.waitOut("the tests pass")
	tail.stop()
	stdout := tail.stdout.String()
	checkGolden(t, dir, "tail", transcript([]string{"tail", "acme/app", "--color", color}, norm(stdout), tail.stderr.String(), tail.cmd.ProcessState.ExitCode(), nil))
	colors.add(t, "tail", stdout)
	if color == "always" && len(colors) < 2 {
		t.Errorf("the colored scenario shows %d sessions in color; want at least 2", len(colors))
	}
}

// sessionColorRE finds a colored session: the color, then the short ID
// in its name, as riff who, riff read and riff tail show it.
var sessionColorRE = regexp.MustCompile(`\x1b\[(\d+)m[^\x1b]*\(([0-9a-f]{4})\)\x1b\[0m`)

// colorsOfSessions maps the short ID of each session to its color and the
// output that showed it first.
type colorsOfSessions map[string][2]string

// add checks that each colored session of out has the color that it
// had before: each session has the same color in each command.
func (m colorsOfSessions) add(t *testing.T, where, out string) {
	t.Helper()
	for _, sub := range sessionColorRE.FindAllStringSubmatch(out, -1) {
		code, id := sub[1], sub[2]
		if before, ok := m[id]; ok && before[0] != code {
			t.Errorf("the session %s has the color %s in %s and %s in %s; want one color", id, before[0], before[1], code, where)
			continue
		}
		if _, ok := m[id]; !ok {
			m[id] = [2]string{code, where}
		}
	}
}

var (
	msRE     = regexp.MustCompile(`\b\d+ ms\b`)
	mbRE     = regexp.MustCompile(`\b\d+ MB\b`)
	countsRE = regexp.MustCompile(`\b\d+ (chunks|sessions|cursors|threads|live sign-ins)\b`)
	posRE    = regexp.MustCompile(`\bposition \d+`)
)

// normalizeFacts replaces the facts of riff server that change from run
// to run: the times of a write and of the replay, the memory, the size
// of the log and the counts.
func normalizeFacts(s string) string {
	s = msRE.ReplaceAllString(s, "N ms")
	s = mbRE.ReplaceAllString(s, "N MB")
	s = countsRE.ReplaceAllString(s, "N $1")
	return posRE.ReplaceAllString(s, "position N")
}

// testNoServer: a command with no server at its URL fails at once, with
// no wait and no new try, as in "How long a command waits for the
// server".
func testNoServer(t *testing.T, bin string) {
	server := "http://" + freePort(t)
	start := time.Now()
	stdout, stderr, code := runRiff(t, bin, repoDir(t), server, "", "--color", "never", "who")
	took := time.Since(start)
	want := "Error: cannot reach riff-server at " + server + "\n"
	if stdout != "" || stderr != want || code != exitFail {
		t.Errorf("riff who with no server = stdout %q, stderr %q, exit %d; want stdout \"\", stderr %q, exit 1", stdout, stderr, code, want)
	}
	// A new try would wait 0.25 s and print (waits for riff-server…)
	// after 1 s; the budget is 60 s.
	if took > 5*time.Second {
		t.Errorf("riff who with no server took %s; want it to end at once", took)
	}
}

// registerWorker registers a session at the repository of repoDir as a
// worker, over HTTP as the riff daemon does: riff cannot mark a worker.
func registerWorker(t *testing.T, server, session string) {
	t.Helper()
	me := name.SessionURI{User: "mike", Host: "pangolin", Repo: "acme/app", Session: session}
	if _, err := riffclient.Send(context.Background(), testClient(t, server), wire.Register{Me: me, Worker: true}); err != nil {
		t.Fatalf("register %s as a worker: %v", me, err)
	}
}

// testClient is a client of server with the build of riff-server.
func testClient(t *testing.T, server string) *riffclient.Client {
	t.Helper()
	u, err := riffclient.ParseServer(server)
	if err != nil {
		t.Fatal(err)
	}
	return riffclient.New(u, riffclient.Options{Build: build.FromBuildInfo(defaultVersion), Budget: 10 * time.Second})
}

// riffEnv is the env of each riff command of the end-to-end tests. The
// riff of this machine is an address with no riff (port 1), so that a
// riff-server of the machine does not change the output, and a Claude
// Code that runs the tests does not name the session of the relay.
func riffEnv(server, session string) []string {
	return append(os.Environ(), "USER=mike", "RIFF_HOST=pangolin", "RIFF_SERVER="+server, "NO_COLOR=", "RIFF_SESSION="+session,
		testLocalEnv+"=http://127.0.0.1:1", "CLAUDE_CODE_SESSION_ID=")
}

// runRiff runs the riff binary in dir as session ("" is the person), and
// gives its output and exit code.
func runRiff(t *testing.T, bin, dir, server, session string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runRiffEnv(t, bin, dir, server, session, nil, args...)
}

// runRiffEnv is runRiff with more env vars.
func runRiffEnv(t *testing.T, bin, dir, server, session string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "riff"), args...)
	cmd.Dir = dir
	cmd.Env = append(riffEnv(server, session), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		exit, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("run riff %v: %v", args, err)
		}
		code = exit.ExitCode()
	}
	return out.String(), errOut.String(), code
}

// riffServer is a riff-server process on loopback: the tests stop it and
// start it again on the same address and directory.
type riffServer struct {
	t    *testing.T
	bin  string
	addr string
	dir  string
	log  syncBuffer
	cmd  *exec.Cmd
	done chan struct{}
	// args are more flags of riff-server; signIn says that it has sign-in
	// (its facts need a token: the start waits for its provider).
	args   []string
	signIn bool
}

// startServer starts riff-server on addr with its log in dir, and waits
// until it serves. A cleanup stops it.
func startServer(t *testing.T, bin, addr, dir string) *riffServer {
	t.Helper()
	s := &riffServer{t: t, bin: bin, addr: addr, dir: dir}
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			t.Logf("the log of riff-server:\n%s", s.log.String())
		}
	})
	s.start()
	return s
}

func (s *riffServer) url() string { return "http://" + s.addr }

// port gives the port of the server.
func (s *riffServer) port() string { return s.addr[strings.LastIndex(s.addr, ":")+1:] }

// start starts the process and waits until it serves.
func (s *riffServer) start() {
	s.t.Helper()
	args := []string{"--listen", s.addr, "--lease-wait", "0s"}
	if s.dir != "" {
		args = append(args, "--dir", s.dir)
	}
	cmd := exec.Command(filepath.Join(s.bin, "riff-server"), append(args, s.args...)...)
	cmd.Stdout, cmd.Stderr = &s.log, &s.log
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start riff-server: %v", err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	s.cmd, s.done = cmd, done
	if s.signIn {
		waitProvider(s.t, s.url())
		return
	}
	waitServes(s.t, s.url())
}

// stop sends SIGTERM and waits until the process is gone; after 10 s it
// kills it.
func (s *riffServer) stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
		s.t.Errorf("riff-server did not stop in 10 s after SIGTERM")
	}
	s.cmd = nil
}

// restart stops the server with SIGTERM and starts it again on the same
// address and directory.
func (s *riffServer) restart() {
	s.t.Helper()
	s.stop()
	s.start()
}

var (
	agoRE = regexp.MustCompile(`\b\d+(ms|s|m|h|d) (ago|old)\b`)
	forRE = regexp.MustCompile(`\bfor \d+(s|m|h|d)\b`)
	// A date may follow the start of a color: ESC[1m2026-09-27.
	clockRE = regexp.MustCompile(`(\b|\x1b\[\d+m)\d{4}-\d{2}-\d{2}( \d{2}:\d{2})?\b`)
	hourRE  = regexp.MustCompile(`\b\d{2}:\d{2}\b`)
	// The build of the binaries depends on how they were built (a VCS
	// stamp or none).
	buildRE = regexp.MustCompile(`\bv(\d+\.\d+\.\d+)  \([^)\n]*\)`)
)

// normalizeTimes replaces the times of a run, which change from run to
// run.
func normalizeTimes(s string) string {
	s = agoRE.ReplaceAllString(s, "T $2")
	s = forRE.ReplaceAllString(s, "for T")
	s = buildRE.ReplaceAllString(s, "v$1  (BUILD)")
	s = clockRE.ReplaceAllString(s, "${1}DATE")
	return hourRE.ReplaceAllString(s, "HH:MM")
}

// freePort gives a loopback address with a free port.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// waitServes waits until the server says that it serves.
func waitServes(t *testing.T, server string) {
	t.Helper()
	u, err := riffclient.ParseServer(server)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		c := riffclient.New(u, riffclient.Options{Budget: time.Second})
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		facts, err := c.Facts(ctx)
		cancel()
		if err == nil && facts.Serves {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("riff-server at %s did not serve in 30 s", server)
}

// testLocalEnv names the riff of this machine for riff server in a
// test build of riff (testdata/testbuild/testhooks.go).
const testLocalEnv = "RIFF_TEST_LOCAL"
