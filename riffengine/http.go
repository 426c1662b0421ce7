package riffengine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/quote"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffstate"
)

// The times of the HTTP server: a slow or endless client cannot hold it.
// Streams set their own write deadlines and send a keep-alive line.
const (
	ReadHeaderTimeout = 5 * time.Second
	ReadTimeout       = 30 * time.Second
	IdleTimeout       = 120 * time.Second
	MaxHeaderBytes    = 16 << 10
	// KeepAlive is the time between two keep-alive lines of a stream.
	KeepAlive = 15 * time.Second
)

// The headers that each call reads or each reply has, in the canonical
// form of net/http (the keys of its header maps): a lookup or a set by
// that key does not make the canonical form again at each call.
const (
	headerBuild       = "Riff-Build" // wire.HeaderBuild
	headerCall        = "Riff-Call"  // wire.HeaderCall
	headerContentType = "Content-Type"
)

// headerValue gives the first value of the header key (in its canonical
// form) of h, or "".
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// routed is a command that a client can send: a command of riffstate
// that is a call of the wire with the same reply.
type routed[R any] interface {
	riffstate.Command[R]
	wire.Call[R]
	Caller() name.SessionURI
}

// asked is a query or a signal of the wire.
type asked[R any] interface {
	wire.Call[R]
	Caller() name.SessionURI
}

// Server is the HTTP side of an engine: one generic handler for each
// routed command, the queries, the signals and the streams. No rule
// lives here: a handler decodes, calls the engine, encodes.
type Server struct {
	e      *Engine
	tokens TokenLayer
	denier *denier
	mux    *http.ServeMux
	log    *slog.Logger
	// build is the value of riff-build, formatted once: it is on every
	// reply.
	build []string
	// jsonType is the Content-Type of a JSON reply, made once: every
	// reply shares the value and nothing changes it.
	jsonType []string
	// KeepAlive is the time between two keep-alive lines of a stream.
	KeepAlive time.Duration
}

// NewServer makes the HTTP side of e.
func NewServer(e *Engine, tokens TokenLayer) *Server {
	s := &Server{e: e, tokens: tokens, mux: http.NewServeMux(), log: e.log, KeepAlive: KeepAlive,
		build: []string{e.opts.Build.String()}, jsonType: []string{"application/json"}}
	s.denier = newDenier(e.opts.Logger.With("target", "engine"), e.opts.Now)
	s.routes()
	return s
}

