// Package messagesfake is a stand-in for the Anthropic Messages API on a
// loopback listener, for the tests that drive a real agent tool (Claude
// Code) with no model: POST /v1/messages, streamed as server-sent events
// when the request asks (as Claude Code does) or as one JSON reply, and
// POST /v1/messages/count_tokens. What the "model" answers is a Script:
// a function of the request. Agent is the script of the tests of riff: it
// plays a model that calls the tools it is given by name, with an input
// that it checks against the schema the request gave, and that calls
// ToolSearch first for a tool that the request defers.
//
// # Basics
//
//	agent := &messagesfake.Agent{Plans: []messagesfake.Plan{{
//		When:  func(prompt string) bool { return strings.Contains(prompt, "take issue-7") },
//		Steps: []messagesfake.Step{{Tool: "mcp__riff__claim", Input: messagesfake.Fixed(map[string]any{"item": "issue-7"})}},
//		Text:  "I hold issue-7.",
//	}}}
//	f, err := messagesfake.New(messagesfake.Options{Script: agent.Script()})
//	defer f.Close()
//	// ANTHROPIC_BASE_URL=f.URL() ANTHROPIC_API_KEY=any claude -p "take issue-7"
//	for _, r := range f.Requests() { ... r.Tools, r.Turn().Calls ... }
//	// agent.Errors() says what the agent could not do.
//
// A request gives its turn (Request.Turn: the prompt and the calls since,
// with their results), its tools, the tools it defers (Deferred), and
// all its text (Seen). For auto mode, IsClassifier, ClassifiedAction and
// Verdict read and answer the classifier of Claude Code (which asks the
// model itself with CLAUDE_CODE_AUTO_MODE_SERVER=0).
//
// # Caveats
//
// It is for tests only: it keeps every request in memory, takes any API
// key, counts tokens by the size of the body, and has none of the rules
// of the real API (limits, caching, thinking).
package messagesfake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Script gives the reply of the model to a request. It runs on the
// goroutine of the request, one request at a time.
type Script func(*Request) Reply

// Reply is what the model says: text, then tool calls. With no call it
// ends its turn (stop_reason end_turn), else it waits for the results
// (tool_use).
type Reply struct {
	Text  string
	Calls []ToolUse
}

// ToolUse is one tool call of a reply. Input is marshalled to JSON; nil
// is {}.
type ToolUse struct {
	Name  string
	Input any
}

// Options configure a stand-in.
type Options struct {
	// Addr is the listen address; "" is 127.0.0.1:0.
	Addr string
	// Script answers each request of /v1/messages; nil says "ok" to each.
	Script Script
	// Model is the model named in each reply when the request names
	// none.
	Model string
}

// Server is a running stand-in.
type Server struct {
	opts     Options
	listener net.Listener
	srv      *http.Server
	done     chan struct{}

	mu       sync.Mutex
	requests []*Request
	next     int
	// script runs one request at a time.
	script sync.Mutex
}

// New starts a stand-in on a loopback listener.
func New(opts Options) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.Script == nil {
		opts.Script = func(*Request) Reply { return Reply{Text: "ok"} }
	}
	l, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, listener: l, done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", s.messages)
	mux.HandleFunc("POST /v1/messages/count_tokens", s.countTokens)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		apiError(w, http.StatusNotFound, "not_found_error", "the stand-in serves POST /v1/messages and /v1/messages/count_tokens, not "+r.Method+" "+r.URL.Path)
	})
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(l)
	}()
	return s, nil
}

// URL is the base URL of the stand-in (ANTHROPIC_BASE_URL).
func (s *Server) URL() string { return "http://" + s.listener.Addr().String() }

// Close stops the stand-in and waits for its goroutine.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	return err
}

// Requests gives each request of /v1/messages so far, oldest first.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

// maxBody bounds a request: a long conversation of Claude Code is a few
// hundred KB.
const maxBody = 32 << 20

func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "the body could not be read or is over 32 MB")
		return
	}
	var req Request
	if err := json.Unmarshal(body, &req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "the body is no JSON request: "+err.Error())
		return
	}
	req.Raw = body
	s.mu.Lock()
	s.requests = append(s.requests, &req)
	s.next++
	id := s.next
	s.mu.Unlock()

	s.script.Lock()
	reply := s.opts.Script(&req)
	s.script.Unlock()

	model := req.Model
	if model == "" {
		model = s.opts.Model
	}
	blocks, err := reply.blocks(id)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "api_error", "the script gave an input that is no JSON: "+err.Error())
		return
	}
	stop := "end_turn"
	if len(reply.Calls) > 0 {
		stop = "tool_use"
	}
	msgID := "msg_fake_" + strconv.Itoa(id)
	inTokens := len(body) / 4
	outTokens := 1
	for _, b := range blocks {
		outTokens += (len(b.Text) + len(b.Input)) / 4
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": blocks, "stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]int{"input_tokens": inTokens, "output_tokens": outTokens},
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	sse := &events{w: w}
	sse.send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": inTokens, "output_tokens": 1},
	}})
	for i, b := range blocks {
		switch b.Type {
		case "text":
			sse.send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			sse.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": b.Text}})
		case "tool_use":
			sse.send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			sse.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(b.Input)}})
		}
		sse.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	sse.send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": outTokens}})
	sse.send("message_stop", map[string]any{"type": "message_stop"})
}

// countTokens answers a count by the size of the body.
func (s *Server) countTokens(w http.ResponseWriter, r *http.Request) {
	n, _ := io.Copy(io.Discard, io.LimitReader(r.Body, maxBody))
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]int64{"input_tokens": n / 4})
}

// outBlock is a content block of a reply.
type outBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text,omitempty"`
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
}

// blocks gives the content of r; the IDs of its calls are made of the
// number of the request.
func (r Reply) blocks(request int) ([]outBlock, error) {
	var out []outBlock
	if r.Text != "" || len(r.Calls) == 0 {
		out = append(out, outBlock{Type: "text", Text: r.Text})
	}
	for i, c := range r.Calls {
		input := c.Input
		if input == nil {
			input = map[string]any{}
		}
		raw, err := json.Marshal(input)
		if err != nil {
			return nil, err
		}
		out = append(out, outBlock{Type: "tool_use", ID: fmt.Sprintf("toolu_fake_%d_%d", request, i), Name: c.Name, Input: raw})
	}
	return out, nil
}

// events writes server-sent events, each flushed at once.
type events struct{ w http.ResponseWriter }

func (e *events) send(event string, data any) {
	raw, _ := json.Marshal(data)
	var b bytes.Buffer
	fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", event, raw)
	_, _ = e.w.Write(b.Bytes())
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

// apiError writes an error as the Messages API does.
func apiError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}})
}
