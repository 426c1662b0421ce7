package riffclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/como-technologies/riff/riffcore/wire"
)

// The types of an [Event] that a stream adds to the types of the wire.
const (
	// EventLost counts the messages of a break that the server no longer
	// keeps.
	EventLost = "lost"
	// EventDown is a break: the stream opens again by itself.
	EventDown = "down"
	// EventBack is the first open after a break, after its catch-up read.
	EventBack = "back"
	// EventOpen is the first open of a stream, after its catch-up read:
	// each message that comes after it is shown.
	EventOpen = "open"
)

// Event is one thing that a stream gives its caller: a message (tail), a
// wake (watch), the count of lost messages, or a break and its end.
type Event struct {
	wire.Event
	// Err is the fault of a break (EventDown).
	Err error
}

// Tail follows a thread. It calls show for each message once and in
// order, also across breaks, and for the count of lost messages. It
// returns nil when ctx ends, the error of show, or an error that a new
// try cannot repair: a refusal, or a server that never answered.
//
// At each open it opens the stream first, then reads the thread after
// the last message that it showed ([wire.Read] with After), so a message
// that comes in the read and in the stream shows once. A stream with no
// byte for the stall limit (45 s) is dropped and opened again. A version
// mismatch is given once as a break; then it tries again every 5 s.
//
// When the first connect fails (riff-server cannot be reached), it tries
// once more at once: a server that starts again as the tail starts gets
// a second chance; after the first open, each break is tried again until
// ctx ends.
func (c *Client) Tail(ctx context.Context, call wire.Tail, show func(Event) error) error {
	t := &tailer{c: c, call: call, show: show, last: call.After, known: call.After > 0}
	return c.tail(ctx, t)
}

// TailKept follows a thread as [Client.Tail] does, from the seq
// call.After also when it is 0: the first open reads each kept message
// after it first (the history of riff chat), then each new one. A count
// of lost messages before the first [EventOpen] counts the messages
// older than the kept ones.
func (c *Client) TailKept(ctx context.Context, call wire.Tail, show func(Event) error) error {
	t := &tailer{c: c, call: call, show: show, last: call.After, known: true}
	return c.tail(ctx, t)
}

// tail runs a tailer: the learn of its point when it has none, then the
// stream; a first connect that cannot reach the server is tried once
// more at once.
func (c *Client) tail(ctx context.Context, t *tailer) error {
	for try := 0; ; try++ {
		err := c.tailOnce(ctx, t)
		var reach *ReachError
		if try == 0 && !t.wasOpen && errors.As(err, &reach) && ctx.Err() == nil {
			continue
		}
		return err
	}
}

func (c *Client) tailOnce(ctx context.Context, t *tailer) error {
	if !t.known {
		if err := t.learn(ctx); err != nil {
			return err
		}
	}
	return c.follow(ctx, t.call.Path(), t, c.proverOf(t.call))
}

// Watch follows the wakes of the caller: it calls show for each wake, and
// for each break and its end. It returns as [Client.Tail] does.
//
// Each wake that show gets names in Riff the riff whose stream gave it
// (the hello line of the open; "" from a server that names none): the
// seq of a wake counts in that riff only.
func (c *Client) Watch(ctx context.Context, call wire.Watch, show func(Event) error) error {
	w := &watcher{call: call, show: show, woke: map[string]uint64{}}
	return c.follow(ctx, call.Path(), w, c.proverOf(call))
}

// follower is what a stream does with its lines: the body of the open,
// the catch-up after the open, and each event.
type follower interface {
	body() ([]byte, error)
	// riffOf gets the riff ID of the hello line of each open (none from
	// an older server), before opened.
	riffOf(id string)
	// opened runs after each open, before the events of the stream.
	opened(ctx context.Context, again bool) error
	event(e wire.Event) error
	report(e Event) error
}

// errStall ends a stream with no byte for the stall limit.
var errStall = errors.New("no byte from the stream")

