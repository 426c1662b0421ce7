package riffengine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/riffstate"
)

// writer is the one goroutine that writes the log. It takes each entry
// of the queue into one chunk (a group commit), writes it outside the
// lock, and gives the chunk and the proof of its write to finish. It
// writes at most one chunk at a time: while it writes, new entries wait
// for the next chunk.
func (e *Engine) writer(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			e.drain()
			return
		case <-e.queued:
		}
		if !e.writeOnce(ctx) {
			return
		}
		e.maybeCheckpoint(ctx)
	}
}

// drain writes what waits at a stop, while the instance holds the lease.
func (e *Engine) drain() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		e.mu.Lock()
		empty := len(e.queue) == 0 || e.stopErr != nil
		e.mu.Unlock()
		if empty || !e.writeOnce(ctx) {
			return
		}
	}
}

// writeOnce writes the entries of the queue as one chunk. It reports
// false when the chunk failed for good and the instance stopped.
func (e *Engine) writeOnce(ctx context.Context) bool {
	e.mu.Lock()
	entries := e.queue
	e.queue = nil
	prev, first := e.chain, e.written+1
	e.writing = len(entries) > 0
	e.mu.Unlock()
	if len(entries) == 0 {
		return true
	}
	defer func() {
		e.mu.Lock()
		e.writing = false
		e.mu.Unlock()
	}()
	// A stop does not cut a write in the middle: the write has a time of
	// its own (the GCS store gives up after 10 s of retries).
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	var records []record.Record
	var lines [][]byte
	for _, en := range entries {
		enc, err := en.encode()
		if err != nil {
			e.fail(entries, err)
			return false
		}
		records = append(records, en.made...)
		lines = append(lines, enc...)
	}
	if len(records) > 0 && records[0].Position != first {
		e.fail(entries, fmt.Errorf("the queue starts at position %d, and the log at %d", records[0].Position, first))
		return false
	}
	chunk := rifflog.Chunk{Prev: prev, First: first, Records: lines}
	start := time.Now()
	var written rifflog.Written
	var err error
	if e.opts.Lease != nil && len(lines) > 0 {
		written, err = e.opts.Lease.WriteHeld(ctx, chunk)
	} else {
		written, err = rifflog.Write(ctx, e.opts.Store, chunk)
	}
	took := time.Since(start)
	if err != nil {
		e.fail(entries, err)
		return false
	}
	e.finish(entries, records, written, took)
	if len(records) > 0 {
		e.prepare(rifflog.ChunkName(written.Last() + 1))
	}
	return true
}

// prepare makes the temporary file of the next chunk, when the store can,
// in a goroutine of the engine: the writer goes on with the next chunk
// at once, and the file is ready for a later one if not for it (a Put
// that finds no file ready makes its own). At most one runs at a time; a
// stop waits for it.
func (e *Engine) prepare(name string) {
	p, ok := e.opts.Store.(preparer)
	if !ok {
		return
	}
	e.mu.Lock()
	busy := e.preparing
	e.preparing = true
	e.mu.Unlock()
	if busy {
		return
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		if err := p.Prepare(name); err != nil {
			e.log.Warn("prepare the next chunk", "error", err.Error())
		}
		e.mu.Lock()
		e.preparing = false
		e.mu.Unlock()
	}()
}

// preparer is a store that can make the file of the next object ahead
// of time (the directory store).
type preparer interface {
	Prepare(name string) error
}

// finish finishes each command of a written chunk. written is the proof
// of the write: only rifflog.Write makes it. It applies the records to
// the written copy in the order of their positions, under the lock, and
// keeps the results of the calls with a call ID. Then, for each entry in
// order, it writes the log line of a command with no record, sends the
// effects and tells the call that the entry is done. The call can be
// gone: the change is done.
func (e *Engine) finish(entries []*entry, records []record.Record, written rifflog.Written, took time.Duration) {
	if len(records) > 0 && !written.Covers(records[0].Position, len(records)) {
		e.fail(entries, errors.New("the writer gave the proof of other records"))
		return
	}
	now := e.now()
	e.mu.Lock()
	effects := e.state.WrittenRecords(records, now)
	for _, en := range entries {
		if en.hasKey {
			if en.refused == nil {
				e.state.Keep(en.key, en.asked, riffstate.Done{Made: en.made}, now)
			}
			if e.waits[en.key] == en {
				delete(e.waits, en.key)
			}
		}
	}
	if len(records) > 0 {
		e.chain = written.Chain()
		e.written = written.Last()
		e.facts.position = written.Last()
		e.facts.chunks++
		e.facts.lastWrite = e.opts.Now()
		e.facts.lastWriteTook = took
		e.facts.chunkSizes.add(len(records))
	}
	drops := e.takeDropsLocked()
	e.sinceCkp += len(records)
	e.mu.Unlock()

	if len(drops) > 0 {
		e.logDrops(drops, false)
	}
	e.streams.send(effects)
	for _, en := range entries {
		if len(en.made) == 0 && en.sent != nil {
			traceNoRecord(e.log, en)
		}
		close(en.done)
	}
}

