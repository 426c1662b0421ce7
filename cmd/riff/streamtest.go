package main

import "context"

// streamTest holds the options of the streams of riff tail and riff
// relay watch that only a test sets (door.Watch has them as Marks and
// Gate). riff sets none.
type streamTest struct {
	// marks prints the marks of the stream on stderr: (open), and for a
	// watch (reconnecting…) and (back), which tail prints anyway.
	marks bool
	// gate, when set, runs after each break before the stream connects
	// again: a test posts while the stream is away.
	gate func(ctx context.Context) error
}

// testTail and testWatch give the options of the streams of this build:
// none. The end-to-end tests build riff with this file replaced (go build
// -overlay with testdata/testbuild/streamtest.go), so that a test knows
// when a stream is open and posts while it is away; the riff that a
// person runs has no such hook.
func (c *cli) testTail() streamTest  { return streamTest{} }
func (c *cli) testWatch() streamTest { return streamTest{} }
