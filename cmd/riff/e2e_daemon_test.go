package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The riff daemon with real binaries (docs/daemon.md): riff-server on
// loopback, riff daemon run in the foreground, a fake podman that records
// its arguments and runs the "container" as a process of the host, and a
// fake claude that speaks stream-json.

// daemonWorld is one machine with a daemon: its binaries, its env, a
// bare origin and a main clone with a riff.toml.
type daemonWorld struct {
	t   *testing.T
	bin string
	// daemonRiff is the riff of the daemon and of the relay in its
	// containers: a build with the race detector.
	daemonRiff string
	pods       string
	srv        *riffServer
	env        []string
	main       string
	origin     string
	podLog     string
	input      string
	state      string
}

const testImage = "localhost/riff-session@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func newDaemonWorld(t *testing.T, script string) *daemonWorld {
	t.Helper()
	return newDaemonWorldAt(t, script, nil)
}

// newDaemonWorldAt is newDaemonWorld with a riff-server that start
// starts (nil: one with no sign-in).
func newDaemonWorldAt(t *testing.T, script string, start func(bin string) *riffServer) *daemonWorld {
	t.Helper()
	bin := buildRelayBinaries(t, "github.com/como-technologies/riff/tools/podmanfake", "github.com/como-technologies/riff/tools/claudefake")
	// The fake claude is claude on the PATH of the container.
	claudeDir := t.TempDir()
	if err := copyFile(filepath.Join(bin, "claudefake"), filepath.Join(claudeDir, "claude")); err != nil {
		t.Fatal(err)
	}
	// riff on the PATH of the container, as the Bash tool of a session
	// runs it.
	if err := copyFile(filepath.Join(bin, "riff"), filepath.Join(claudeDir, "riff")); err != nil {
		t.Fatal(err)
	}
	if start == nil {
		start = func(bin string) *riffServer { return startServer(t, bin, freePort(t), t.TempDir()) }
	}
	w := &daemonWorld{t: t, bin: bin, srv: start(bin), daemonRiff: raceRiff(t)}
	root := t.TempDir()
	w.pods = filepath.Join(root, "containers")
	w.origin = filepath.Join(root, "origin.git")
	w.main = filepath.Join(root, "app")
	w.podLog = filepath.Join(root, "podman.log")
	w.input = filepath.Join(root, "claude-input")
	home := filepath.Join(root, "home")
	// A short folder: a unix socket takes a path of at most 104 bytes.
	short, err := os.MkdirTemp("", "rd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(short) })
	w.state = short
	git := w.makeOrigin(root, "[session]\nimage = \""+testImage+"\"\nsources = [\"pypi.org\"]\n\n[session.env]\nCARGO_HOME = \"/cache/cargo\"\n\n[session.volumes]\ncargo = \"/cache/cargo\"\n")
	// The origin of this test names no GitHub repository: riff names it
	// local/NAME. A url.insteadOf gives it the name acme/app.
	git(w.main, "remote", "set-url", "origin", w.origin)
	w.env = []string{
		"HOME=" + home, "RIFF_HOME=" + w.state, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"RIFF_PODMAN=" + filepath.Join(bin, "podmanfake"),
		"RIFF_DAEMON_RIFF=" + w.daemonRiff,
		"PODMANFAKE_DIR=" + w.pods, "PODMANFAKE_LOG=" + w.podLog, "PODMANFAKE_PATH=" + claudeDir,
		"CLAUDEFAKE_SCRIPT=" + script, "CLAUDEFAKE_INPUT=" + w.input,
		"GIT_AUTHOR_NAME=mike", "GIT_AUTHOR_EMAIL=mike@example.com", "GIT_COMMITTER_NAME=mike", "GIT_COMMITTER_EMAIL=mike@example.com",
	}
	w.env = append(w.env, pageExports(t)...)
	return w
}

// pageExports gives the variables of the export lines of docs/daemon.md
// ("On a machine with no systemd"), as a person sets them.
func pageExports(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "daemon.md"))
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, line := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, "export ")
		if !ok {
			continue
		}
		name, value, _ := strings.Cut(rest, "=")
		env = append(env, name+"="+strings.Trim(value, `"`))
	}
	if len(env) != 2 {
		t.Fatalf("docs/daemon.md has %d export lines; want the two options of podman: %v", len(env), env)
	}
	return env
}

