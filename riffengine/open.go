package riffengine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffengine/tokens"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/riffstate"
)

// Open starts an engine on a store, in the order of a start (doc.go,
// "Start and stop"): it loads the newest checkpoint that reads and
// replays the chunks after it, runs Options.Listen (the engine answers
// 503 from here on), takes the lease, waits Options.LeaseWait and loads
// again what the old instance wrote meanwhile, runs Options.Leased,
// makes the riff at the first start, and serves. [Engine.Close] stops
// it.
//
// A start that fails stops what it started, ends the lease when it took
// one, and gives why. A stop signal (the end of ctx) in the lease wait
// gives an error that is ErrStopped: no failure, the start ends.
func Open(ctx context.Context, store rifflog.Store, opts Options) (*Engine, error) {
	opts.Store = store
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.StateOptions.Build == "" && opts.Build != (build.Build{}) {
		opts.StateOptions.Build = opts.Build.String()
	}
	opts.StateOptions.SignIn = opts.SignIn
	loaded, err := Load(ctx, store, opts.StateOptions)
	if err != nil {
		opts.Logger.Error("riff-server cannot load the log; it does not serve", "target", "start", "error", err.Error())
		return nil, fmt.Errorf("load: %w", err)
	}
	opts.LoadedCheckpoint = loaded.CheckpointName
	e := newEngine(loaded.State, loaded.Replayed, opts)
	if cp := loaded.Checkpoint; cp != nil {
		e.setReplay(loaded.Took, cp.Position, time.UnixMilli(cp.WrittenAtMs), cp.Build)
	} else {
		e.setReplay(loaded.Took, 0, time.Time{}, "")
	}
	e.setUnread(loaded.Unread)
	e.setServing(false, "riff-server starts")
	if err := e.loadSignIns(ctx); err != nil {
		opts.Logger.Error("riff-server cannot load its sign-ins; it does not serve", "target", "start", "error", err.Error())
		e.abort(err)
		return nil, err
	}
	if opts.Listen != nil {
		if err := opts.Listen(e); err != nil {
			e.abort(err)
			return nil, err
		}
	}
	if !opts.NoLease {
		if err := e.takeLeaseAndLoadAgain(ctx, NewInstanceID(), opts.LeaseWait); err != nil {
			e.abort(err)
			if ctx.Err() != nil {
				return nil, fmt.Errorf("%w in the lease wait: %w", ErrStopped, ctx.Err())
			}
			return nil, fmt.Errorf("lease: %w", err)
		}
	}
	if opts.Leased != nil {
		if err := opts.Leased(ctx); err != nil {
			e.abort(err)
			return nil, err
		}
	}
	if err := e.makeRiff(ctx, NewInstanceID()); err != nil {
		err = fmt.Errorf("make the riff: %w", err)
		e.abort(err)
		return nil, err
	}
	if err := e.nameOwner(ctx); err != nil {
		e.abort(err)
		return nil, err
	}
	e.setServing(true, "")
	opts.Logger.Info("riff-server serves", "target", "start", "revision", opts.Revision)
	return e, nil
}

