package riffengine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/riffstate"
)

// Loaded is the state that a start loaded: the newest checkpoint that
// reads, and the chunks after it.
type Loaded struct {
	State      *riffstate.State
	Replayed   rifflog.Replayed
	Checkpoint *rifflog.Checkpoint
	// CheckpointName is the object of Checkpoint ("" with none).
	CheckpointName string
	Took           time.Duration
	// Unread holds the error of each checkpoint newer than the one that
	// the start used that did not read: the start logs them.
	Unread []error
}

// Load loads the newest checkpoint that reads (falling back to the one
// before it), and replays the chunks after it. A chunk that does not
// read, a gap, a repeat or a break of the chain stops the load with an
// error that names the chunk and the position: a build that cannot load
// never serves.
func Load(ctx context.Context, store rifflog.Store, opts riffstate.Options) (Loaded, error) {
	start := time.Now()
	var l Loaded
	loaded, err := rifflog.LoadCheckpoint(ctx, store, func(cp rifflog.Checkpoint) error {
		st, err := riffstate.LoadCheckpoint(cp.State, opts)
		if err != nil {
			return err
		}
		l.State = st
		return nil
	})
	var from rifflog.From
	switch {
	case errors.Is(err, rifflog.ErrNoCheckpoint):
		l.State = riffstate.New(opts)
	case err != nil:
		return Loaded{}, err
	default:
		cp := loaded.Checkpoint
		l.Checkpoint = &cp
		l.Unread = loaded.Failed
		l.CheckpointName = loaded.Name
		from = cp.From()
	}
	l.Replayed, err = replayInto(ctx, store, from, l.State)
	if err != nil {
		return Loaded{}, err
	}
	// A replay from the start of the log kept the two copies as one riff:
	// the clone is made here, part of the start, not under the lock of
	// the first call.
	l.State.Split()
	l.Took = time.Since(start)
	return l, nil
}

// replayInto replays the chunks after from into the state. The records
// are decoded on a goroutine of the replay, ahead of the apply, and
// reach the state in log order on the goroutine of the caller.
func replayInto(ctx context.Context, store rifflog.Store, from rifflog.From, st *riffstate.State) (rifflog.Replayed, error) {
	// One decoder for the replay: the texts that come again (sessions,
	// threads, items) are one string each in the state.
	dec := record.NewDecoder()
	return rifflog.ReplayDecoded(ctx, store, from, func(line []byte, position uint64) (record.Record, error) {
		rec, err := dec.Decode(line)
		if err != nil {
			return rec, fmt.Errorf("the record at position %d does not read: %w", position, err)
		}
		return rec, nil
	}, func(rec record.Record, _ uint64) error {
		st.Replay(rec)
		return nil
	})
}

// NewInstanceID gives a random ID for the lease.
func NewInstanceID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// takeLeaseAndLoadAgain takes the lease for this instance, waits, and
// loads again what the old instance wrote meanwhile. Then the writer writes only
// while the lease names this instance, and a goroutine of the engine
// reads the lease every 2 s: an instance that reads another ID stops.
//
// While the lease of a later revision holds (Options.Revision is lower),
// the instance takes nothing: it reads the lease every 2 s and takes it
// when it ended or aged (a failed deploy, a shift of the traffic back).
// After the take it waits, so that the old instance reads the new lease
// and writes a last checkpoint; then it lists the checkpoints again:
// when one came since its load, it loads its state again from the
// newest one and the chunks after it, else it reads the chunks that
// came since. So a deploy keeps each read cursor, status and step. An
// exit in the wait, or a failure before the engine holds the lease,
// ends the lease.
func (e *Engine) takeLeaseAndLoadAgain(ctx context.Context, id string, wait time.Duration) error {
	lease, err := e.takeLease(ctx, id)
	if err != nil {
		return err
	}
	if err := lease.Wait(ctx, wait); err != nil {
		return err
	}
	err = e.loadAgain(ctx)
	if err == nil {
		// The old instance wrote signins.json at its handover.
		err = e.loadSignIns(ctx)
	}
	if err != nil {
		ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if endErr := lease.End(ectx, e.opts.Now()); endErr != nil && !errors.Is(endErr, rifflog.ErrLeaseLost) {
			return fmt.Errorf("%w (and %w)", err, endErr)
		}
		return err
	}
	// No other instance writes now: what a killed one left can go.
	if r, ok := e.opts.Store.(rifflog.LeftoverRemover); ok {
		if n, err := r.RemoveLeftovers(ctx); err != nil {
			e.log.Warn("remove the leftovers of killed writes", "error", err.Error())
		} else if n > 0 {
			e.log.Info("removed the leftovers of killed writes", "files", n)
		}
	}
	e.mu.Lock()
	drops := e.takeDropsLocked()
	e.mu.Unlock()
	e.logDrops(drops, true)
	e.mu.Lock()
	e.lease = lease
	e.mu.Unlock()
	hold, cancel := context.WithCancel(context.Background())
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		select {
		case <-e.stopping:
			cancel()
		case <-hold.Done():
		}
	}()
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		defer cancel()
		if err := lease.Hold(hold); err != nil {
			e.log.Warn("the lease is lost; the instance stops", "error", err.Error())
			e.stopFor(fmt.Errorf("lost the lease: %w", err))
		}
	}()
	return nil
}

