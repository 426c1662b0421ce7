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

// hub holds the open streams: the watches of each session, and the tails
// of each thread. Its own lock guards it; the writer sends to it after
// it released the lock of the state.
type hub struct {
	mu      sync.Mutex
	watches map[string]map[*stream]bool
	tails   map[name.Thread]map[*stream]bool
}

// stream is one open stream. events closes when the stream ends: the
// client went, it fell behind, or the server stops.
type stream struct {
	events chan wire.Event
	closed bool
	behind bool
}

func newHub() *hub {
	return &hub{watches: map[string]map[*stream]bool{}, tails: map[name.Thread]map[*stream]bool{}}
}

func (h *hub) watch(w name.Who) *stream {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := &stream{events: make(chan wire.Event, StreamBuffer)}
	key := whoKey(w)
	if h.watches[key] == nil {
		h.watches[key] = map[*stream]bool{}
	}
	h.watches[key][s] = true
	return s
}

func (h *hub) tail(t name.Thread) *stream {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := &stream{events: make(chan wire.Event, StreamBuffer)}
	if h.tails[t] == nil {
		h.tails[t] = map[*stream]bool{}
	}
	h.tails[t][s] = true
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
	h.end(s)
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
// KeepAlive, until the client goes, the stream falls behind, or the
// server stops.
func (s *Handler) pump(ctx context.Context, sw streamWriter, st *stream, convert func(wire.Event) wire.Event) {
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
	st := s.e.streams.tail(thread)
	defer s.e.streams.leave(st)
	// With after, the stream first sends the kept messages after that seq,
	// from the written copy, read after the stream joined the hub; a
	// message can then come twice, and a client shows each seq once.
	var kept []wire.Message
	if q.After > 0 {
		s.e.View(func(v riffstate.View, now riffstate.Now) { kept = v.MessagesAfter(c.Who(), thread, q.After) })
	}
	sw := s.openStream(w)
	if err := sw.send(wire.Event{Type: wire.EventHello}); err != nil {
		return
	}
	for i := range kept {
		if err := sw.send(wire.Event{Type: wire.EventMessage, Message: &kept[i]}); err != nil {
			return
		}
	}
	s.pump(r.Context(), sw, st, func(ev wire.Event) wire.Event {
		if ev.Message != nil {
			m := riffstate.MessageFor(c.Who(), thread, *ev.Message)
			ev.Message = &m
		}
		return ev
	})
}
