package messagesfake

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// ToolSearch is the tool of Claude Code that loads the schema of a
// deferred tool: a request names a deferred tool with defer_loading (or
// only in its text), and the model must call ToolSearch with
// "select:NAME" before it can call the tool.
const ToolSearch = "ToolSearch"

// Agent is a Script that plays a model which follows a plan: for the
// prompt of each turn, the first Plan whose When matches gives its tool
// calls, one a reply, then its closing text. Before a call it loads a
// deferred tool with ToolSearch, and it checks the input of each call
// against the schema that the request gave for the tool; a call that it
// cannot make ends the turn with a text that says why, and is an error of
// the agent (Errors).
type Agent struct {
	// Plans answer the turns, the first that matches.
	Plans []Plan
	// Other answers a request that no plan matches, and each request
	// with no tools (a side call of the agent tool, such as a title or
	// the classifier of auto mode); nil says "ok".
	Other Script
	// Search gives the query of ToolSearch that loads a deferred tool;
	// nil is "select:TOOL".
	Search func(tool string) string

	mu     sync.Mutex
	errors []string
}

// Plan is what the model does in one kind of turn.
type Plan struct {
	// Name names the plan in the errors.
	Name string
	// When says whether the plan answers a turn with this prompt; nil
	// answers each.
	When func(prompt string) bool
	// Steps are the tool calls of the turn, in order, one a reply.
	Steps []Step
	// Text closes the turn; "" is "Done.".
	Text string
}

// Step is one tool call of a plan. Input gives its input from the
// request and the calls of the turn so far (the results of the steps
// before); nil is {}. A step whose result is an error ends the turn and
// is an error of the agent, unless Refused says that the test wants the
// refusal.
type Step struct {
	Tool    string
	Input   func(r *Request, done []Call) map[string]any
	Refused bool
}

// Fixed gives an Input that is always input.
func Fixed(input map[string]any) func(*Request, []Call) map[string]any {
	return func(*Request, []Call) map[string]any { return input }
}

// Script gives the Agent as a Script.
func (a *Agent) Script() Script { return a.reply }

// Errors gives what the agent could not do, oldest first.
func (a *Agent) Errors() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.errors...)
}

func (a *Agent) fail(format string, args ...any) Reply {
	msg := fmt.Sprintf(format, args...)
	a.mu.Lock()
	a.errors = append(a.errors, msg)
	a.mu.Unlock()
	return Reply{Text: "I cannot go on: " + msg}
}

func (a *Agent) other(r *Request) Reply {
	if a.Other != nil {
		return a.Other(r)
	}
	return Reply{Text: "ok"}
}

func (a *Agent) reply(r *Request) Reply {
	if len(r.Tools) == 0 {
		return a.other(r)
	}
	turn := r.Turn()
	var plan *Plan
	for i := range a.Plans {
		if a.Plans[i].When == nil || a.Plans[i].When(turn.Prompt) {
			plan = &a.Plans[i]
			break
		}
	}
	if plan == nil {
		return a.other(r)
	}
	// The steps done are the calls of the turn that are no ToolSearch.
	var done []Call
	searched := map[string]bool{}
	for _, c := range turn.Calls {
		if c.Name == ToolSearch {
			var in struct {
				Query string `json:"query"`
			}
			_ = json.Unmarshal(c.Input, &in)
			for _, n := range strings.Split(strings.TrimPrefix(in.Query, "select:"), ",") {
				searched[n] = true
			}
			continue
		}
		done = append(done, c)
	}
	for i, c := range done {
		if i < len(plan.Steps) && c.Done && c.IsError && !plan.Steps[i].Refused {
			return a.fail("plan %q: %s failed: %s", plan.Name, c.Name, c.Result)
		}
		if i < len(plan.Steps) && c.Done && !c.IsError && plan.Steps[i].Refused {
			return a.fail("plan %q: %s ran, but the plan wants it refused: %s", plan.Name, c.Name, c.Result)
		}
	}
	if len(done) >= len(plan.Steps) {
		text := plan.Text
		if text == "" {
			text = "Done."
		}
		return Reply{Text: text}
	}
	step := plan.Steps[len(done)]
	tool, ok := r.Tool(step.Tool)
	loaded := ok && (!tool.DeferLoading || r.referenced(step.Tool))
	if !loaded {
		if _, search := r.Tool(ToolSearch); !search {
			return a.fail("plan %q: the request offers no tool %s and no %s", plan.Name, step.Tool, ToolSearch)
		}
		if searched[step.Tool] {
			return a.fail("plan %q: %s did not load the tool %s", plan.Name, ToolSearch, step.Tool)
		}
		query := "select:" + step.Tool
		if a.Search != nil {
			query = a.Search(step.Tool)
		}
		return Reply{Calls: []ToolUse{{Name: ToolSearch, Input: map[string]any{"query": query}}}}
	}
	var input map[string]any
	if step.Input != nil {
		input = step.Input(r, done)
	}
	if input == nil {
		input = map[string]any{}
	}
	if err := CheckInput(tool.InputSchema, input); err != nil {
		return a.fail("plan %q: the input of %s does not fit its schema: %v", plan.Name, step.Tool, err)
	}
	return Reply{Calls: []ToolUse{{Name: step.Tool, Input: input}}}
}

