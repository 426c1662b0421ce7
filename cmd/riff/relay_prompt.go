package main

import (
	"context"
	"encoding/json"
	"io"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/door"
	"github.com/como-technologies/riff/riffclient/local"
	"github.com/como-technologies/riff/riffcore/name"
)

// relayPrompt is riff relay prompt: the UserPromptSubmit hook of a lead
// (docs/agents.md, "riff relay prompt"). It tells the server that
// a prompt came, prints nothing and never stops the prompt.
func relayPrompt() command {
	return command{
		name: "prompt", usage: "prompt",
		long: `The UserPromptSubmit hook of a lead: it tells riff-server that a prompt
came (a keep-alive with a prompt now), so that the wait of the lead ends.
It prints nothing and never stops the prompt: with no server, or with
any fault, it does nothing and exits 0.
`,
		flags: noFlags(func(c *cli, ctx context.Context, args []string) error {
			c.relayPrompt(ctx)
			return nil
		}),
	}
}

// relayPrompt names the session of the hook and runs door.Prompt. Each
// fault is dropped: the hook must not stop the prompt, and its output
// would reach the context of the session.
func (c *cli) relayPrompt(ctx context.Context) {
	var in door.HookInput
	raw, _ := io.ReadAll(io.LimitReader(c.stdin, door.MaxHookInput))
	_ = json.Unmarshal(raw, &in)
	hookID := in.SessionID
	if name.CheckSessionID(hookID) != nil {
		hookID = ""
	}
	c.g.session = door.SessionOf(c.g.session, c.env(door.AgentSessionEnv), hookID)
	me, err := c.me(ctx)
	if err != nil || me.Session == "" {
		return
	}
	var files door.Files
	if dir, err := local.Dir(c.env); err == nil {
		files.Dir = dir
	}
	// A client of its own: no wait line, a short budget, and a refused
	// connect ends it at once (no server: nothing to do).
	opts := riffclient.Options{Build: c.build, Budget: door.PromptBudget, Auth: c.auth()}
	door.Prompt(ctx, riffclient.New(c.serverURL(), opts), files, me, c.now().UnixMilli())
}
