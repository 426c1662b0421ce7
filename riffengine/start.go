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
	Took       time.Duration
	// Unread holds the error of each checkpoint newer than the one that
	// the start used that did not read: [Engine.SetUnread] logs them.
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
		from = cp.From()
	}
	l.Replayed, err = replayInto(ctx, store, from, l.State)
	if err != nil {
		return Loaded{}, err
	}
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

// TakeLease takes the lease for this instance, waits, reads the chunks
// that came since the load, and reads the newest checkpoint again (the
// old instance can write one until it reads the new lease). Then the
// writer writes only while the lease names this instance, and a
// goroutine of the engine reads the lease every 2 s: an instance that
// reads another ID stops. An exit in the wait ends the lease.
func (e *Engine) TakeLease(ctx context.Context, id string, wait time.Duration) error {
	lease, err := rifflog.TakeLease(ctx, e.opts.Store, id, e.opts.Now())
	if err != nil {
		return err
	}
	if err := lease.Wait(ctx, wait); err != nil {
		return err
	}
	if err := e.catchUp(ctx); err != nil {
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
	e.opts.Lease = lease
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
			e.halt(fmt.Errorf("lost the lease: %w", err))
			e.streams.closeAll()
			e.stop()
		}
	}()
	return nil
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

// MakeRiff sends make_riff at the first start of an empty log, or of a
// log with records and no ID, and waits for its write.
func (e *Engine) MakeRiff(ctx context.Context, id string) error {
	var has bool
	e.View(func(v riffstate.View, now riffstate.Now) { has = v.Riff().ID != "" })
	if has {
		return nil
	}
	_, err := RunServer[riffstate.MakeRiff, struct{}](ctx, e, riffstate.MakeRiff{ID: id})
	return err
}
