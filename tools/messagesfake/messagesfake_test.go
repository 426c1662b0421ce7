package messagesfake

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// post sends body to the stand-in and gives the reply.
func post(t *testing.T, s *Server, path string, body any) *http.Response {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(s.URL()+path, "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func start(t *testing.T, script Script) *Server {
	t.Helper()
	s, err := New(Options{Script: script})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// sseEvent is one server-sent event.
type sseEvent struct {
	name string
	data map[string]any
}

func readEvents(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var events []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.data); err != nil {
				t.Fatalf("an event has data that is no JSON: %v: %s", err, line)
			}
		case line == "":
			if cur.name != "" {
				if cur.data["type"] != cur.name {
					t.Errorf("the event %s has the type %v in its data", cur.name, cur.data["type"])
				}
				events = append(events, cur)
			}
			cur = sseEvent{}
		}
	}
	return events
}

// TestGivenAStreamingRequestWhenTheScriptCallsAToolThenTheEventsAreThoseOfTheMessagesAPI:
// text, then a tool_use whose input comes whole as one input_json_delta,
// stop_reason tool_use, in the order of the Messages API.
func TestGivenAStreamingRequestWhenTheScriptCallsAToolThenTheEventsAreThoseOfTheMessagesAPI(t *testing.T) {
	s := start(t, func(r *Request) Reply {
		return Reply{Text: "I claim it.", Calls: []ToolUse{{Name: "mcp__riff__claim", Input: map[string]any{"item": "issue-7"}}}}
	})
	resp := post(t, s, "/v1/messages", map[string]any{"model": "claude-test", "max_tokens": 100, "stream": true,
		"messages": []any{map[string]any{"role": "user", "content": "claim issue-7"}}})
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q; want text/event-stream", ct)
	}
	events := readEvents(t, resp.Body)
	var names []string
	for _, e := range events {
		names = append(names, e.name)
	}
	want := "message_start content_block_start content_block_delta content_block_stop content_block_start content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("the events are\n%s\nwant\n%s", got, want)
	}
	if m := events[0].data["message"].(map[string]any); m["model"] != "claude-test" || m["role"] != "assistant" {
		t.Errorf("message_start names %v", m)
	}
	if d := events[2].data["delta"].(map[string]any); d["type"] != "text_delta" || d["text"] != "I claim it." {
		t.Errorf("the text delta is %v", d)
	}
	block := events[4].data["content_block"].(map[string]any)
	if block["type"] != "tool_use" || block["name"] != "mcp__riff__claim" || !strings.HasPrefix(block["id"].(string), "toolu_") {
		t.Errorf("the tool block starts as %v", block)
	}
	if d := events[5].data["delta"].(map[string]any); d["type"] != "input_json_delta" || d["partial_json"] != `{"item":"issue-7"}` {
		t.Errorf("the input delta is %v", d)
	}
	if d := events[7].data["delta"].(map[string]any); d["stop_reason"] != "tool_use" {
		t.Errorf("message_delta says %v; want stop_reason tool_use", d)
	}
	if n := len(s.Requests()); n != 1 {
		t.Errorf("the stand-in kept %d requests; want 1", n)
	}
}

