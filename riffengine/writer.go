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
		e.gather(ctx)
		if !e.writeOnce(ctx) {
			return
		}
		e.maybeCheckpoint(ctx)
	}
}

// checkpointRest is how many times the time of the last checkpoint
// (its encode and its write) passes after its end before the next one
// that the count of records makes due: the checkpoints of a large state
// under a fast load take at most a quarter of one core, in place of all
// of it (a checkpoint of 80,000 sessions each 1,000 records at 4,000
// records/s; docs/performance.md, "Flat as the riff grows"). The records
// after a checkpoint, which a start replays, stay those of about 4 times
// its time. At the load of the store design (under 100 records/s) a
// checkpoint takes far less than the 10 s of 1,000 records: no change.
const checkpointRest = 3

// checkpointClock holds what decides that a checkpoint is due: the
// records since the last one and the setting of the count, the time now,
// of the last checkpoint and the setting of the interval, and the end
// and the time of the last checkpoint that this instance made.
type checkpointClock struct {
	since, every     int
	now, last, ended time.Time
	interval, took   time.Duration
}

// checkpointDue says whether a checkpoint is due: each every records,
// once the last one rested checkpointRest times its time; or after the
// interval when records came.
func checkpointDue(c checkpointClock) bool {
	return (c.since >= c.every && c.now.Sub(c.ended) >= checkpointRest*c.took) ||
		(c.since > 0 && c.now.Sub(c.last) >= c.interval)
}

// gatherShare is the share of the time of the last write that the
// writer waits at most, before a chunk, for the calls of the chunk
// before to come back (gather); maxGather bounds that wait.
const (
	gatherShare = 4
	maxGather   = 100 * time.Millisecond
)

// gatherLimit gives how many entries gather waits for and for how long
// at most, after a chunk of last entries whose write took took: no wait
// after a chunk of one call or less.
func gatherLimit(last int, took time.Duration) (want int, limit time.Duration) {
	if last <= 1 {
		return 0, 0
	}
	return last, min(took/gatherShare, maxGather)
}

