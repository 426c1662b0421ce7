package riffengine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffstate"
)

// StreamBuffer is the number of events that a stream may fall behind
// before the server ends it; the client connects again and reads what it
// missed.
const StreamBuffer = 256

// The texts of the last line of a stream that the server ends for its
// token (docs/wire.md, "Streams"). A lost sign-in says what riff says
// for each call of a sign-in that ended.
const (
	textStreamSignIn  = riffstate.LostSignIn
	textStreamExpired = "the token of this stream expired: riff opens it again with its new token"
)

// hub holds the open streams: the watches of each session, the tails of
// each thread, and in a riff with sign-in the streams of each sign-in.
// Its own lock guards it; the writer sends to it after it released the
// lock of the state, and the token store ends the streams of a sign-in
// under its own lock (endSignIn), so the hub never calls the store.
type hub struct {
	mu      sync.Mutex
	watches map[string]map[*stream]bool
	tails   map[name.Thread]map[*stream]bool
	signIns map[string]map[*stream]bool
	// beforeJoin, when a test sets it, runs in the handler of a stream
	// after the check of its token and before it joins the hub.
	beforeJoin func()
}

// joining runs beforeJoin, when a test set it.
func (h *hub) joining() {
	h.mu.Lock()
	fn := h.beforeJoin
	h.mu.Unlock()
	if fn != nil {
		fn()
	}
}

// stream is one open stream. events closes when the stream ends: the
// client went, it fell behind, its sign-in ended, or the server stops.
type stream struct {
	events chan wire.Event
	closed bool
	behind bool
	// signIn is the sign-in of the token that opened the stream ("" in a
	// riff with no sign-in).
	signIn string
	// lost says that the stream ended with its sign-in. It is set under
	// the lock of the hub before events closes, so that the pump reads
	// it once events closed.
	lost bool
}

// streamOwner is what a stream of a riff with sign-in belongs to: the
// sign-in of the token that opened it, and the end of the life of that
// token. It is zero in a riff with no sign-in, whose streams end with
// neither.
type streamOwner struct {
	signIn  string
	expires time.Time
}

func newHub() *hub {
	return &hub{watches: map[string]map[*stream]bool{}, tails: map[name.Thread]map[*stream]bool{}, signIns: map[string]map[*stream]bool{}}
}

func (h *hub) watch(w name.Who, owner streamOwner) *stream {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.newLocked(owner)
	key := whoKey(w)
	if h.watches[key] == nil {
		h.watches[key] = map[*stream]bool{}
	}
	h.watches[key][s] = true
	return s
}

func (h *hub) tail(t name.Thread, owner streamOwner) *stream {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.newLocked(owner)
	if h.tails[t] == nil {
		h.tails[t] = map[*stream]bool{}
	}
	h.tails[t][s] = true
	return s
}

// newLocked makes a stream of owner, in the set of its sign-in.
func (h *hub) newLocked(owner streamOwner) *stream {
	s := &stream{events: make(chan wire.Event, StreamBuffer), signIn: owner.signIn}
	if s.signIn != "" {
		if h.signIns[s.signIn] == nil {
			h.signIns[s.signIn] = map[*stream]bool{}
		}
		h.signIns[s.signIn][s] = true
	}
	return s
}

// leave ends a stream of a client that went.
func (h *hub) leave(s *stream) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, set := range h.watches {
		delete(set, s)
	}
	for _, set := range h.tails {
		delete(set, s)
	}
	if set := h.signIns[s.signIn]; set != nil {
		delete(set, s)
		if len(set) == 0 {
			delete(h.signIns, s.signIn)
		}
	}
	h.end(s)
}

// endSignIn ends each stream of a sign-in that ended: the token store
// calls it in the step that ends the tokens of the sign-in (a remove, a
// revoke, a reused refresh token), before the reply of that command.
// Each stream sends what it holds, then its last line (EndSignIn); no
// event after now reaches it.
func (h *hub) endSignIn(signIn string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.signIns[signIn] {
		if !s.closed {
			s.lost = true
		}
		h.end(s)
	}
	delete(h.signIns, signIn)
}

// lostSignIn says whether the stream ended with its sign-in.
func (h *hub) lostSignIn(s *stream) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return s.lost
}

func (h *hub) end(s *stream) {
	if !s.closed {
		s.closed = true
		close(s.events)
	}
}

// send gives each wake to the watches of its session, and each message
// to the tails of its thread. A stream that falls behind ends.
func (h *hub) send(e riffstate.Effects) {
	if len(e.Wakes) == 0 && len(e.Messages) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, w := range e.Wakes {
		wake := w.Wake
		for s := range h.watches[whoKey(w.To)] {
			h.push(s, wire.Event{Type: wire.EventWake, Wake: &wake})
		}
	}
	for _, m := range e.Messages {
		msg := m
		for s := range h.tails[name.Thread(m.Thread)] {
			h.push(s, wire.Event{Type: wire.EventMessage, Message: &msg})
		}
	}
}

func (h *hub) push(s *stream, ev wire.Event) {
	if s.closed {
		return
	}
	select {
	case s.events <- ev:
	default:
		s.behind = true
		h.end(s)
	}
}

// closeAll ends each stream: the server stops.
func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, set := range h.watches {
		for s := range set {
			h.end(s)
		}
	}
	for _, set := range h.tails {
		for s := range set {
			h.end(s)
		}
	}
}

// The handlers of the streams: each opens a stream of the hub and pumps
// its events to the client.

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

func (s *Handler) openStream(w http.ResponseWriter) streamWriter {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	return streamWriter{w: w, rc: rc}
}

