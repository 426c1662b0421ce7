package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/como-technologies/riff/riffclient/local"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// relayHook is riff relay hook: the command of the hooks of the agent
// tool. It keeps the newest fact of the session in the local folder, and
// calls no server: the keep-alive carries the fact.
func relayHook() command {
	return command{
		name: "hook", usage: "hook",
		long: `Reads the JSON of a hook of the agent tool on stdin (PreToolUse,
PostToolUse, Stop, SessionStart, UserPromptSubmit) and keeps the newest
fact of the session in the local folder. It calls no server and prints
nothing, but for the Stop hook of a worker that riff asks to clear its
context. A riff tool and riff relay watch are no work. The fact of a
Bash call is its description, never its command.
`,
		flags: noFlags(func(c *cli, ctx context.Context, args []string) error {
			if err := noArgs(args, "relay hook"); err != nil {
				return err
			}
			return c.relayHook()
		}),
	}
}

// maxHookInput is the most of a hook's input that riff reads: the input
// of a Write holds the whole file.
const maxHookInput = 8 << 20

// maxDescription is the longest description of a Bash call in a fact:
// the fact is one line of at most 400 characters (wire.MaxStatus).
const maxDescription = 300

// hookInput is the part of the input of a hook of Claude Code that riff
// reads (the hooks reference: the common fields, and those of each event).
type hookInput struct {
	SessionID      string          `json:"session_id"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	Source         string          `json:"source"`
	StopHookActive bool            `json:"stop_hook_active"`
}

// The tool of the relay in Claude Code: the MCP server riff of .mcp.json
// names its tools mcp__riff__TOOL.
const riffToolPrefix = "mcp__riff__"

// clearReason is the answer of the Stop hook of a worker that riff asks to
// clear its context. Claude Code gives the reason to the session and
// goes on with it, so it tells the session what to do.
const clearReason = "riff: you released your last item, so riff clears your context before your next item. " +
	"Start no new work in this context: end your turn now, and say that the context must clear (/clear)."

// stopAnswer is the output of a Stop hook that blocks the stop (the hooks
// reference, "Stop decision control").
type stopAnswer struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

func (c *cli) relayHook() error {
	raw, err := io.ReadAll(io.LimitReader(c.stdin, maxHookInput))
	if err != nil {
		return knownf("riff relay hook cannot read its input: %s", err)
	}
	var in hookInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return knownf("riff relay hook reads the JSON of a hook on stdin: %s", err)
	}
	session := c.g.session
	if session == "" {
		session = in.SessionID
	}
	if err := name.CheckSessionID(session); err != nil {
		return knownf("riff relay hook needs the session_id of the hook or RIFF_SESSION: %q is not a session ID", session)
	}
	dir, err := local.Dir(c.env)
	if err != nil {
		return knownf("%s", err)
	}
	fact, err := local.ReadFact(dir, session)
	if err != nil {
		// A broken fact is replaced by the new one.
		fact = local.Fact{}
	}
	next, answer, err := hookFact(in, fact, c.now().UnixMilli(), func() (bool, error) { return local.Clear(dir, session) })
	if err != nil {
		return knownf("riff relay hook: %s", err)
	}
	if next != fact {
		if err := local.WriteFact(dir, session, next); err != nil {
			return knownf("riff relay hook cannot keep the fact of the session: %s", err)
		}
	}
	if in.HookEventName == "SessionStart" && in.Source == "clear" {
		// The context cleared: the ask is done.
		if err := local.SetClear(dir, session, false); err != nil {
			return knownf("riff relay hook cannot remove the ask to clear: %s", err)
		}
	}
	if answer != nil {
		out, err := json.Marshal(answer)
		if err != nil {
			return err
		}
		fmt.Fprintln(c.stdout, string(out))
		// One answer for each ask: the next keep-alive asks again while
		// the worker must clear.
		if err := local.SetClear(dir, session, false); err != nil {
			return knownf("riff relay hook cannot remove the ask to clear: %s", err)
		}
	}
	return nil
}

// hookFact gives the fact after a hook, and the answer of a Stop hook
// when the server asked the worker to clear (askedClear reads the ask).
func hookFact(in hookInput, f local.Fact, nowMs int64, askedClear func() (bool, error)) (local.Fact, *stopAnswer, error) {
	switch in.HookEventName {
	case "PreToolUse":
		if riffWork(in) {
			if in.ToolName == riffToolPrefix+"blocked" {
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
			return f, &stopAnswer{Decision: "block", Reason: clearReason}, nil
		}
	case "SessionStart":
		if in.Source == "startup" || in.Source == "clear" {
			// A fresh context has no work yet.
			return local.Fact{}, nil, nil
		}
	}
	return f, nil, nil
}

// riffWork says whether a tool call is riff itself, which is no work: a
// tool of riff relay mcp, or a command that runs riff (riff relay watch
// in a Monitor, riff status in Bash).
func riffWork(in hookInput) bool {
	if strings.HasPrefix(in.ToolName, riffToolPrefix) {
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
func toolActivity(in hookInput) string {
	tool := clean(in.ToolName)
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
	desc := strings.Join(strings.Fields(clean(input.Description)), " ")
	if desc == "" {
		return activity
	}
	if r := []rune(desc); len(r) > maxDescription {
		desc = string(r[:maxDescription-1]) + "…"
	}
	return activity + ": " + desc
}
