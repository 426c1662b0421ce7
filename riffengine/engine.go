package riffengine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine/tokens"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/riffstate"
)

// Options set an engine.
type Options struct {
	// Store is where the log lives (Open sets it from its store).
	Store rifflog.Store
	// StoreName says which store it is, for the facts: memory, a
	// directory, or a bucket.
	StoreName string
	// Build is the build of this server.
	Build build.Build
	// Logger gets the trace lines. The binary makes it.
	Logger *slog.Logger
	// Now is the clock of the engine; nil is time.Now.
	Now func() time.Time
	// CheckpointEvery is the number of records between two checkpoints
	// (1,000 by default); CheckpointInterval is the longest time between
	// two, when records came (60 minutes by default).
	CheckpointEvery    int
	CheckpointInterval time.Duration
	// TimerEvery is how often the timers of the server look (10 s by
	// default).
	TimerEvery time.Duration
	// Revision is the number of the revision of this instance, in its
	// lease: an instance does not take the live lease of a later
	// revision (0: no revision number).
	Revision uint64
	// SignIn says that the riff has sign-in: the engine keeps a token
	// store (Engine.SignIns) and its object signins.json. It is the one
	// source of the sign-in of the riff: the engine sets
	// StateOptions.SignIn from it.
	SignIn bool
	// Tokens set the token store of a riff with sign-in; its clock is
	// Now.
	Tokens tokens.Options
	// SignInsEvery is the least time from the end of one write of
	// signins.json to the start of the next (SignInsEvery, one second,
	// by default: Cloud Storage takes one write of an object each
	// second). Failed writes double it up to 32 times it. The tests of
	// the engine give a few milliseconds, so that a sign-in waits no
	// real second for its write.
	SignInsEvery time.Duration
	// StateOptions are the options of the state (their SignIn comes
	// from SignIn above); a load after the lease
	// wait makes the state again with them. Open gives them the build of
	// Build when they name none.
	StateOptions riffstate.Options
	// LoadedCheckpoint is the checkpoint object of the load that gave
	// the state (Loaded.CheckpointName; "" with none). After the lease
	// wait, a newest checkpoint of another name makes the engine load
	// again. Open sets it.
	LoadedCheckpoint string

	// The start ([Open]).

	// NoLease opens with no lease: a store that only this process
	// reaches (memory).
	NoLease bool
	// LeaseWait is how long Open waits after it took the lease, so that
	// the old instance reads it and stops (0: no wait, for one program
	// on one machine).
	LeaseWait time.Duration
	// Listen, when set, runs after the load and before the lease, with
	// the engine, which answers 503 until it serves: the program opens
	// its port there, so that a client sees why it waits. An error ends
	// the start.
	Listen func(*Engine) error
	// Leased, when set, runs after the lease wait and the second load,
	// right before the engine serves: a program whose port the old
	// instance held listens there. An error ends the start and the
	// lease.
	Leased func(context.Context) error
}

// ErrStopped is the error of a call when the instance stopped: its chunk
// failed for good, or it lost its lease, or it settled.
var ErrStopped = errors.New("riff-server stopped")

