package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The test of docs/agents.md with the real Claude Code: the CLI from npm,
// installed once into the cache folder of the user, and driven by the
// stand-in Messages API of tools/messagesfake.

// claudeCodeVersion is the build of Claude Code that issue 21 tried and
// that docs/agents.md names.
const claudeCodeVersion = "2.1.332"

// claudeCode gives the path of the claude binary of claudeCodeVersion. It
// installs it with npm into the cache folder of the user
// (os.UserCacheDir()/riff-test/claude-code-VERSION) at the first run, and
// takes that install at the later ones. With no npm, or when npm cannot
// install it (no network), the test skips and says why.
func claudeCode(t *testing.T) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("the test of docs/agents.md with Claude Code skips: no cache folder to install it into (%v)", err)
	}
	dir := filepath.Join(cache, "riff-test", "claude-code-"+claudeCodeVersion)
	if bin, ok := claudeCodeIn(dir); ok {
		return bin
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skipf("the test of docs/agents.md with Claude Code skips: npm is not on the PATH, and it installs @anthropic-ai/claude-code@%s", claudeCodeVersion)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	// Install beside, then rename: a run that stops half-way leaves no
	// install that looks whole.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", tmp, "--no-audit", "--no-fund", "--no-save",
		"@anthropic-ai/claude-code@"+claudeCodeVersion)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("the test of docs/agents.md with Claude Code skips: npm install @anthropic-ai/claude-code@%s failed: %v\n%s", claudeCodeVersion, err, lastLines(string(out), 10))
	}
	if err := os.Rename(tmp, dir); err != nil && !os.IsExist(err) {
		if _, ok := claudeCodeIn(dir); !ok {
			t.Fatalf("keep the install of Claude Code: %v", err)
		}
	}
	bin, ok := claudeCodeIn(dir)
	if !ok {
		t.Fatalf("npm installed @anthropic-ai/claude-code@%s into %s, but its claude does not say that version", claudeCodeVersion, dir)
	}
	return bin
}

// claudeCodeIn gives the claude of an install in dir when it runs and says
// claudeCodeVersion: the bin of the package (a copy of the binary of the
// platform, made by its postinstall), else that binary itself.
func claudeCodeIn(dir string) (string, bool) {
	matches, _ := filepath.Glob(filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code-*", "claude"))
	for _, bin := range append([]string{filepath.Join(dir, "node_modules", ".bin", "claude")}, matches...) {
		out, err := exec.Command(bin, "--version").Output()
		if err == nil && strings.HasPrefix(string(out), claudeCodeVersion+" ") {
			return bin, true
		}
	}
	return "", false
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// agentsPage is the set-up of docs/agents.md that a person copies.
type agentsPage struct {
	// mcp is the .mcp.json of the repository; settings its
	// .claude/settings.json; trust the entry of ~/.claude.json that
	// trusts the folder, for its example folder.
	mcp, settings, trust []byte
	// monitor is the command of the Monitor of the lead.
	monitor string
}

// readAgentsPage reads the blocks of the set-up from docs/agents.md.
func readAgentsPage(t *testing.T) agentsPage {
	t.Helper()
	var p agentsPage
	for _, block := range jsonBlocks(t, filepath.Join("..", "..", "docs", "agents.md")) {
		switch {
		case strings.Contains(block, `"mcpServers"`) && p.mcp == nil:
			p.mcp = []byte(block)
		case strings.Contains(block, `"enabledMcpjsonServers"`) && p.settings == nil:
			p.settings = []byte(block)
		case strings.Contains(block, `"hasTrustDialogAccepted"`) && p.trust == nil:
			p.trust = []byte(block)
		}
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "agents.md"))
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile("Start a Monitor with the command `([^`]+)`").FindSubmatch(raw); m != nil {
		p.monitor = string(m[1])
	}
	var missing []string
	for what, v := range map[string]bool{
		"the .mcp.json block (mcpServers)":                          p.mcp != nil,
		"the .claude/settings.json block (enabledMcpjsonServers)":   p.settings != nil,
		"the block that trusts the folder (hasTrustDialogAccepted)": p.trust != nil,
		"the Monitor line (Start a Monitor with the command `...`)": p.monitor != "",
	} {
		if !v {
			missing = append(missing, what)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("docs/agents.md lacks %s", strings.Join(missing, ", "))
	}
	return p
}

// trustFolder writes the trust entry of the page into the ~/.claude.json
// of home, for the folder dir in place of the folder of the page.
func (p agentsPage) trustFolder(t *testing.T, home, dir string) {
	t.Helper()
	var entry map[string]any
	if err := json.Unmarshal(p.trust, &entry); err != nil {
		t.Fatalf("the trust block of docs/agents.md is no JSON: %v\n%s", err, p.trust)
	}
	projects, _ := entry["projects"].(map[string]any)
	if len(projects) != 1 {
		t.Fatalf("the trust block of docs/agents.md names %d folders under projects; want one (the folder of the example)", len(projects))
	}
	for example, v := range projects {
		delete(projects, example)
		projects[dir] = v
	}
	raw, err := json.Marshal(entry)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond until it holds or d passes; then the test fails with
// what and the last note of cond.
func waitFor(t *testing.T, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		ok, note := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s\n%s", what, d, note)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// goldenTools gives the tools of riff relay mcp from their golden list
// (testdata/mcp/tools-list.golden, which the golden test of the relay
// keeps true), by name.
func goldenTools(t *testing.T) map[string]goldenTool {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "mcp", "tools-list.golden"))
	if err != nil {
		t.Fatal(err)
	}
	var list []goldenTool
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	byName := map[string]goldenTool{}
	for _, tool := range list {
		byName[tool.Name] = tool
	}
	return byName
}

type goldenTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// sameJSON gives the difference of two JSON texts as values ("" when they
// are the same).
func sameJSON(a, b []byte) string {
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		return fmt.Sprintf("no JSON: %v", err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		return fmt.Sprintf("no JSON: %v", err)
	}
	return cmp.Diff(va, vb)
}

// claudeRun is one claude process of the test.
type claudeRun struct {
	cmd    *exec.Cmd
	out    syncBuffer
	done   chan struct{}
	exited time.Time
}

func startClaude(t *testing.T, claude, dir string, env []string, args ...string) *claudeRun {
	t.Helper()
	r := &claudeRun{done: make(chan struct{})}
	r.cmd = exec.Command(claude, args...)
	r.cmd.Dir = dir
	r.cmd.Env = env
	r.cmd.Stdout, r.cmd.Stderr = &r.out, &r.out
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("start claude: %v", err)
	}
	go func() {
		_ = r.cmd.Wait()
		r.exited = time.Now()
		close(r.done)
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = r.cmd.Process.Kill()
			<-r.done
		}
	})
	return r
}

