package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/como-technologies/riff/riffclient/door"
	"github.com/como-technologies/riff/riffclient/local"
	"github.com/como-technologies/riff/riffcore/name"
)

// relayHook is riff relay hook: the command of the hooks of the agent
// tool. It keeps the newest fact of the session in the local folder, and
// calls no server: the keep-alive carries the fact (riffclient/door).
func relayHook() command {
	return command{
		name: "hook", usage: "hook",
		long: `Reads the JSON of a hook of the agent tool on stdin (PreToolUse,
PostToolUse, Stop, SessionStart, UserPromptSubmit) and keeps the newest
fact of the session in the local folder. It calls no server and prints
nothing, but for the Stop hook of a worker that riff asks to clear its
context. A riff tool, riff relay watch, ToolSearch (it finds the riff
tools) and TaskStop (it stops a Monitor) are no work. The fact of a
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

func (c *cli) relayHook() error {
	raw, err := io.ReadAll(io.LimitReader(c.stdin, door.MaxHookInput))
	if err != nil {
		return knownf("riff relay hook cannot read its input: %s", err)
	}
	var in door.HookInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return knownf("riff relay hook reads the JSON of a hook on stdin: %s", err)
	}
	session := door.SessionOf(c.g.session, c.env(door.AgentSessionEnv), in.SessionID)
	if err := name.CheckSessionID(session); err != nil {
		return knownf("riff relay hook needs the session_id of the hook, CLAUDE_CODE_SESSION_ID or RIFF_SESSION: %q is not a session ID", session)
	}
	dir, err := local.Dir(c.env)
	if err != nil {
		return knownf("%s", err)
	}
	answer, hookErr := door.Files{Dir: dir}.Hook(in, session, c.now().UnixMilli())
	if answer != nil {
		out, err := json.Marshal(answer)
		if err != nil {
			return err
		}
		fmt.Fprintln(c.stdout, string(out))
	}
	if hookErr != nil {
		return knownf("riff relay hook %s", hookErr)
	}
	return nil
}
