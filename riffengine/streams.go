package riffengine

import (
	"sync"

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
