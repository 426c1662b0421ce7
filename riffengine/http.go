package riffengine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/quote"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffstate"
)

// The headers that each call reads or each reply has, in the canonical
// form of net/http (the keys of its header maps): a lookup or a set by
// that key does not make the canonical form again at each call.
const (
	headerBuild         = "Riff-Build" // wire.HeaderBuild
	headerCall          = "Riff-Call"  // wire.HeaderCall
	headerContentType   = "Content-Type"
	headerContentLength = "Content-Length"
)

// chunkedPast is the length of a body past which net/http sends a reply
// with no Content-Length in chunks (its buffer before it sends the
// header; it gives the length itself under it).
const chunkedPast = 2048

// writeWhole writes a reply whose bytes are all known, with its length
// when net/http would otherwise send it in chunks: one body, with no
// chunk headers and no last chunk to write at the end of the call.
func writeWhole(w http.ResponseWriter, data []byte) {
	if len(data) > chunkedPast {
		w.Header()[headerContentLength] = []string{strconv.Itoa(len(data))}
	}
	_, _ = w.Write(data) // a client that went loses only its reply
}

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

// queried is a query of the wire.
type queried[R any] interface {
	wire.Call[R]
	Caller() name.SessionURI
}

// signaled is a signal call of riffstate that is a call of the wire with
// the same reply.
type signaled[R any] interface {
	riffstate.SignalCall[R]
	wire.Call[R]
	Caller() name.SessionURI
}

// Handler is the HTTP side of an engine: one generic handler for each
// routed command, the queries, the signals and the streams. No rule
// lives here: a handler decodes, calls the engine, encodes.
type Handler struct {
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
	// BodyTime is the longest read of the body of a refused call for its
	// name (BodyTime).
	BodyTime time.Duration
	// streamAfter is the timer of the end of a stream at the expiry of
	// its token (afterTimer; a test gives its own, on its clock).
	streamAfter func(time.Duration) (<-chan time.Time, func() bool)
	// bodies and replies are the buffers of the bodies of the calls and
	// of their replies (buffers).
	bodies, replies buffers
}

// NewHandler makes the HTTP side of e.
func NewHandler(e *Engine, tokens TokenLayer) *Handler {
	s := &Handler{e: e, tokens: tokens, mux: http.NewServeMux(), log: e.log, KeepAlive: KeepAlive,
		BodyTime: BodyTime, streamAfter: afterTimer, build: []string{e.opts.Build.String()}, jsonType: []string{"application/json"}}
	s.bodies.kept, s.replies.kept = keptBody, keptReply
	s.denier = newDenier(e.opts.Logger.With("target", "engine"), e.opts.Now)
	s.routes()
	return s
}