// TestGivenARequestWithNoStreamWhenItIsAnsweredThenTheReplyIsOneMessage:
// stream false gives one JSON message, end_turn with no call.
func TestGivenARequestWithNoStreamWhenItIsAnsweredThenTheReplyIsOneMessage(t *testing.T) {
	s := start(t, func(*Request) Reply { return Reply{Text: "a title"} })
	resp := post(t, s, "/v1/messages", map[string]any{"model": "m", "max_tokens": 10, "messages": []any{map[string]any{"role": "user", "content": "hi"}}})
	var msg struct {
		Type       string     `json:"type"`
		Content    []outBlock `json:"content"`
		StopReason string     `json:"stop_reason"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if msg.Type != "message" || msg.StopReason != "end_turn" || len(msg.Content) != 1 || msg.Content[0].Text != "a title" {
		t.Errorf("the reply is %+v", msg)
	}
}

// TestGivenABodyThatIsNoRequestWhenItIsPostedThenTheErrorNamesIt: the
// error of the Messages API, and no request kept.
func TestGivenABodyThatIsNoRequestWhenItIsPostedThenTheErrorNamesIt(t *testing.T) {
	s := start(t, nil)
	resp, err := http.Post(s.URL()+"/v1/messages", "application/json", strings.NewReader("{not json"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `"invalid_request_error"`) || !strings.Contains(string(body), "no JSON request") {
		t.Errorf("a bad body gave %d %s", resp.StatusCode, body)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("the stand-in kept %d requests of a bad body", n)
	}
	resp2 := post(t, s, "/v1/models", map[string]any{})
	if resp2.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown path gave %d; want 404", resp2.StatusCode)
	}
}

// deferredRequest is a request of Claude Code 2.1.332 before ToolSearch:
// the MCP tools only in the list of deferred tools.
func deferredRequest(prompt string) *Request {
	text, _ := json.Marshal(prompt)
	list, _ := json.Marshal("The following deferred tools are now available via ToolSearch. Use ToolSearch:\nMonitor\nmcp__riff__claim\n\nOther text")
	return &Request{
		Messages: []Message{
			{Role: "user", Content: text},
			{Role: "system", Content: list},
		},
		Tools: []Tool{
			{Name: "ToolSearch", InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)},
			{Name: "DeferredToolPlaceholder", DeferLoading: true},
		},
	}
}

// loaded gives r after the ToolSearch of reply, as Claude Code sends it:
// the tool with defer_loading, and a tool_reference in the result.
func loaded(r *Request, reply Reply, schema string) *Request {
	call, _ := json.Marshal([]map[string]any{{"type": "tool_use", "id": "toolu_1", "name": reply.Calls[0].Name, "input": reply.Calls[0].Input}})
	result, _ := json.Marshal([]map[string]any{
		{"type": "tool_result", "tool_use_id": "toolu_1", "content": []map[string]any{{"type": "tool_reference", "tool_name": "mcp__riff__claim"}}},
		{"type": "text", "text": "Tool loaded."},
	})
	next := *r
	next.Messages = append(append([]Message(nil), r.Messages...), Message{Role: "assistant", Content: call}, Message{Role: "user", Content: result})
	next.Tools = append(append([]Tool(nil), r.Tools...), Tool{Name: "mcp__riff__claim", DeferLoading: true, InputSchema: json.RawMessage(schema)})
	return &next
}

const claimSchema = `{"type":"object","properties":{"item":{"type":"string"}},"required":["item"],"additionalProperties":false}`

// TestGivenADeferredToolWhenThePlanCallsItThenToolSearchComesFirst: the
// agent loads the tool, then calls it with its input, then ends the turn.
func TestGivenADeferredToolWhenThePlanCallsItThenToolSearchComesFirst(t *testing.T) {
	a := &Agent{Plans: []Plan{{Name: "take", Steps: []Step{{Tool: "mcp__riff__claim", Input: Fixed(map[string]any{"item": "issue-7"})}}, Text: "Held."}}}
	r := deferredRequest("take issue-7")
	if got := r.Deferred(); strings.Join(got, ",") != "Monitor,mcp__riff__claim" {
		t.Errorf("Deferred() = %q", got)
	}
	first := a.reply(r)
	if len(first.Calls) != 1 || first.Calls[0].Name != ToolSearch || first.Calls[0].Input.(map[string]any)["query"] != "select:mcp__riff__claim" {
		t.Fatalf("the first reply is %+v; want ToolSearch select:mcp__riff__claim", first)
	}
	// A tool with defer_loading and no tool_reference is not loaded yet.
	unloaded := *r
	unloaded.Tools = append(append([]Tool(nil), r.Tools...), Tool{Name: "mcp__riff__claim", DeferLoading: true, InputSchema: json.RawMessage(claimSchema)})
	if got := a.reply(&unloaded); len(got.Calls) != 1 || got.Calls[0].Name != ToolSearch {
		t.Errorf("a deferred tool that no ToolSearch loaded gave %+v; want ToolSearch", got)
	}
	r2 := loaded(r, first, claimSchema)
	second := a.reply(r2)
	if len(second.Calls) != 1 || second.Calls[0].Name != "mcp__riff__claim" {
		t.Fatalf("after ToolSearch the reply is %+v; want the claim", second)
	}
	if turn := r2.Turn(); turn.Prompt != "take issue-7" || len(turn.Calls) != 1 || !turn.Calls[0].Done || turn.Calls[0].Result != "mcp__riff__claim" {
		t.Errorf("the turn after ToolSearch is %+v", turn)
	}
	// The claim's result: the plan is done.
	call, _ := json.Marshal([]map[string]any{{"type": "tool_use", "id": "toolu_2", "name": "mcp__riff__claim", "input": map[string]any{"item": "issue-7"}}})
	result, _ := json.Marshal([]map[string]any{{"type": "tool_result", "tool_use_id": "toolu_2", "content": "You hold issue-7 in acme/app."}})
	r3 := *r2
	r3.Messages = append(append([]Message(nil), r2.Messages...), Message{Role: "assistant", Content: call}, Message{Role: "user", Content: result})
	if third := a.reply(&r3); len(third.Calls) != 0 || third.Text != "Held." {
		t.Errorf("after the claim the reply is %+v; want the text of the plan", third)
	}
	if errs := a.Errors(); len(errs) != 0 {
		t.Errorf("errors: %q", errs)
	}
}

// TestGivenAnInputThatDoesNotFitTheSchemaWhenThePlanCallsThenTheAgentSaysWhy:
// no call; an error of the agent that names the property.
func TestGivenAnInputThatDoesNotFitTheSchemaWhenThePlanCallsThenTheAgentSaysWhy(t *testing.T) {
	a := &Agent{Plans: []Plan{{Name: "take", Steps: []Step{{Tool: "mcp__riff__claim", Input: Fixed(map[string]any{"issue": "7"})}}}}}
	r := deferredRequest("take")
	r2 := loaded(r, a.reply(r), claimSchema)
	got := a.reply(r2)
	if len(got.Calls) != 0 || len(a.Errors()) != 1 || !strings.Contains(a.Errors()[0], `has no "item"`) {
		t.Errorf("a bad input gave %+v, errors %q", got, a.Errors())
	}
}

// TestGivenAStepThatFailsWhenTheResultComesThenTheTurnEndsWithAnError: an
// error result ends the plan unless the step wants the refusal.
func TestGivenAStepThatFailsWhenTheResultComesThenTheTurnEndsWithAnError(t *testing.T) {
	for _, refused := range []bool{false, true} {
		a := &Agent{Plans: []Plan{{Steps: []Step{{Tool: "Bash", Refused: refused}, {Tool: "Bash"}}}}}
		prompt, _ := json.Marshal("go")
		call, _ := json.Marshal([]map[string]any{{"type": "tool_use", "id": "t1", "name": "Bash", "input": map[string]any{}}})
		result, _ := json.Marshal([]map[string]any{{"type": "tool_result", "tool_use_id": "t1", "content": "denied", "is_error": true}})
		r := &Request{Tools: []Tool{{Name: "Bash"}}, Messages: []Message{{Role: "user", Content: prompt}, {Role: "assistant", Content: call}, {Role: "user", Content: result}}}
		got := a.reply(r)
		if refused && (len(got.Calls) != 1 || len(a.Errors()) != 0) {
			t.Errorf("a refusal that the plan wants gave %+v, errors %q; want the next step", got, a.Errors())
		}
		if !refused && (len(got.Calls) != 0 || len(a.Errors()) != 1) {
			t.Errorf("a failed step gave %+v, errors %q; want the end of the turn and an error", got, a.Errors())
		}
	}
}

func TestCheckInput(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"kind":{"type":"string","enum":["message","note"]},"to":{"type":"array","items":{"type":"string"}},"n":{"type":"integer"}},"required":["kind"],"additionalProperties":false}`)
	for _, tc := range []struct {
		input map[string]any
		err   string
	}{
		{map[string]any{"kind": "note"}, ""},
		{map[string]any{"kind": "note", "to": []string{"lead"}, "n": 3}, ""},
		{map[string]any{}, `has no "kind"`},
		{map[string]any{"kind": "shout"}, "not one of"},
		{map[string]any{"kind": "note", "extra": 1}, `has "extra"`},
		{map[string]any{"kind": "note", "to": []any{1}}, "input.to[0] is integer, not string"},
		{map[string]any{"kind": "note", "n": 1.5}, "input.n is number, not integer"},
	} {
		err := CheckInput(schema, tc.input)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("CheckInput(%v) = %v; want %q", tc.input, err, tc.err)
		}
	}
}

