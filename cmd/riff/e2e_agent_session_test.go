package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/como-technologies/riff/riffclient/door"
)

// TestGivenClaudeCodesSessionIDInTheEnvWhenTheRelayTheHookAndTheWatchRunThenTheyAreOneSession:
// Claude Code gives CLAUDE_CODE_SESSION_ID to its MCP server, to each
// hook and to the command of a Monitor, and sets no RIFF_SESSION. The
// relay, a hook (whose input names another ID, or none) and the watch
// (with no session file of a Claude Code among its parents) are then one
// session: the relay claims for it, who shows the fact of the hook on
// its row, a tell wakes the watch, and the read tool of the relay gives
// the message.
func TestGivenClaudeCodesSessionIDInTheEnvWhenTheRelayTheHookAndTheWatchRunThenTheyAreOneSession(t *testing.T) {
	bin := buildRelayBinaries(t)
	srv := startServer(t, bin, freePort(t), t.TempDir())
	server := srv.url()
	repo := repoDir(t)
	home := t.TempDir()
	const id, other = "5e55a0e1-1111-4a5b-8c9d-0e1f2a3b4c5d", "0aa0bb11-cccc"
	agent := []string{door.AgentSessionEnv + "=" + id, "RIFF_HOME=" + home, "CLAUDE_CONFIG_DIR=" + t.TempDir()}
	cliText(t, bin, repo, server, "", "resume", "--riff")

	relay := startRelay(t, bin, repo, server, "", append([]string{keepAliveEnv + "=50ms"}, agent...)...)
	if got := relay.ok("claim", map[string]any{"item": "issue-41"}); !strings.Contains(got, "issue-41") {
		t.Fatalf("claim gives %q", got)
	}
	if strings.Contains(relay.stderr.String(), "made a new session ID") {
		t.Errorf("the relay made a session ID with CLAUDE_CODE_SESSION_ID set:\n%s", relay.stderr.String())
	}

	raw, err := os.ReadFile(filepath.Join("testdata", "hooks", "03-pre-tool-use-bash.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, input := range []string{string(raw), strings.Replace(string(raw), `"session_id":"c1d2e3f4-0000-4a5b-8c9d-0e1f2a3b4c5d",`, "", 1)} {
		cmd := exec.Command(filepath.Join(bin, "riff"), "relay", "hook")
		cmd.Dir = repo
		cmd.Env = append(riffEnv(server, ""), agent...)
		cmd.Stdin = strings.NewReader(input)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
			t.Fatalf("riff relay hook: %v, output %q; want exit 0 and no output", err, out)
		}
	}
	if f, _ := (door.Files{Dir: filepath.Join(home, "state")}).ReadFact("c1d2e3f4-0000-4a5b-8c9d-0e1f2a3b4c5d"); f != (door.Fact{}) {
		t.Errorf("the hook kept its fact under the session_id of its input; want the ID of CLAUDE_CODE_SESSION_ID")
	}
	deadline := time.Now().Add(20 * time.Second)
	for row := ""; !strings.Contains(row, "runs Bash: Run the tests of the relay"); row = whoRow(t, bin, repo, server, id[:4]) {
		if time.Now().After(deadline) {
			t.Fatalf("riff who shows %q for the session of CLAUDE_CODE_SESSION_ID; want the fact of its hook", row)
		}
		time.Sleep(20 * time.Millisecond)
	}

	watch := startWatchEnv(t, bin, repo, server, "", home, agent)
	if stdout, stderr, code := runRiff(t, bin, repo, server, other, "tell", id[:8], "the review of #41 is yours"); code != 0 {
		t.Fatalf("riff tell: exit %d\n%s%s", code, stdout, stderr)
	}
	watch.waitOut("wake: mike@pangolin:app (0aa0) wrote to you in a direct message (message 1)\n")
	watch.exited()
	if read := relay.ok("read", nil); !strings.Contains(read, "the review of #41 is yours") {
		t.Errorf("the read tool of the relay does not give the message that woke the watch:\n%s", read)
	}
}

// claudeRedaction is the rule by which Claude Code (2.1.332) hides a
// secret in the log lines that it keeps: a word that names a secret
// (session_id among them), then "=" or ":", then the value, which it
// replaces with [REDACTED]. Its source: the sensitiveAssign pattern of
// the Claude Code CLI.
var claudeRedaction = regexp.MustCompile(`(?i)(api[_-]?key|secret|token|password|passwd|credential|bearer|authorization|auth[_-]?header|cookie|session[_-]?(?:id|key)|connection[_-]?string|(?:private|ssh|encryption|signing|access|deploy|master|license)[_-]?key|client[_-]?secret)[\w.-]{0,256}["']?\s*[=:]`)