func (s *Server) routes() {
	// The commands: one line for each, and one handler for all.
	route[riffstate.Register, wire.RegisterReply](s)
	route[riffstate.Start, wire.StartReply](s)
	route[riffstate.End, wire.EndReply](s)
	route[riffstate.Join, wire.ThreadReply](s)
	route[riffstate.Leave, wire.ThreadReply](s)
	route[riffstate.Post, wire.PostReply](s)
	route[riffstate.Claim, wire.ClaimReply](s)
	route[riffstate.Release, wire.ReleaseReply](s)
	route[riffstate.ReleaseFor, wire.ReleaseForReply](s)
	route[riffstate.Lead, wire.LeadReply](s)
	route[riffstate.Pause, wire.PauseReply](s)
	route[riffstate.Resume, wire.PauseReply](s)
	route[riffstate.Hold, wire.TextReply](s)
	route[riffstate.Free, wire.TextReply](s)
	route[riffstate.SetPlan, wire.TextReply](s)
	route[riffstate.PlanOff, wire.TextReply](s)
	route[riffstate.SetNotes, wire.TextReply](s)
	route[riffstate.SetIdle, wire.TextReply](s)

	// The queries read the written copy and do not wait for the writer.
	query(s, func(v riffstate.View, c riffstate.Caller, q wire.Who, now riffstate.Now) (wire.WhoReply, []riffstate.Signal, error) {
		return v.Who(c, q.All, now), nil, nil
	})
	query(s, func(v riffstate.View, c riffstate.Caller, q wire.Whoami, now riffstate.Now) (wire.WhoamiReply, []riffstate.Signal, error) {
		return v.Whoami(c, now), nil, nil
	})
	query(s, func(v riffstate.View, c riffstate.Caller, q wire.Read, now riffstate.Now) (wire.ReadReply, []riffstate.Signal, error) {
		return v.Read(c, q, now)
	})
	query(s, func(v riffstate.View, c riffstate.Caller, q wire.Threads, now riffstate.Now) (wire.ThreadsReply, []riffstate.Signal, error) {
		return v.Threads(c, now), nil, nil
	})
	query(s, func(v riffstate.View, c riffstate.Caller, q wire.Riff, now riffstate.Now) (wire.Pauses, []riffstate.Signal, error) {
		return v.PausesView(), nil, nil
	})
	query(s, func(v riffstate.View, c riffstate.Caller, q wire.Idle, now riffstate.Now) (wire.IdleReply, []riffstate.Signal, error) {
		return v.IdleView(), nil, nil
	})
	query(s, func(v riffstate.View, c riffstate.Caller, q wire.Notes, now riffstate.Now) (wire.NotesReply, []riffstate.Signal, error) {
		r, err := v.NotesView(c, q, now)
		return r, nil, err
	})

	// The signals change only the presence.
	signal(s, func(c riffstate.Caller, q wire.Status) (riffstate.Signal, error) {
		if err := checkLine("status", q.Text); err != nil {
			return nil, err
		}
		return riffstate.StatusSet{Text: q.Text}, nil
	}, nil, func(v riffstate.View, c riffstate.Caller, now riffstate.Now, _ string) wire.TextReply {
		return wire.TextReply{Text: "Your status is set."}
	})
	signal(s, func(c riffstate.Caller, q wire.Blocked) (riffstate.Signal, error) {
		if err := checkLine("reason", q.Reason); err != nil {
			return nil, err
		}
		return riffstate.BlockedSet{Reason: q.Reason}, nil
	}, func(v riffstate.View, c riffstate.Caller, q wire.Blocked, now riffstate.Now) string {
		return v.BlockedTell(c, q.Reason, now)
	}, func(v riffstate.View, c riffstate.Caller, now riffstate.Now, told string) wire.TextReply {
		return v.BlockedReply(c, told, now)
	})
	signal(s, func(c riffstate.Caller, q wire.Step) (riffstate.Signal, error) {
		n := 0
		for _, set := range []bool{q.Start != "", q.Done, q.Fail != ""} {
			if set {
				n++
			}
		}
		if n != 1 {
			return nil, wire.Refuse(wire.BadRequest, "a step call gives one of start, done and fail")
		}
		if err := checkLine("step", q.Start+q.Fail); err != nil {
			return nil, err
		}
		return riffstate.StepChange{Start: q.Start, Done: q.Done, Fail: q.Fail}, nil
	}, func(v riffstate.View, c riffstate.Caller, q wire.Step, _ riffstate.Now) string {
		if q.Fail == "" {
			return ""
		}
		step := "step"
		if l := v.Presence().Live(c.Who()); l != nil && l.Step != nil {
			step = l.Step.Name
		}
		return "step failed: " + step + ": " + q.Fail
	}, func(v riffstate.View, c riffstate.Caller, now riffstate.Now, told string) wire.TextReply {
		return wire.TextReply{Text: strings.TrimSpace("Your step is set. " + strings.TrimSuffix(told, ";"))}
	})
	signal(s, func(c riffstate.Caller, q wire.Alive) (riffstate.Signal, error) {
		if q.PromptSecs != nil && *q.PromptSecs < 0 {
			return nil, wire.Refuse(wire.BadRequest, "prompt_secs is the time since the last prompt: 0 or more seconds, not %d", *q.PromptSecs)
		}
		return riffstate.Alive{Activity: q.Activity, PromptSecs: q.PromptSecs, Container: q.Container, Binary: q.Binary}, nil
	}, nil, func(v riffstate.View, c riffstate.Caller, now riffstate.Now, _ string) wire.AliveReply {
		s := v.Riff().Session(c.Who())
		return wire.AliveReply{Clear: s != nil && s.Life == riffstate.MustClear}
	})
	signal(s, func(c riffstate.Caller, q wire.Move) (riffstate.Signal, error) {
		return riffstate.Place{Place: c.URI.Place()}, nil
	}, nil, func(v riffstate.View, c riffstate.Caller, now riffstate.Now, _ string) wire.RegisterReply {
		reply := wire.RegisterReply{URI: c.URI}
		if s := v.Riff().Session(c.Who()); s != nil {
			reply.URI = v.Marked(s, now)
		}
		return reply
	})

	s.mux.HandleFunc("POST "+wire.Watch{}.Path(), s.watch)
	s.mux.HandleFunc("POST "+wire.Tail{}.Path(), s.tail)
	s.mux.HandleFunc(wire.Server{}.Path(), s.server)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.refuse(w, wire.Refuse(wire.BadRequest, "riff-server has no call %s %s", r.Method, quote.Input(r.URL.Path)), http.StatusNotFound)
	})
}