// fail ends each command of a chunk that failed for good: one failed
// line (ERROR) for each, 503 to every call, and the instance stops.
func (e *Engine) fail(entries []*entry, err error) {
	e.mu.Lock()
	e.facts.writeErrors++
	e.mu.Unlock()
	// A lost lease is the stop of a deploy: its lines are warnings, so
	// that it sends no alert.
	level := slog.LevelError
	if errors.Is(err, rifflog.ErrLeaseLost) {
		level = slog.LevelWarn
	}
	e.log.Log(context.Background(), level, "the chunk failed for good; the instance stops", "result", "failed", "error", err.Error())
	for _, en := range entries {
		if en.sent != nil {
			traceFailed(e.log, en, err, level)
		}
		en.failed = true
		close(en.done)
	}
	e.halt(fmt.Errorf("a chunk failed for good: %w", err))
	// The instance stops: the timers end too, and Done closes.
	e.stop()
	e.streams.closeAll()
}

// maybeCheckpoint writes a checkpoint each CheckpointEvery records, or
// each CheckpointInterval when records came. The writer encodes it under
// the lock; a goroutine of the engine writes it and prunes the log, so
// that the next chunks do not wait for that (a prune of the directory
// store flushes the directory for each chunk that it removes). At most
// one such write runs at a time: while it runs, the next checkpoint
// waits for a later chunk. A stop waits for it.
func (e *Engine) maybeCheckpoint(ctx context.Context) {
	e.mu.Lock()
	due := !e.ckpWriting && (e.sinceCkp >= e.opts.CheckpointEvery ||
		(e.sinceCkp > 0 && e.opts.Now().Sub(e.lastCkp) >= e.opts.CheckpointInterval))
	e.mu.Unlock()
	if !due {
		return
	}
	cp, ok, err := e.encodeCheckpoint(false)
	if err != nil {
		e.log.Warn("no checkpoint", "error", err.Error())
	}
	if !ok {
		return
	}
	e.mu.Lock()
	e.ckpWriting = true
	e.mu.Unlock()
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		defer func() {
			e.mu.Lock()
			e.ckpWriting = false
			e.mu.Unlock()
		}()
		// A stop does not cut the write: it has a time of its own.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := e.writeCheckpoint(ctx, cp); err != nil {
			e.log.Warn("no checkpoint", "error", err.Error())
		}
	}()
}

// checkpoint encodes the written copy under the lock, and writes it
// outside the lock. It writes none past a record that this build
// skipped, nor while the newest checkpoint comes from a later version.
func (e *Engine) checkpoint(ctx context.Context, last bool) error {
	cp, ok, err := e.encodeCheckpoint(last)
	if !ok {
		return err
	}
	return e.writeCheckpoint(ctx, cp)
}

// encodeCheckpoint encodes the written copy under the lock; ok is false
// when no checkpoint is due or allowed.
func (e *Engine) encodeCheckpoint(last bool) (cp rifflog.Checkpoint, ok bool, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.written == 0 {
		return cp, false, nil
	}
	if !last && e.sinceCkp == 0 {
		return cp, false, nil
	}
	riff := e.state.Written().Riff()
	position, chain := e.written, e.chain
	may, why := rifflog.MayCheckpoint(e.opts.Build.Version.String(), e.facts.newestBuild, riff.FirstSkipped, position)
	if !may {
		e.facts.noCheckpointWhy = why
		return cp, false, nil
	}
	state, err := e.state.EncodeCheckpoint()
	e.sinceCkp = 0
	e.lastCkp = e.opts.Now()
	if err != nil {
		return cp, false, err
	}
	return rifflog.Checkpoint{Position: position, WrittenAtMs: e.opts.Now().UnixMilli(),
		Build: e.opts.Build.Version.String(), Chain: chain, State: state}, true, nil
}

// writeCheckpoint writes an encoded checkpoint, then prunes the log.
func (e *Engine) writeCheckpoint(ctx context.Context, cp rifflog.Checkpoint) error {
	name, err := rifflog.WriteCheckpoint(ctx, e.opts.Store, cp)
	if errors.Is(err, rifflog.ErrExists) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	e.mu.Lock()
	e.facts.checkpoint = &checkpointFacts{position: cp.Position, at: e.opts.Now(), version: cp.Build}
	e.facts.newestBuild = cp.Build
	e.facts.noCheckpointWhy = ""
	e.mu.Unlock()
	e.log.Info("checkpoint", "object", name, "position", cp.Position)
	if _, err := rifflog.Prune(ctx, e.opts.Store, e.opts.Now()); err != nil {
		e.log.Warn("prune", "error", err.Error())
	}
	return nil
}
