package riffengine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/como-technologies/riff/riffengine/tokens"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/riffstate"
)

// The schedule of the writes of signins.json (docs/tokens.md, the writes
// of signins.json).
const (
	// SignInsEvery is the least time from the end of one write of
	// signins.json to the start of the next (Options.SignInsEvery sets
	// another).
	SignInsEvery = time.Second
	// SignInsMaxWait is the longest wait after failed writes: each
	// failure (a 429 of Cloud Storage, or any other) doubles the wait,
	// up to it; a good write sets it back to SignInsEvery. It is
	// signInsMaxTimes the least time.
	SignInsMaxWait  = signInsMaxTimes * SignInsEvery
	signInsMaxTimes = 32
	// signInsWriteFor bounds one write, so that a store that hangs
	// counts as a failure and the wait grows.
	signInsWriteFor = 10 * time.Second
)

// saver writes signins.json for the engine. Its goroutine (saveLoop)
// starts once the engine serves and stops with the engine; the stop and
// the handover write it one last time once that goroutine ended. mu
// orders the loads and the writes (a load after the lease wait, a
// write of the loop, the last write); it is held across their I/O and
// is never taken with the lock of the engine held.
type saver struct {
	store  rifflog.Store
	tokens *tokens.Store
	now    func() time.Time
	log    *slog.Logger

	// every is the least time between two writes, maxWait the longest
	// wait after failures.
	every, maxWait time.Duration

	mu sync.Mutex
	// after is the timer of the schedule (time.After; the tests give a
	// timer of their own).
	after func(time.Duration) <-chan time.Time
	// gen is the generation of the object that the last load or write
	// saw (0: no object).
	gen int64
	// lastEnd is the end of the last write (zero: none in this start);
	// wait is the wait after it.
	lastEnd time.Time
	wait    time.Duration
	// final closes after the last write of the stop, or when there is
	// none: a sign-in that waits for its write stops waiting then.
	final     chan struct{}
	finalOnce sync.Once
	// beforeRefreshWait, when a test sets it, runs when the reply of a
	// refresh starts to wait for a write (a test knows then that the
	// reply waits, with no sleep). Not under mu, which a write holds.
	beforeRefreshWait atomic.Pointer[func()]
}

func newSaver(store rifflog.Store, ts *tokens.Store, now func() time.Time, log *slog.Logger, every time.Duration) *saver {
	if every <= 0 {
		every = SignInsEvery
	}
	return &saver{store: store, tokens: ts, now: now, after: time.After, log: log.With("target", "signins"),
		every: every, maxWait: signInsMaxTimes * every, wait: every, final: make(chan struct{})}
}

// SignIns gives the token store of a riff with sign-in, or nil for a
// riff with no sign-in.
func (e *Engine) SignIns() *tokens.Store { return e.signIns }

// WaitSaved waits until signins.json holds the version of the token store
// (the version that Store.Start gave), so that a sign-in replies only
// once a restart keeps it. It gives ErrStopped when the engine stopped
// before, and the context's error when ctx ends.
func (e *Engine) WaitSaved(ctx context.Context, version uint64) error {
	if e.signIns == nil {
		return errors.New("wait for signins.json: this riff has no sign-in")
	}
	for {
		saved, _, next := e.signIns.SavedVersion()
		if saved >= version {
			return nil
		}
		select {
		case <-next:
		case <-e.saver.final:
			if saved, _, _ := e.signIns.SavedVersion(); saved >= version {
				return nil
			}
			return ErrStopped
		case <-ctx.Done():
			return fmt.Errorf("wait for signins.json: %w", ctx.Err())
		}
	}
}

// peopleOf gives what the log knows of the users, for a load of the
// sign-ins. The lock of the engine is held while the load runs.
func peopleOf(r *riffstate.Riff) tokens.People {
	return func(user string) (bool, uint64) { return r.People.SignInOf(user) }
}

// loadSignIns loads signins.json into the token store: at the start
// after the replay, and again after the lease wait (the old instance
// wrote it at its handover). An object that is not there is no error (a
// new riff, or a riff that had no sign-in); any other failure fails the
// start.
func (e *Engine) loadSignIns(ctx context.Context) error {
	if e.signIns == nil {
		return nil
	}
	s := e.saver
	s.mu.Lock()
	defer s.mu.Unlock()
	data, gen, err := s.store.Load(ctx, rifflog.SignInsName)
	if errors.Is(err, rifflog.ErrNotExist) {
		s.gen = 0
		return nil
	}
	if err != nil {
		return fmt.Errorf("load %s: %w", rifflog.SignInsName, err)
	}
	var dropped tokens.Dropped
	e.mu.Lock()
	position := e.written
	dropped, err = e.signIns.Load(data, position, peopleOf(e.state.Written().Riff()))
	e.mu.Unlock()
	if err != nil {
		return fmt.Errorf("load %s: %w", rifflog.SignInsName, err)
	}
	s.gen = gen
	s.log.Info("riff-server loaded the sign-ins", "live", e.signIns.Live(),
		"dropped_after_log", dropped.AfterLog, "dropped_unknown_user", dropped.UnknownUser, "dropped_ended", dropped.Ended)
	return nil
}