// raceBuild is the riff of the daemon tests, built once with -race.
var raceBuild struct {
	once sync.Once
	path string
	err  error
}

// raceRiff gives the riff of the daemon tests: a build with the race
// detector, so that a race of the daemon or of the relay fails them.
func raceRiff(t *testing.T) string {
	t.Helper()
	raceBuild.once.Do(func() {
		raceBuild.path = filepath.Join(builtDir, "race", "riff")
		cmd := exec.Command("go", "build", "-race", "-o", raceBuild.path, ".")
		if out, err := cmd.CombinedOutput(); err != nil {
			raceBuild.err = fmt.Errorf("go build -race: %v\n%s", err, out)
		}
	})
	if raceBuild.err != nil {
		t.Fatal(raceBuild.err)
	}
	return raceBuild.path
}

// startDaemon starts riff daemon run, and waits until it runs.
func (w *daemonWorld) startDaemon() *proc {
	w.t.Helper()
	cmd := exec.Command(w.daemonRiff, "daemon", "run")
	cmd.Dir = w.main
	cmd.Env = append(riffEnv(w.srv.url(), ""), w.env...)
	p := &proc{t: w.t, cmd: cmd, done: make(chan struct{}), what: "riff daemon run", limit: 60 * time.Second}
	cmd.Stdout, cmd.Stderr = &p.stdout, &p.stderr
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	w.t.Cleanup(func() {
		p.stop()
		if strings.Contains(p.stderr.String(), "DATA RACE") {
			w.t.Errorf("the race detector found a race in riff daemon run:\n%s", p.stderr.String())
		} else if w.t.Failed() {
			w.t.Logf("riff daemon run:\n%s", p.stderr.String())
		}
		logs, _ := filepath.Glob(filepath.Join(w.pods, "logs", "*.log"))
		for _, l := range logs {
			if b, _ := os.ReadFile(l); strings.Contains(string(b), "DATA RACE") {
				w.t.Errorf("the race detector found a race in riff relay of a container:\n%s", b)
			}
		}
	})
	p.waitErr("riff daemon runs")
	return p
}

func (w *daemonWorld) riff(args ...string) (string, string, int) {
	w.t.Helper()
	return runRiffEnv(w.t, w.bin, w.main, w.srv.url(), "", w.env, args...)
}

