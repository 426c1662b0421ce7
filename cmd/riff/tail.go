package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/wire"
)

// bodyIndent is the indent of the body of a message in riff tail: the
// width of "14:02  ".
const bodyIndent = "       "

func (c *cli) tail(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("tail", flag.ContinueOnError)
	pos, err := c.parse(fs, args, true)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("riff tail takes at most one THREAD")
	}
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	thread := ""
	if len(pos) == 1 {
		thread = pos[0]
	} else if t, ok := me.DefaultThread(); ok {
		thread = string(t)
	} else {
		return usagef("riff tail needs a THREAD outside git, for example riff tail chat")
	}
	var day string
	gate := c.env(envTailGate)
	err = c.client.Tail(ctx, wire.Tail{Me: me, Thread: thread}, func(e riffclient.Event) error {
		switch e.Type {
		case riffclient.EventOpen:
			if gate != "" {
				fmt.Fprintln(c.stderr, c.paintErr(dim, "(open)"))
			}
		case wire.EventMessage:
			day = c.block(*e.Message, day)
		case riffclient.EventLost:
			// The line is wrapped, not cut: each word of it counts.
			lost := fmt.Sprintf("riff: %d messages of the break are lost. The server keeps only the last messages of a thread.", e.Lost)
			for _, line := range wrap(lost, c.out.width) {
				c.out.line(colored(yellow, line))
			}
		case riffclient.EventDown:
			if e.Err != nil {
				if m, ok := e.Err.(*riffclient.MismatchError); ok {
					fmt.Fprintln(c.stderr, c.paintErr(red, clean(m.Text)))
					return nil
				}
			}
			fmt.Fprintln(c.stderr, c.paintErr(dim, "(reconnecting…)"))
			if gate != "" {
				return waitFile(ctx, gate)
			}
		case riffclient.EventBack:
			fmt.Fprintln(c.stderr, c.paintErr(dim, "(back)"))
		}
		return nil
	})
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// envTailGate names the test hook of riff tail: a file. While it is set,
// riff tail prints (open) on stderr when its stream is first open (from
// then on each new message shows), and after a break it connects again
// only once the file exists. The end-to-end tests use it to post while
// tail is away; a person never sets it.
const envTailGate = "RIFF_TEST_TAIL_GATE"

// waitFile waits until the file at path exists, or ctx ends: then it
// gives nil, so that tail ends as at Ctrl-C.
func waitFile(ctx context.Context, path string) error {
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

// timeOf gives the time of a message in the zone of the machine.
func (c *cli) timeOf(ms int64) time.Time { return time.UnixMilli(ms).In(c.loc) }

// block writes one message of riff tail: the date line when the day
// changes, the header, and the body wrapped under it. It gives the day.
func (c *cli) block(m wire.Message, day string) string {
	at := c.timeOf(m.AtMs)
	if d := at.Format(time.DateOnly); d != day {
		c.out.line(colored(bold, d))
		day = d
	}
	parts := []part{plain(at.Format("15:04") + "  "), colored(sessionColor(m.Sender.Who().String()), clean(sender(m.Sender)))}
	if m.Lead {
		parts = append(parts, plain(" lead=true"))
	}
	if to := address(m); to != "" {
		parts = append(parts, plain("  → "+to))
	}
	if m.Verified {
		parts = append(parts, plain("  verified"))
	} else {
		parts = append(parts, colored(yellow, "  not verified"))
	}
	parts = append(parts, plain(fmt.Sprintf("  #%d", m.Seq)))
	c.out.hanging(len(bodyIndent), parts...)
	body := kindMark(m.Kind) + cleanLines(m.Body)
	width := 0
	if c.out.width > 0 {
		width = max(20, c.out.width-len(bodyIndent))
	}
	for _, line := range wrap(body, width) {
		c.out.text(strings.TrimRight(bodyIndent+line, " "))
	}
	return day
}