// gather waits, before the writer takes the queue, until as many
// entries wait as the chunk before held, for at most a quarter of the
// time of its write (at most 100 ms). Without it, the clients that the
// chunk before answered send their next calls just after the writer
// took the first one into a chunk of its own: they wait for that whole
// write and then for their own, and the chunks alternate between one
// call and all the others (on a bucket whose writes take 200 ms, 32
// records a chunk for 64 clients and half the rate;
// docs/performance.md, "On a bucket"). The wait ends at once when the
// calls are there, so a load that keeps them coming pays nothing; a call
// alone after a big chunk waits at most the share. It delays only the
// start of a write: no reply comes before its chunk is written.
func (e *Engine) gather(ctx context.Context) {
	e.mu.Lock()
	want, limit := gatherLimit(e.lastChunkEntries, e.lastWriteTook)
	after := e.gatherAfter
	e.mu.Unlock()
	if limit <= 0 {
		return
	}
	var timeout <-chan time.Time
	for {
		e.mu.Lock()
		n, stopped := len(e.queue), e.stopErr != nil
		e.mu.Unlock()
		if n == 0 || n >= want || stopped {
			return
		}
		if timeout == nil {
			if after != nil {
				timeout = after(limit)
			} else {
				t := time.NewTimer(limit)
				defer t.Stop()
				timeout = t.C
			}
		}
		select {
		case <-e.queued:
		case <-timeout:
			return
		case <-ctx.Done():
			return
		}
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
		e.wroteChunk()
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
	if e.lease != nil && len(lines) > 0 {
		written, err = e.lease.WriteHeld(ctx, chunk)
	} else {
		written, err = rifflog.Write(ctx, e.opts.Store, chunk)
	}
	took := time.Since(start)
	if err != nil {
		e.fail(entries, err)
		return false
	}
	e.mu.Lock()
	e.lastChunkEntries, e.lastWriteTook = len(entries), took
	e.mu.Unlock()
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
	p, ok := e.opts.Store.(rifflog.Preparer)
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
	step := riffstate.ShadowStep{Records: records}
	for _, en := range entries {
		if en.hasKey {
			if en.refused == nil {
				e.state.Answer(en.key, en.asked, riffstate.Done{Made: en.made}, now)
				step.Answers = append(step.Answers, riffstate.ShadowAnswer{Key: en.key, Asked: en.asked, Made: en.made, AtMs: now.Ms})
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
	if e.shadow != nil && (len(step.Records) > 0 || len(step.Answers) > 0) {
		e.steps = append(e.steps, step)
	}
	drops := e.takeDropsLocked()
	e.sinceCkp += len(records)
	beforeEnds := e.beforeEnds
	e.mu.Unlock()

	if len(drops) > 0 {
		e.logDrops(drops, false)
	}
	if len(effects.Ends) > 0 && beforeEnds != nil {
		beforeEnds()
	}
	e.endSignIns(entries, effects.Ends)
	e.streams.send(effects)
	for _, en := range entries {
		if len(en.made) == 0 && en.hasSender() {
			traceNoRecord(e.log, en)
		}
		close(en.done)
	}
}

// endSignIns is the effect of each written member_removed and
// signins_ended: the token store ends each sign-in of the user from
// before the position of the record, and keeps that position as the
// floor of the user under its own lock, so that no sign-in of the
// person below it starts after now. The count goes to the entry that
// made the record, for its reply. A user with no sign-in yet (no
// person_joined) has none to end: a sign-in of it checked before the
// record would have written person_joined before it.
func (e *Engine) endSignIns(entries []*entry, ends []riffstate.SignInsEnd) {
	if e.signIns == nil {
		return
	}
	for _, end := range ends {
		if end.User == "" {
			continue
		}
		n := e.signIns.End(end.User, end.Position)
		for _, en := range entries {
			if len(en.made) > 0 && en.made[0].Position <= end.Position && end.Position <= en.made[len(en.made)-1].Position {
				en.ended += n
				break
			}
		}
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
		if en.hasSender() {
			traceFailed(e.log, en, err, level)
		}
		en.failed = true
	}
	// The instance stops (the timers end too, and Done closes) before a
	// call of the chunk gets its 503: a caller that got it finds the
	// engine stopping.
	e.stopFor(fmt.Errorf("a chunk failed for good: %w", err))
	for _, en := range entries {
		close(en.done)
	}
}

// maybeCheckpoint writes a checkpoint each CheckpointEvery records, or
// each CheckpointInterval when records came. Under the lock it takes
// only what the copy of the checkpoint needs (captureLocked: the steps
// of the written copy since the last one, and what changed in the
// presence); a goroutine of the engine moves the copy on, encodes it,
// writes it and prunes the log, with the lock free, so that no call and
// no chunk waits for the encode or the write. At most one such
// goroutine runs at a time, and it owns the copy: while it runs, the
// next checkpoint waits for a later chunk. A stop waits for it.
func (e *Engine) maybeCheckpoint(ctx context.Context) {
	e.mu.Lock()
	due := !e.ckpWriting && checkpointDue(checkpointClock{since: e.sinceCkp, every: e.opts.CheckpointEvery,
		now: e.opts.Now(), last: e.lastCkp, interval: e.opts.CheckpointInterval, ended: e.ckpEnded, took: e.ckpTook})
	var c capture
	var ok bool
	var err error
	if due {
		c, ok, err = e.captureLocked(false)
		e.ckpWriting = ok
	}
	low := lowPriorityCheckpoint(e.ckpCPU)
	e.mu.Unlock()
	if err != nil {
		e.log.Warn("no checkpoint", "error", err.Error())
	}
	if !ok {
		return
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		began := e.opts.Now()
		var cpu time.Duration
		defer func() {
			ended := e.opts.Now()
			e.mu.Lock()
			e.ckpWriting = false
			// The clock of the engine: a test's clock that stands still
			// gives no rest; one that jumps during a checkpoint gives at
			// most a minute.
			e.ckpTook, e.ckpEnded = min(ended.Sub(began), time.Minute), ended
			e.ckpCPU = cpu
			e.mu.Unlock()
		}()
		// Only the CPU of the checkpoint runs at its priority, on a
		// thread of its own; what takes a lock that the calls or the
		// writer take (the store, the engine's lock, the log) runs here,
		// at the priority of the calls (docs/decisions.md, "The
		// checkpoint maker holds no lock at the lowest priority").
		var enc encoded
		cpu = inBackground(low, func() { enc = e.encodeCaptured(c) })
		// A stop does not cut the write: it has a time of its own.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := e.writeEncoded(ctx, enc); err != nil {
			e.log.Warn("no checkpoint", "error", err.Error())
		}
	}()
}

// cheapCheckpoint is the CPU time of the encode (the thread of its own:
// the copy moved on, the encode, the sum) under which the next
// checkpoint encodes at the priority of the calls. The checkpoint of a
// riff of 64 sessions under the steady pair takes 1.0 to 3.4 ms with its
// write and the prune, at most 25 a second: under 10 % of a core, where
// one at the lowest priority on CPUs that the calls keep busy waits
// seconds for each slice, and tens of thousands of records go by before
// the next one (docs/decisions.md, "A cheap checkpoint runs at the
// priority of the calls").
const cheapCheckpoint = 5 * time.Millisecond

// lowPriorityCheckpoint says whether the next checkpoint runs at the
// lowest priority, after one of this instance that took cpu of CPU (0:
// none yet, or a system that does not give it): each but one that
// followed a cheap one.
func lowPriorityCheckpoint(cpu time.Duration) bool {
	return cpu == 0 || cpu >= cheapCheckpoint
}

// checkpoint makes a checkpoint on the goroutine of the caller: the last
// one of a stop, when no other goroutine of the engine runs. It writes
// none past a record that this build skipped, nor while the newest
// checkpoint comes from a later version.
func (e *Engine) checkpoint(ctx context.Context, last bool) error {
	e.mu.Lock()
	c, ok, err := e.captureLocked(last)
	e.mu.Unlock()
	if !ok {
		return err
	}
	return e.writeEncoded(ctx, e.encodeCaptured(c))
}

// capture is what a checkpoint takes under the lock.
type capture struct {
	// may is true when the version rules allow the checkpoint.
	may      bool
	position uint64
	chain    rifflog.Sum
	atMs     int64
	// shadow is the copy that encodes it, from steps and changes; when
	// nil, state holds the state, encoded under the lock.
	shadow  *riffstate.Shadow
	steps   []riffstate.ShadowStep
	changes riffstate.Changes
	state   []byte
	// beforeEncode is Engine.beforeEncode, read under the lock.
	beforeEncode func()
}

// captureLocked takes what a checkpoint of the written copy needs, in
// time proportional to what changed since the last one: the position
// and the chain value, the steps of the written copy, and the changes of
// the presence. ok is false when no checkpoint is due or to move on. The
// lock is held.
func (e *Engine) captureLocked(last bool) (c capture, ok bool, err error) {
	if e.written == 0 || (!last && e.sinceCkp == 0) {
		return c, false, nil
	}
	may, why := rifflog.MayCheckpoint(e.opts.Build.Version.String(), e.facts.newestBuild, e.state.Written().Riff().FirstSkipped, e.written)
	if !may {
		// Once it serves, this build writes no checkpoint for the rest of
		// its run (the first skipped record stays, and only a checkpoint of
		// its own or the catch-up of its start reads a newer build): the
		// copy would only cost memory. No goroutine owns it now.
		e.facts.noCheckpointWhy = why
		e.shadow, e.steps = nil, nil
		return c, false, nil
	}
	c.shadow, c.beforeEncode = e.shadow, e.beforeEncode
	if c.shadow != nil {
		c.steps, e.steps = e.steps, nil
		c.changes = e.state.ShadowChanges()
	}
	c.may, c.position, c.chain, c.atMs = true, e.written, e.chain, e.opts.Now().UnixMilli()
	e.sinceCkp = 0
	e.lastCkp = e.opts.Now()
	if c.shadow == nil {
		// No copy (it failed): the old way, the encode under the lock.
		if c.state, err = e.state.EncodeCheckpoint(); err != nil {
			return c, false, err
		}
	}
	return c, true, nil
}

// encodeCaptured moves the copy on by what the capture took, encodes the
// checkpoint and makes its object (its checks and the sum of its state),
// with the lock free; the goroutine that calls it owns the copy. It is
// CPU alone: it takes no lock that the calls or the writer take, logs
// nothing and reaches no store, since it may run at the lowest priority
// (docs/decisions.md, "The checkpoint maker holds no lock at the lowest
// priority"); [Engine.writeEncoded] does the rest.
func (e *Engine) encodeCaptured(c capture) encoded {
	enc := encoded{position: c.position, build: e.opts.Build.Version.String()}
	cp := rifflog.Checkpoint{Position: c.position, WrittenAtMs: c.atMs, Build: enc.build, Chain: c.chain, State: c.state}
	if sh := c.shadow; sh != nil {
		err := sh.Advance(c.steps, c.changes)
		if err == nil && c.may && sh.Position() != c.position {
			err = fmt.Errorf("the copy of the state is at position %d, the log at %d", sh.Position(), c.position)
		}
		if err == nil && c.may {
			if c.beforeEncode != nil {
				c.beforeEncode()
			}
			// The state goes after the room of the head of the object, in
			// one buffer: the object takes no copy of it.
			var room int
			var framed []byte
			if room, err = rifflog.CheckpointRoom(cp); err == nil {
				if framed, err = sh.EncodeAfter(room); err == nil {
					enc.state = framed[room:]
					enc.object, enc.err = rifflog.EncodeFramedCheckpoint(cp, framed, room)
				}
			}
		}
		if err != nil {
			enc.shadowErr = err
			return enc
		}
	} else if c.may {
		enc.state = c.state
		enc.object, enc.err = rifflog.EncodeCheckpoint(cp)
	}
	enc.write = c.may && enc.err == nil
	return enc
}

// encoded is a checkpoint that encodeCaptured made, for writeEncoded.
type encoded struct {
	position uint64
	build    string
	// write is true when the version rules allow the checkpoint and it
	// encoded: object is then what the store gets.
	write  bool
	object rifflog.CheckpointObject
	// state is the encoded state, in object.
	state []byte
	// shadowErr is why the copy failed (it is not at the position of the
	// capture: a bug); err is why the object did not encode.
	shadowErr, err error
}

// writeEncoded writes a checkpoint that encodeCaptured made, then prunes
// the log, at the priority of the calls: the write and the prune take
// the locks of the store, the facts take the engine's. When the copy
// failed, the engine drops it and encodes the next checkpoints under the
// lock.
func (e *Engine) writeEncoded(ctx context.Context, enc encoded) error {
	if enc.shadowErr != nil {
		e.log.Error("the copy of the state for the checkpoints failed; the next ones are encoded under the lock", "error", enc.shadowErr.Error())
		e.mu.Lock()
		e.shadow, e.steps = nil, nil
		e.mu.Unlock()
		return enc.shadowErr
	}
	if enc.err != nil {
		return fmt.Errorf("write checkpoint: %w", enc.err)
	}
	if !enc.write {
		return nil
	}
	err := enc.object.Put(ctx, e.opts.Store)
	if errors.Is(err, rifflog.ErrExists) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	e.mu.Lock()
	e.facts.checkpoint = &checkpointFacts{position: enc.position, at: e.opts.Now(), version: enc.build}
	e.facts.newestBuild = enc.build
	e.facts.noCheckpointWhy = ""
	e.mu.Unlock()
	e.log.Info("checkpoint", "object", enc.object.Name, "position", enc.position)
	if _, err := rifflog.Prune(ctx, e.opts.Store, e.opts.Now()); err != nil {
		e.log.Warn("prune", "error", err.Error())
	}
	return nil
}