// follow opens the stream, and opens it again after each break, until
// ctx ends or a fault that a new try cannot repair.
//
// A lost sign-in (the Auth gives no token, or the server refuses the
// token after a refresh, or ends the stream with its sign-in) is no such
// fault: the stream says it once, as a break, and tries again every 5 s,
// so that a riff login in another terminal lets it go on.
//
// A stream that the server ends at the expiry of its token is no break:
// it opens again at once with the renewed token, reads what came in
// between (the tail after its last message; the watch gets the missed
// wake) and shows nothing of it but what it missed.
func (c *Client) follow(ctx context.Context, path string, f follower, p *prover) error {
	wait := FirstWait
	down := false
	var mismatch, lost bool
	againToken := true
	// renewing: the next open is the one after an end at the expiry of
	// the token. quiet: that end came with no event since the open before
	// it; a second such end in a row waits FirstWait, so that a server
	// that ends each stream at once gets no loop.
	var renewing, quiet bool
	for {
		err := c.stream(ctx, path, f, down || renewing, renewing && !down, p)
		renewing = false
		if ctx.Err() != nil {
			return nil
		}
		var stop *stopError
		if errors.As(err, &stop) {
			return stop.err
		}
		var expired *expiredError
		if errors.As(err, &expired) {
			wait, down, mismatch, lost, againToken = FirstWait, false, false, false, true
			if expired.events == 0 && quiet {
				if c.clock.Sleep(ctx, FirstWait) != nil {
					return nil
				}
			}
			quiet, renewing = expired.events == 0, true
			continue
		}
		var again *tokenAgain
		if errors.As(err, &again) {
			if againToken {
				againToken = false
				continue
			}
			err = again.err
		}
		var refused *wire.Refused
		var reach *ReachError
		var bad *MismatchError
		var answer *ReplyError
		var authErr *AuthError
		switch {
		case err == nil:
			// The server ended the stream.
		case errors.As(err, &authErr), p.auth != nil && errors.As(err, &refused) && signInCode(refused.Code):
			if !lost {
				if rerr := f.report(Event{Event: wire.Event{Type: EventDown}, Err: err}); rerr != nil {
					return rerr
				}
			}
			lost, down, againToken = true, true, true
			if c.clock.Sleep(ctx, c.retry) != nil {
				return nil
			}
			continue
		case errors.As(err, &refused), errors.As(err, &reach):
			return err
		case errors.As(err, &answer) && !answer.again:
			// The server's own answer (it names its build), not a 503:
			// a new open gets the same answer.
			return err
		case errors.As(err, &bad):
			if !mismatch {
				if rerr := f.report(Event{Event: wire.Event{Type: EventDown}, Err: err}); rerr != nil {
					return rerr
				}
			}
			mismatch, down = true, true
			if c.clock.Sleep(ctx, c.retry) != nil {
				return nil
			}
			continue
		}
		if errors.Is(err, errOpened) {
			// The stream was open: this is a new break.
			wait, down, mismatch, lost, againToken = FirstWait, false, false, false, true
		}
		if !down && !mismatch && !lost {
			if rerr := f.report(Event{Event: wire.Event{Type: EventDown}, Err: err}); rerr != nil {
				return rerr
			}
		}
		down = true
		if c.clock.Sleep(ctx, wait) != nil {
			return nil
		}
		wait = min(2*wait, LastWait)
	}
}

// stopError is an error of the caller's show: it ends the stream.
type stopError struct{ err error }

func (s *stopError) Error() string { return s.err.Error() }
func (s *stopError) Unwrap() error { return s.err }

// errOpened marks the end of a stream that was open: the next wait
// starts short again.
var errOpened = errors.New("the stream ended")

// signInCode says whether a refusal is of the token: no token, or a
// token that the server does not take.
func signInCode(code wire.Code) bool { return code == wire.NoToken || code == wire.BadToken }

// expiredError is the end of a stream at the expiry of its token
// (wire.EndExpired): the stream opens again at once with the renewed
// token. events counts the events that the stream gave.
type expiredError struct{ events int }

func (e *expiredError) Error() string {
	return "riff-server ended the stream at the expiry of its token"
}

// tokenAgain is a refused token that the Auth renewed: the stream opens
// again at once.
type tokenAgain struct{ err error }

func (t *tokenAgain) Error() string { return t.err.Error() }
func (t *tokenAgain) Unwrap() error { return t.err }