// until runs riff until its output holds each text, for at most a
// minute.
func (w *daemonWorld) until(what string, args []string, texts ...string) string {
	w.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		out, _, _ := w.riff(args...)
		ok := true
		for _, s := range texts {
			ok = ok && strings.Contains(out, s)
		}
		if ok {
			return out
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("%s: riff %v never showed %q; last:\n%s", what, args, texts, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// podmanCalls gives each call of the fake podman.
func (w *daemonWorld) podmanCalls() [][]string {
	w.t.Helper()
	b, _ := os.ReadFile(w.podLog)
	var calls [][]string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var c []string
		if json.Unmarshal([]byte(line), &c) == nil {
			calls = append(calls, c)
		}
	}
	return calls
}

func TestGivenADaemonWhenRiffRunRunsAnItemThenTheWorkerGetsATellMidTurnPushesAndEnds(t *testing.T) {
	go1 := filepath.Join(t.TempDir(), "go")
	w := newDaemonWorld(t, "tool;touch:"+go1+";wait-wake;push;result")
	w.riff("resume", "--riff")
	w.startDaemon()
	if out, errOut, code := w.riff("daemon", "status"); code != 0 || !strings.Contains(out, "riff daemon  answers") {
		t.Fatalf("riff daemon status = %d %q %q; want that it answers", code, out, errOut)
	}
	out, errOut, code := w.riff("run", "issue-1")
	if code != 0 {
		t.Fatalf("riff run issue-1 = %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "in the container riff-issue-1-") {
		t.Fatalf("riff run said %q; want the container", out)
	}
	// The spec of the session: the options of the setting, --init, the
	// caps, riff at /opt/riff/riff, and the env and volumes of riff.toml.
	var run []string
	for _, c := range w.podmanCalls() {
		if i := index(c, "run"); i >= 0 {
			run = c
		}
	}
	joined := strings.Join(run, " ")
	for _, want := range []string{"--runtime=runc --cgroup-manager=cgroupfs run --detach --init --name riff-issue-1-",
		"--ulimit nofile=1024:1024 --ulimit nproc=1000:1000", "--memory 4g --cpus 2",
		"--env CARGO_HOME=/cache/cargo", "--volume cargo:/cache/cargo", ":/opt/riff/riff:ro", ":/run/riff ", ":/work ",
		"--env RIFF_SOCKET=/run/riff/riff.sock", testImage + " /opt/riff/riff relay -- claude"} {
		if !strings.Contains(joined, want) {
			t.Errorf("podman run %s\nhas no %q", joined, want)
		}
	}
	// who shows the row of the daemon and the row of the container.
	who := w.until("who", []string{"who"}, "daemon", "container", "hosts containers")
	if !strings.Contains(who, "working on #1") && !strings.Contains(who, "issue-1") {
		t.Errorf("who = %s; want the container working on issue-1", who)
	}
	// A tell reaches the session in its first turn, in its input.
	waitForFile(t, go1)
	id := sessionOf(t, who, "container")
	if out, errOut, code := w.riff("tell", id, "Use the new error type of #1063."); code != 0 {
		t.Fatalf("riff tell = %d %s %s", code, out, errOut)
	}
	// The end: the branch is on origin, the claim is free, the
	// container and the clone are gone.
	w.until("the end", []string{"who", "--all"}, "ended")
	b, _ := os.ReadFile(w.input)
	if !strings.Contains(string(b), "wrote to you in a direct message (message 1)") {
		t.Errorf("the input of claude = %s; want the wake of the tell", b)
	}
	if strings.Contains(string(b), "second turn") {
		t.Errorf("claude ran a second turn: %s", b)
	}
	if out, err := exec.Command("git", "--git-dir", w.origin, "branch", "--list", "worktree-issue-1").Output(); err != nil || !strings.Contains(string(out), "worktree-issue-1") {
		t.Errorf("origin has no branch worktree-issue-1: %q %v", out, err)
	}
	removed := false
	for _, c := range w.podmanCalls() {
		removed = removed || (index(c, "rm") >= 0 && strings.HasPrefix(c[len(c)-1], "riff-issue-1-"))
	}
	if !removed {
		t.Errorf("podman calls %v; want the rm of the container", w.podmanCalls())
	}
	w.until("the daemon has no session", []string{"daemon", "status"}, "sessions     0")
	if entries, _ := os.ReadDir(filepath.Join(w.state, "state", "daemon", "sessions")); len(entries) != 0 {
		t.Errorf("the folder of the session stays: %v", entries)
	}
}

func index(s []string, word string) int {
	for i, w := range s {
		if w == word {
			return i
		}
	}
	return -1
}

func waitForFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no file %s", path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sessionOf gives the short session ID of the first row of who with the
// tag role.
func sessionOf(t *testing.T, who, role string) string {
	t.Helper()
	for _, line := range strings.Split(who, "\n") {
		if strings.Contains(line, " "+role+" ") {
			if i := strings.Index(line, "("); i >= 0 {
				if j := strings.Index(line[i:], ")"); j > 0 {
					return line[i+1 : i+j]
				}
			}
		}
	}
	t.Fatalf("who has no row of a %s:\n%s", role, who)
	return ""
}

// waitInput waits until the input of claude holds text.
func (w *daemonWorld) waitInput(text string) {
	w.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		b, _ := os.ReadFile(w.input)
		if strings.Contains(string(b), text) {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("the input of claude never held %q:\n%s", text, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestGivenAWorkerWhoseFirstTurnEndedWhenMessagesComeThenTheFirstOfItsSenderGetsTheDirectAnswerAndLaterOnesNone(t *testing.T) {
	dir := t.TempDir()
	ready, leave := filepath.Join(dir, "ready"), filepath.Join(dir, "leave")
	// claude ends its first turn, and its process stays until leave.
	w := newDaemonWorld(t, "tool;push;result;touch:"+ready+";await:"+leave)
	w.riff("resume", "--riff")
	w.startDaemon()
	if out, errOut, code := w.riff("run", "issue-2"); code != 0 {
		t.Fatalf("riff run = %d %s %s", code, out, errOut)
	}
	waitForFile(t, ready)
	who := w.until("who", []string{"who"}, "container")
	id := sessionOf(t, who, "container")
	w.until("the end of the work", []string{"daemon", "status"}, "work ended")
	for _, text := range []string{"are you there?", "hello again"} {
		if out, errOut, code := w.riff("tell", id, text); code != 0 {
			t.Fatalf("riff tell %q = %d %s %s", text, code, out, errOut)
		}
	}
	read := w.until("the direct answer", []string{"read"}, "ended its work, and does not read your message")
	if n := strings.Count(read, "ended its work"); n != 1 {
		t.Errorf("the person got %d direct answers; want 1:\n%s", n, read)
	}
	if !strings.Contains(read, "riff: the session "+id) || !strings.Contains(read, "Start a new session for the work.") {
		t.Errorf("read = %s; want the text of the guide", read)
	}
	if b, _ := os.ReadFile(w.input); strings.Contains(string(b), "are you there?") || strings.Contains(string(b), "wake:") {
		t.Errorf("a message after the first turn went into the input of claude: %s", b)
	}
	// The end: after it, a tell fails.
	if err := os.WriteFile(leave, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	w.until("the end", []string{"who", "--all"}, "ended")
	if _, _, code := w.riff("tell", id, "and now?"); code == 0 {
		t.Error("a tell to the session after its end went through; want a refusal")
	}
}

func TestGivenAWorkerWhoseCloneHoldsWorkNotOnOriginWhenItEndsThenTheFolderStaysWithOneNote(t *testing.T) {
	w := newDaemonWorld(t, "tool;write:notes.txt;result")
	w.riff("resume", "--riff")
	d := w.startDaemon()
	if out, errOut, code := w.riff("run", "issue-3"); code != 0 {
		t.Fatalf("riff run = %d %s %s", code, out, errOut)
	}
	d.waitErr(`"kept":true`)
	entries, _ := os.ReadDir(filepath.Join(w.state, "state", "daemon", "sessions"))
	if len(entries) != 1 {
		t.Fatalf("the folders of the sessions = %v; want the kept one", entries)
	}
	clone := filepath.Join(w.state, "state", "daemon", "sessions", entries[0].Name(), "clone", "notes.txt")
	if _, err := os.Stat(clone); err != nil {
		t.Errorf("the work of the session is gone: %v", err)
	}
	read := w.until("the note", []string{"read", "--all"}, "keeps its folder")
	if n := strings.Count(read, "keeps its folder"); n != 1 {
		t.Errorf("%d notes of the kept folder; want 1:\n%s", n, read)
	}
	if !strings.Contains(read, "1 file not committed") {
		t.Errorf("the note = %s; want what work is not on origin", read)
	}
	w.until("the claim is free", []string{"who", "--all"}, "ended")
}

func TestGivenALiveContainerWhenTheDaemonStartsAgainThenTheNewDaemonTakesItOverAndNoWakeComesTwice(t *testing.T) {
	dir := t.TempDir()
	ready, goOn := filepath.Join(dir, "ready"), filepath.Join(dir, "go")
	w := newDaemonWorld(t, "tool;touch:"+ready+";await:"+goOn+";wait-wake;wait-wake;push;result")
	w.riff("resume", "--riff")
	first := w.startDaemon()
	if out, errOut, code := w.riff("run", "issue-4"); code != 0 {
		t.Fatalf("riff run = %d %s %s", code, out, errOut)
	}
	waitForFile(t, ready)
	id := sessionOf(t, w.until("who", []string{"who"}, "container"), "container")
	if _, errOut, code := w.riff("tell", id, "one"); code != 0 {
		t.Fatalf("riff tell = %d %s", code, errOut)
	}
	w.waitInput("(message 1)")
	// A crash of the daemon: the container runs on.
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-first.done
	second := w.startDaemon()
	second.waitErr("riff daemon takes over a session")
	if who, _, _ := w.riff("who"); !strings.Contains(who, "container") {
		t.Errorf("who after the new start of the daemon = %s; want the container session", who)
	}
	if _, errOut, code := w.riff("tell", id, "two"); code != 0 {
		t.Fatalf("riff tell after the new start = %d %s", code, errOut)
	}
	w.waitInput("(message 2)")
	if err := os.WriteFile(goOn, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	w.until("the end", []string{"who", "--all"}, "ended")
	b, _ := os.ReadFile(w.input)
	for _, m := range []string{"(message 1)", "(message 2)"} {
		if n := strings.Count(string(b), m); n != 1 {
			t.Errorf("the wake of %s came %d times into the input; want once:\n%s", m, n, b)
		}
	}
	if out, err := exec.Command("git", "--git-dir", w.origin, "branch", "--list", "worktree-issue-4").Output(); err != nil || !strings.Contains(string(out), "worktree-issue-4") {
		t.Errorf("origin has no branch worktree-issue-4: %q %v", out, err)
	}
}

func TestGivenAWakeAfterTheLastToolCallWhenTheFirstTurnEndsThenItGetsTheDirectAnswerAndNoSecondTurnRuns(t *testing.T) {
	dir := t.TempDir()
	ready, answer, never := filepath.Join(dir, "ready"), filepath.Join(dir, "answer"), filepath.Join(dir, "never")
	// The tell comes while claude writes its last answer: no tool call
	// follows it, so it would run as a second turn.
	w := newDaemonWorld(t, "tool;touch:"+ready+";await:"+answer+";result;await:"+never)
	w.riff("resume", "--riff")
	w.startDaemon()
	if out, errOut, code := w.riff("run", "issue-5"); code != 0 {
		t.Fatalf("riff run = %d %s %s", code, out, errOut)
	}
	waitForFile(t, ready)
	id := sessionOf(t, w.until("who", []string{"who"}, "container"), "container")
	if _, errOut, code := w.riff("tell", id, "one more thing"); code != 0 {
		t.Fatalf("riff tell = %d %s", code, errOut)
	}
	w.waitInput("(message 1)")
	if err := os.WriteFile(answer, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	read := w.until("the direct answer", []string{"read"}, "does not read your message 1 in a direct message")
	if !strings.Contains(read, "riff: the session "+id+" ended its work") {
		t.Errorf("read = %s; want the direct answer of the daemon", read)
	}
	w.until("the end", []string{"who", "--all"}, "ended")
	if b, _ := os.ReadFile(w.input); strings.Contains(string(b), "second turn") {
		t.Errorf("claude ran a second turn for the wake: %s", b)
	}
}

func TestGivenANewRiffOnDiskWhenTheDaemonOwnsASessionThenItStartsAgainOnlyAfterItsLastSession(t *testing.T) {
	dir := t.TempDir()
	ready, leave := filepath.Join(dir, "ready"), filepath.Join(dir, "leave")
	w := newDaemonWorld(t, "tool;touch:"+ready+";await:"+leave+";push;result")
	w.env = append(w.env, "RIFF_DAEMON_NEW_RIFF_EVERY=50ms")
	// The daemon runs a riff of its own, which the test replaces.
	daemonRiff := filepath.Join(dir, "riff")
	if err := copyFile(w.daemonRiff, daemonRiff); err != nil {
		t.Fatal(err)
	}
	w.riff("resume", "--riff")
	cmd := exec.Command(daemonRiff, "daemon", "run")
	cmd.Dir = w.main
	cmd.Env = append(riffEnv(w.srv.url(), ""), w.env...)
	p := &proc{t: t, cmd: cmd, done: make(chan struct{}), what: "riff daemon run", limit: 60 * time.Second}
	cmd.Stdout, cmd.Stderr = &p.stdout, &p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(p.stop)
	p.waitErr("riff daemon runs")
	if out, errOut, code := w.riff("run", "issue-6"); code != 0 {
		t.Fatalf("riff run = %d %s %s", code, out, errOut)
	}
	waitForFile(t, ready)
	// A new riff on disk: a rename over the old file, as an update does.
	fresh := daemonRiff + ".new"
	if err := copyFile(filepath.Join(w.bin, "riff"), fresh); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(fresh, daemonRiff); err != nil {
		t.Fatal(err)
	}
	p.waitErr("It starts again on the new riff after its last session.")
	select {
	case <-p.done:
		t.Fatal("the daemon ended while it owned a session")
	default:
	}
	if err := os.WriteFile(leave, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p.waitErr("a new riff is on disk, and no session runs. The daemon starts again on it.")
	select {
	case <-p.done:
	case <-time.After(time.Minute):
		t.Fatal("the daemon did not end after its last session")
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("the daemon ended with %d; want 0, so that the unit starts the new riff", code)
	}
}

func TestGivenALiveContainerWhenRiffServerStartsAgainThenTheWakeComesOnceAndTheSessionEnds(t *testing.T) {
	dir := t.TempDir()
	ready, goOn := filepath.Join(dir, "ready"), filepath.Join(dir, "go")
	w := newDaemonWorld(t, "tool;touch:"+ready+";await:"+goOn+";wait-wake;push;result")
	w.riff("resume", "--riff")
	w.startDaemon()
	if out, errOut, code := w.riff("run", "issue-8"); code != 0 {
		t.Fatalf("riff run = %d %s %s", code, out, errOut)
	}
	waitForFile(t, ready)
	id := sessionOf(t, w.until("who", []string{"who"}, "container"), "container")
	w.srv.restart()
	// The keep-alives and the watch of the daemon come back: the session
	// stays, and a tell reaches its input once.
	w.until("who after the new start of riff-server", []string{"who"}, " container ")
	if _, errOut, code := w.riff("tell", id, "after the restart"); code != 0 {
		t.Fatalf("riff tell = %d %s", code, errOut)
	}
	w.waitInput("(message 1)")
	if err := os.WriteFile(goOn, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	w.until("the end", []string{"who", "--all"}, "ended")
	if b, _ := os.ReadFile(w.input); strings.Count(string(b), "(message 1)") != 1 {
		t.Errorf("the input of claude = %s; want the wake once", b)
	}
	if out, err := exec.Command("git", "--git-dir", w.origin, "branch", "--list", "worktree-issue-8").Output(); err != nil || !strings.Contains(string(out), "worktree-issue-8") {
		t.Errorf("origin has no branch worktree-issue-8: %q %v", out, err)
	}
}

// mikeGitEnv makes each commit of a test mike's.
var mikeGitEnv = []string{"GIT_AUTHOR_NAME=mike", "GIT_AUTHOR_EMAIL=mike@example.com", "GIT_COMMITTER_NAME=mike", "GIT_COMMITTER_EMAIL=mike@example.com"}

// makeOrigin makes the bare origin of the world with one commit of
// riff.toml (the text toml) on main, pushed from its main clone, and
// gives the git of the test, as mike.
func (w *daemonWorld) makeOrigin(root, toml string) func(dir string, args ...string) {
	t := w.t
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), mikeGitEnv...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(root, "init", "--quiet", "--bare", "--initial-branch=main", w.origin)
	git(root, "clone", "--quiet", w.origin, w.main)
	git(w.main, "config", "user.name", "mike")
	git(w.main, "config", "user.email", "mike@example.com")
	if err := os.WriteFile(filepath.Join(w.main, "riff.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	git(w.main, "checkout", "--quiet", "-b", "main")
	git(w.main, "add", "riff.toml")
	git(w.main, "commit", "--quiet", "-m", "riff.toml")
	git(w.main, "push", "--quiet", "origin", "main")
	return git
}
