package riffengine

import "time"

// SetStreamTimer gives the handler the timer of the end of a stream at
// the expiry of its token, in place of a real timer: the tests fire it
// on their clock.
func (s *Handler) SetStreamTimer(after func(time.Duration) (<-chan time.Time, func() bool)) {
	s.streamAfter = after
}

// SetBeforeStreamJoin sets a function that the handler of a stream runs
// after the check of its token, before the stream joins the hub.
func (e *Engine) SetBeforeStreamJoin(fn func()) {
	e.streams.mu.Lock()
	defer e.streams.mu.Unlock()
	e.streams.beforeJoin = fn
}

// OpenStreams gives the number of streams of the hub that did not end:
// what the server still sends to.
func (e *Engine) OpenStreams() int {
	h := e.streams
	h.mu.Lock()
	defer h.mu.Unlock()
	open := map[*stream]bool{}
	for _, set := range h.watches {
		for s := range set {
			if !s.closed {
				open[s] = true
			}
		}
	}
	for _, set := range h.tails {
		for s := range set {
			if !s.closed {
				open[s] = true
			}
		}
	}
	return len(open)
}
