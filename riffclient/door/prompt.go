package door

import (
	"context"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/name"
)

// PromptBudget is how long the prompt hook of a lead waits for the
// server: the person waits for the prompt meanwhile. A client for
// [Prompt] takes it as its budget.
const PromptBudget = 2 * time.Second

// Prompt is the UserPromptSubmit hook of a lead (docs/agents.md,
// "riff relay prompt: a prompt ends the wait of the lead"): it keeps the prompt in the fact of the session
// me and sends the keep-alive with it, so that the wait of the lead ends,
// within PromptBudget. Each fault is dropped: the hook must not stop the
// prompt, and its output would reach the context of the session. With no
// Files (Dir "") the keep-alive carries the prompt alone.
func Prompt(ctx context.Context, c *riffclient.Client, files Files, me name.SessionURI, nowMs int64) {
	fact := Fact{}
	if files.Dir != "" {
		fact, _ = files.ReadFact(me.Session)
		fact, _, _ = HookFact(HookInput{HookEventName: "UserPromptSubmit"}, fact, nowMs, nil)
		_ = files.WriteFact(me.Session, fact)
	}
	ctx, cancel := context.WithTimeout(ctx, PromptBudget)
	defer cancel()
	_, _ = riffclient.Send(ctx, c, fact.Alive(me, nowMs))
}
