package riffstate

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
)

// Checkpoint is the state at one position of the log: every part of the
// written riff (with the last 200 messages of each thread), the read
// cursors, the statuses and steps, the answered calls, and the version of
// the build that wrote it. A load of it, plus the records after it,
// gives the state of a whole replay.
type Checkpoint struct {
	Version  string                            `json:"version"`
	Position uint64                            `json:"position"`
	Riff     *Riff                             `json:"riff"`
	Cursors  map[string]map[name.Thread]uint64 `json:"cursors,omitempty"`
	Lives    map[string]*SavedLive             `json:"lives,omitempty"`
	Calls    []SavedCall                       `json:"calls,omitempty"`
}

// SavedLive is the part of the presence of a caller that a checkpoint
// keeps: its status and its step (a new start of the server makes both
// stale), its block, and the time of its last call, so that who shows after a start
// the time since the last call before the stop, not since the load.
type SavedLive struct {
	Status   *TextAt `json:"status,omitempty"`
	Step     *Step   `json:"step,omitempty"`
	CalledMs int64   `json:"called_ms,omitempty"`
	// Block is the block of the session, with its answer and the second
	// wake of its lead: a blocked session is still blocked after a start.
	Block *Block `json:"block,omitempty"`
	// Daemon is the mark of the session of a riff daemon.
	Daemon bool `json:"daemon,omitempty"`
}

// SavedCall is one answered call: its key, its records, and the kind and
// the sum of the body of its command (to know a reuse of its call ID).
// A checkpoint of an older build has no kind: a load takes it from the
// records.
type SavedCall struct {
	Key  Key             `json:"key"`
	AtMs int64           `json:"at_ms"`
	Made []record.Record `json:"made,omitempty"`
	Kind string          `json:"kind,omitempty"`
	Sum  string          `json:"sum,omitempty"`
}

// Checkpoint gives the checkpoint of the written copy.
func (s *State) Checkpoint() Checkpoint {
	lives := map[string]*SavedLive{}
	for key, l := range s.presence.Lives {
		if saved := savedLive(l); saved != nil {
			lives[key] = saved
		}
	}
	return checkpointOf(s.opts, s.written, s.presence.Cursors, lives, s.answered)
}

// checkpointOf gives the checkpoint of a riff, the part of the presence
// that a checkpoint keeps, and the answered calls: the one form of both the
// state and its [Shadow].
func checkpointOf(opts Options, riff *Riff, cursors map[string]map[name.Thread]uint64, lives map[string]*SavedLive, answered *Answered) Checkpoint {
	cp := Checkpoint{Version: opts.Build, Position: riff.Position, Riff: riff, Cursors: cursors}
	if len(lives) > 0 {
		cp.Lives = lives
	}
	for _, key := range answered.order {
		c := answered.calls[key]
		cp.Calls = append(cp.Calls, SavedCall{Key: key, AtMs: c.AtMs, Made: c.Made, Kind: c.Kind, Sum: c.Sum})
	}
	return cp
}

// EncodeCheckpoint gives the checkpoint of the written copy as JSON.
func (s *State) EncodeCheckpoint() ([]byte, error) {
	b, err := json.Marshal(s.Checkpoint())
	if err != nil {
		return nil, fmt.Errorf("encode checkpoint: %w", err)
	}
	return b, nil
}

// LoadCheckpoint makes a state from a checkpoint: both copies are the
// riff of the checkpoint. The caller replays the records after it.
func LoadCheckpoint(data []byte, opts Options) (*State, error) {
	return loadCheckpoint(data, opts, splitThreadsAt)
}

// loadCheckpoint is LoadCheckpoint, with the threads decoded in pieces
// (loadSplit) when they take at least minThreads bytes.
func loadCheckpoint(data []byte, opts Options, minThreads int) (*State, error) {
	if s, ok, err := loadSplit(data, opts, minThreads); ok {
		return s, err
	}
	// Two copies: decode the riff a second time rather than share maps.
	// The second decode runs in a goroutine of its own on the same bytes
	// (both only read them), joined before the function returns: the
	// decode is most of a start, and the two copies take the two cores
	// at once (docs/performance.md, "Goal 3").
	var (
		twin struct {
			Riff *Riff `json:"riff"`
		}
		twinErr error
		decoded sync.WaitGroup
	)
	decoded.Go(func() { twinErr = json.Unmarshal(data, &twin) })
	cp, err := decodeCheckpoint(data)
	decoded.Wait()
	if err != nil {
		return nil, err
	}
	if twinErr != nil {
		return nil, fmt.Errorf("load checkpoint: %w", twinErr)
	}
	return loaded(data, opts, cp, twin.Riff), nil
}

