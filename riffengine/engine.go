package riffengine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/riffstate"
)

// Options set an engine.
type Options struct {
	// Store is where the log lives.
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
	// Lease is the lease that the writer checks around each chunk; nil
	// writes with no lease (memory).
	Lease *rifflog.Lease
	// TimerEvery is how often the timers of the server look (10 s by
	// default).
	TimerEvery time.Duration
	// Revision is the number of the revision of this instance, in its
	// lease: an instance does not take the live lease of a later
	// revision (0: no revision number).
	Revision uint64
	// StateOptions are the options of the state; a load after the lease
	// wait makes the state again with them.
	StateOptions riffstate.Options
	// LoadedCheckpoint is the checkpoint object of the load that gave
	// the state (Loaded.CheckpointName; "" with none). After the lease
	// wait, a newest checkpoint of another name makes the engine load
	// again.
	LoadedCheckpoint string
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

	queued   chan struct{}
	streams  *hub
	facts    facts
	cancel   context.CancelFunc
	stopOnce sync.Once
	stopping chan struct{}
	wg       sync.WaitGroup
	done     chan struct{}
	// sinceCkp counts the records after the newest checkpoint, across
	// starts: a start counts the records that it replayed after its
	// checkpoint, so that a server killed again and again before 1,000
	// new records still writes one, and the replay at a start stays
	// short. lastCkp is the time of that checkpoint.
	sinceCkp int
	lastCkp  time.Time
	// drops counts the warning lines of the records that the state did
	// not take in this start.
	drops dropLines
	// loadedCheckpoint is the checkpoint object that the state was
	// loaded from ("" with none): the lease wait compares the newest.
	loadedCheckpoint string
	// writing is true while the writer writes a chunk that it took from
	// the queue: Settle waits for it too.
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
	// preparing is true while a goroutine of the engine makes the
	// temporary file of a next chunk (Engine.prepare).
	preparing bool
}

// entry is one command in the queue of the writer: accepted (with its
// records, or none) or refused.
type entry struct {
	made []record.Record
	// sent is who sent the command, for its log line; nil for an entry
	// with no caller of its own (the arrival that the engine runs first).
	sent *sent
	// done closes when the writer finished the entry.
	done    chan struct{}
	failed  bool
	key     riffstate.Key
	hasKey  bool
	asked   riffstate.Asked
	refused *wire.Refused

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

// New makes an engine from a state that a start loaded (or riffstate.New
// for an empty log) and the replay that ended it. It starts the writer
// and the timers; [Engine.Settle] stops them.
func New(state *riffstate.State, replayed rifflog.Replayed, opts Options) *Engine {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.CheckpointEvery <= 0 {
		opts.CheckpointEvery = 1000
	}
	if opts.CheckpointInterval <= 0 {
		opts.CheckpointInterval = 60 * time.Minute
	}
	if opts.TimerEvery <= 0 {
		opts.TimerEvery = 10 * time.Second
	}
	if opts.StateOptions.Build == "" {
		// A load after the lease wait makes the state with the build of
		// this one (a riff with sign-in sets StateOptions).
		opts.StateOptions.Build = state.Written().Build()
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &Engine{
		opts:     opts,
		log:      opts.Logger.With("target", "engine"),
		state:    state,
		waits:    map[riffstate.Key]*entry{},
		chain:    replayed.Chain,
		written:  replayed.Last,
		queued:   make(chan struct{}, 1),
		streams:  newHub(),
		cancel:   cancel,
		stopping: make(chan struct{}),
		done:     make(chan struct{}),
		sinceCkp: replayed.Records,
		lastCkp:  opts.Now(),

		loadedCheckpoint: opts.LoadedCheckpoint,
	}
	e.facts.started = opts.Now()
	e.facts.position = replayed.Last
	e.facts.chunks = uint64(replayed.Chunks)
	state.Loaded(e.now())
	// The records of the replay that the state did not take: a line for
	// each (up to MaxDropLines), before the first call.
	e.logDrops(state.TakeDrops(), true)
	if sh, err := state.NewShadow(); err != nil {
		e.log.Error("no copy of the state for the checkpoints; they are encoded under the lock", "error", err.Error())
	} else {
		e.shadow = sh
	}
	e.wg.Add(2)
	go func() { defer e.wg.Done(); e.writer(ctx) }()
	go func() { defer e.wg.Done(); e.timers(ctx) }()
	go func() { e.wg.Wait(); close(e.done) }()
	return e
}

// stop tells the goroutines of the engine to end.
func (e *Engine) stop() {
	e.stopOnce.Do(func() {
		close(e.stopping)
		e.cancel()
	})
}

func (e *Engine) now() riffstate.Now { return riffstate.Now{Ms: e.opts.Now().UnixMilli()} }

// Stopping closes when the engine starts to stop: a stop signal that
// settled, a chunk that failed, or a lost lease. Done follows it once
// each goroutine of the engine ended.
func (e *Engine) Stopping() <-chan struct{} { return e.stopping }

// Done closes when the writer and the timers stopped.
func (e *Engine) Done() <-chan struct{} { return e.done }

// Err says why the instance stopped, or nil while it serves.
func (e *Engine) Err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stopErr
}

// Settle is the stop of a stop signal: it closes the gate, waits until
// the writer wrote each entry of the queue, writes a last checkpoint,
// and stops the writer and the timers. A normal stop gives no failed
// line.
func (e *Engine) Settle(ctx context.Context) error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	for {
		e.mu.Lock()
		empty := len(e.queue) == 0 && len(e.waits) == 0 && !e.writing
		stopped := e.stopErr
		e.mu.Unlock()
		if empty || stopped != nil {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("settle: %w", ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
	e.stop()
	<-e.done
	e.streams.closeAll()
	if e.Err() != nil {
		return nil
	}
	if err := e.checkpoint(ctx, true); err != nil {
		return err
	}
	// A serving instance ends its lease at its stop, so that the next
	// start, or a tool such as log cut, does not wait for its age.
	e.mu.Lock()
	lease := e.opts.Lease
	e.mu.Unlock()
	if lease != nil {
		if err := lease.End(ctx, e.opts.Now()); err != nil {
			return fmt.Errorf("end the lease: %w", err)
		}
	}
	return nil
}

// Closed says whether the gate is closed: the engine takes no new
// command (a stop, or a failure).
func (e *Engine) Closed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed
}

// Close stops the writer and the timers with no last checkpoint and no
// wait for the queue: a stop for a lost lease. Calls that wait get 503.
func (e *Engine) Close(why error) {
	e.halt(why)
	e.stop()
	<-e.done
	e.streams.closeAll()
}

// halt marks the instance stopped and tells each waiting call.
func (e *Engine) halt(why error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopErr == nil {
		e.stopErr = why
		e.facts.lastError = callerText(why)
	}
	e.closed = true
	for _, en := range e.queue {
		if en.sent != nil {
			traceFailed(e.log, en, why, slog.LevelWarn)
		}
		en.failed = true
		close(en.done)
	}
	e.queue = nil
	for k := range e.waits {
		delete(e.waits, k)
	}
}

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
