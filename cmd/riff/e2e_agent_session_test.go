package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
