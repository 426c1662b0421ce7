package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
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
// Claude Code, the first block has each event of the relay, and each
// command is a command of riff; the answer of the Stop hook on the page
// is the one that riff relay hook prints; the Monitor line runs riff.
func TestGivenTheSetUpOfAgentsMdWhenItIsReadThenEachHookRunsACommandOfRiff(t *testing.T) {
	page := filepath.Join("..", "..", "docs", "agents.md")
	events := map[string]bool{"SessionStart": true, "UserPromptSubmit": true, "PreToolUse": true, "PostToolUse": true, "Stop": true}
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
			if hookBlocks == 1 && !hasEach(settings.Hooks, events) {
				t.Errorf("the first block has the events %v; want each of %v", settings.Hooks, events)
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