// startSaver starts the goroutine that writes signins.json, at the first
// serve (setServing), once the instance holds the lease and loaded the
// sign-ins again.
func (e *Engine) startSaver() {
	if e.signIns == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.wg.Add(2)
	go func() {
		defer e.wg.Done()
		select {
		case <-e.stopping:
		case <-ctx.Done():
		}
		cancel()
	}()
	go func() {
		defer e.wg.Done()
		defer cancel()
		e.saver.loop(ctx)
	}()
}

// loop writes signins.json when it changed, at most once each wait from
// the end of the last write, until ctx ends.
func (s *saver) loop(ctx context.Context) {
	for {
		if !s.tokens.Unsaved() {
			select {
			case <-ctx.Done():
				return
			case <-s.tokens.Changed():
			}
			continue
		}
		if d := s.untilNext(s.waitNow()); d > 0 {
			select {
			case <-ctx.Done():
				return
			case <-s.timer(d):
			}
		}
		_ = s.write(ctx)
	}
}

// timer starts a wait of the schedule.
func (s *saver) timer(d time.Duration) <-chan time.Time {
	s.mu.Lock()
	after := s.after
	s.mu.Unlock()
	return after(d)
}

func (s *saver) waitNow() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wait
}

// untilNext gives how long the next write waits: wait from the end of
// the last one.
func (s *saver) untilNext(wait time.Duration) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastEnd.IsZero() {
		return 0
	}
	return s.lastEnd.Add(wait).Sub(s.now())
}

// write writes the snapshot of the token store once, and sets the wait
// of the next write: the least time after a good write, twice the last
// wait (up to the longest) after a failed one. A failed write makes
// each refresh give ErrNotSaved until a write works.
func (s *saver) write(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, version := s.tokens.Snapshot()
	wctx, cancel := context.WithTimeout(ctx, signInsWriteFor)
	gen, err := s.store.Swap(wctx, rifflog.SignInsName, data, s.gen)
	cancel()
	s.lastEnd = s.now()
	if err != nil {
		s.wait = min(2*s.wait, s.maxWait)
		s.tokens.Saved(version, err)
		s.log.Warn("riff-server cannot write signins.json; a refresh gets 503 until a write works",
			"error", err.Error(), "next_in_ms", s.wait.Milliseconds())
		return fmt.Errorf("write %s: %w", rifflog.SignInsName, err)
	}
	s.gen, s.wait = gen, s.every
	s.tokens.Saved(version, nil)
	return nil
}

// last writes signins.json one last time when it changed: at the stop
// of a serving instance after the last record, and at the handover
// before the last checkpoint. It keeps the second from the end of the
// last write (not the wait of a failure: the instance exits). It runs
// once the saver's goroutine ended.
func (s *saver) last(ctx context.Context) error {
	defer s.finish()
	if !s.tokens.Unsaved() {
		return nil
	}
	if d := s.untilNext(s.every); d > 0 {
		select {
		case <-ctx.Done():
			return fmt.Errorf("write %s: %w", rifflog.SignInsName, ctx.Err())
		case <-s.timer(d):
		}
	}
	return s.write(ctx)
}

// finish tells each waiting sign-in that no write comes after now.
func (s *saver) finish() {
	s.finalOnce.Do(func() { close(s.final) })
}

// lastSignIns is the last write of the engine's sign-ins, when it has
// them; a failure is logged and is no failure of the stop (the
// checkpoint still goes).
func (e *Engine) lastSignIns(ctx context.Context) {
	if e.signIns == nil {
		return
	}
	if err := e.saver.last(ctx); err != nil {
		e.opts.Logger.Warn("riff-server wrote no last signins.json: a client refreshes once after the start",
			"target", "signins", "error", err.Error())
	}
}

// waitRefresh holds the reply of a refresh until signins.json holds what
// the reply needs (tokens.Pair.SaveFirst): the end of a sign-in by a
// reused refresh token, like a removal, is written before its reply; a
// new pair of generation G+1 goes out once the saved object holds
// generation G, so that after a kill -9 the first refresh of the load
// takes the newest token (docs/tokens.md, "The saver"). It gives the
// refresh's own result when no wait is needed or the write came, and the
// error of the wait otherwise: tokens.ErrNotSaved when a write fails
// meanwhile (503, as each refresh gets while the writes fail), ErrStopped,
// or the end of ctx. The client then tries again with the same token,
// which the store takes as a lost reply once a write works.
func (e *Engine) waitRefresh(ctx context.Context, pair tokens.Pair, err error) (tokens.Pair, error) {
	if pair.SaveFirst == 0 || (err != nil && !errors.Is(err, tokens.ErrReused)) {
		return pair, err
	}
	if hook := e.saver.beforeRefreshWait.Load(); hook != nil {
		if saved, _, _ := e.signIns.SavedVersion(); saved < pair.SaveFirst {
			(*hook)()
		}
	}
	for {
		saved, failing, next := e.signIns.SavedVersion()
		switch {
		case saved >= pair.SaveFirst:
			return pair, err
		case failing:
			return tokens.Pair{}, tokens.ErrNotSaved
		}
		select {
		case <-next:
		case <-e.saver.final:
			if saved, _, _ := e.signIns.SavedVersion(); saved >= pair.SaveFirst {
				return pair, err
			}
			return tokens.Pair{}, ErrStopped
		case <-ctx.Done():
			return tokens.Pair{}, fmt.Errorf("wait for signins.json: %w", ctx.Err())
		}
	}
}
