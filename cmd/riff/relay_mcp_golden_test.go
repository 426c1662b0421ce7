package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/build"
)

// toolCase is one call of a tool of riff relay mcp in the golden tests of
// the tools: its name in testdata/mcp, the tool and its arguments.
type toolCase struct {
	name string
	tool string
	args map[string]any
}

// toolCases are the calls of the golden tests of the tools: each tool,
// with the inputs that give its texts and its tool errors.
func toolCases() []toolCase {
	return []toolCase{
		{name: "whoami", tool: "whoami"},
		{name: "who", tool: "who"},
		{name: "who-long-all", tool: "who", args: map[string]any{"long": true, "all": true}},
		{name: "threads", tool: "threads"},
		{name: "read", tool: "read"},
		{name: "read-after", tool: "read", args: map[string]any{"thread": "dm:a6cf", "all": true, "after": 5}},
		{name: "post", tool: "post", args: map[string]any{"text": "API is ready", "to": []string{"claim=issue-6"}}},
		{name: "post-unmatched", tool: "post", args: map[string]any{"text": "the book builds", "thread": "acme/docs", "to": []string{"claim=issue-6", "claim=issue-9,lead=true"}}},
		{name: "post-status", tool: "post", args: map[string]any{"kind": "status", "to": []string{"repo=acme/app"}}},
		{name: "post-chat-dash", tool: "post", args: map[string]any{"text": "-v hello", "thread": "chat", "kind": "note"}},
		{name: "post-bad-kind", tool: "post", args: map[string]any{"text": "x", "kind": "shout"}},
		{name: "post-bad-selector", tool: "post", args: map[string]any{"text": "hi", "to": []string{"colour=red"}}},
		{name: "post-no-text", tool: "post"},
		{name: "tell-lead", tool: "tell", args: map[string]any{"to": "lead", "text": "Merge issue-6 now?"}},
		{name: "tell", tool: "tell", args: map[string]any{"to": "5b1e", "text": "--help me"}},
		{name: "tell-ambiguous", tool: "tell", args: map[string]any{"to": "ab12", "text": "7878"}},
		{name: "status", tool: "status", args: map[string]any{"text": "write the tests"}},
		{name: "status-long", tool: "status", args: map[string]any{"text": strings.Repeat("x", 401)}},
		{name: "status-no-text", tool: "status", args: map[string]any{"text": ""}},
		{name: "blocked", tool: "blocked", args: map[string]any{"reason": "which of two designs?"}},
		{name: "blocked-no-reason", tool: "blocked", args: map[string]any{"reason": ""}},
		{name: "claim", tool: "claim", args: map[string]any{"item": "issue-12"}},
		{name: "claim-held", tool: "claim", args: map[string]any{"item": "issue-13"}},
		{name: "claim-paused", tool: "claim", args: map[string]any{"item": "issue-14", "thread": "acme/app"}},
		{name: "claim-hold-warning", tool: "claim", args: map[string]any{"item": "issue-15"}},
		{name: "claim-no-item", tool: "claim", args: map[string]any{"item": ""}},
		{name: "claim-bad-item", tool: "claim", args: map[string]any{"item": "issue 12!"}},
		{name: "release", tool: "release", args: map[string]any{"item": "issue-12"}},
		{name: "hold", tool: "hold", args: map[string]any{"item": "issue-12", "reason": "waits for the word of Mike"}},
		{name: "hold-bad-item", tool: "hold", args: map[string]any{"item": "", "reason": "no item"}},
		{name: "free", tool: "free", args: map[string]any{"item": "issue-12", "thread": "acme/app"}},
		{name: "pause", tool: "pause"},
		{name: "pause-repo", tool: "pause", args: map[string]any{"repo": "acme/strata"}},
		{name: "pause-both", tool: "pause", args: map[string]any{"riff": true, "repo": "acme/strata"}},
		{name: "pause-bad-repo", tool: "pause", args: map[string]any{"repo": "strata"}},
		{name: "resume-riff", tool: "resume", args: map[string]any{"riff": true}},
		{name: "notes", tool: "notes"},
		{name: "notes-history", tool: "notes", args: map[string]any{"history": true}},
		{name: "notes-write", tool: "notes", args: map[string]any{"text": "Wave 5: issue-20.\n"}},
		{name: "move-none", tool: "move", args: map[string]any{"worktree": ""}},
		{name: "move", tool: "move", args: map[string]any{"worktree": "../app-issue-7"}},
		{name: "whoami-after-move", tool: "whoami"},
	}
}

