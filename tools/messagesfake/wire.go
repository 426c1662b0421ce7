package messagesfake

import (
	"encoding/json"
	"strings"
)

// Request is one request of POST /v1/messages as the stand-in read it.
type Request struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	Stream    bool            `json:"stream"`
	System    json.RawMessage `json:"system,omitempty"`
	Messages  []Message       `json:"messages"`
	Tools     []Tool          `json:"tools,omitempty"`
	// Raw is the body as it came.
	Raw json.RawMessage `json:"-"`
}

// Message is one message of a request. Content is a string or a list of
// blocks on the wire; Blocks gives it as blocks.
type Message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// Block is a content block: text, tool_use, tool_result, tool_reference
// and the others, with the fields that the stand-in reads.
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	ToolName  string          `json:"tool_name,omitempty"`
}

// Tool is one tool that a request offers.
type Tool struct {
	Type         string          `json:"type,omitempty"`
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema,omitempty"`
	DeferLoading bool            `json:"defer_loading,omitempty"`
}

// Blocks gives the content of m as blocks: a string is one text block;
// content that is neither is no block.
func (m Message) Blocks() []Block {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []Block{{Type: "text", Text: s}}
	}
	var blocks []Block
	_ = json.Unmarshal(m.Content, &blocks)
	return blocks
}

// ResultText gives the text of a tool_result block: its string content,
// or the text of its text blocks and the names of its tool references,
// one a line.
func (b Block) ResultText() string {
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		return s
	}
	var parts []Block
	_ = json.Unmarshal(b.Content, &parts)
	var lines []string
	for _, p := range parts {
		switch p.Type {
		case "text":
			lines = append(lines, p.Text)
		case "tool_reference":
			lines = append(lines, p.ToolName)
		}
	}
	return strings.Join(lines, "\n")
}

// Tool gives the tool of r named name.
func (r *Request) Tool(name string) (Tool, bool) {
	for _, t := range r.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// Turn is the part of the conversation of a request since its last
// prompt: the last user message with no tool result (a prompt, or a note
// that Claude Code puts in, such as a <task-notification>), and what the
// assistant called since, with the results.
type Turn struct {
	// Prompt is the text of the message that started the turn.
	Prompt string
	// Calls are the tool calls of the assistant in the turn, oldest
	// first, each with its result once it came.
	Calls []Call
}

// Call is a tool call of the assistant and its result.
type Call struct {
	ID    string
	Name  string
	Input json.RawMessage
	// Result is the text of its tool result; Done says that it came.
	Result  string
	IsError bool
	Done    bool
}

// Turn gives the current turn of r.
func (r *Request) Turn() Turn {
	start := -1
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role != "user" {
			continue
		}
		if !hasType(m.Blocks(), "tool_result") {
			start = i
			break
		}
	}
	var t Turn
	if start < 0 {
		return t
	}
	var texts []string
	for _, b := range r.Messages[start].Blocks() {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	t.Prompt = strings.Join(texts, "\n")
	index := map[string]int{}
	for _, m := range r.Messages[start+1:] {
		for _, b := range m.Blocks() {
			switch {
			case m.Role == "assistant" && b.Type == "tool_use":
				index[b.ID] = len(t.Calls)
				t.Calls = append(t.Calls, Call{ID: b.ID, Name: b.Name, Input: b.Input})
			case m.Role == "user" && b.Type == "tool_result":
				if i, ok := index[b.ToolUseID]; ok {
					t.Calls[i].Result, t.Calls[i].IsError, t.Calls[i].Done = b.ResultText(), b.IsError, true
				}
			case m.Role == "user" && b.Type == "text":
				// Claude Code may add text beside the results (a
				// reminder): part of the turn, not a new one.
			}
		}
	}
	return t
}

// Seen gives the text of every message of r, each block on a line: for a
// test that looks for what Claude Code put into the conversation.
func (r *Request) Seen() string {
	var b strings.Builder
	for _, m := range r.Messages {
		for _, blk := range m.Blocks() {
			switch blk.Type {
			case "text":
				b.WriteString(blk.Text)
			case "tool_result":
				b.WriteString(blk.ResultText())
			case "tool_use":
				b.WriteString(blk.Name + " " + string(blk.Input))
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func hasType(blocks []Block, typ string) bool {
	for _, b := range blocks {
		if b.Type == typ {
			return true
		}
	}
	return false
}