// TestGivenARelayWithNoSessionIDWhenItEndsThenItsLinesAreInTheRelayLogOfTheLocalFolderAndReadThroughTheRedactionOfClaudeCode:
// the relay keeps its lines in relay.log of the local folder as well as
// on stderr, the last one (the end) too; no line holds a word that the
// redaction of Claude Code takes for a secret before a colon, as the old
// line "…CLAUDE_SESSION_ID: it made one" did.
func TestGivenARelayWithNoSessionIDWhenItEndsThenItsLinesAreInTheRelayLogOfTheLocalFolderAndReadThroughTheRedactionOfClaudeCode(t *testing.T) {
	if !claudeRedaction.MatchString("riff relay mcp has no session ID from RIFF_SESSION, --session or CLAUDE_SESSION_ID: it made one") {
		t.Fatal("the redaction rule of the test does not take the old line")
	}
	bin := buildRelayBinaries(t)
	srv := startServer(t, bin, freePort(t), t.TempDir())
	repo := repoDir(t)
	home := t.TempDir()
	relay := startRelay(t, bin, repo, srv.url(), "", "RIFF_HOME="+home)
	relay.ok("whoami", nil)
	stderr := relay.endRelay()
	raw, err := os.ReadFile(filepath.Join(home, "state", door.RelayLogName))
	if err != nil {
		t.Fatalf("the relay kept no log in the local folder: %v", err)
	}
	file := string(raw)
	for _, want := range []string{"riff relay mcp made a new session ID, because neither --session nor the env vars RIFF_SESSION and CLAUDE_CODE_SESSION_ID named one", "riff relay mcp ended the session"} {
		if !strings.Contains(file, want) {
			t.Errorf("relay.log does not hold %q:\n%s", want, file)
		}
	}
	if file != stderr {
		t.Errorf("relay.log holds:\n%s\nstderr:\n%s\nwant the same lines", file, stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(file), "\n") {
		if loc := claudeRedaction.FindStringIndex(line); loc != nil {
			t.Errorf("Claude Code would redact the line after %q: %s", line[loc[0]:loc[1]], line)
		}
	}
}

// TestGivenAnAgentToolThatClosedTheStderrOfTheRelayWhenTheRelayEndsThenItSendsItsEndAndItsLastLinesAreInTheFile:
// Claude Code keeps the stderr of a stdio server only while it is
// connected. A relay whose stderr is gone still sends its end (a line on
// a closed stderr does not end it by SIGPIPE), exits 0, and its last
// line is in relay.log.
func TestGivenAnAgentToolThatClosedTheStderrOfTheRelayWhenTheRelayEndsThenItSendsItsEndAndItsLastLinesAreInTheFile(t *testing.T) {
	bin := buildRelayBinaries(t)
	srv := startServer(t, bin, freePort(t), t.TempDir())
	server := srv.url()
	repo := repoDir(t)
	home := t.TempDir()
	const session = "c105ed00-4444"
	cliText(t, bin, repo, server, "", "resume", "--riff")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "riff"), "relay", "mcp")
	cmd.Dir = repo
	cmd.Env = append(riffEnv(server, session), "RIFF_HOME="+home)
	cmd.Stderr = w
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "riff-test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to riff relay mcp: %v", err)
	}
	relay := &mcpRelay{t: t, cmd: cmd, session: cs, stderr: &syncBuffer{}}
	relay.ok("claim", map[string]any{"item": "issue-44"})
	// The agent tool is gone: no reader of the stderr of the relay.
	w.Close()
	r.Close()
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("the relay with a closed stderr exit %d (%v); want 0", code, cmd.ProcessState)
	}
	raw, _ := os.ReadFile(filepath.Join(home, "state", door.RelayLogName))
	if !strings.Contains(string(raw), "riff relay mcp ended the session") {
		t.Errorf("relay.log does not hold the end:\n%s", raw)
	}
	if holdsClaim(t, bin, repo, server, "issue-44") {
		t.Error("the relay with a closed stderr did not end its session")
	}
}

// TestGivenClaudeCodesSessionIDInTheEnvWhenThePermissionDeniedHookRunsThenItsRecordNamesThatSession:
// riff relay denied takes CLAUDE_CODE_SESSION_ID before the session_id of
// its input, as riff relay hook does.
func TestGivenClaudeCodesSessionIDInTheEnvWhenThePermissionDeniedHookRunsThenItsRecordNamesThatSession(t *testing.T) {
	bin := buildRiff(t, "riff")
	repo := repoDir(t)
	home := t.TempDir()
	const id = "e0e0e0e0-5555-4a5b-8c9d-0e1f2a3b4c5d"
	env := []string{"RIFF_HOME=" + home, door.AgentSessionEnv + "=" + id}
	if _, stderr, code := runDeniedHook(t, bin, repo, "http://"+freePort(t), env, deniedHookInput(t, "bash-push.json", repo)); code != exitOK {
		t.Fatalf("riff relay denied: exit %d, %s", code, stderr)
	}
	folder := filepath.Join(home, "state")
	waiting := waitingFiles(t, folder)
	if len(waiting) != 1 {
		t.Fatalf("the outbox holds %v; want one record", waiting)
	}
	raw, err := os.ReadFile(filepath.Join(folder, "denied", waiting[0]))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), id) || strings.Contains(string(raw), "25456ff6-8e0f") {
		t.Errorf("the record of the refusal is:\n%s\nwant the session of CLAUDE_CODE_SESSION_ID, not the session_id of the input", raw)
	}
	// The detached sender tries the server (there is none) and writes its
	// line in the folder: wait for it, so that the folder can go.
	waitSends(t, folder, 1)
}