func (s *Handler) routes() {
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
	// The people of a riff with sign-in (riffstate members.go, owner.go,
	// admit.go):
	// a riff with no sign-in refuses each with no_sign_in.
	route[riffstate.Invite, wire.InviteReply](s)
	route[riffstate.Remove, wire.EndedReply](s)
	route[riffstate.SetAdmin, wire.TextReply](s)
	route[riffstate.PassOwner, wire.TextReply](s)
	route[riffstate.TakeOwner, wire.OwnerReply](s)
	route[riffstate.DenyOwner, wire.TextReply](s)
	route[riffstate.Revoke, wire.EndedReply](s)

	// The queries read the written copy and do not wait for the writer.
	query(s, func(v riffstate.View, c riffstate.Caller, q wire.Who, now riffstate.Now) (wire.WhoReply, []riffstate.Signal, error) {
		return v.Who(c, q.All, now), nil, nil
	})
	query(s, func(v riffstate.View, c riffstate.Caller, q wire.Whoami, now riffstate.Now) (wire.WhoamiReply, []riffstate.Signal, error) {
		return v.Whoami(c, now), nil, nil
	})
	query(s, riffstate.View.Read)
	query(s, func(v riffstate.View, c riffstate.Caller, q wire.Threads, now riffstate.Now) (wire.ThreadsReply, []riffstate.Signal, error) {
		return v.Threads(c, now), nil, nil
	})
	query(s, func(v riffstate.View, c riffstate.Caller, q wire.Riff, now riffstate.Now) (wire.Pauses, []riffstate.Signal, error) {
		return v.Pauses(), nil, nil
	})
	query(s, func(v riffstate.View, c riffstate.Caller, q wire.Idle, now riffstate.Now) (wire.IdleReply, []riffstate.Signal, error) {
		return v.Idle(), nil, nil
	})
	query(s, func(v riffstate.View, c riffstate.Caller, q wire.Notes, now riffstate.Now) (wire.NotesReply, []riffstate.Signal, error) {
		r, err := v.Notes(c, q, now)
		return r, nil, err
	})
	query(s, func(v riffstate.View, c riffstate.Caller, q wire.PostContent, now riffstate.Now) (signed.Content, []riffstate.Signal, error) {
		r, err := v.PostContent(c, q, now)
		return r, nil, err
	})
	query(s, riffstate.View.Top)
	query(s, func(v riffstate.View, c riffstate.Caller, q wire.People, now riffstate.Now) (wire.PeopleReply, []riffstate.Signal, error) {
		return v.People(c, now), nil, nil
	})

	// The signals change only the presence: one line for each.
	signal[riffstate.SetStatus, wire.TextReply](s)
	signal[riffstate.SetBlocked, wire.TextReply](s)
	signal[riffstate.SetStep, wire.TextReply](s)
	signal[riffstate.KeepAlive, wire.AliveReply](s)
	signal[riffstate.Move, wire.RegisterReply](s)

	// The token path: the provider, the sign-in, the refresh, the swap
	// (signin_http.go).
	s.signInRoutes()

	// The streams: their handlers are with the hub (streams.go).
	s.mux.HandleFunc("POST "+wire.Watch{}.Path(), s.watch)
	s.mux.HandleFunc("POST "+wire.Tail{}.Path(), s.tail)
	s.mux.HandleFunc(wire.Server{}.Path(), s.server)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.refuse(w, wire.Refuse(wire.BadRequest, "riff-server has no call %s %s", r.Method, quote.Input(r.URL.Path)), http.StatusNotFound)
	})
}