// TestGivenARequestOfTheClassifierWhenItIsReadThenItsActionIsTheLastEntry:
// the history of the transcript is not the action under review.
func TestGivenARequestOfTheClassifierWhenItIsReadThenItsActionIsTheLastEntry(t *testing.T) {
	text, _ := json.Marshal("<transcript>\n{\"user\":\"push\"}\n{\"mcp__riff__whoami\":\"whoami\"}\n\n{\"Bash\":\"git push origin v3.2.0\"}\n</transcript>\nRespond with <severity>N</severity> ONLY.")
	r := &Request{Messages: []Message{{Role: "user", Content: text}}}
	if !IsClassifier(r) || ClassifiedAction(r) != `{"Bash":"git push origin v3.2.0"}` {
		t.Errorf("IsClassifier %v, ClassifiedAction %q", IsClassifier(r), ClassifiedAction(r))
	}
	if got := Verdict(90, "Production Deploy").Text; got != "<severity>90</severity><category>Production Deploy</category>" {
		t.Errorf("Verdict = %q", got)
	}
	other := &Request{Messages: []Message{{Role: "user", Content: json.RawMessage(`"hi"`)}}}
	if IsClassifier(other) || ClassifiedAction(other) != "" {
		t.Errorf("a request of a title is taken for the classifier")
	}
}