func (r *claudeRun) running() bool {
	select {
	case <-r.done:
		return false
	default:
		return true
	}
}

// wait waits until claude exits, at most d.
func (r *claudeRun) wait(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(d):
		t.Fatalf("claude did not exit within %s\n%s", d, r.out.String())
	}
}

// interactiveStart starts claude in a terminal of its own (tmux) in dir,
// as a person starts it after Step 6 of docs/agents.md, and gives what
// the terminal shows once Claude Code waits for a prompt, with the page
// of /mcp. The home must have the first start of Claude Code done
// (hasCompletedOnboarding: its first start checks the network); the
// test answers "Yes" to the API key of the env as a person would. It
// fails when Claude Code asks for the trust of the folder or the approval
// of the riff server: the set-up of the page must need neither. With no
// tmux it skips that part and says why.
func interactiveStart(t *testing.T, claude, dir, home string, env []string) string {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Log("tmux is not installed: the interactive start of Claude Code is not tried")
		return ""
	}
	path := filepath.Join(home, ".claude.json")
	var config map[string]any
	raw, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(raw, &config)
	}
	if err != nil {
		t.Fatalf("read the config of Claude Code: %v", err)
	}
	config["hasCompletedOnboarding"] = true
	if raw, err = json.Marshal(config); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "claude.sh")
	var b strings.Builder
	b.WriteString("exec env -i")
	for _, kv := range append(append([]string(nil), env...), "TERM=xterm-256color") {
		b.WriteString(" '" + strings.ReplaceAll(kv, "'", `'\''`) + "'")
	}
	b.WriteString(" '" + claude + "'\n")
	if err := os.WriteFile(script, []byte(b.String()), 0o700); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	out, err := exec.Command(tmux, "-S", sock, "new-session", "-d", "-s", "claude", "-x", "120", "-y", "40", "-c", dir, "-P", "-F", "#{pane_pid}", "sh "+script).CombinedOutput()
	if err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	// The pane's process is claude (the script execs it): the cleanup
	// waits until it is gone, so that it writes no more into the home
	// that the test removes.
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("tmux gave no pid of its pane: %q", out)
	}
	t.Cleanup(func() {
		_ = exec.Command(tmux, "-S", sock, "kill-server").Run()
		deadline := time.Now().Add(10 * time.Second)
		for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if syscall.Kill(pid, 0) == nil {
			t.Logf("the claude of the terminal did not exit in 10 s after the end of tmux: killed")
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	pane := func() string {
		out, _ := exec.Command(tmux, "-S", sock, "capture-pane", "-p", "-t", "claude").Output()
		return string(out)
	}
	keys := func(k ...string) {
		if out, err := exec.Command(tmux, append([]string{"-S", sock, "send-keys", "-t", "claude"}, k...)...).CombinedOutput(); err != nil {
			t.Fatalf("tmux send-keys: %v: %s", err, out)
		}
	}
	answered := false
	waitFor(t, 60*time.Second, "the interactive claude waits for a prompt", func() (bool, string) {
		p := pane()
		switch {
		case strings.Contains(p, "Quick safety check"), strings.Contains(p, "New MCP server found"):
			t.Fatalf("the interactive start with the set-up of docs/agents.md asks for a trust or an approval:\n%s", p)
		case strings.Contains(p, "Do you want to use this API key?") && !answered:
			keys("Up", "Enter")
			answered = true
		case strings.Contains(p, "Claude Code v") && strings.Contains(p, "❯") && !strings.Contains(p, "Enter to confirm"):
			return true, ""
		}
		return false, p
	})
	keys("-l", "/mcp")
	keys("Enter")
	var shown string
	waitFor(t, 30*time.Second, "/mcp lists the riff server", func() (bool, string) {
		shown = pane()
		return strings.Contains(shown, "MCP servers") && strings.Contains(shown, " riff "), shown
	})
	return shown
}
