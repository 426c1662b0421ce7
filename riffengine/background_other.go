//go:build !linux

package riffengine

// inBackground runs work where the thread of a goroutine has no priority
// of its own that this build sets.
func inBackground(work func()) { work() }
