package main

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/local"
	"github.com/como-technologies/riff/riffcore/name"
)

// relayPrompt is riff relay prompt: the UserPromptSubmit hook of a lead
// (the guide, "End the wait of the lead"). It tells the server that a
// prompt came, prints nothing and never stops the prompt.
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

// promptBudget is how long riff relay prompt waits for the server: the
// person waits for the prompt meanwhile.
const promptBudget = 2 * time.Second

// relayPrompt keeps the prompt in the fact of the session and sends the
// keep-alive. Each fault is dropped: the hook must not stop the prompt,
// and its output would reach the context of the session.
func (c *cli) relayPrompt(ctx context.Context) {
	var in hookInput
	raw, _ := io.ReadAll(io.LimitReader(c.stdin, maxHookInput))
	_ = json.Unmarshal(raw, &in)
	if c.g.session == "" && name.CheckSessionID(in.SessionID) == nil {
		c.g.session = in.SessionID
	}
	me, err := c.me(ctx)
	if err != nil || me.Session == "" {
		return
	}
	nowMs := c.now().UnixMilli()
	fact := local.Fact{}
	dir, err := local.Dir(c.env)
	if err == nil {
		fact, _ = local.ReadFact(dir, me.Session)
		in.HookEventName = "UserPromptSubmit"
		fact, _, _ = hookFact(in, fact, nowMs, nil)
		_ = local.WriteFact(dir, me.Session, fact)
	}
	// A client of its own: no wait line, a short budget, and a refused
	// connect ends it at once (no server: nothing to do).
	opts := riffclient.Options{Build: c.build, Budget: promptBudget, Auth: c.auth()}
	client := riffclient.New(c.serverURL(), opts)
	ctx, cancel := context.WithTimeout(ctx, promptBudget)
	defer cancel()
	_, _ = riffclient.Send(ctx, client, fact.Alive(me, nowMs))
}
