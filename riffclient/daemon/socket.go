package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The paths of the daemon on the socket of a session, beside the paths
// of the wire.
const (
	// PathStart gives the relay what it starts: [StartReply].
	PathStart = "/daemon/start"
	// PathWakes streams the wakes for the input of the worker: one JSON
	// [wire.Wake] a line, until the end of the first turn.
	PathWakes = "/daemon/wakes"
	// PathTurn tells the end of the first turn: [TurnEnded].
	PathTurn = "/daemon/turn"
)

// StartReply is what the relay of a container starts.
type StartReply struct {
	Session string          `json:"session"`
	URI     name.SessionURI `json:"uri"`
	Item    name.Item       `json:"item"`
	Prompt  string          `json:"prompt"`
	// Args are more arguments of claude.
	Args []string `json:"args,omitempty"`
}

// TurnEnded tells the daemon that the first turn of claude ended, with
// the wakes that went into its input and that claude never saw.
type TurnEnded struct {
	Unseen []wire.Wake `json:"unseen,omitempty"`
}

// handler serves the socket of one session: the calls of the riff tools
// of that session (each sent as that session, with its session token),
// and the paths of the relay. A call that names another session is
// refused: the socket acts only as its session.
func (s *session) handler() http.Handler {
	mux := http.NewServeMux()
	// The tools of a session in a container (the guide: "whoami, who,
	// threads, read, post, tell, status and blocked"), and what they
	// call.
	forward[wire.WhoamiReply](mux, s, func(c wire.Whoami) wire.Call[wire.WhoamiReply] { return c })
	forward[wire.WhoReply](mux, s, func(c wire.Who) wire.Call[wire.WhoReply] { return c })
	forward[wire.ThreadsReply](mux, s, func(c wire.Threads) wire.Call[wire.ThreadsReply] { return c })
	forward[wire.ReadReply](mux, s, func(c wire.Read) wire.Call[wire.ReadReply] { return c })
	forward[wire.TextReply](mux, s, func(c wire.Status) wire.Call[wire.TextReply] { return c })
	forward[wire.AliveReply](mux, s, func(c wire.Alive) wire.Call[wire.AliveReply] { c.Container = true; return c })
	mux.HandleFunc("POST "+wire.Post{}.Path(), s.asSession(func(ctx context.Context, me name.SessionURI, body []byte) (any, error) {
		var p wire.Post
		if err := json.Unmarshal(body, &p); err != nil {
			return nil, wire.Refuse(wire.BadRequest, "the post is no JSON that riff can read: %v", err)
		}
		p.Me = me
		// The daemon signs the post as the session, with the device key
		// of the machine (riffclient.Post), in a riff with sign-in.
		p.Payload, p.Sig = nil, ""
		return riffclient.Post(ctx, s.d.c.Client, p)
	}))
	mux.HandleFunc("POST "+wire.Blocked{}.Path(), s.asSession(func(ctx context.Context, me name.SessionURI, body []byte) (any, error) {
		var b wire.Blocked
		if err := json.Unmarshal(body, &b); err != nil {
			return nil, wire.Refuse(wire.BadRequest, "the call is no JSON that riff can read: %v", err)
		}
		b.Me, b.Payload, b.Sig = me, nil, ""
		return riffclient.Blocked(ctx, s.d.c.Client, b)
	}))
	mux.HandleFunc("GET "+PathStart, func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		k := s.kept
		s.mu.Unlock()
		s.reply(w, StartReply{Session: k.URI.Session, URI: k.URI, Item: k.Item, Prompt: k.Prompt, Args: s.d.c.ClaudeArgs})
	})
	mux.HandleFunc("GET "+PathWakes, s.serveWakes)
	mux.HandleFunc("POST "+PathTurn, func(w http.ResponseWriter, r *http.Request) {
		var t TurnEnded
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&t); err != nil {
			s.refuse(w, wire.Refuse(wire.BadRequest, "the end of the turn is no JSON that riff can read: %v", err))
			return
		}
		s.turnEnded(t.Unseen)
		s.reply(w, struct{}{})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.refuse(w, wire.Refuse(wire.NotAllowed, "the socket of a session in a container serves the riff tools whoami, who, threads, read, post, tell, status and blocked: not %s", r.URL.Path))
	})
	return mux
}