// checkLine checks a status, a block reason or a step: one line of at
// most 400 characters.
func checkLine(what, text string) error {
	if n := len([]rune(text)); n > wire.MaxStatus {
		return wire.Refuse(wire.BadRequest, "the %s has more than %d characters", what, wire.MaxStatus)
	}
	if bytes.ContainsAny([]byte(text), "\r\n") {
		return wire.Refuse(wire.BadRequest, "the %s is one line", what)
	}
	return nil
}

// ServeHTTP serves a call: every reply has riff-build.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The header is set as a value that every reply shares: no handler
	// changes it.
	w.Header()[headerBuild] = s.build
	if r.URL.Path != (wire.Server{}).Path() {
		if ok, why := s.e.Serving(); !ok {
			http.Error(w, "riff-server does not serve now: "+why, http.StatusServiceUnavailable)
			return
		}
		if err := s.checkBuild(r); err != nil {
			s.denied(w, r, err, nil)
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

// checkBuild refuses a client of a version line that this server does
// not talk with: 409 old_build, with both builds and the side to update.
// A call with no riff-build (curl) passes.
func (s *Server) checkBuild(r *http.Request) *wire.Refused {
	text := headerValue(r.Header, headerBuild)
	if text == "" {
		return nil
	}
	client, err := build.ParseBuild(text)
	if err != nil {
		return wire.Refuse(wire.OldBuild, "riff-server cannot read the build of this riff: %v", err)
	}
	server := s.e.opts.Build
	if build.Talks(server.Version, client.Version) {
		return nil
	}
	return wire.Refuse(wire.OldBuild, "%s", build.MismatchError(server, client))
}

// refuse writes a refusal: the status, the header riff-refused and the
// reason as text.
func (s *Server) refuse(w http.ResponseWriter, r *wire.Refused, status int) {
	if status == 0 {
		status = r.Code.Status()
	}
	w.Header().Set(wire.HeaderRefused, string(r.Code))
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, r.Reason)
}

// denied writes a refusal of the token layer and its denied line.
func (s *Server) denied(w http.ResponseWriter, r *http.Request, refused *wire.Refused, body []byte) {
	named := ""
	if body != nil {
		var me struct {
			Me string `json:"me"`
		}
		if json.Unmarshal(body, &me) == nil {
			named = me.Me
		}
	}
	s.denier.deny(refused.Code, r.URL.Path, named, false)
	s.refuse(w, refused, 0)
}

// fail writes the error of a call that the engine did not finish.
func (s *Server) fail(w http.ResponseWriter, err error) {
	var refused *wire.Refused
	switch {
	case errors.As(err, &refused):
		s.refuse(w, refused, 0)
	case errors.Is(err, ErrStopped):
		http.Error(w, "riff-server stopped: the call was not done; try it again", http.StatusServiceUnavailable)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		// The client went: it loses only its reply.
	default:
		http.Error(w, "riff-server: "+callerText(err), http.StatusInternalServerError)
	}
}

// readBody reads a body of at most 64 KiB.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, wire.MaxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			s.refuse(w, wire.Refuse(wire.BadRequest, "the body has more than %d bytes (64 KiB)", wire.MaxBody), http.StatusRequestEntityTooLarge)
			return nil, false
		}
		s.refuse(w, wire.Refuse(wire.BadRequest, "the body does not read: %v", err), 0)
		return nil, false
	}
	return body, true
}

// decode reads the body of a call into v, and proves its caller.
func decode[T interface{ Caller() name.SessionURI }](s *Server, w http.ResponseWriter, r *http.Request) (T, Proof, bool) {
	var v T
	body, ok := s.readBody(w, r)
	if !ok {
		return v, Proof{}, false
	}
	if err := json.Unmarshal(body, &v); err != nil {
		s.refuse(w, wire.Refuse(wire.BadRequest, "the body of %s does not read: %v", r.URL.Path, err), 0)
		return v, Proof{}, false
	}
	if refused := wire.CheckCallID(headerValue(r.Header, headerCall)); refused != nil {
		s.refuse(w, refused, 0)
		return v, Proof{}, false
	}
	proof, refused := s.tokens.Prove(r, v.Caller())
	if refused != nil {
		s.denied(w, r, refused, body)
		return v, Proof{}, false
	}
	return v, proof, true
}

// writeJSON writes a reply. It does not escape & < >: a URI with claims
// reads as it is.
func (s *Server) writeJSON(w http.ResponseWriter, v any) {
	w.Header()[headerContentType] = s.jsonType
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return
	}
}

