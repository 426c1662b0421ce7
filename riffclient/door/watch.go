package door

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/internal/terminal"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Watch is the watch of one session, as the Monitor of a lead runs it
// (docs/agents.md, "riff relay watch [--follow]: the wakes"): one
// line on Out for each message that wakes the session, and nothing else
// there. Beside the stream it runs the keep-alive of the session. One
// message gives one line, also over a reconnect, a restart of the server
// and a new watch: the woke marks in Files hold the newest seq of each
// thread that a watch of the session printed, in the riff that the
// stream names (a new riff behind the same address starts them again).
type Watch struct {
	Client *riffclient.Client
	// Me is the session that the watch watches.
	Me name.SessionURI
	// Files holds the woke marks and the facts of the hooks.
	Files Files
	// Follow runs the watch until its context ends; else it ends after
	// its first line.
	Follow bool
	// Every is the time between two keep-alives: the minute of Every
	// when it is 0.
	Every time.Duration
	// Out gets the line of each wake.
	Out io.Writer
	// Fault gets a line for a person when the watch cannot reach its
	// riff and tries again by itself: the text of a mismatch of the
	// builds, or "riff: " and the text of a lost sign-in. Each comes
	// once, then the client tries again each 5 s. Nil drops them.
	Fault func(line string)
	// Warn gets a line for a person when the watch cannot read or keep
	// its woke marks: a wake may then come twice, which is better than
	// none. Nil drops them.
	Warn func(line string)
	// LostSignIn says whether an error of the stream is a fault of the
	// sign-in of this machine, with its text for a person (nil: none is).
	LostSignIn func(error) (string, bool)

	// Marks gets (open), (reconnecting…) and (back) as the stream opens,
	// breaks and comes back, so that a test knows when its stream is
	// open. Nil for a person.
	Marks func(mark string)
	// Gate, when set, runs after each break before the watch connects
	// again, so that a test posts while the watch is away; an error ends
	// the watch. Nil for a person.
	Gate func(ctx context.Context) error
}

// errFirstLine ends a watch with no Follow after its first line.
var errFirstLine = errors.New("the first line is written")

// Run runs the watch until ctx ends, or after the first line with no
// Follow: both are nil. Another error is the stream's (a refusal).
func (w Watch) Run(ctx context.Context) error {
	woke, err := w.Files.ReadWoke(w.Me.Session)
	if err != nil {
		// The record of the printed wakes is lost: a wake may come again,
		// which is better than none.
		w.warn("riff: " + err.Error())
		woke = Woke{}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	alive := KeepAlive{Client: w.Client, Me: w.Me, Files: w.Files, Every: w.Every, OnReply: w.keepClear}
	wg.Go(func() { alive.Run(ctx) })
	err = w.Client.Watch(ctx, wire.Watch{Me: w.Me}, func(e riffclient.Event) error {
		switch e.Type {
		case riffclient.EventOpen:
			w.mark("(open)")
		case riffclient.EventBack:
			w.mark("(back)")
		case riffclient.EventDown:
			return w.down(ctx, e.Err)
		case wire.EventWake:
			if e.Wake != nil {
				return w.wake(*e.Wake, e.Riff, &woke)
			}
		}
		return nil
	})
	if errors.Is(err, errFirstLine) || ctx.Err() != nil {
		return nil
	}
	return err
}

// keepClear keeps the ask to clear of a keep-alive's reply for the Stop
// hook of the worker.
func (w Watch) keepClear(r wire.AliveReply) {
	_ = w.Files.SetClear(w.Me.Session, r.Clear)
}

// down tells a break of the stream: a mismatch and a lost sign-in as a
// fault for a person, any other break as a mark, and then the gate of a
// test.
func (w Watch) down(ctx context.Context, err error) error {
	var m *riffclient.MismatchError
	if errors.As(err, &m) {
		w.fault(terminal.Clean(m.Text))
		return nil
	}
	if w.LostSignIn != nil {
		if text, ok := w.LostSignIn(err); ok {
			// A riff login in another terminal lets the watch go on: the
			// client reads the sign-in again at each try.
			w.fault("riff: " + text)
			return nil
		}
	}
	w.mark("(reconnecting…)")
	if w.Gate != nil {
		return w.Gate(ctx)
	}
	return nil
}

// wake writes the line of a wake of the riff riff that no watch of the
// session printed yet, and keeps its mark. A wake of a pause (seq 0) has
// no mark: it comes each time.
func (w Watch) wake(wk wire.Wake, riff string, woke *Woke) error {
	if wk.Seq > 0 {
		if !woke.Take(riff, wk.Thread, wk.Seq) {
			return nil
		}
		if err := w.Files.WriteWoke(w.Me.Session, *woke); err != nil {
			w.warn("riff: the watch cannot keep its wakes in the local folder: " + err.Error())
		}
	}
	fmt.Fprintln(w.Out, WakeLine(wk))
	if !w.Follow {
		return errFirstLine
	}
	return nil
}

func (w Watch) mark(text string) {
	if w.Marks != nil {
		w.Marks(text)
	}
}

func (w Watch) fault(line string) {
	if w.Fault != nil {
		w.Fault(line)
	}
}

func (w Watch) warn(line string) {
	if w.Warn != nil {
		w.Warn(line)
	}
}

// WakeLine is the line of a wake, in the form of the Monitor ("wake:
// riff@server wrote to you in a direct message", docs/agents.md),
// with the place of the message, so that the session reads it.
func WakeLine(w wire.Wake) string {
	if w.Seq == 0 {
		return "wake: a pause changed: run riff whoami"
	}
	direct := strings.HasPrefix(w.Thread, "dm:")
	what := "wrote in " + terminal.Clean(w.Thread)
	switch {
	case w.Kind == record.MessageStatus && direct:
		what = "asks for your status in a direct message"
	case w.Kind == record.MessageStatus:
		what = "asks for your status in " + terminal.Clean(w.Thread)
	case direct:
		what = "wrote to you in a direct message"
	}
	return fmt.Sprintf("wake: %s %s (message %d)", terminal.Clean(w.From), what, w.Seq)
}