// forward routes one call of the wire: the body, as the session, to
// riff-server.
func forward[R any, C any](mux *http.ServeMux, s *session, call func(C) wire.Call[R]) {
	var zero C
	path := call(zero).Path()
	mux.HandleFunc("POST "+path, s.asSession(func(ctx context.Context, me name.SessionURI, body []byte) (any, error) {
		// me of the call is the session, at the place that the daemon
		// gave it.
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(body, &fields); err != nil {
			return nil, wire.Refuse(wire.BadRequest, "the call is no JSON object that riff can read: %v", err)
		}
		fields["me"], _ = json.Marshal(me)
		body, _ = json.Marshal(fields)
		var named C
		if err := json.Unmarshal(body, &named); err != nil {
			return nil, wire.Refuse(wire.BadRequest, "the call is no JSON that riff can read: %v", err)
		}
		return riffclient.Send(ctx, s.d.c.Client, call(named))
	}))
}

// asSession reads the body of a call, refuses one whose me is not the
// session of the socket, and replies what do gives.
func (s *session) asSession(do func(ctx context.Context, me name.SessionURI, body []byte) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
		if err != nil {
			s.refuse(w, wire.Refuse(wire.BadRequest, "the body of the call cannot be read"))
			return
		}
		var named struct {
			Me name.SessionURI `json:"me"`
		}
		if err := json.Unmarshal(body, &named); err != nil {
			s.refuse(w, wire.Refuse(wire.BadRequest, "the call names no session that riff can read: %v", err))
			return
		}
		s.mu.Lock()
		me := s.kept.URI
		s.mu.Unlock()
		if named.Me.Session != me.Session {
			s.refuse(w, wire.Refuse(wire.NotYou, "the socket of session %s acts only as that session, not as %q", me.Who().Short(), named.Me.Session))
			return
		}
		reply, err := do(r.Context(), me, body)
		if err != nil {
			var refused *wire.Refused
			if errors.As(err, &refused) {
				s.refuse(w, refused)
				return
			}
			s.fail(w, err)
			return
		}
		s.reply(w, reply)
	}
}

// reply writes a reply as riff-server does: JSON, with the build.
func (s *session) reply(w http.ResponseWriter, v any) {
	w.Header().Set(wire.HeaderBuild, s.d.c.Client.Build().String())
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// refuse writes a refusal as riff-server does.
func (s *session) refuse(w http.ResponseWriter, r *wire.Refused) {
	w.Header().Set(wire.HeaderBuild, s.d.c.Client.Build().String())
	w.Header().Set(wire.HeaderRefused, string(r.Code))
	w.Header().Set("Content-Type", "application/json")
	status := r.Status
	if status == 0 {
		status = r.Code.Status()
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"reason": r.Reason})
}

// fail writes a call that did not reach riff-server: 502, so that the
// client of the relay tries again within its budget.
func (s *session) fail(w http.ResponseWriter, err error) {
	w.Header().Set(wire.HeaderBuild, s.d.c.Client.Build().String())
	w.WriteHeader(http.StatusBadGateway)
	_ = json.NewEncoder(w).Encode(map[string]string{"reason": fmt.Sprintf("the riff daemon cannot reach riff-server: %v", err)})
}

// serveWakes streams the wakes for the input of the worker during its
// first turn. A wake counts as given when it is written here.
func (s *session) serveWakes(w http.ResponseWriter, r *http.Request) {
	w.Header().Set(wire.HeaderBuild, s.d.c.Client.Build().String())
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	bw := bufio.NewWriter(w)
	for {
		wk, ok := s.next(r.Context())
		if !ok {
			return
		}
		line, _ := json.Marshal(wk)
		_, _ = bw.Write(append(line, '\n'))
		if err := bw.Flush(); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}