// TestGivenAPlanFileWithABlockWhenTheClassifierAsksThenItBlocksOnlyThatAction:
// the JSON form of an agent answers the classifier by its rules.
func TestGivenAPlanFileWithABlockWhenTheClassifierAsksThenItBlocksOnlyThatAction(t *testing.T) {
	a, err := ReadAgent(strings.NewReader(`{"plans": [{"when": "push", "steps": [{"tool": "Bash", "input": {"command": "git push"}, "refused": true}]}],
		"block": [{"contains": "git push", "rule": "Production Deploy"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	ask := func(action string) string {
		text, _ := json.Marshal("<transcript>\n{\"user\":\"push\"}\n" + action + "\n</transcript>\nRespond with <severity>N</severity> ONLY.")
		return a.reply(&Request{Messages: []Message{{Role: "user", Content: text}}}).Text
	}
	if got := ask(`{"Bash":"git push origin v3.2.0"}`); got != "<severity>90</severity><category>Production Deploy</category>" {
		t.Errorf("the push gave %q", got)
	}
	if got := ask(`{"Bash":"git status"}`); got != "<severity>5</severity>" {
		t.Errorf("another action gave %q", got)
	}
	if len(a.Plans) != 1 || a.Plans[0].When("please push") != true || a.Plans[0].When("pull") || !a.Plans[0].Steps[0].Refused {
		t.Errorf("the plan of the file is %+v", a.Plans)
	}
}
