package door

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/como-technologies/riff/riffclient/internal/terminal"
	"github.com/como-technologies/riff/riffcore/wire"
)

// MaxHookInput is the most of a hook's input that the door reads: the
// input of a Write holds the whole file.
const MaxHookInput = 8 << 20

// maxDescription is the longest description of a Bash call in a fact:
// the fact is one line of at most 400 characters (wire.MaxStatus).
const maxDescription = 300

// HookInput is the part of the input of a hook of Claude Code that the
// door reads (the hooks reference: the common fields, and those of each
// event).
type HookInput struct {
	SessionID      string          `json:"session_id"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	Source         string          `json:"source"`
	StopHookActive bool            `json:"stop_hook_active"`
}

// RiffToolPrefix starts the name of each tool of riff in Claude Code:
// the MCP server riff of .mcp.json names its tools mcp__riff__TOOL.
const RiffToolPrefix = "mcp__riff__"

// ClearReason is the answer of the Stop hook of a worker that riff asks
// to clear its context. Claude Code gives the reason to the session and
// goes on with it, so it tells the session what to do.
const ClearReason = "riff: you released your last item, so riff clears your context before your next item. " +
	"Start no new work in this context: end your turn now, and say that the context must clear (/clear)."

// StopAnswer is the output of a Stop hook that blocks the stop (the
// hooks reference, "Stop decision control").
type StopAnswer struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// Hook keeps the fact of one hook of session in the files, and gives the
// answer of a Stop hook when the server asked the worker to clear (nil
// else). An answer is given once for each ask: the ask is removed with
// it, and the next keep-alive asks again while the worker must clear. A
// fact that does not read is replaced by the new one. An error says what
// the hook could not do; with an answer, the answer still stands (the
// ask could not be removed).
func (s Files) Hook(in HookInput, session string, nowMs int64) (*StopAnswer, error) {
	fact, err := s.ReadFact(session)
	if err != nil {
		fact = Fact{}
	}
	next, answer, err := HookFact(in, fact, nowMs, func() (bool, error) { return s.Clear(session) })
	if err != nil {
		return nil, fmt.Errorf("cannot read the ask to clear: %w", err)
	}
	if next != fact {
		if err := s.WriteFact(session, next); err != nil {
			return nil, fmt.Errorf("cannot keep the fact of the session: %w", err)
		}
	}
	// A cleared context has done the ask; an answer is the one for it.
	if in.HookEventName == "SessionStart" && in.Source == "clear" || answer != nil {
		if err := s.SetClear(session, false); err != nil {
			// The answer still stands: the worker must clear.
			return answer, fmt.Errorf("cannot remove the ask to clear: %w", err)
		}
	}
	return answer, nil
}

// HookFact gives the fact after a hook, and the answer of a Stop hook
// when the server asked the worker to clear (askedClear reads the ask;
// only a Stop hook calls it). It does no I/O of its own.
func HookFact(in HookInput, f Fact, nowMs int64, askedClear func() (bool, error)) (Fact, *StopAnswer, error) {
	switch in.HookEventName {
	case "PreToolUse":
		if riffWork(in) {
			if in.ToolName == RiffToolPrefix+"blocked" {
				f.Blocked = true
			}
			return f, nil, nil
		}
		f.Activity, f.ActivityAtMs, f.Tool = toolActivity(in), nowMs, in.ToolName
	case "PostToolUse":
		if riffWork(in) {
			return f, nil, nil
		}
		f.Activity, f.ActivityAtMs, f.Tool = wire.ActivityBetweenTools, nowMs, ""
	case "UserPromptSubmit":
		f.Activity, f.ActivityAtMs, f.Tool = wire.ActivityWorks, nowMs, ""
		f.PromptAtMs, f.Blocked = nowMs, false
	case "Stop":
		f.Activity, f.ActivityAtMs, f.Tool = wire.ActivityTurnEnded, nowMs, ""
		f.TurnEndedAtMs = nowMs
		if in.StopHookActive {
			// The session goes on after a Stop hook: no second answer.
			return f, nil, nil
		}
		ask, err := askedClear()
		if err != nil {
			return f, nil, err
		}
		if ask {
			return f, &StopAnswer{Decision: "block", Reason: ClearReason}, nil
		}
	case "SessionStart":
		if in.Source == "startup" || in.Source == "clear" {
			// A fresh context has no work yet.
			return Fact{}, nil, nil
		}
	}
	return f, nil, nil
}

// NoWorkTools are the tools of Claude Code that are no work of the
// session: ToolSearch finds the deferred tools (a model calls it before
// its first riff tool), and TaskStop stops a background task such as the
// Monitor of riff relay watch.
var NoWorkTools = []string{"TaskStop", "ToolSearch"}

// riffWork says whether a tool call is riff itself or a step around it,
// which is no work: a tool of riff relay mcp, a tool of NoWorkTools, or
// a command that runs riff (riff relay watch in a Monitor, riff status
// in Bash).
func riffWork(in HookInput) bool {
	if strings.HasPrefix(in.ToolName, RiffToolPrefix) || slices.Contains(NoWorkTools, in.ToolName) {
		return true
	}
	var cmd struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(in.ToolInput, &cmd) != nil {
		return false
	}
	words := strings.Fields(cmd.Command)
	return len(words) > 0 && filepath.Base(words[0]) == "riff"
}

// toolActivity is the activity of a tool that runs: runs TOOL, and for
// Bash its description, never its command.
func toolActivity(in HookInput) string {
	tool := terminal.Clean(in.ToolName)
	if tool == "" {
		tool = "a tool"
	}
	activity := wire.ActivityRuns + tool
	if in.ToolName != "Bash" {
		return activity
	}
	var input struct {
		Description string `json:"description"`
	}
	_ = json.Unmarshal(in.ToolInput, &input)
	desc := strings.Join(strings.Fields(terminal.Clean(input.Description)), " ")
	if desc == "" {
		return activity
	}
	if r := []rune(desc); len(r) > maxDescription {
		desc = string(r[:maxDescription-1]) + "…"
	}
	return activity + ": " + desc
}
