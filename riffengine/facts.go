package riffengine

import (
	"errors"
	"runtime"
	"slices"
	"time"

	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/rifflog"
)

// facts are the facts of the server that the engine keeps for
// GET /v1/server. The lock of the engine guards them.
type facts struct {
	started         time.Time
	replayTook      time.Duration
	lastError       string
	position        uint64
	chunks          uint64
	lastWrite       time.Time
	lastWriteTook   time.Duration
	writeErrors     uint64
	checkpoint      *checkpointFacts
	newestBuild     string
	noCheckpointWhy string
	unread          []string // the checkpoints that the start passed over, with why
	serving         bool
	why             string
	chunkSizes      sizes
}

type checkpointFacts struct {
	position uint64
	at       time.Time
	version  string
}

// sizes keeps the number of records of the last chunks, to show the
// size that the group commit reaches.
type sizes struct{ last []int }

func (s *sizes) add(n int) {
	s.last = append(s.last, n)
	if len(s.last) > 1024 {
		s.last = s.last[len(s.last)-1024:]
	}
}

// Median gives the median size of the last chunks.
func (s *sizes) median() int {
	if len(s.last) == 0 {
		return 0
	}
	c := slices.Clone(s.last)
	slices.Sort(c)
	return c[len(c)/2]
}

// setReplay records how long the load and the replay took, and the
// newest checkpoint that the start found.
func (e *Engine) setReplay(took time.Duration, position uint64, at time.Time, build string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.facts.replayTook = took
	if build != "" && !at.IsZero() {
		// The time toward the next checkpoint counts from this one.
		e.lastCkp = at
	}
	if build != "" {
		e.facts.checkpoint = &checkpointFacts{position: position, at: at, version: build}
		e.facts.newestBuild = build
	}
}

// setUnread logs one ERROR line for each checkpoint that the start passed
// over because it did not read (the start used the one before it), with
// the object and why, and keeps them for the facts: a damaged
// checkpoint must not go by with no word.
func (e *Engine) setUnread(failed []error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.setUnreadLocked(failed)
}

// setUnreadLocked is setUnread with the lock held: a second load after
// the lease wait puts its own list in place of the first.
func (e *Engine) setUnreadLocked(failed []error) {
	e.facts.unread = nil
	for _, err := range failed {
		object := ""
		var le *rifflog.LogError
		if errors.As(err, &le) {
			object = le.Object
		}
		e.log.Error("a checkpoint does not read; the start used the one before it", "target", "start", "object", object, "error", err.Error())
		e.facts.unread = append(e.facts.unread, err.Error())
	}
}

// setServing says whether the server serves, and why not.
func (e *Engine) setServing(serving bool, why string) {
	if serving {
		// The saver of signins.json starts with the first serve: a new
		// instance in its lease wait writes nothing over the object of
		// the old one.
		e.saverOnce.Do(e.startSaver)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.facts.serving, e.facts.why = serving, why
	e.publishServingLocked()
	if serving {
		// A start far past its checkpoint writes one soon, with no
		// wait for a chunk: the writer looks when it wakes.
		select {
		case e.queued <- struct{}{}:
		default:
		}
	}
}

// serveState is whether the server serves calls, and why not.
type serveState struct {
	ok  bool
	why string
}

// publishServingLocked sets what Serving gives from the facts and the
// stop; e.mu is held.
func (e *Engine) publishServingLocked() {
	s := &serveState{ok: e.facts.serving, why: e.facts.why}
	if e.stopErr != nil {
		s = &serveState{why: callerText(e.stopErr)}
	}
	e.serves.Store(s)
}

// Serving says whether the server serves calls, and why not. It takes
// no lock: each call asks it (docs/decisions.md, "Serving takes no
// lock").
func (e *Engine) Serving() (bool, string) {
	if s := e.serves.Load(); s != nil {
		return s.ok, s.why
	}
	return false, ""
}

// ChunkMedian gives the median number of records of the last chunks.
func (e *Engine) ChunkMedian() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.facts.chunkSizes.median()
}

// Facts gives the facts of the server (the store design, "Monitoring").
func (e *Engine) Facts() wire.ServerFacts {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.opts.Now()
	f := wire.ServerFacts{
		Build:           e.opts.Build.String(),
		Serves:          e.facts.serving && e.stopErr == nil,
		Why:             e.facts.why,
		LastError:       e.facts.lastError,
		Position:        e.facts.position,
		WriteErrors:     e.facts.writeErrors,
		NoCheckpointWhy: e.facts.noCheckpointWhy,
		Chunks:          e.facts.chunks,
		StartedAgoMs:    now.Sub(e.facts.started).Milliseconds(),
		ReplayMs:        e.facts.replayTook.Milliseconds(),
		Store:           e.opts.StoreName,
	}
	f.UnreadCheckpoints = slices.Clone(e.facts.unread)
	if e.stopErr != nil {
		f.Why = callerText(e.stopErr)
	}
	if !e.facts.lastWrite.IsZero() {
		f.LastWriteAgoMs = now.Sub(e.facts.lastWrite).Milliseconds()
		f.LastWriteTookMs = e.facts.lastWriteTook.Milliseconds()
	}
	if c := e.facts.checkpoint; c != nil {
		f.Checkpoint = &wire.CheckpointFacts{Position: c.position, AgeMs: now.Sub(c.at).Milliseconds(), Version: c.version}
	}
	f.Sessions, f.Cursors, f.Threads = e.state.Counts()
	f.Warnings, f.Skipped = e.state.Dropped()
	if e.signIns != nil {
		f.SignIns = e.signIns.Live()
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	f.MemoryBytes = m.HeapAlloc
	return f
}