// loaded gives the state of the checkpoint cp, decoded from data, with
// twin, a riff equal to cp.Riff that shares nothing with it that Apply
// changes, as the written copy.
func loaded(data []byte, opts Options, cp Checkpoint, twin *Riff) *State {
	s := New(opts)
	s.pending, s.written = cp.Riff.fill(), twin.fill()
	if cp.Cursors != nil {
		s.presence.Cursors = cp.Cursors
	}
	for key, saved := range cp.Lives {
		// No sign of life comes back: a session counts as stopped until
		// it calls (its claims have 5 minutes from the load).
		l := &Live{Status: saved.Status, Step: saved.Step, CalledMs: saved.CalledMs, Block: saved.Block, Daemon: saved.Daemon}
		s.presence.Lives[key] = l
	}
	s.answered = answeredOf(cp.Calls)
	// The Shadow of the engine starts from the same bytes.
	s.origin = &origin{base: data}
	return s
}

// decodeCheckpoint decodes the JSON of a checkpoint.
func decodeCheckpoint(data []byte) (Checkpoint, error) {
	var cp Checkpoint
	if err := json.Unmarshal(data, &cp); err != nil {
		return cp, fmt.Errorf("load checkpoint: %w", err)
	}
	if cp.Riff == nil {
		return cp, fmt.Errorf("load checkpoint: no riff")
	}
	return cp, nil
}

// answeredOf gives the table of the answered calls of a checkpoint.
func answeredOf(calls []SavedCall) *Answered {
	k := NewAnswered()
	for _, c := range calls {
		// A checkpoint of an older build has no kind: the records tell it.
		kind := c.Kind
		if kind == "" && len(c.Made) > 0 {
			kind = c.Made[0].Command
		}
		k.calls[c.Key] = &answeredCall{Made: c.Made, Kind: kind, Sum: c.Sum, AtMs: c.AtMs}
		k.order = append(k.order, c.Key)
	}
	return k
}

// fill gives each map of a decoded riff a value, so that a riff that
// went through JSON equals one that apply built.
func (r *Riff) fill() *Riff {
	empty := NewRiff()
	if r.Sessions == nil {
		r.Sessions = empty.Sessions
	}
	if r.Threads == nil {
		r.Threads = empty.Threads
	}
	for _, t := range r.Threads {
		if t.Members == nil {
			t.Members = map[string]uint64{}
		}
	}
	if r.Claims == nil {
		r.Claims = empty.Claims
	}
	if r.Leads == nil {
		r.Leads = empty.Leads
	}
	if r.Pauses.Repos == nil {
		r.Pauses.Repos = empty.Pauses.Repos
	}
	if r.Holds == nil {
		r.Holds = empty.Holds
	}
	if r.Plans == nil {
		r.Plans = empty.Plans
	}
	if r.Notes == nil {
		r.Notes = empty.Notes
	}
	if r.Idle == nil {
		r.Idle = empty.Idle
	}
	return r
}

// CanCheckpoint says whether this build may write a checkpoint of the
// written copy: not past the first record that it skipped, or read with
// a value other.
func (s *State) CanCheckpoint() (bool, string) {
	if first := s.written.FirstSkipped; first != 0 {
		return false, fmt.Sprintf("the record at position %d is of a later build: this build writes no checkpoint past it", first)
	}
	return true, ""
}

// Counts gives the numbers of the facts of the server: sessions, read
// cursors, threads.
func (s *State) Counts() (sessions, cursors, threads int) {
	for _, m := range s.presence.Cursors {
		cursors += len(m)
	}
	return len(s.written.Sessions), cursors, len(s.written.Threads)
}