// Engine is the one place that locks the state. Its entry for a change
// is [Dispatch]; its entry for a signal is [Engine.Signal]. A writer
// goroutine that the engine owns writes the queue as chunks.
type Engine struct {
	opts Options
	log  *slog.Logger

	// mu is the one lock of the state. No blocking call runs while it is
	// held: the check and the queue of a command run in one function with
	// no I/O between them (see check).
	mu      sync.Mutex
	state   *riffstate.State
	queue   []*entry
	waits   map[riffstate.Key]*entry
	closed  bool  // the gate: no new command
	stopErr error // why the instance stopped
	chain   rifflog.Sum
	written uint64 // the last position whose chunk is written

	queued chan struct{}
	// wrote wakes settle after each chunk and at a stop (wroteChunk).
	wrote   chan struct{}
	streams *hub
	facts   facts
	// serves is what Serving gives, set under mu with each change of
	// facts.serving, facts.why or stopErr (publishServingLocked): each
	// call reads it with no lock, before check takes mu.
	serves   atomic.Pointer[serveState]
	cancel   context.CancelFunc
	stopOnce sync.Once
	stopping chan struct{}
	// lease is the lease that the writer checks around each chunk; nil
	// writes with no lease (memory). The start sets it before the
	// instance serves.
	lease *rifflog.Lease
	// closeOnce runs the stop of Close once; closeErr is what it gave.
	closeOnce sync.Once
	closeErr  error
	wg        sync.WaitGroup
	done      chan struct{}
	// sinceCkp counts the records after the newest checkpoint, across
	// starts: a start counts the records that it replayed after its
	// checkpoint, so that a server killed again and again before 1,000
	// new records still writes one, and the replay at a start stays
	// short. lastCkp is the time of that checkpoint.
	sinceCkp int
	lastCkp  time.Time
	// ckpTook is the time of the last checkpoint that this instance
	// made (its encode and its write), ckpEnded its end: the next one
	// that the count makes due waits checkpointRest times ckpTook.
	ckpTook  time.Duration
	ckpEnded time.Time
	// ckpCPU is the CPU time of the thread of the last checkpoint that
	// this instance made (0: none yet): the next one runs at the lowest
	// priority unless it was cheap (lowPriorityCheckpoint).
	ckpCPU time.Duration
	// lastChunkEntries and lastWriteTook are the entries of the last
	// chunk and the time of its write, for the wait of gather;
	// gatherAfter is the timer of that wait (nil: time.NewTimer; a test
	// sets one of its own).
	lastChunkEntries int
	lastWriteTook    time.Duration
	gatherAfter      func(time.Duration) <-chan time.Time
	// drops counts the warning lines of the records that the state did
	// not take in this start.
	drops dropLines
	// loadedCheckpoint is the checkpoint object that the state was
	// loaded from ("" with none): the lease wait compares the newest.
	loadedCheckpoint string
	// writing is true while the writer writes a chunk that it took from
	// the queue: the stop of Close waits for it too.
	writing bool
	// ckpWriting is true while a goroutine of the engine makes a
	// checkpoint: it owns shadow then.
	ckpWriting bool
	// shadow is the copy of the written state that a checkpoint moves
	// on and encodes with the lock free (riffstate.Shadow): the
	// goroutine that makes a checkpoint owns it, and only the lock
	// drops it (nil: no copy, the encode runs under the lock). steps are
	// the steps of the written copy since the last checkpoint, for it.
	// The copy follows state: code that puts another state in its place
	// (a load again) makes the copy again with state.NewShadow and
	// empties steps, in the same hold of the lock.
	shadow *riffstate.Shadow
	steps  []riffstate.ShadowStep
	// beforeEncode, when a test sets it, runs right before the encode
	// of a checkpoint, where the lock is free.
	beforeEncode func()
	// signIns is the token store of a riff with sign-in (nil with
	// none); saver writes its snapshot.
	signIns   *tokens.Store
	saver     *saver
	saverOnce sync.Once
	// preparing is true while a goroutine of the engine makes the
	// temporary file of a next chunk (Engine.prepare).
	preparing bool
	// beforeEnds and beforeStart, when a test sets them (under the
	// lock), run with the lock free: beforeEnds after a chunk with an
	// end of sign-ins is written and applied, before the effect ends
	// them; beforeStart in SignIn after the write of admit, before the
	// token store starts the sign-in.
	beforeEnds  func()
	beforeStart func()
}

// entry is one command in the queue of the writer: accepted (with its
// records, or none) or refused.
type entry struct {
	made []record.Record
	// sent is who sent the command, for its log line; the zero sent (no
	// command) for an entry with no caller of its own (the arrival that
	// the engine runs first).
	sent sent
	// done closes when the writer finished the entry.
	done    chan struct{}
	failed  bool
	key     riffstate.Key
	hasKey  bool
	asked   riffstate.Asked
	refused *wire.Refused
	// at is the position of the pending copy at the check: the position
	// of a sign-in that admit starts.
	at uint64
	// ended is the number of sign-ins that the effect of the entry's
	// member_removed or signins_ended ended: the writer sets it before
	// it closes done, for the reply (wire.EndedReply.Ended).
	ended int

	// The lines of made, encoded once: by the call after it queued the
	// entry (outside the lock, while the writer may write the chunk
	// before), or by the writer when it takes the entry first.
	encoded sync.Once
	lines   [][]byte
	encErr  error
}