// route makes the route of one command: its path, and the one handler.
// The reply to a repeated call has the header riff-repeat: 1.
func route[C routed[R], R any](s *Server) {
	var zero C
	s.mux.HandleFunc("POST "+zero.Path(), func(w http.ResponseWriter, r *http.Request) {
		cmd, proof, ok := decode[C](s, w, r)
		if !ok {
			return
		}
		replied, err := Dispatch[C, R](r.Context(), s.e, Authenticate(proof, cmd))
		if err != nil {
			s.fail(w, err)
			return
		}
		if replied.Repeat {
			w.Header().Set(wire.HeaderRepeat, "1")
		}
		s.writeJSON(w, replied.Reply)
	})
}

// query makes the route of a query: it reads the written copy.
func query[Q asked[R], R any](s *Server, fn func(v riffstate.View, c riffstate.Caller, q Q, now riffstate.Now) (R, []riffstate.Signal, error)) {
	var zero Q
	s.mux.HandleFunc("POST "+zero.Path(), func(w http.ResponseWriter, r *http.Request) {
		q, proof, ok := decode[Q](s, w, r)
		if !ok {
			return
		}
		var reply R
		var ferr error
		err := s.e.Query(r.Context(), proof.caller, func(v riffstate.View, now riffstate.Now) []riffstate.Signal {
			c := s.e.state.Caller(proof.caller)
			var sigs []riffstate.Signal
			reply, sigs, ferr = fn(v, c, q, now)
			return sigs
		})
		if err == nil {
			err = ferr
		}
		if err != nil {
			s.fail(w, err)
			return
		}
		s.writeJSON(w, reply)
	})
}

// signal makes the route of a signal: it changes only the presence.
// tell, when not nil, gives the text of a message to the lead of the
// caller's user that the call sends after the signal, as a post of the
// caller through the one path (a block and a failed step wake the
// lead); told is what became of it, for the reply.
func signal[Q asked[R], R any](s *Server, make func(c riffstate.Caller, q Q) (riffstate.Signal, error),
	tell func(v riffstate.View, c riffstate.Caller, q Q, now riffstate.Now) string,
	reply func(v riffstate.View, c riffstate.Caller, now riffstate.Now, told string) R) {
	var zero Q
	s.mux.HandleFunc("POST "+zero.Path(), func(w http.ResponseWriter, r *http.Request) {
		q, proof, ok := decode[Q](s, w, r)
		if !ok {
			return
		}
		sig, err := make(proof.caller, q)
		if err != nil {
			s.fail(w, err)
			return
		}
		if err := s.e.Signal(r.Context(), proof.caller, sig); err != nil {
			s.fail(w, err)
			return
		}
		told := ""
		if tell != nil {
			var text string
			s.e.View(func(v riffstate.View, now riffstate.Now) { text = tell(v, s.e.state.Caller(proof.caller), q, now) })
			if text != "" {
				post := riffstate.Post{Post: wire.Post{Me: proof.caller.URI, Tell: "lead", Body: text}}
				_, err := Dispatch[riffstate.Post, wire.PostReply](r.Context(), s.e, Authenticate(Proof{caller: proof.caller}, post))
				var refused *wire.Refused
				switch {
				case err == nil:
					told = "Your lead got a message;"
				case errors.As(err, &refused):
					told = refused.Reason + "."
				default:
					s.fail(w, err)
					return
				}
			}
		}
		var out R
		s.e.View(func(v riffstate.View, now riffstate.Now) { out = reply(v, s.e.state.Caller(proof.caller), now, told) })
		s.writeJSON(w, out)
	})
}

// server gives the facts of the server. It answers also while the
// server replies 503 to each other call.
func (s *Server) server(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		s.refuse(w, wire.Refuse(wire.BadRequest, "GET %s gives the facts of the server", r.URL.Path), http.StatusMethodNotAllowed)
		return
	}
	s.writeJSON(w, s.e.Facts())
}

// streamWriter writes the lines of a stream, each with a write deadline
// of its own.
type streamWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (sw streamWriter) send(ev wire.Event) error {
	if err := sw.rc.SetWriteDeadline(time.Now().Add(2 * KeepAlive)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ev); err != nil {
		return err
	}
	if _, err := sw.w.Write(buf.Bytes()); err != nil {
		return err
	}
	return sw.rc.Flush()
}

func (s *Server) openStream(w http.ResponseWriter) streamWriter {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	return streamWriter{w: w, rc: rc}
}