// takeLease takes the lease, or waits while the lease of a later
// revision holds.
func (e *Engine) takeLease(ctx context.Context, id string) (*rifflog.Lease, error) {
	told := false
	for {
		lease, err := rifflog.TakeLeaseAs(ctx, e.opts.Store, id, e.opts.Revision, e.opts.Now())
		var newer *rifflog.NewerLeaseError
		if !errors.As(err, &newer) {
			if err == nil && told {
				e.log.Info("the lease of the later revision ended: this instance takes it", "target", "start", "revision", e.opts.Revision)
				e.setServing(false, "riff-server starts")
			}
			return lease, err
		}
		if !told {
			told = true
			e.log.Info("a later revision holds the lease: this instance waits until it ends",
				"target", "start", "revision", e.opts.Revision,
				"holder", newer.Holder.Instance, "holder_revision", newer.Holder.Revision)
			e.setServing(false, fmt.Sprintf("revision %d holds the lease; this instance of revision %d waits until it ends", newer.Holder.Revision, e.opts.Revision))
		}
		t := time.NewTimer(rifflog.LeaseRead)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("take lease: %w", ctx.Err())
		case <-t.C:
		}
	}
}

// loadAgain runs after the lease wait, before the instance serves: when
// the newest checkpoint is not the one of the load (the old instance
// wrote its last one), it loads the state again from it; else it reads
// the chunks that came since the load.
func (e *Engine) loadAgain(ctx context.Context) error {
	newest, err := rifflog.NewestCheckpointName(ctx, e.opts.Store)
	if err != nil {
		return err
	}
	e.mu.Lock()
	same := newest == e.loadedCheckpoint
	e.mu.Unlock()
	if same {
		return e.catchUp(ctx)
	}
	l, err := Load(ctx, e.opts.Store, e.opts.StateOptions)
	if err != nil {
		return fmt.Errorf("load again after the lease wait: %w", err)
	}
	e.replaceState(l)
	return nil
}

// replaceState puts the state of a second load in place of the first
// one. It runs only before the instance serves: the queue is empty, no
// call reaches the state (503), and the timers write nothing.
func (e *Engine) replaceState(l Loaded) {
	// The copy of the checkpoints follows the state: a new copy, and no
	// step of the first load. The new state is not shared yet, so its copy
	// (a clone after a long replay) is made outside the lock.
	l.State.Loaded(e.now())
	sh, shErr := l.State.NewShadow()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.state = l.State
	e.chain, e.written = l.Replayed.Chain, l.Replayed.Last
	e.loadedCheckpoint = l.CheckpointName
	e.sinceCkp = l.Replayed.Records
	e.facts.position = l.Replayed.Last
	e.facts.chunks = uint64(l.Replayed.Chunks)
	e.facts.replayTook += l.Took
	if cp := l.Checkpoint; cp != nil {
		e.facts.checkpoint = &checkpointFacts{position: cp.Position, at: time.UnixMilli(cp.WrittenAtMs), version: cp.Build}
		e.facts.newestBuild = cp.Build
		// The count toward the next checkpoint starts at this one.
		e.lastCkp = time.UnixMilli(cp.WrittenAtMs)
	}
	e.steps = nil
	e.shadow = nil
	if shErr != nil {
		e.log.Error("no copy of the state for the checkpoints; they are encoded under the lock", "error", shErr.Error())
	} else {
		e.shadow = sh
	}
	e.setUnreadLocked(l.Unread)
}