// ServeHTTP serves a call: every reply has riff-build.
func (s *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The header is set as a value that every reply shares: no handler
	// changes it.
	w.Header()[headerBuild] = s.build
	if r.URL.Path != (wire.Server{}).Path() {
		if ok, why := s.e.Serving(); !ok {
			http.Error(w, "riff-server does not serve now: "+why, http.StatusServiceUnavailable)
			return
		}
		// riff login works when the versions do not match: the token path
		// has no build check.
		if err := s.checkBuild(r); err != nil && !tokenPath(r.URL.Path) {
			s.deniedUnread(w, r, err, "")
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

// checkBuild refuses a client of a version line that this server does
// not talk with: 409 old_build, with both builds and the side to update.
// A call with no riff-build (curl) passes.
func (s *Handler) checkBuild(r *http.Request) *wire.Refused {
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

// refuse writes a refusal: the status (status, else the status that the
// refusal carries, else the status of its code), the header riff-refused
// and the reason as text.
func (s *Handler) refuse(w http.ResponseWriter, r *wire.Refused, status int) {
	if status == 0 {
		status = r.Status
	}
	if status == 0 {
		status = r.Code.Status()
	}
	w.Header().Set(wire.HeaderRefused, string(r.Code))
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, r.Reason)
}

// deniedUnread writes a refusal of the token layer that came before the
// read of the body (old_build, or the token of a riff with sign-in), and
// its denied line. Only a call that the window of the lines has a line
// for gets a read of its body for the name (readName); a call over the
// limit gets no read and no line. key is the key of the token ("" with
// none): the line has it only for a valid token.
func (s *Handler) deniedUnread(w http.ResponseWriter, r *http.Request, refused *wire.Refused, key string) {
	reserved := reservedFor(refused.Code, key)
	if s.denier.take(refused.Code, reserved) {
		s.denier.write(refused.Code, r.URL.Path, s.readName(w, r), keyIf(reserved, key))
	} else if r.Body != nil && r.Body != http.NoBody {
		readNoMore(w)
	}
	s.refuse(w, refused, 0)
}

// deniedRead writes a refusal of the token layer that needed the body
// (the me of a riff with no sign-in, or a token that may not act as the
// me of the body), and its denied line, with the name from body.
func (s *Handler) deniedRead(w http.ResponseWriter, r *http.Request, refused *wire.Refused, body []byte, key string) {
	reserved := reservedFor(refused.Code, key)
	if s.denier.take(refused.Code, reserved) {
		s.denier.write(refused.Code, r.URL.Path, nameOf(r, body), keyIf(reserved, key))
	}
	s.refuse(w, refused, 0)
}

// deniedKey writes a refusal of the token layer of a call whose body
// holds no name, and its denied line: a call of the token path (which
// read its body), or of the facts. key is the key of a valid token.
func (s *Handler) deniedKey(w http.ResponseWriter, r *http.Request, refused *wire.Refused, key string) {
	s.deniedRead(w, r, refused, nil, key)
}

// keyIf gives key when the token was valid, and "" otherwise: a line has
// the key only of a valid token.
func keyIf(valid bool, key string) string {
	if valid {
		return key
	}
	return ""
}

// readName reads the body of a refused call for the name of its caller:
// at most wire.MaxBody bytes, for at most s.BodyTime. When the read stops
// before the end of the body (the size, the time, or a connection that
// cannot have a time limit), the call has no name from its body, the
// reply has connection: close, and the server reads no more of the call.
func (s *Handler) readName(w http.ResponseWriter, r *http.Request) string {
	if r.Body == nil || r.Body == http.NoBody {
		return nameOf(r, nil)
	}
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(s.BodyTime)) != nil {
		readNoMore(w)
		return nameOf(r, nil)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, wire.MaxBody+1))
	if err != nil || len(body) > wire.MaxBody {
		readNoMore(w)
		return nameOf(r, nil)
	}
	// The body is read to its end: the connection serves the next call,
	// whose read has the limits of the server again.
	_ = rc.SetReadDeadline(time.Time{})
	return nameOf(r, body)
}

// readNoMore ends the reads of a call whose body the server did not
// read to its end: the reply has connection: close (so net/http does
// not read the rest to keep the connection), and a read deadline in the
// past makes each further read of the connection fail at once.
func readNoMore(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Unix(1, 0))
}

// nameOf gives the name that a refused call gave: the me of its body
// (when the body is JSON with me as a string), or else the uri of its
// query; "" with none.
func nameOf(r *http.Request, body []byte) string {
	if len(body) > 0 {
		var me struct {
			Me json.RawMessage `json:"me"`
		}
		var text string
		if json.Unmarshal(body, &me) == nil && json.Unmarshal(me.Me, &text) == nil && text != "" {
			return text
		}
	}
	if r.URL.RawQuery != "" {
		return r.URL.Query().Get("uri")
	}
	return ""
}

// fail writes the error of a call that the engine did not finish.
func (s *Handler) fail(w http.ResponseWriter, err error) {
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
func (s *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	return s.readBodyInto(w, r, nil)
}

// readBodyInto reads a body of at most 64 KiB into buf (from its
// length), as readBody does.
func (s *Handler) readBodyInto(w http.ResponseWriter, r *http.Request, buf []byte) ([]byte, bool) {
	body, err := readAll(http.MaxBytesReader(w, r.Body, wire.MaxBody), buf)
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

// readAll is io.ReadAll into buf: it reads r to its end and gives what
// it read, after the bytes of buf.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	if buf == nil {
		buf = make([]byte, 0, 512)
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return buf, err
		}
	}
}