// stream opens the stream once, and gives its lines to f until it ends.
// again is an open after a break or an end: the catch-up read runs.
// renew is the open after an end at the expiry of the token: no break,
// so it reports no open.
func (c *Client) stream(ctx context.Context, path string, f follower, again, renew bool, p *prover) error {
	body, err := f.body()
	if err != nil {
		return &stopError{err: err}
	}
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	req, err := http.NewRequestWithContext(sctx, http.MethodPost, c.endpoint(path), bytes.NewReader(body))
	if err != nil {
		return &stopError{err: fmt.Errorf("open %s: %w", path, err)}
	}
	c.header(req, NewCallID(), true)
	token, err := c.prove(ctx, p, req)
	if err != nil {
		return err
	}
	// The stall limit also ends an open that hangs.
	watchdog := newWatchdog(c.stall, func() { cancel(errStall) })
	defer watchdog.stop()
	resp, err := c.http.Do(req)
	if err != nil {
		if cause := context.Cause(sctx); errors.Is(cause, errStall) {
			return errStall
		}
		if !c.retryConnect(ctx, err) {
			return c.connectError(ctx, path, err)
		}
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get(wire.HeaderRefused) != "" {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxReply))
		if err := c.check(resp, path, raw, false); err != nil {
			var retry *retryable
			if errors.As(err, &retry) {
				return retry.err
			}
			if c.refused(ctx, p, token, err) {
				return &tokenAgain{err: err}
			}
			return err
		}
		return &ReplyError{URL: c.endpoint(path), Status: resp.Status}
	}
	if err := c.check(resp, path, nil, false); err != nil {
		return err
	}
	r := bufio.NewReader(&kicker{r: resp.Body, w: watchdog})
	// The hello line comes first: f learns the riff of the stream from
	// it before the catch-up read, since a new riff behind the same
	// address numbers its messages from 1 again. It is an event of the
	// stream after the open, as each line is.
	line, err := r.ReadBytes('\n')
	if hello, ok := helloOf(line); ok {
		f.riffOf(hello.Riff)
	}
	// The catch-up read has its own budget: the stall limit waits.
	watchdog.stop()
	if err := f.opened(ctx, again); err != nil {
		return err
	}
	watchdog.kick()
	open := EventOpen
	if again {
		open = EventBack
	}
	if !renew {
		if err := f.report(Event{Event: wire.Event{Type: open}}); err != nil {
			return err
		}
	}
	events := 0
	for ; ; line, err = r.ReadBytes('\n') {
		if len(bytes.TrimSpace(line)) > 0 {
			var e wire.Event
			if jerr := json.Unmarshal(line, &e); jerr != nil {
				return fmt.Errorf("read %s: a line is not an event: %w", path, jerr)
			}
			if e.Type == wire.EventEnd {
				if end := c.ended(ctx, p, token, e, events); end != nil {
					return end
				}
			}
			switch e.Type {
			case wire.EventWake, wire.EventMessage, EventLost:
				events++
			}
			if ferr := f.event(e); ferr != nil {
				return ferr
			}
		}
		if err != nil {
			if cause := context.Cause(sctx); errors.Is(cause, errStall) {
				return fmt.Errorf("%w: %w", errOpened, errStall)
			}
			if err == io.EOF {
				return errOpened
			}
			return fmt.Errorf("%w: %w", errOpened, err)
		}
	}
}

// helloOf gives the hello line of a stream, when line is one.
func helloOf(line []byte) (wire.Event, bool) {
	var e wire.Event
	if json.Unmarshal(line, &e) != nil || e.Type != wire.EventHello {
		return wire.Event{}, false
	}
	return e, true
}

// ended is the end line of a stream (type end): the server ended it for
// its token. The end of its sign-in is a refusal of the token (bad_token,
// with the reason of the server), told to the Auth as a refusal at the
// open is: a lost sign-in, unless the Auth renewed it. An end at the
// expiry of the token tells the Auth that the server takes the token no
// more, so that the next open has a new one. An end of another kind (of
// a later server) is a break.
func (c *Client) ended(ctx context.Context, p *prover, token string, e wire.Event, events int) error {
	switch e.End {
	case wire.EndSignIn:
		err := &wire.Refused{Code: wire.BadToken, Reason: e.Reason, Status: http.StatusUnauthorized}
		if c.refused(ctx, p, token, err) {
			return &tokenAgain{err: err}
		}
		return err
	case wire.EndExpired:
		c.refused(ctx, p, token, &wire.Refused{Code: wire.BadToken, Reason: e.Reason, Status: http.StatusUnauthorized})
		return &expiredError{events: events}
	}
	return nil
}

// watchdog calls fire when no kick came for the limit.
type watchdog struct {
	mu    sync.Mutex
	t     *time.Timer
	limit time.Duration
}

func newWatchdog(limit time.Duration, fire func()) *watchdog {
	return &watchdog{t: time.AfterFunc(limit, fire), limit: limit}
}

func (w *watchdog) kick() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.t.Reset(w.limit)
}

func (w *watchdog) stop() { w.t.Stop() }

// kicker kicks the watchdog at each byte that it reads.
type kicker struct {
	r io.Reader
	w *watchdog
}

func (k *kicker) Read(p []byte) (int, error) {
	n, err := k.r.Read(p)
	if n > 0 {
		k.w.kick()
	}
	return n, err
}

// tailer shows the messages of one thread once and in order.
type tailer struct {
	c    *Client
	call wire.Tail
	show func(Event) error
	last uint64 // the seq of the last message shown
	// riff is the ID of the riff of the stream, from its hello line: the
	// seqs of last belong to it.
	riff string
	// known says that last is the true point of the tail: after the
	// first message, or when the thread's newest seq is known.
	known bool
	// wasOpen says that a stream was open once: from then on a break is
	// tried again until ctx ends.
	wasOpen bool
}

func (t *tailer) body() ([]byte, error) {
	call := t.call
	call.After = t.last
	return json.Marshal(call)
}