// referenced says whether a tool result of r holds a tool_reference to
// name: ToolSearch loaded it.
func (r *Request) referenced(name string) bool {
	for _, m := range r.Messages {
		for _, b := range m.Blocks() {
			if b.Type != "tool_result" {
				continue
			}
			var parts []Block
			if json.Unmarshal(b.Content, &parts) != nil {
				continue
			}
			for _, p := range parts {
				if p.Type == "tool_reference" && p.ToolName == name {
					return true
				}
			}
		}
	}
	return false
}

// Deferred gives the names of the tools that a request defers: those with
// defer_loading, and those that its text lists after the line of Claude
// Code "The following deferred tools are now available via ToolSearch",
// one a line up to an empty line.
func (r *Request) Deferred() []string {
	seen := map[string]bool{}
	var names []string
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, t := range r.Tools {
		if t.DeferLoading && t.Name != "DeferredToolPlaceholder" {
			add(t.Name)
		}
	}
	const marker = "The following deferred tools are now available via ToolSearch"
	for _, m := range r.Messages {
		for _, b := range m.Blocks() {
			i := strings.Index(b.Text, marker)
			if b.Type != "text" || i < 0 {
				continue
			}
			lines := strings.Split(b.Text[i:], "\n")
			for _, l := range lines[1:] {
				if strings.TrimSpace(l) == "" {
					break
				}
				add(strings.TrimSpace(l))
			}
		}
	}
	return names
}

// classifierMark is the text by which the auto mode classifier of Claude
// Code asks for its verdict (2.1.332, with CLAUDE_CODE_AUTO_MODE_SERVER=0,
// so that Claude Code asks the model itself in place of the server).
const classifierMark = "<severity>N</severity>"

// IsClassifier says whether r is a request of the auto mode classifier of
// Claude Code: it names the action under review in its transcript.
func IsClassifier(r *Request) bool {
	if len(r.Tools) > 0 {
		return false
	}
	if strings.Contains(string(r.System), classifierMark) {
		return true
	}
	for _, m := range r.Messages {
		for _, b := range m.Blocks() {
			if strings.Contains(b.Text, classifierMark) {
				return true
			}
		}
	}
	return false
}

// Verdict is the reply of the classifier: a severity from 0 to 100 (above
// 50 blocks the action) and, for a block, the name of the rule it
// matched.
func Verdict(severity int, rule string) Reply {
	text := fmt.Sprintf("<severity>%d</severity>", severity)
	if rule != "" {
		text += "<category>" + rule + "</category>"
	}
	return Reply{Text: text}
}

// ClassifiedAction gives the action that a request of the classifier
// reviews: the last entry of its transcript (the entries before are the
// history of the session), such as {"Bash":"git push origin v3.2.0"}; ""
// when r is no such request. The transcript may span blocks.
func ClassifiedAction(r *Request) string {
	if !IsClassifier(r) {
		return ""
	}
	text := r.Seen()
	start := strings.LastIndex(text, "<transcript>")
	end := strings.LastIndex(text, "</transcript>")
	if start < 0 || end < start {
		return ""
	}
	lines := strings.Split(text[start+len("<transcript>"):end], "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}
