package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffclient/door"
)

// hookSettings is the part of the settings of Claude Code that a block of
// hooks in the docs fills: each event's groups of command hooks.
type hookSettings struct {
	Hooks map[string][]struct {
		Matcher string `json:"matcher"`
		Hooks   []struct {
			Type    string `json:"type"`
			Command string `json:"command"`
		} `json:"hooks"`
	} `json:"hooks"`
}

// jsonBlocks gives the ```json blocks of a page.
func jsonBlocks(t *testing.T, page string) []string {
	t.Helper()
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(string(raw), -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// TestGivenTheSetUpOfAgentsMdWhenItIsReadThenEachHookRunsACommandOfRiff:
// the hooks that docs/agents.md gives a person to copy name events of
// Claude Code, the settings of Step 3 have each event of the relay and
// PermissionDenied, and each command is a command of riff; the answer of
// the Stop hook on the page is the one that riff relay hook prints; the
// Monitor line runs riff; the settings approve the riff server and allow
// the riff tools and the Monitor line.
func TestGivenTheSetUpOfAgentsMdWhenItIsReadThenEachHookRunsACommandOfRiff(t *testing.T) {
	page := filepath.Join("..", "..", "docs", "agents.md")
	events := map[string]bool{"SessionStart": true, "UserPromptSubmit": true, "PreToolUse": true, "PostToolUse": true, "Stop": true}
	withDenied := map[string]bool{"PermissionDenied": true}
	for e := range events {
		withDenied[e] = true
	}
	c := &cli{system: &system{}}
	runs := func(line string) {
		t.Helper()
		words := strings.Fields(line)
		if len(words) < 2 || words[0] != "riff" {
			t.Errorf("the command %q does not run riff", line)
			return
		}
		top, ok := c.commands()[words[1]]
		if !ok {
			t.Errorf("the command %q names no command of riff", line)
			return
		}
		if _, _, err := c.parseCommand(top, words[2:]); err != nil {
			t.Errorf("the command %q does not parse: %v", line, err)
		}
	}
	var hookBlocks int
	var answered bool
	for _, block := range jsonBlocks(t, page) {
		var settings hookSettings
		var answer door.StopAnswer
		switch {
		case strings.Contains(block, `"hooks"`):
			if err := json.Unmarshal([]byte(block), &settings); err != nil {
				t.Fatalf("a block of hooks is not JSON: %v\n%s", err, block)
			}
			hookBlocks++
			for event, groups := range settings.Hooks {
				// PermissionDenied runs riff relay denied: its own block.
				if !events[event] && event != "PermissionDenied" {
					t.Errorf("the event %q is not a hook of the relay", event)
				}
				for _, g := range groups {
					for _, h := range g.Hooks {
						if h.Type != "command" {
							t.Errorf("the hook of %s has the type %q; want command", event, h.Type)
						}
						runs(h.Command)
					}
				}
			}
			if hookBlocks == 1 && !hasEach(settings.Hooks, withDenied) {
				t.Errorf("the settings of Step 3 have the events %v; want each of %v", settings.Hooks, withDenied)
			}
		case strings.Contains(block, `"decision"`):
			if err := json.Unmarshal([]byte(block), &answer); err != nil {
				t.Fatal(err)
			}
			if answer != (door.StopAnswer{Decision: "block", Reason: door.ClearReason}) {
				t.Errorf("the page gives the Stop answer %+v; riff relay hook prints %q", answer, door.ClearReason)
			}
			answered = true
		}
	}
	// The blocks of hooks: the relay's, the lead's prompt, the refusals.
	if hookBlocks != 3 || !answered {
		t.Errorf("docs/agents.md has %d blocks of hooks and the Stop answer %v; want 3 and the answer", hookBlocks, answered)
	}
	raw, _ := os.ReadFile(page)
	monitor := regexp.MustCompile("Start a Monitor with the command `([^`]+)`").FindStringSubmatch(string(raw))
	if monitor == nil {
		t.Fatal("docs/agents.md has no Monitor line")
	}
	runs(monitor[1])

	// The approval and the permissions of Step 3: the server of
	// .mcp.json, each riff tool, and the command of the Monitor line as
	// a Bash rule (Claude Code checks the command of a Monitor by the
	// rules of Bash).
	var step3 struct {
		Enabled     []string `json:"enabledMcpjsonServers"`
		Permissions struct {
			Allow []string `json:"allow"`
		} `json:"permissions"`
	}
	for _, block := range jsonBlocks(t, page) {
		if strings.Contains(block, `"enabledMcpjsonServers"`) {
			if err := json.Unmarshal([]byte(block), &step3); err != nil {
				t.Fatalf("the settings of Step 3 are not JSON: %v", err)
			}
		}
	}
	if !slices.Equal(step3.Enabled, []string{"riff"}) {
		t.Errorf("the settings of docs/agents.md enable the MCP servers %q; want [riff], the server of its .mcp.json", step3.Enabled)
	}
	if want := []string{"mcp__riff", "Bash(" + monitor[1] + ")"}; !slices.Equal(step3.Permissions.Allow, want) {
		t.Errorf("the settings of docs/agents.md allow %q; want %q (the riff tools and the Monitor line)", step3.Permissions.Allow, want)
	}
}

// hasEach says whether hooks has exactly the events of want.
func hasEach[V any](hooks map[string]V, want map[string]bool) bool {
	if len(hooks) != len(want) {
		return false
	}
	for event := range hooks {
		if !want[event] {
			return false
		}
	}
	return true
}