// TestGivenEachToolOfTheRelayWhenAnAgentCallsItThenItGivesTheTextOfTheGoldenFile
// runs riff relay mcp in this process against the fake server, calls
// each case of toolCases in order over MCP, and compares the text of the
// tool, whether it is a tool error, and the calls that it made with
// testdata/mcp/NAME.golden.
func TestGivenEachToolOfTheRelayWhenAnAgentCallsItThenItGivesTheTextOfTheGoldenFile(t *testing.T) {
	repo := repoDir(t)
	gitRun(t, repo, "commit", "-q", "--allow-empty", "-m", "first")
	gitRun(t, repo, "worktree", "add", "-q", filepath.Join(filepath.Dir(repo), "app-issue-7"))
	fake := &fakeServer{t: t, build: testBuild}
	srv := httptest.NewServer(fake)
	defer srv.Close()

	b, _ := build.ParseBuild(testBuild)
	env := map[string]string{"USER": "mike", "RIFF_SERVER": srv.URL, "RIFF_SESSION": "a6cf2205-9a1b",
		"RIFF_HOME": t.TempDir(), keepAliveEnv: "1h"}
	toRelay, fromAgent := io.Pipe()
	fromRelay, toAgent := io.Pipe()
	var stderr syncBuffer
	s := &system{
		env:      func(k string) string { return env[k] },
		stdin:    toRelay,
		stdout:   toAgent,
		stderr:   &stderr,
		getwd:    func() (string, error) { return repo, nil },
		hostname: func() (string, error) { return "pangolin.example.com", nil },
		build:    b,
		loc:      time.UTC,
		now:      func() time.Time { return time.Date(2026, 9, 27, 14, 0, 0, 0, time.UTC) },
		terminal: func(io.Writer) (bool, int) { return false, 0 },
		client:   func(o *riffclient.Options) { o.Budget = 2 * time.Second },
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan int, 1)
	go func() {
		code := s.run(ctx, []string{"relay", "mcp"})
		toAgent.Close()
		done <- code
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "riff-test", Version: "0"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: fromRelay, Writer: fromAgent}, nil)
	if err != nil {
		t.Fatalf("connect to riff relay mcp: %v\n%s", err, stderr.String())
	}
	// The list of the tools is what the agent reads of them: each name,
	// description and input schema.
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	listed, err := json.MarshalIndent(list.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "mcp", "tools-list", string(listed)+"\n")
	for _, tc := range toolCases() {
		t.Run(tc.name, func(t *testing.T) {
			fake.mu.Lock()
			fake.calls = nil
			fake.mu.Unlock()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil {
				t.Fatalf("call %s: %v", tc.tool, err)
			}
			var texts []string
			for _, c := range res.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					texts = append(texts, tc.Text)
				}
			}
			var calls []string
			for _, c := range fake.Calls() {
				// The keep-alive runs beside the tools, on its own time.
				if !strings.HasPrefix(c, "POST /v1/alive ") {
					calls = append(calls, strings.ReplaceAll(c, srv.URL, "http://SERVER"))
				}
			}
			args, _ := json.Marshal(tc.args)
			var g strings.Builder
			g.WriteString("tool " + tc.tool + " " + string(args) + "\n")
			g.WriteString("--- text\n" + strings.ReplaceAll(strings.Join(texts, "\n"), srv.URL, "http://SERVER") + "\n")
			if res.IsError {
				g.WriteString("--- tool error\n")
			}
			g.WriteString("--- calls\n")
			for _, c := range calls {
				g.WriteString(c + "\n")
			}
			checkGolden(t, "mcp", tc.name, g.String())
		})
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != exitOK {
		t.Errorf("riff relay mcp = exit %d at the end of its input; want 0\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "ended the session") {
		t.Errorf("riff relay mcp did not end the session at the end of its input:\n%s", stderr.String())
	}
}