// newEngine makes an engine from a state that a start loaded (or
// riffstate.New for an empty log) and the replay that ended it, and
// starts the writer and the timers. Open is the start of a program; the
// tests use newEngine (as New) to build an engine on a state of their
// own.
func newEngine(state *riffstate.State, replayed rifflog.Replayed, opts Options) *Engine {
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
	opts.StateOptions.SignIn = opts.SignIn
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
		wrote:    make(chan struct{}, 1),
		streams:  newHub(),
		cancel:   cancel,
		stopping: make(chan struct{}),
		done:     make(chan struct{}),
		sinceCkp: replayed.Records,
		lastCkp:  opts.Now(),

		loadedCheckpoint: opts.LoadedCheckpoint,
	}
	if opts.SignIn {
		topts := opts.Tokens
		topts.Now = opts.Now
		// The end of a sign-in ends its streams in the same step.
		topts.Ended = e.streams.endSignIn
		e.signIns = tokens.New(topts)
		e.saver = newSaver(opts.Store, e.signIns, opts.Now, opts.Logger, opts.SignInsEvery)
		// The readers' check of the signed messages reads the keys of the
		// live sign-ins; a load after the lease wait gets them too.
		e.opts.StateOptions.LiveKeys = e.signIns.LiveKeys
		state.SetLiveKeys(e.signIns.LiveKeys)
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

// Close stops the engine for good and waits for each of its goroutines.
// What it does depends on why the engine stops:
//
//   - The engine serves (a stop signal of the program): it closes the
//     gate, waits until the writer wrote each entry of the queue, stops,
//     writes a last checkpoint and ends the lease, so that the next start
//     neither replays nor waits for the age of the lease.
//   - The engine read the lease of another instance (a deploy): it
//     writes a last checkpoint of the written copy for the new instance,
//     which loads it after its wait, while the lease names a live other
//     instance; it writes none when that lease ended or aged. The
//     program closes its port at once, and ctx bounds the whole (the
//     old instance exits within 10 s of the read of the lease).
//   - A chunk failed for good, or the lease could not be read: it gives
//     why, with no checkpoint.
//
// A second Close gives what the first gave.
func (e *Engine) Close(ctx context.Context) error {
	e.closeOnce.Do(func() {
		e.closeErr = e.close(ctx)
		if e.saver != nil {
			e.saver.finish()
		}
	})
	return e.closeErr
}

func (e *Engine) close(ctx context.Context) error {
	log := e.opts.Logger
	why := e.Err()
	switch {
	case why == nil:
		log.Info("riff-server stops: it writes what waits and a last checkpoint", "target", "start")
		if err := e.settle(ctx); err != nil {
			return fmt.Errorf("stop: %w", err)
		}
		log.Info("riff-server stopped", "target", "start")
		return nil
	case errors.Is(why, rifflog.ErrLeaseLost):
		log.Info("riff-server hands over: another instance took the lease; it closes its port and writes a last checkpoint", "target", "start")
		e.stopFor(why)
		holder, err := e.handOver(ctx)
		if err != nil {
			log.Warn("riff-server wrote no last checkpoint for the new instance", "target", "start", "error", err.Error())
			return fmt.Errorf("riff-server stopped: %w", why)
		}
		log.Info("riff-server stopped: it handed over to the new instance", "target", "start",
			"instance", holder.Instance, "revision", holder.Revision)
		return nil
	default:
		e.stopFor(why)
		if err := e.waitDone(ctx); err != nil {
			return fmt.Errorf("riff-server stopped: %w (and %w)", why, err)
		}
		return fmt.Errorf("riff-server stopped: %w", why)
	}
}

// settle is the stop of a serving engine: the gate closes, the writer
// writes each entry of the queue, the goroutines end, and a last
// checkpoint and the end of the lease follow. A chunk that fails in the
// meanwhile stops the instance with no checkpoint; that is no error of
// the stop (the failure has its own lines).
func (e *Engine) settle(ctx context.Context) error {
	e.setServing(false, "riff-server stops")
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
		// The gate is closed: only the writer empties the queue, and it
		// sends on wrote after each chunk (halt after a stop).
		select {
		case <-ctx.Done():
			return fmt.Errorf("settle: %w", ctx.Err())
		case <-e.wrote:
		}
	}
	e.stopFor(nil)
	if err := e.waitDone(ctx); err != nil {
		return err
	}
	if e.Err() != nil {
		return nil
	}
	// After the last record and before the last checkpoint, as at a
	// handover.
	e.lastSignIns(ctx)
	if err := e.checkpoint(ctx, true); err != nil {
		return err
	}
	return e.endLease(ctx)
}

// stopFor is the one path of a stop for good, from any goroutine: the
// writer when a chunk fails for good, the holder of the lease when it
// reads another instance, a start that fails, and Close. It closes the
// gate; with a why, the instance stopped: each waiting call gets
// ErrStopped and Err gives why. It tells each goroutine of the engine to
// end and closes the streams; Done closes once they ended. It does not
// wait, so that a goroutine of the engine can call it.
func (e *Engine) stopFor(why error) {
	if why != nil {
		e.halt(why)
	}
	e.stopOnce.Do(func() {
		close(e.stopping)
		e.cancel()
	})
	e.streams.closeAll()
}

// halt marks the instance stopped and tells each waiting call.
func (e *Engine) halt(why error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stopErr == nil {
		e.stopErr = why
		e.facts.lastError = callerText(why)
		e.publishServingLocked()
	}
	e.closed = true
	for _, en := range e.queue {
		if en.hasSender() {
			traceFailed(e.log, en, why, slog.LevelWarn)
		}
		en.failed = true
		close(en.done)
	}
	e.queue = nil
	for k := range e.waits {
		delete(e.waits, k)
	}
	e.wroteChunk()
}

// wroteChunk wakes settle, which waits until the queue is written: the
// writer calls it after each chunk, halt after a stop. It never blocks:
// a wake that settle did not take yet stands for this one too.
func (e *Engine) wroteChunk() {
	select {
	case e.wrote <- struct{}{}:
	default:
	}
}

// abort is the stop of a start that fails: the engine stops with why,
// with no checkpoint, and ends the lease when it took one, so that the
// next instance need not wait for its age.
func (e *Engine) abort(why error) {
	e.stopFor(why)
	<-e.done
	if e.saver != nil {
		e.saver.finish()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.endLease(ctx); err != nil {
		e.opts.Logger.Warn("the lease is not ended", "target", "start", "error", err.Error())
	}
}

// waitDone waits until each goroutine of the engine ended.
func (e *Engine) waitDone(ctx context.Context) error {
	select {
	case <-e.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("the engine did not stop: %w", ctx.Err())
	}
}

func (e *Engine) now() riffstate.Now { return riffstate.Now{Ms: e.opts.Now().UnixMilli()} }

// Stopping closes when the engine starts to stop: a Close, a chunk that
// failed, or the lease of another instance. Done follows it once each
// goroutine of the engine ended. A program that sees Stopping before it
// called Close closes its port and calls Close.
func (e *Engine) Stopping() <-chan struct{} { return e.stopping }

// Done closes when the writer and the timers stopped.
func (e *Engine) Done() <-chan struct{} { return e.done }

// Err says why the instance stopped, or nil while it serves (and after
// a Close of a serving engine).
func (e *Engine) Err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stopErr
}

// Closed says whether the gate is closed: the engine takes no new
// command (a stop, or a failure).
func (e *Engine) Closed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed
}
