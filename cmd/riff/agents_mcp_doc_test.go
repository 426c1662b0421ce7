package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpEntryRE finds the .mcp.json block of docs/agents.md.
var mcpEntryRE = regexp.MustCompile("(?s)```json\n(\\{\n  \"mcpServers\".*?)```")

// expandRE is a ${VAR} or ${VAR:-default} of .mcp.json.
var expandRE = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expandMCP expands a value of .mcp.json as Claude Code does: ${VAR} and
// ${VAR:-default}.
func expandMCP(s string, env func(string) string) string {
	return expandRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := expandRE.FindStringSubmatch(m)
		if v := env(sub[1]); v != "" {
			return v
		}
		if sub[2] != "" {
			return sub[3]
		}
		return m
	})
}

// TestGivenTheMCPEntryOfTheAgentsPageWhenAnAgentToolStartsItThenItsToolsWork:
// the .mcp.json entry of docs/agents.md, as it is written, starts riff
// relay mcp in the env of Claude Code, and its whoami names the session
// of CLAUDE_CODE_SESSION_ID.
func TestGivenTheMCPEntryOfTheAgentsPageWhenAnAgentToolStartsItThenItsToolsWork(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "agents.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := mcpEntryRE.FindSubmatch(page)
	if m == nil {
		t.Fatal("docs/agents.md has no .mcp.json block")
	}
	var entry struct {
		MCPServers map[string]struct {
			Type    string            `json:"type"`
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(m[1], &entry); err != nil {
		t.Fatalf("the .mcp.json block of docs/agents.md is no JSON: %v", err)
	}
	riff, ok := entry.MCPServers["riff"]
	if !ok || riff.Type != "stdio" {
		t.Fatalf("the .mcp.json block has no stdio server riff: %+v", entry)
	}
	bin := buildRiff(t, "riff", "riff-server")
	srv := startServer(t, bin, freePort(t), t.TempDir())
	// The env of Claude Code: the session ID that it gives each process it
	// starts, and the server of the person; no RIFF_SESSION.
	const session = "0c1d2e3f-4444-4a55-9f1c-3b3c1c0e7a10"
	given := map[string]string{"CLAUDE_CODE_SESSION_ID": session, "RIFF_SERVER": srv.url()}
	lookup := func(k string) string { return given[k] }
	args := make([]string, len(riff.Args))
	for i, a := range riff.Args {
		args[i] = expandMCP(a, lookup)
	}
	cmd := exec.Command(filepath.Join(bin, expandMCP(riff.Command, lookup)), args...)
	cmd.Dir = repoDir(t)
	// The env of the agent tool (Claude Code passes its own), then the
	// env of the entry.
	cmd.Env = append(riffEnv("", ""), "RIFF_SESSION=", "RIFF_HOME="+t.TempDir())
	for k, v := range given {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	for k, v := range riff.Env {
		cmd.Env = append(cmd.Env, k+"="+expandMCP(v, lookup))
	}
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "riff-test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("start the entry of docs/agents.md: %v\n%s", err, stderr.String())
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError || !strings.Contains(text, "session="+session) {
		t.Errorf("whoami of the entry of docs/agents.md = %q (tool error %v), want the session of CLAUDE_CODE_SESSION_ID\n%s", text, res.IsError, stderr.String())
	}
}
