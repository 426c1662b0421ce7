package main

// This file replaces streamtest.go in the riff that the end-to-end tests
// build (go build -overlay, see testOverlay in binaries_test.go): it
// turns on the options of the streams from env vars that only a test
// sets. The riff that a person runs is built without it.

import (
	"context"
	"os"
	"time"
)

// streamTest holds the options of the streams of riff tail and riff
// relay watch that only a test sets.
type streamTest struct {
	marks bool
	gate  func(ctx context.Context) error
}

// testTail: with RIFF_TEST_TAIL_GATE=FILE, riff tail prints (open) on
// stderr when its stream is first open (from then on each new message
// shows), and after a break it connects again only once FILE exists.
func (c *cli) testTail() streamTest {
	gate := c.env("RIFF_TEST_TAIL_GATE")
	if gate == "" {
		return streamTest{}
	}
	return streamTest{marks: true, gate: waitFile(gate)}
}

// testWatch: with RIFF_TEST_WATCH_MARKS=1, riff relay watch prints
// (open), (reconnecting…) and (back) on stderr; with
// RIFF_TEST_WATCH_GATE=FILE, after a break it connects again only once
// FILE exists.
func (c *cli) testWatch() streamTest {
	t := streamTest{marks: c.env("RIFF_TEST_WATCH_MARKS") != ""}
	if gate := c.env("RIFF_TEST_WATCH_GATE"); gate != "" {
		t.gate = waitFile(gate)
	}
	return t
}

// waitFile gives a gate that waits until the file at path exists, or ctx
// ends: then it gives nil, so that the stream ends as at Ctrl-C.
func waitFile(path string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if _, err := os.Stat(path); err == nil {
				return nil
			}
			select {
			case <-ctx.Done():
				return nil
			case <-tick.C:
			}
		}
	}
}