// buffers are the byte buffers of the bodies of the calls or of the
// replies of a handler, for reuse: most calls then read their body and
// write their reply with no allocation of a buffer. A buffer is back in
// the pool only once nothing reads it: decode copies what it keeps of a
// body, and a reply is copied into the connection's buffer.
type buffers struct {
	pool sync.Pool
	// kept is the largest buffer that goes back to the pool: a rare
	// larger body or reply does not stay in memory for the next calls.
	kept int
}

const (
	// keptBody is the largest buffer of a body that is kept.
	keptBody = 16 << 10
	// keptReply is the largest buffer of a reply that is kept: a reply
	// at 1,000 claims is about 20 KB, and a buffer of its own for each
	// would give the collector as many bytes to take back.
	keptReply = 256 << 10
)

// get gives a buffer of the pool (or a new one), empty.
func (b *buffers) get() *[]byte {
	if p, ok := b.pool.Get().(*[]byte); ok {
		return p
	}
	buf := make([]byte, 0, 1024)
	return &buf
}

// put gives p back to the pool with the bytes of used, the last use of
// the buffer.
func (b *buffers) put(p *[]byte, used []byte) {
	if cap(used) > b.kept {
		return
	}
	*p = used[:0]
	b.pool.Put(p)
}

// decode reads the body of a call into v, and proves its caller. In a
// riff with sign-in the token and its proof come first, from the
// headers: a call that they refuse gets no read of its body but for the
// name of its denied line (deniedUnread). Then the body is read (at most
// 64 KiB), and the token layer checks the me of the body: a riff with no
// sign-in takes the caller from it, a token must be allowed to act as it.
func decode[T interface{ Caller() name.SessionURI }](s *Handler, w http.ResponseWriter, r *http.Request) (T, Proof, bool) {
	var v T
	token, refused := s.tokens.Token(r)
	if refused != nil {
		s.deniedUnread(w, r, refused, token.Key())
		return v, Proof{}, false
	}
	buf := s.bodies.get()
	body, ok := s.readBodyInto(w, r, *buf)
	// Nothing reads the body after decode: what the call keeps of it is
	// copied.
	defer s.bodies.put(buf, body)
	if !ok {
		return v, Proof{}, false
	}
	if err := decodeBody(body, &v); err != nil {
		s.refuse(w, wire.Refuse(wire.BadRequest, "the body of %s does not read: %v", r.URL.Path, err), 0)
		return v, Proof{}, false
	}
	if refused := wire.CheckCallID(headerValue(r.Header, headerCall)); refused != nil {
		s.refuse(w, refused, 0)
		return v, Proof{}, false
	}
	proof, refused := s.tokens.Prove(r, token, v.Caller())
	switch {
	case refused == nil:
		return v, proof, true
	case tokenLayerCode(refused.Code):
		s.deniedRead(w, r, refused, body, proof.caller.Key)
	default:
		s.refuse(w, refused, 0)
	}
	return v, Proof{}, false
}

// decodeBody reads the body of a call into the zero value v: on the fast
// path of its wire type when it has one that reads the body
// (wire.Claim.DecodeFast), else with json.Unmarshal, the reference,
// which gives the errors (FuzzDecodeBodyIsJSONUnmarshal). The slow path
// decodes into a value of its own, so that v stays off the heap.
func decodeBody[T any](body []byte, v *T) error {
	if decodeFast(body, v) {
		return nil
	}
	p := new(T)
	err := json.Unmarshal(body, p)
	*v = *p
	return err
}

// decodeFast reads body into the zero value v on the fast path of the
// steady calls, claim and release; false for any other call, or a body
// that the fast path does not read.
func decodeFast[T any](body []byte, v *T) bool {
	switch p := any(v).(type) {
	case *riffstate.Claim:
		return p.DecodeFast(body)
	case *riffstate.Release:
		return p.DecodeFast(body)
	}
	return false
}