// opened reads the thread after the last message shown. With no known
// point (no After, and a thread that the caller does not list) it reads
// nothing: the stream alone gives the messages until the first one.
func (t *tailer) opened(ctx context.Context, again bool) error {
	if !t.known {
		return nil
	}
	read := wire.Read{Me: t.call.Me, Thread: t.call.Thread, All: true, After: t.last}
	for {
		reply, err := Send(ctx, t.c, read)
		if err != nil {
			return err
		}
		more := false
		for _, page := range reply.Threads {
			if page.Lost > 0 {
				if err := t.report(Event{Event: wire.Event{Type: EventLost, Lost: page.Lost}}); err != nil {
					return err
				}
			}
			for i := range page.Messages {
				if err := t.message(page.Messages[i]); err != nil {
					return err
				}
			}
			if page.More && page.Last > read.After {
				more = true
				read.After = page.Last
			}
		}
		if !more {
			return nil
		}
	}
}

// learn takes the newest seq of the thread from the threads of the
// caller before the first open, so that the tail starts there and a
// break shows only what came after it. It gives only the faults that a
// new try cannot repair.
func (t *tailer) learn(ctx context.Context) error {
	if t.call.Thread == "" {
		return nil
	}
	reply, err := Send(ctx, t.c, wire.Threads{Me: t.call.Me})
	if err != nil {
		var refused *wire.Refused
		var reach *ReachError
		var bad *MismatchError
		if t.c.auth != nil && errors.As(err, &refused) && signInCode(refused.Code) {
			// A lost sign-in: the stream says it, and waits for riff login.
			return nil
		}
		if errors.As(err, &refused) || errors.As(err, &reach) || errors.As(err, &bad) {
			return err
		}
		return nil
	}
	for _, info := range reply.Threads {
		if info.Thread == t.call.Thread {
			t.last, t.known = info.Last, true
			return nil
		}
	}
	return nil
}

// riffOf starts the tail again at the start of a new riff behind the
// same address (a memory store starts one at each start): it numbers its
// messages from 1 again.
func (t *tailer) riffOf(id string) {
	if id == "" {
		return
	}
	if t.riff != "" && id != t.riff {
		t.last, t.known = 0, true
	}
	t.riff = id
}

func (t *tailer) message(m wire.Message) error {
	if t.known && m.Seq <= t.last {
		return nil
	}
	t.last, t.known = m.Seq, true
	msg := m
	return t.report(Event{Event: wire.Event{Type: wire.EventMessage, Message: &msg}})
}

func (t *tailer) event(e wire.Event) error {
	switch e.Type {
	case wire.EventHello:
		// The newest seq of the thread at the open: with no point yet (a
		// thread that the caller does not list), the tail starts there,
		// so that a later open reads after it and loses nothing.
		if !t.known && e.Last > 0 {
			t.last, t.known = e.Last, true
		}
	case wire.EventMessage:
		if e.Message == nil {
			return nil
		}
		return t.message(*e.Message)
	case EventLost:
		if e.Lost > 0 {
			return t.report(Event{Event: e})
		}
	}
	return nil
}

func (t *tailer) report(e Event) error {
	if e.Type == EventOpen || e.Type == EventBack {
		t.wasOpen = true
	}
	if err := t.show(e); err != nil {
		return &stopError{err: err}
	}
	return nil
}

// watcher gives each wake of the caller, each message once: a new open
// sends the missed wake, which can be the last one that it gave.
type watcher struct {
	call wire.Watch
	show func(Event) error
	// riff is the ID of the riff of the stream, from its hello line.
	riff string
	// woke holds the newest seq that a wake gave, by thread, in riff.
	woke map[string]uint64
}

func (w *watcher) body() ([]byte, error)              { return json.Marshal(w.call) }
func (w *watcher) opened(context.Context, bool) error { return nil }

// riffOf does nothing: the watch takes the riff of its hello line as an
// event (watcher.event), since the missed wake comes after it.
func (w *watcher) riffOf(string) {}
func (w *watcher) report(e Event) error {
	if err := w.show(e); err != nil {
		return &stopError{err: err}
	}
	return nil
}

func (w *watcher) event(e wire.Event) error {
	switch e.Type {
	case wire.EventHello:
		if e.Riff != w.riff {
			// Another riff behind the same address: its seqs start at 1.
			w.riff, w.woke = e.Riff, map[string]uint64{}
		}
	case wire.EventWake:
		if e.Wake != nil && e.Wake.Seq > 0 {
			if w.woke[e.Wake.Thread] >= e.Wake.Seq {
				return nil
			}
			w.woke[e.Wake.Thread] = e.Wake.Seq
		}
		e.Riff = w.riff
		return w.report(Event{Event: e})
	case EventLost:
		return w.report(Event{Event: e})
	}
	return nil
}
