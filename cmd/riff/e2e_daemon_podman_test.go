package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	mf "github.com/como-technologies/riff/tools/messagesfake"
)

// The end to end of the riff daemon with podman and the real Claude Code
// (docs/daemon.md, "Tests"). .ci/daemon-e2e installs podman, runc and
// Claude Code, imports the image, and runs this test with the pinned
// image in RIFF_E2E_IMAGE; with none, it skips.

// workerModel is the script of the model of the worker: the status tool
// of riff, a commit, a wait for the test, the push, and the last answer,
// which waits for the test too.
type workerModel struct {
	mu      sync.Mutex
	atWait  chan struct{} // closed when the model waits for the go file
	atFinal chan struct{} // closed when the last answer is asked for
	final   chan struct{} // the test closes it to let the last answer go
	sawWake int           // the requests that held the first wake
	sawLate int           // the requests that held the second one
	last    string        // the text of the last request of the conversation
	claims  bool          // a request offered the claim tool of riff
	once    map[string]bool
}

func newWorkerModel() *workerModel {
	return &workerModel{atWait: make(chan struct{}), atFinal: make(chan struct{}), final: make(chan struct{}), once: map[string]bool{}}
}

func (m *workerModel) signal(name string, c chan struct{}) {
	if !m.once[name] {
		m.once[name] = true
		close(c)
	}
}

func (m *workerModel) reply(r *mf.Request) mf.Reply {
	seen := r.Seen()
	if !strings.Contains(seen, "You are the worker session of issue-1") {
		return mf.Reply{Text: "ok"}
	}
	m.mu.Lock()
	m.last = seen
	if _, ok := r.Tool("mcp__riff__claim"); ok || deferred(r, "mcp__riff__claim") {
		m.claims = true
	}
	if strings.Contains(seen, "(message 1)") {
		m.sawWake++
	}
	late := strings.Contains(r.Turn().Prompt, "(message 2)")
	if late {
		m.sawLate++
	}
	m.mu.Unlock()
	if late {
		// A second turn for the message after the last tool call: the
		// relay stops claude before it runs this call. If it ran, the
		// clone would hold work that is not on origin.
		return mf.Reply{Calls: []mf.ToolUse{{Name: "Bash", Input: map[string]any{"command": "echo second > second-turn.txt", "description": "a second turn"}}}}
	}
	done := 0
	for _, c := range r.Turn().Calls {
		if c.Done && c.Name != "ToolSearch" {
			done++
		}
	}
	bash := func(cmd, what string) mf.Reply {
		return mf.Reply{Calls: []mf.ToolUse{{Name: "Bash", Input: map[string]any{"command": cmd, "description": what}}}}
	}
	switch done {
	case 0:
		if deferred(r, "mcp__riff__status") && !strings.Contains(seen, "ToolSearch") {
			return mf.Reply{Calls: []mf.ToolUse{{Name: "ToolSearch", Input: map[string]any{"query": "select:mcp__riff__status", "max_results": 1}}}}
		}
		return mf.Reply{Calls: []mf.ToolUse{{Name: "mcp__riff__status", Input: map[string]any{"text": "writes the work of issue-1"}}}}
	case 1:
		return bash("echo work > notes.txt && git add notes.txt && git commit -qm 'the work of issue-1'", "commit the work")
	case 2:
		m.mu.Lock()
		m.signal("wait", m.atWait)
		m.mu.Unlock()
		return bash("until [ -f /run/riff/go ]; do sleep 0.2; done", "wait for the test")
	case 3:
		return bash("git push -q origin worktree-issue-1", "push the branch")
	}
	m.mu.Lock()
	m.signal("final", m.atFinal)
	m.mu.Unlock()
	<-m.final
	return mf.Reply{Text: "The work of issue-1 is pushed."}
}

func deferred(r *mf.Request, name string) bool {
	for _, d := range r.Deferred() {
		if d == name {
			return true
		}
	}
	return false
}

func waitClosed(t *testing.T, c chan struct{}, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(3 * time.Minute):
		t.Fatalf("the model never came to %s", what)
	}
}

