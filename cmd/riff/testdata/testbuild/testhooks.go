package main

import (
	"time"

	"github.com/como-technologies/riff/riffclient"
)

// This file replaces testhooks.go in the riff that the end-to-end tests
// build (go build -overlay, see testOverlay in binaries_test.go): it
// sets the options of the system from env vars that only a test sets.
// The riff that a person runs is built without it.

// testHooks: with RIFF_TEST_LOCAL=URL, the riff of this machine in riff
// server is URL (system.localRiff), in place of http://127.0.0.1:7878,
// so that a riff-server of the machine does not change the output of
// the tests.
func testHooks(s *system) {
	if v := s.env("RIFF_TEST_LOCAL"); v != "" {
		s.localRiff = v
	}
	// RIFF_TEST_BUDGET=2s: the budget of each call, so that a test of a
	// server that gives no reply (riff top across a kill -9) does not wait
	// the 60 s of a short command.
	if d, err := time.ParseDuration(s.env("RIFF_TEST_BUDGET")); err == nil && d > 0 {
		s.client = func(o *riffclient.Options) { o.Budget = d }
	}
	// RIFF_TEST_TOP_EVERY=1h: the time between two looks of riff top, so
	// that only a resize or a message of the thread draws it again.
	if d, err := time.ParseDuration(s.env("RIFF_TEST_TOP_EVERY")); err == nil && d > 0 {
		s.topEvery = d
	}
}