// endLease ends the lease of this instance, when it holds one: at the
// stop of a serving instance, or a start that fails after it took the
// lease, so that the next instance (or a tool such as log cut) need not
// wait for its age.
func (e *Engine) endLease(ctx context.Context) error {
	e.mu.Lock()
	lease := e.lease
	e.mu.Unlock()
	if lease == nil {
		return nil
	}
	if err := lease.End(ctx, e.opts.Now()); err != nil {
		return fmt.Errorf("end the lease: %w", err)
	}
	return nil
}

// handOver is the end of an instance that read the lease of another
// one (a deploy), in Close: after Done, with the writer stopped, it writes a last
// checkpoint of the written copy for the new instance, which loads it
// after its wait. It writes none when the lease names no live other
// instance (it ended, or aged). It gives the lease that it read.
//
// signins.json is written here, when it changed, before the checkpoint
// (the rule: "It writes the object one last time, before its last
// checkpoint"), so that a token from the last second of this instance
// works on the new one.
func (e *Engine) handOver(ctx context.Context) (rifflog.LeaseRecord, error) {
	select {
	case <-e.done:
	case <-ctx.Done():
		return rifflog.LeaseRecord{}, fmt.Errorf("hand over: the engine did not stop: %w", ctx.Err())
	}
	r, _, ok, err := rifflog.ReadLease(ctx, e.opts.Store)
	if err != nil {
		return r, fmt.Errorf("hand over: %w", err)
	}
	e.mu.Lock()
	mine := e.lease
	e.mu.Unlock()
	if !ok || !r.Holds(e.opts.Now()) || (mine != nil && r.Instance == mine.ID()) {
		return r, fmt.Errorf("hand over: no other instance holds the lease: %w", rifflog.ErrLeaseLost)
	}
	e.lastSignIns(ctx)
	if err := e.checkpoint(ctx, true); err != nil {
		return r, fmt.Errorf("hand over: %w", err)
	}
	return r, nil
}

// catchUp replays the chunks that came after the load, and reads the
// build of the newest checkpoint for the version rules. It reads the
// store with the lock free, and applies the records under it.
func (e *Engine) catchUp(ctx context.Context) error {
	e.mu.Lock()
	from := rifflog.From{Position: e.written, Chain: e.chain}
	e.mu.Unlock()
	var records []record.Record
	replayed, err := rifflog.Replay(ctx, e.opts.Store, from, func(line []byte, position uint64) error {
		rec, err := record.Decode(line)
		if err != nil {
			return fmt.Errorf("the record at position %d does not read: %w", position, err)
		}
		records = append(records, rec)
		return nil
	})
	if err != nil {
		return err
	}
	newest, newestErr := rifflog.LoadCheckpoint(ctx, e.opts.Store, nil)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.state.Replay(records...)
	if e.shadow != nil && len(records) > 0 {
		e.steps = append(e.steps, riffstate.ShadowStep{Records: records})
	}
	e.sinceCkp += len(records)
	e.written, e.chain = replayed.Last, replayed.Chain
	e.facts.position = replayed.Last
	e.facts.chunks += uint64(replayed.Chunks)
	if newestErr == nil {
		e.facts.newestBuild = newest.Checkpoint.Build
		if cp := newest.Checkpoint; cp.Position <= e.written && int(e.written-cp.Position) < e.sinceCkp {
			// The old instance wrote a checkpoint in the wait: count from it.
			e.sinceCkp, e.lastCkp = int(e.written-cp.Position), time.UnixMilli(cp.WrittenAtMs)
		}
		if e.facts.checkpoint == nil || newest.Checkpoint.Position > e.facts.checkpoint.position {
			e.facts.checkpoint = &checkpointFacts{position: newest.Checkpoint.Position,
				at: time.UnixMilli(newest.Checkpoint.WrittenAtMs), version: newest.Checkpoint.Build}
		}
	}
	return nil
}

// makeRiff sends make_riff at the first start of an empty log, or of a
// log with records and no ID, and waits for its write.
func (e *Engine) makeRiff(ctx context.Context, id string) error {
	var has bool
	e.View(func(v riffstate.View, now riffstate.Now) { has = v.Riff().ID != "" })
	if has {
		return nil
	}
	_, err := RunServer[riffstate.MakeRiff, struct{}](ctx, e, riffstate.MakeRiff{ID: id})
	return err
}