// pump sends the events of a stream and a keep-alive line each
// KeepAlive, until the client goes, the stream falls behind, or the
// server stops.
func (s *Server) pump(ctx context.Context, sw streamWriter, st *stream, convert func(wire.Event) wire.Event) {
	tick := time.NewTicker(s.KeepAlive)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-st.events:
			if !ok {
				return
			}
			if err := sw.send(convert(ev)); err != nil {
				return
			}
		case <-tick.C:
			if err := sw.send(wire.Event{Type: wire.EventKeepAlive}); err != nil {
				return
			}
		}
	}
}

// watch is the stream of the wakes of a session: its first line at the
// open, then the wake that it missed (from the written copy), then each
// wake.
func (s *Server) watch(w http.ResponseWriter, r *http.Request) {
	q, proof, ok := decode[wire.Watch](s, w, r)
	if !ok {
		return
	}
	c := proof.caller
	if err := s.e.Signal(r.Context(), c, riffstate.WatchStarted{}); err != nil {
		s.fail(w, err)
		return
	}
	defer func() {
		s.e.mu.Lock()
		riffstate.WatchEnded{}.Set(s.e.state.Presence(), c.Who(), s.e.now())
		s.e.mu.Unlock()
	}()
	_ = q
	st := s.e.streams.watch(c.Who())
	defer s.e.streams.leave(st)
	var missed *wire.Wake
	s.e.View(func(v riffstate.View, now riffstate.Now) {
		if wake, ok := v.MissedWake(c.Who()); ok {
			missed = &wake
		}
	})
	sw := s.openStream(w)
	if err := sw.send(wire.Event{Type: wire.EventHello}); err != nil {
		return
	}
	if missed != nil {
		if err := sw.send(wire.Event{Type: wire.EventWake, Wake: missed}); err != nil {
			return
		}
	}
	s.pump(r.Context(), sw, st, func(ev wire.Event) wire.Event {
		if ev.Wake != nil {
			wake := *ev.Wake
			if t, err := name.ParseThread(wake.Thread); err == nil {
				wake.Thread = t.For(c.Who())
			}
			ev.Wake = &wake
		}
		return ev
	})
}

// tail is the stream of the messages of a thread. A caller gets a
// direct thread only when it is one of its two sides. The client opens
// the stream first, then reads the thread after the last message that
// it showed.
func (s *Server) tail(w http.ResponseWriter, r *http.Request) {
	q, proof, ok := decode[wire.Tail](s, w, r)
	if !ok {
		return
	}
	c := proof.caller
	if err := s.e.arrive(r.Context(), c); err != nil {
		s.fail(w, err)
		return
	}
	var thread name.Thread
	var err error
	s.e.View(func(v riffstate.View, now riffstate.Now) {
		thread, err = v.ThreadOf(s.e.state.Caller(c), q.Thread, now)
	})
	if err != nil {
		s.fail(w, err)
		return
	}
	if thread.IsDirect() && !thread.Has(c.Who()) {
		s.fail(w, wire.Refuse(wire.NotAllowed, "you can tail only your own direct threads"))
		return
	}
	st := s.e.streams.tail(thread)
	defer s.e.streams.leave(st)
	// With after, the stream first sends the kept messages after that seq,
	// from the written copy; a message can then come twice, and a client
	// shows each seq once.
	var kept []wire.Message
	if q.After > 0 {
		s.e.View(func(v riffstate.View, now riffstate.Now) {
			if t := v.Riff().Threads[thread]; t != nil {
				for _, m := range t.Messages {
					if m.Seq > q.After {
						kept = append(kept, riffstate.MessageOf(m, true))
					}
				}
			}
		})
	}
	sw := s.openStream(w)
	if err := sw.send(wire.Event{Type: wire.EventHello}); err != nil {
		return
	}
	for i := range kept {
		kept[i].Thread = thread.For(c.Who())
		if err := sw.send(wire.Event{Type: wire.EventMessage, Message: &kept[i]}); err != nil {
			return
		}
	}
	s.pump(r.Context(), sw, st, func(ev wire.Event) wire.Event {
		if ev.Message != nil {
			m := *ev.Message
			m.Thread = thread.For(c.Who())
			ev.Message = &m
		}
		return ev
	})
}

// HTTPServer gives an http.Server for the handler with the time limits
// of riff-server.
func HTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// FlushDenied ends the window of the denied lines: a stop calls it, so
// that no count is lost.
func (s *Server) FlushDenied() { s.denier.flush() }

// RunDenied flushes the window of the denied lines at the end of each
// window until ctx ends.
func (s *Server) RunDenied(ctx context.Context) {
	tick := time.NewTicker(DeniedInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			s.denier.flush()
			return
		case <-tick.C:
			s.denier.flush()
		}
	}
}