// pump sends the events of a stream and a keep-alive line each
// KeepAlive, until the client goes, the stream falls behind, its sign-in
// ends, its token expires, or the server stops. The end of the sign-in
// or of the token sends a last line that says why (type end).
func (s *Handler) pump(ctx context.Context, sw streamWriter, st *stream, owner streamOwner, convert func(wire.Event) wire.Event) {
	tick := time.NewTicker(s.KeepAlive)
	defer tick.Stop()
	// A stream lives no longer than the token that opened it: the client
	// opens it again with its renewed token.
	var expired <-chan time.Time
	if !owner.expires.IsZero() {
		c, stop := s.streamAfter(owner.expires.Sub(s.e.opts.Now()))
		defer stop()
		expired = c
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-st.events:
			if !ok {
				// lost was set before events closed.
				if st.lost {
					_ = sw.send(wire.Event{Type: wire.EventEnd, End: wire.EndSignIn, Reason: textStreamSignIn})
				}
				return
			}
			if err := sw.send(convert(ev)); err != nil {
				return
			}
		case <-expired:
			_ = sw.send(wire.Event{Type: wire.EventEnd, End: wire.EndExpired, Reason: textStreamExpired})
			return
		case <-tick.C:
			if err := sw.send(wire.Event{Type: wire.EventKeepAlive}); err != nil {
				return
			}
		}
	}
}

// signInEnded says whether the sign-in of a stream that joined the hub
// ended: before the join (the store no longer holds it), or after it
// (the store ended the stream). The stream checks it after its reads of
// the written copy and before its first line, so that neither the
// missed wake nor a kept message of after the end reaches it: the end
// of a sign-in comes before the reply of its command, so each record
// after that reply comes after the end.
func (e *Engine) signInEnded(st *stream) bool {
	if st.signIn == "" || e.signIns == nil {
		return false
	}
	return e.streams.lostSignIn(st) || !e.signIns.Holds(st.signIn)
}

// endWatch closes the watch of c in the presence. It sets WatchEnded
// itself, not through Signal: Signal first registers a caller that the
// state does not know, and the end of a watch is no sign of life, so it
// registers nobody.
func (e *Engine) endWatch(c riffstate.Caller) {
	e.mu.Lock()
	defer e.mu.Unlock()
	riffstate.WatchEnded{}.Set(e.state.Presence(), c.Who(), e.now())
}

// watch is the stream of the wakes of a session: its first line at the
// open, then the wake that it missed (from the written copy), then each
// wake.
func (s *Handler) watch(w http.ResponseWriter, r *http.Request) {
	_, proof, ok := decode[wire.Watch](s, w, r)
	if !ok {
		return
	}
	c := proof.caller
	if err := s.e.Signal(r.Context(), c, riffstate.WatchStarted{}); err != nil {
		s.fail(w, err)
		return
	}
	defer s.e.endWatch(c)
	s.e.streams.joining()
	st := s.e.streams.watch(c.Who(), proof.held)
	defer s.e.streams.leave(st)
	var missed *wire.Wake
	var riffID string
	s.e.View(func(v riffstate.View, now riffstate.Now) {
		if wake, ok := v.MissedWake(c.Who()); ok {
			missed = &wake
		}
		riffID = v.Riff().ID
	})
	if s.e.signInEnded(st) {
		s.fail(w, wire.Refuse(wire.BadToken, "%s", textStreamSignIn))
		return
	}
	sw := s.openStream(w)
	if err := sw.send(wire.Event{Type: wire.EventHello, Riff: riffID}); err != nil {
		return
	}
	if missed != nil {
		if err := sw.send(wire.Event{Type: wire.EventWake, Wake: missed}); err != nil {
			return
		}
	}
	s.pump(r.Context(), sw, st, proof.held, func(ev wire.Event) wire.Event {
		if ev.Wake != nil {
			wake := riffstate.WakeFor(c.Who(), *ev.Wake)
			ev.Wake = &wake
		}
		return ev
	})
}

// tail is the stream of the messages of a thread. A caller gets a
// direct thread only when it is one of its two sides. The client opens
// the stream first, then reads the thread after the last message that
// it showed.
func (s *Handler) tail(w http.ResponseWriter, r *http.Request) {
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
		thread, err = v.TailThread(s.e.state.Caller(c), q.Thread, now)
	})
	if err != nil {
		s.fail(w, err)
		return
	}
	s.e.streams.joining()
	st := s.e.streams.tail(thread, proof.held)
	defer s.e.streams.leave(st)
	// With after, the stream first sends the kept messages after that seq,
	// from the written copy, read after the stream joined the hub; a
	// message can then come twice, and a client shows each seq once. The
	// hello line has the newest seq of the thread, read after the join
	// too: a client that opens again reads after it, and loses nothing.
	var kept []wire.Message
	var last uint64
	var riffID string
	s.e.View(func(v riffstate.View, now riffstate.Now) {
		last, riffID = v.LastSeq(thread), v.Riff().ID
		if q.After > 0 {
			kept = v.MessagesAfter(c.Who(), thread, q.After)
		}
	})
	if s.e.signInEnded(st) {
		s.fail(w, wire.Refuse(wire.BadToken, "%s", textStreamSignIn))
		return
	}
	sw := s.openStream(w)
	if err := sw.send(wire.Event{Type: wire.EventHello, Last: last, Riff: riffID}); err != nil {
		return
	}
	for i := range kept {
		if err := sw.send(wire.Event{Type: wire.EventMessage, Message: &kept[i]}); err != nil {
			return
		}
	}
	s.pump(r.Context(), sw, st, proof.held, func(ev wire.Event) wire.Event {
		if ev.Message != nil {
			m := riffstate.MessageFor(c.Who(), thread, *ev.Message)
			ev.Message = &m
		}
		return ev
	})
}
