package riffengine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"

	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/riffstate"
)

// QueueLen gives the number of entries that wait in the queue of the
// writer (not the chunk that it writes now). The tests use it to know
// that a call reached the queue, instead of sleeping.
func (e *Engine) QueueLen() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.queue)
}

// HeaderBuildKey is the key under which the server sets riff-build.
const HeaderBuildKey = headerBuild

// CheckpointCopies makes the state of a checkpoint now in both ways: by
// the copy (the steps and changes taken under the lock, the encode with
// the lock free) and by the encode of the written state under the lock.
// It waits until no checkpoint runs, and owns the copy meanwhile.
func (e *Engine) CheckpointCopies() (copied, locked []byte, err error) {
	for {
		e.mu.Lock()
		if !e.ckpWriting {
			break
		}
		e.mu.Unlock()
	}
	e.ckpWriting = true
	c, ok, err := e.captureLocked(true)
	locked, lerr := e.state.EncodeCheckpoint()
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		e.ckpWriting = false
		e.mu.Unlock()
	}()
	if err != nil || lerr != nil || !ok {
		return nil, nil, errors.Join(err, lerr, fmt.Errorf("captured: %v", ok))
	}
	enc := e.encodeCaptured(c)
	return enc.state, locked, errors.Join(enc.shadowErr, enc.err)
}

// EncodeUnderLock encodes the written state under the lock, as the
// checkpoints did before the copy: the ceiling of the lock benchmark.
func (e *Engine) EncodeUnderLock() (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, err := e.state.EncodeCheckpoint()
	return len(b), err
}

// EncodeByCopy makes the state of a checkpoint as the engine does: the
// capture under the lock, the move and the encode of the copy with the
// lock free. It writes nothing. held is how long the capture held the
// lock.
func (e *Engine) EncodeByCopy() (n int, held time.Duration, err error) {
	for {
		e.mu.Lock()
		if !e.ckpWriting {
			break
		}
		e.mu.Unlock()
	}
	t := time.Now()
	e.ckpWriting = true
	c, ok, err := e.captureLocked(true)
	held = time.Since(t)
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		e.ckpWriting = false
		e.mu.Unlock()
	}()
	if err != nil || !ok {
		return 0, held, errors.Join(err, fmt.Errorf("captured: %v", ok))
	}
	enc := e.encodeCaptured(c)
	return len(enc.state), held, errors.Join(enc.shadowErr, enc.err)
}

// OnEncodes runs f on the goroutine of each checkpoint, right before its
// encode.
func (e *Engine) OnEncodes(f func()) {
	e.mu.Lock()
	e.beforeEncode = f
	e.mu.Unlock()
}

// PauseEncodes makes each checkpoint wait right before its encode: entered
// gets a value when one waits there, and release lets it go on.
func (e *Engine) PauseEncodes() (entered <-chan struct{}, release func()) {
	in := make(chan struct{}, 16)
	gate := make(chan struct{})
	e.mu.Lock()
	e.beforeEncode = func() {
		in <- struct{}{}
		<-gate
	}
	e.mu.Unlock()
	var once sync.Once
	return in, func() { once.Do(func() { close(gate) }) }
}

// The seams of the start and the stop, for the tests that build an
// engine on a state of their own, or run a step of the start by itself.
// A program starts with Open and stops with Close.

// New makes an engine on a loaded state and starts its goroutines, with
// no lease and not serving: the test takes the lease (TakeLease) and
// says when it serves (SetServing).
func New(state *riffstate.State, replayed rifflog.Replayed, opts Options) *Engine {
	return newEngine(state, replayed, opts)
}

// Halt stops the engine as a crash would: each goroutine ends, with no
// last checkpoint and the lease left as it is. Calls that wait get 503.
func (e *Engine) Halt(why error) {
	e.stopFor(why)
	<-e.done
}