func TestDaemonEndToEndWithPodmanAndClaudeCode(t *testing.T) {
	image := os.Getenv("RIFF_E2E_IMAGE")
	if image == "" {
		t.Skip("the end to end of the daemon with podman skips: RIFF_E2E_IMAGE names no image; .ci/daemon-e2e imports it and runs this test")
	}
	bin := buildRelayBinaries(t)
	static := filepath.Join(t.TempDir(), "riff")
	build := exec.Command("go", "build", "-o", static, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build a static riff: %v\n%s", err, out)
	}
	model := newWorkerModel()
	fake, err := mf.New(mf.Options{Script: model.reply})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fake.Close() })
	defer func() {
		select {
		case <-model.final:
		default:
			close(model.final)
		}
	}()

	// The static riff is the daemon's and the one bound in the container.
	w := &daemonWorld{t: t, bin: bin, srv: startServer(t, bin, freePort(t), t.TempDir()), daemonRiff: static}
	root := t.TempDir()
	w.origin, w.main = filepath.Join(root, "origin.git"), filepath.Join(root, "app")
	short, err := os.MkdirTemp("", "rd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(short) })
	w.state = short
	home := filepath.Join(root, "home")
	w.makeOrigin(root, "[session]\nimage = \""+image+"\"\n")
	w.env = append([]string{
		"HOME=" + home, "RIFF_HOME=" + w.state, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"RIFF_DAEMON_RIFF=" + static, "RIFF_CLAUDE_ARGS=--allowedTools Bash",
		"ANTHROPIC_BASE_URL=" + fake.URL(), "ANTHROPIC_API_KEY=sk-ant-test-not-a-key",
		"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1",
	}, mikeGitEnv...)
	// The options of podman as docs/daemon.md gives them.
	w.env = append(w.env, pageExports(t)...)
	w.riff("resume", "--riff")
	first := w.startDaemon()
	out, errOut, code := w.riff("run", "issue-1")
	if code != 0 {
		t.Fatalf("riff run issue-1 = %d\n%s%s", code, out, errOut)
	}
	t.Cleanup(func() {
		if t.Failed() {
			model.mu.Lock()
			t.Logf("the last request of the worker's conversation:\n%s", model.last)
			model.mu.Unlock()
			logs, _ := exec.Command("podman", append(strings.Fields(os.Getenv("RIFF_E2E_PODMAN_OPTIONS")), "ps", "-a")...).CombinedOutput()
			t.Logf("podman ps -a:\n%s", logs)
		}
	})
	waitClosed(t, model.atWait, "its wait for the test")

	// The two rows of who, and the status that the riff tool set through
	// the socket of the session.
	// The fact of the hooks of Claude Code (riff relay hook in the
	// container) reaches who through the keep-alive of the daemon.
	who := w.until("who", []string{"who"}, " daemon ", " container ", "writes the work of issue-1", "runs Bash: wait for the test")
	id := sessionOf(t, who, "container")
	socks, _ := os.ReadDir(filepath.Join(w.state, "state", "s"))
	if len(socks) != 1 {
		t.Fatalf("the folders of the sockets = %v; want one", socks)
	}
	sockDir := filepath.Join(w.state, "state", "s", socks[0].Name())
	record := filepath.Join(w.state, "state", "daemon", "sessions", socks[0].Name(), "session.json")

	// A crash of the daemon under the live container: a new daemon takes
	// it over.
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-first.done
	second := w.startDaemon()
	second.waitErr("riff daemon takes over a session")

	// A tell reaches the session mid-turn.
	if _, errOut, code := w.riff("tell", id, "Use the new error type of #1063."); code != 0 {
		t.Fatalf("riff tell = %d %s", code, errOut)
	}
	waitGiven(t, record, 1)
	if err := os.WriteFile(filepath.Join(sockDir, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// A message after the last tool call: the session never sees it, and
	// its sender gets the direct answer.
	waitClosed(t, model.atFinal, "its last answer")
	if _, errOut, code := w.riff("tell", id, "one more thing"); code != 0 {
		t.Fatalf("riff tell = %d %s", code, errOut)
	}
	waitGiven(t, record, 2)
	close(model.final)

	w.until("the end", []string{"who", "--all"}, "ended")
	model.mu.Lock()
	sawWake, sawLate := model.sawWake, model.sawLate
	model.mu.Unlock()
	if sawWake == 0 {
		t.Error("the model never saw the tell in its turn")
	}
	model.mu.Lock()
	if model.claims {
		t.Error("claude offered the claim tool of riff to a session in a container: its tools are whoami, who, threads, read, post, tell, status and blocked")
	}
	model.mu.Unlock()
	if sawLate != 0 {
		t.Logf("claude asked the model %d times for a second turn before the relay stopped it", sawLate)
	}
	if out, err := exec.Command("git", "--git-dir", w.origin, "branch", "--list", "worktree-issue-1").Output(); err != nil || !strings.Contains(string(out), "worktree-issue-1") {
		t.Errorf("origin has no branch worktree-issue-1: %q %v", out, err)
	}
	read := w.until("the direct answer", []string{"read"}, "riff: the session "+id+" ended its work, and does not read your message 2 in a direct message")
	if n := strings.Count(read, "ended its work"); n != 1 {
		t.Errorf("%d direct answers; want 1:\n%s", n, read)
	}
	w.until("the daemon has no session", []string{"daemon", "status"}, "sessions     0")
	ps, _ := exec.Command("podman", append(strings.Fields(os.Getenv("RIFF_E2E_PODMAN_OPTIONS")), "ps", "-a", "--format", "{{.Names}}")...).Output()
	if strings.Contains(string(ps), "riff-issue-1-") {
		t.Errorf("the container stays: %s", ps)
	}
	if _, err := os.Stat(filepath.Join(w.state, "state", "daemon", "sessions", socks[0].Name())); !os.IsNotExist(err) {
		t.Errorf("the folder of the session stays: %v", err)
	}
	if _, _, code := w.riff("tell", id, "and now?"); code == 0 {
		t.Error("a tell after the end went through")
	}
}

// waitGiven waits until the record of a session holds n given wakes.
func waitGiven(t *testing.T, record string, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var k struct {
			Given []json.RawMessage `json:"given"`
		}
		if b, err := os.ReadFile(record); err == nil && json.Unmarshal(b, &k) == nil && len(k.Given) >= n {
			return
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(record)
			t.Fatalf("the session was given no wake %d: %s", n, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
