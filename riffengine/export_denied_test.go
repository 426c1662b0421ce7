package riffengine

import "time"

// SetDeniedTimer gives the handler the timer of the end of a window of
// the denied lines, in place of a real timer: the tests fire it. Call it
// before RunDenied.
func (s *Handler) SetDeniedTimer(after func(time.Duration) (<-chan time.Time, func() bool)) {
	s.deniedAfter = after
}