// TakeLease is the lease step of Open: take, wait, load again.
func (e *Engine) TakeLease(ctx context.Context, id string, wait time.Duration) error {
	return e.takeLeaseAndLoadAgain(ctx, id, wait)
}

// HandOver is the handover step of Close, with the lease that it read.
func (e *Engine) HandOver(ctx context.Context) (rifflog.LeaseRecord, error) {
	return e.handOver(ctx)
}

// MakeRiff is the step of Open that makes the riff at the first start.
func (e *Engine) MakeRiff(ctx context.Context, id string) error { return e.makeRiff(ctx, id) }

// SetServing says whether the engine serves, as Open and Close do.
func (e *Engine) SetServing(serving bool, why string) { e.setServing(serving, why) }

// SetReplay sets the facts of the load, as Open does.
func (e *Engine) SetReplay(took time.Duration, position uint64, at time.Time, build string) {
	e.setReplay(took, position, at, build)
}

// SetUnread logs the checkpoints that did not read, as Open does.
func (e *Engine) SetUnread(failed []error) { e.setUnread(failed) }

// SetSignInsTimer puts a timer of the test in place of time.After in the
// schedule of the writes of signins.json.
func (e *Engine) SetSignInsTimer(after func(time.Duration) <-chan time.Time) {
	e.saver.mu.Lock()
	defer e.saver.mu.Unlock()
	e.saver.after = after
}

// KeyedTrust is a token layer of the tests of the signed posts: it takes
// the caller from me, as NoSignIn does, and gives it the device key of its
// user from Keys (the thumbprints), as the token layer of a riff with
// sign-in does from the token.
type KeyedTrust struct {
	NoSignIn
	Keys map[string]string
}

func (k KeyedTrust) Prove(r *http.Request, t Token, me name.SessionURI) (Proof, *wire.Refused) {
	p, refused := k.NoSignIn.Prove(r, t, me)
	if refused != nil {
		return p, refused
	}
	p.caller.Key = k.Keys[me.User]
	return p, nil
}

// SetBeforeEnds sets a function that the writer runs after a chunk with
// an end of sign-ins is written and applied, before the effect ends
// them (the lock is free).
func (e *Engine) SetBeforeEnds(fn func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.beforeEnds = fn
}

// SetBeforeStart sets a function that SignIn runs after the write of
// admit, before the token store starts the sign-in.
func (e *Engine) SetBeforeStart(fn func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.beforeStart = fn
}

// SetBeforeRefreshWait sets a function that runs when the reply of a
// refresh starts to wait for a write of signins.json.
func (e *Engine) SetBeforeRefreshWait(fn func()) {
	e.saver.beforeRefreshWait.Store(&fn)
}

// SeenLen gives the number of proofs in the replay cache of the layer.
func (l *SignedIn) SeenLen() int { return l.seen.Len() }

// SetGatherAfter sets the timer of the wait before a chunk (gather):
// a test gives a channel that it fires itself.
func (e *Engine) SetGatherAfter(after func(time.Duration) <-chan time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.gatherAfter = after
}

// GatherLimit is gatherLimit.
var GatherLimit = gatherLimit

// CheckpointDue is checkpointDue of since records (of every), now, the
// last checkpoint at last (interval), and the end and time of the last
// checkpoint of this instance.
func CheckpointDue(since, every int, now, last time.Time, interval time.Duration, ended time.Time, took time.Duration) bool {
	return checkpointDue(checkpointClock{since: since, every: every, now: now, last: last, interval: interval, ended: ended, took: took})
}

// SetCheckpointCPU sets the CPU time of the last checkpoint of the
// instance, which decides the priority of the next one.
func (e *Engine) SetCheckpointCPU(d time.Duration) {
	e.mu.Lock()
	e.ckpCPU = d
	e.mu.Unlock()
}

// CheckpointCPU gives the CPU time of the last checkpoint of the
// instance (0: none yet).
func (e *Engine) CheckpointCPU() time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.ckpCPU
}