// encode encodes the records of the entry once. The records do not
// change after the entry is queued.
func (en *entry) encode() ([][]byte, error) {
	en.encoded.Do(func() {
		if len(en.made) == 0 {
			return
		}
		lines := make([][]byte, 0, len(en.made))
		for _, rec := range en.made {
			line, err := record.Encode(rec)
			if err != nil {
				en.encErr = fmt.Errorf("encode record %d: %w", rec.Position, err)
				return
			}
			lines = append(lines, line)
		}
		en.lines = lines
	})
	return en.lines, en.encErr
}

type sent struct {
	caller  riffstate.Caller
	command record.Command
}

// hasSender says whether the entry is a command of a caller (sent), not
// an arrival that the engine runs first.
func (en *entry) hasSender() bool { return en.sent.command != "" }

// View runs fn with the written view of the state, under the lock. A
// query reads the written copy and does not wait for the writer.
func (e *Engine) View(fn func(v riffstate.View, now riffstate.Now)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fn(e.state.Written(), e.now())
}

// Signal sets a signal of a caller in the presence, under the lock. A
// caller that the state does not know registers first through the one
// path, and the signal waits for that write.
func (e *Engine) Signal(ctx context.Context, c riffstate.Caller, sig riffstate.Signal) error {
	if err := e.arrive(ctx, c); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopErr != nil {
		return ErrStopped
	}
	sig.Set(e.state.Presence(), c.Who(), e.now())
	return nil
}

// Query runs fn on the written view for a caller: a caller that the
// state does not know registers first, and the query waits for that
// write. fn may give signals (a read moves the cursors): they are set
// under the same lock.
func (e *Engine) Query(ctx context.Context, c riffstate.Caller, fn func(v riffstate.View, now riffstate.Now) []riffstate.Signal) error {
	if err := e.arrive(ctx, c); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopErr != nil {
		return ErrStopped
	}
	now := e.now()
	if c.Class == record.ClassSession || c.Class == record.ClassPerson {
		riffstate.Seen{Place: c.URI.Place()}.Set(e.state.Presence(), c.Who(), now)
	}
	for _, sig := range fn(e.state.Written(), now) {
		sig.Set(e.state.Presence(), c.Who(), now)
	}
	return nil
}

// arrive runs the register of a caller that the state does not know,
// and waits for its write.
func (e *Engine) arrive(ctx context.Context, c riffstate.Caller) error {
	e.mu.Lock()
	if e.stopErr != nil || e.closed {
		e.mu.Unlock()
		return ErrStopped
	}
	en := e.arrivalLocked(c)
	e.mu.Unlock()
	if en == nil {
		return nil
	}
	return e.wait(ctx, en)
}

// arrivalLocked queues the register of an unknown caller. The lock is
// held.
func (e *Engine) arrivalLocked(c riffstate.Caller) *entry {
	if c.Class != record.ClassSession && c.Class != record.ClassPerson {
		return nil
	}
	if e.state.Knows(c) {
		return nil
	}
	now := e.now()
	h, err := riffstate.Check(e.state, riffstate.Arrive{}, c, now)
	if err != nil {
		return nil
	}
	en := &entry{done: make(chan struct{}), made: e.state.Queue(c, "register", "", h.Changes, now)}
	e.enqueueLocked(en)
	return en
}

func (e *Engine) enqueueLocked(en *entry) {
	e.queue = append(e.queue, en)
	select {
	case e.queued <- struct{}{}:
	default:
	}
}

// wait waits for the writer to finish an entry. A call that the client
// drops loses only its reply: the entry stays in the queue.
func (e *Engine) wait(ctx context.Context, en *entry) error {
	select {
	case <-en.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if en.failed {
		return ErrStopped
	}
	return nil
}

// Counts gives the numbers of the facts: sessions, cursors, threads.
func (e *Engine) Counts() (sessions, cursors, threads int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.state.Counts()
}

// whoKey is the key of a session in the streams.
func whoKey(w name.Who) string { return w.String() }
