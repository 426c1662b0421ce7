//go:build !linux

package riffengine

import "time"

// inBackground runs work where the thread of a goroutine has no priority
// of its own that this build sets, and gives no CPU time (0).
func inBackground(_ bool, work func()) time.Duration {
	work()
	return 0
}
