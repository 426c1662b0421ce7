package riffengine

import "time"

// SetDeniedTimer gives the handler the timer of the end of a window of
// the denied lines, in place of time.AfterFunc: the tests fire it. Call
// it before the first call.
func (s *Handler) SetDeniedTimer(after func(d time.Duration, f func()) (stop func() bool)) {
	s.denier.after = after
}
