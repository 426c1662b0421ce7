package riffengine

import (
	"errors"
	"fmt"
	"sync"
	"time"
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
	cp, _, err := e.encodeCaptured(c)
	return cp.State, locked, err
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
	cp, _, err := e.encodeCaptured(c)
	return len(cp.State), held, err
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
