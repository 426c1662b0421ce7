package local

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestGivenAClaudeCodeAmongTheParentsWhenAWatchStartsThenItTakesItsSession(t *testing.T) {
	config := t.TempDir()
	if err := os.MkdirAll(filepath.Join(config, "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(pid int, body string) {
		if err := os.WriteFile(filepath.Join(config, "sessions", fmt.Sprintf("%d.json", pid)), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// claude (100) runs bash (200), which runs riff relay watch (300).
	write(100, `{"pid":100,"sessionId":"736848ea-e359-4f8c-9e44-7f2dea2ad9b1","cwd":"/src/app"}`)
	// Another Claude Code on the machine.
	write(150, `{"pid":150,"sessionId":"11111111-2222-3333-4444-555555555555"}`)
	parents := map[int]int{300: 200, 200: 100, 100: 1, 400: 1}
	parent := func(pid int) (int, error) {
		p, ok := parents[pid]
		if !ok {
			return 0, fmt.Errorf("no process %d", pid)
		}
		return p, nil
	}
	env := func(k string) string { return map[string]string{"CLAUDE_CONFIG_DIR": config}[k] }
	if id, ok := AgentSession(env, 300, parent); !ok || id != "736848ea-e359-4f8c-9e44-7f2dea2ad9b1" {
		t.Errorf("AgentSession(300) = %q, %v; want the session of its claude", id, ok)
	}
	if id, ok := AgentSession(env, 400, parent); ok {
		t.Errorf("AgentSession(400) = %q; want none: no claude among its parents", id)
	}
	write(500, `{"pid":501,"sessionId":"736848ea"}`)
	parents[500] = 1
	if id, ok := AgentSession(env, 500, parent); ok {
		t.Errorf("AgentSession(500) = %q; want none: the file names another process", id)
	}
}

func TestGivenThisProcessWhenItsParentIsReadThenItIsTheParentOfTheSystem(t *testing.T) {
	got, err := ParentPID(os.Getpid())
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if got != os.Getppid() {
		t.Errorf("ParentPID = %d; want %d", got, os.Getppid())
	}
}