// writeJSON writes a reply. It does not escape & < >: a URI with claims
// reads as it is. It is generic so that the reply is no value on the
// heap when it has a form by hand.
func writeJSON[R any](s *Handler, w http.ResponseWriter, v R) {
	w.Header()[headerContentType] = s.jsonType
	buf := s.replies.get()
	data, ok := appendReply(*buf, v)
	if !ok {
		b := bytes.NewBuffer((*buf)[:0])
		enc := json.NewEncoder(b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			s.replies.put(buf, *buf)
			http.Error(w, "the reply does not encode: "+err.Error(), http.StatusInternalServerError)
			return
		}
		data = b.Bytes()
	}
	writeWhole(w, data)
	// w.Write copied the bytes.
	s.replies.put(buf, data)
}

// route makes the route of one command: its path, and the one handler.
// The reply to a repeated call has the header riff-repeat: 1.
func route[C routed[R], R any](s *Handler) {
	var zero C
	s.mux.HandleFunc("POST "+zero.Path(), func(w http.ResponseWriter, r *http.Request) {
		cmd, proof, ok := decode[C](s, w, r)
		if !ok {
			return
		}
		buf := s.replies.get()
		replied, err := dispatch[C, R](r.Context(), s.e, Authenticate(proof, cmd), (*buf)[:0])
		if err != nil {
			s.replies.put(buf, *buf)
			s.fail(w, err)
			return
		}
		if replied.Repeat {
			w.Header().Set(wire.HeaderRepeat, "1")
		}
		if replied.json != nil {
			w.Header()[headerContentType] = s.jsonType
			writeWhole(w, replied.json)
			// w.Write copied the bytes.
			s.replies.put(buf, replied.json)
			return
		}
		s.replies.put(buf, *buf)
		writeJSON(s, w, replied.Reply)
	})
}

// query makes the route of a query: it reads the written copy.
func query[Q queried[R], R any](s *Handler, fn func(v riffstate.View, c riffstate.Caller, q Q, now riffstate.Now) (R, []riffstate.Signal, error)) {
	var zero Q
	s.mux.HandleFunc("POST "+zero.Path(), func(w http.ResponseWriter, r *http.Request) {
		q, proof, ok := decode[Q](s, w, r)
		if !ok {
			return
		}
		var reply R
		var ferr error
		err := s.e.Query(r.Context(), proof.caller, func(v riffstate.View, now riffstate.Now) []riffstate.Signal {
			// A query reads the people of the written copy: the role of
			// the caller comes from v.
			c := v.WithRole(s.e.state.Caller(proof.caller))
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
		writeJSON(s, w, reply)
	})
}

// signal makes the route of a signal call: it changes only the
// presence (see Signaled).
func signal[S signaled[R], R any](s *Handler) {
	var zero S
	s.mux.HandleFunc("POST "+zero.Path(), func(w http.ResponseWriter, r *http.Request) {
		call, proof, ok := decode[S](s, w, r)
		if !ok {
			return
		}
		reply, err := Signaled[S, R](r.Context(), s.e, proof.caller, call)
		if err != nil {
			s.fail(w, err)
			return
		}
		writeJSON(s, w, reply)
	})
}

// server gives the facts of the server. It answers also while the
// server replies 503 to each other call.
func (s *Handler) server(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		s.refuse(w, wire.Refuse(wire.BadRequest, "GET %s gives the facts of the server", r.URL.Path), http.StatusMethodNotAllowed)
		return
	}
	// A riff with sign-in gives its facts only to a signed-in person.
	if key, refused := s.tokens.Facts(r); refused != nil {
		s.deniedKey(w, r, refused, key)
		return
	}
	writeJSON(s, w, s.e.Facts())
}

// afterTimer is a real timer, for the end of a stream at the expiry of
// its token. A test gives a timer of its own clock.
func afterTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}
