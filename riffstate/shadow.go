package riffstate

import (
	"fmt"
	"maps"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
)

// Shadow is a copy of the written state that only a checkpoint reads, so
// that the checkpoint encodes it outside the lock of the engine (the
// store design: "The server encodes a copy of the state outside the
// lock"). It holds a riff and a table of answered calls of its own, which
// it moves on by the same pure steps as the written copy (Apply, and the
// answer of each call), and the part of the presence that a checkpoint
// keeps (the read cursors, the statuses and the steps), which it takes
// from the presence in time proportional to what changed ([Changes]).
// The log is the truth, and Apply is pure: the same records give the
// same riff.
//
// A Shadow is owned by one goroutine at a time: the one that makes a
// checkpoint. Its riff is built at its first use (not under any lock),
// from the checkpoint that the state was loaded from and the records
// that the state replayed after it; after a replay that would cost more
// to keep than a clone, it is a clone of the written copy, made before
// the engine serves.
type Shadow struct {
	opts Options
	// base and replayed make the riff at the first use: the state of the
	// checkpoint (nil for an empty log), and the records after it.
	base     []byte
	replayed [][]record.Record

	riff     *Riff
	answered *Answered
	cursors  map[string]map[name.Thread]uint64
	lives    map[string]*SavedLive
	// size is the size of the last encode: the next one takes a buffer of
	// about that size at once, not a growing one copied again and again.
	size int
}

// origin is what a state keeps, from its load until it gives its
// Shadow, to build the riff of the Shadow with no copy under a lock: the
// checkpoint that it was loaded from and the records that it replayed.
// A replay that would cost more to keep than a clone of the written
// copy keeps nothing, and the Shadow is that clone (clone).
type origin struct {
	base []byte
	// replayed holds the records in blocks of at least replayedBlock: a
	// long replay appends to the last block, never to one array that
	// grows and is copied again and again.
	replayed [][]record.Record
	// kept is the number of records in replayed.
	kept int
	// clone is set once the records replayed pass the bound of
	// cloneCheaper: base and replayed are dropped, and NewShadow clones.
	clone bool
}

// replayedBlock is the least number of records of a block of
// origin.replayed.
const replayedBlock = 4096

// checkpointBytesPerKept is the number of bytes of the loaded checkpoint
// that weigh as much as one record kept for the Shadow (see
// cloneCheaper).
const checkpointBytesPerKept = 128

// cloneCheaper tells whether a Shadow made by a clone of the written
// copy costs the start less than keeping records for it, after a load
// from a checkpoint of base bytes (0: none) and a replay of records.
// A record kept costs the replay 0.06 to 0.3 µs (the collector walks
// it at each of its runs while the replay goes on, the more so as the
// riff is large), and a clone of the riff about 0.5 to 0.9 ns a byte of
// its checkpoint and 0.07 µs a record replayed (docs/performance.md,
// issue 23, twelfth pass). So a start from a recent checkpoint (about
// 1,000 records after it) keeps, and decodes the checkpoint again later
// on the goroutine of the checkpoints; a replay of a long log, or of one
// with no checkpoint, clones.
func cloneCheaper(base, records int) bool { return records*checkpointBytesPerKept > base }

// keep keeps records at the end of the replayed records, or drops them
// all once a clone costs less.
func (o *origin) keep(records []record.Record) {
	if o.clone {
		return
	}
	o.kept += len(records)
	if cloneCheaper(len(o.base), o.kept) {
		o.base, o.replayed, o.kept, o.clone = nil, nil, 0, true
		return
	}
	if n := len(o.replayed); n > 0 && len(o.replayed[n-1])+len(records) <= cap(o.replayed[n-1]) {
		o.replayed[n-1] = append(o.replayed[n-1], records...)
		return
	}
	block := make([]record.Record, 0, max(len(records), replayedBlock))
	o.replayed = append(o.replayed, append(block, records...))
}

// ShadowStep is one step of the written copy, in the order of the
// writer: the records of a written chunk, or of a replay (the same steps
// for the riff and the answered calls), then the calls answered after it.
type ShadowStep struct {
	Records []record.Record
	Answers []ShadowAnswer
}

// ShadowAnswer is one answered call: the arguments of [State.Answer].
type ShadowAnswer struct {
	Key   Key
	Asked Asked
	Made  []record.Record
	AtMs  int64
}

// Changes is the part of the presence that a checkpoint keeps, for each
// caller whose part changed since the last [State.ShadowChanges]: its
// read cursors (CursorKeys; none when Cursors has no entry) and its
// status and step (LiveKeys; none when Lives has no entry).
type Changes struct {
	Cursors    map[string]map[name.Thread]uint64
	Lives      map[string]*SavedLive
	CursorKeys []string
	LiveKeys   []string
}

// NewShadow gives the Shadow of the state: the engine makes it once, at
// its start, before it serves. From then on the presence notes which
// callers change, for [State.ShadowChanges]. A state that was loaded and
// replayed only gives the checkpoint and the records it kept, or a
// clone of its written copy after a replay that cost more to keep
// (cloneCheaper); any other state (a test, a tool that ran commands on
// it) gives the encoding of its written copy, which costs the time of a
// checkpoint.
func (s *State) NewShadow() (*Shadow, error) {
	sh := &Shadow{opts: s.opts}
	switch {
	case s.origin != nil && s.origin.clone:
		sh.riff, sh.answered = s.written.clone(), s.answered.clone()
	case s.origin != nil:
		sh.base, sh.replayed = s.origin.base, s.origin.replayed
	default:
		cp, err := s.EncodeCheckpoint()
		if err != nil {
			return nil, err
		}
		sh.base = cp
	}
	s.origin = nil
	sh.cursors = make(map[string]map[name.Thread]uint64, len(s.presence.Cursors))
	for key, m := range s.presence.Cursors {
		sh.cursors[key] = maps.Clone(m)
	}
	sh.lives = map[string]*SavedLive{}
	for key, l := range s.presence.Lives {
		if saved := savedLive(l); saved != nil {
			sh.lives[key] = saved
		}
	}
	s.presence.dirty = map[string]uint8{}
	return sh, nil
}

// ShadowChanges gives the part of the presence that a checkpoint keeps,
// for each caller that changed since the last call (or since
// [State.NewShadow]), and starts a new count. Its time is proportional
// to the callers that changed and their cursors, not to the state.
func (s *State) ShadowChanges() Changes {
	p := s.presence
	ch := Changes{Cursors: map[string]map[name.Thread]uint64{}, Lives: map[string]*SavedLive{}}
	for key, parts := range p.dirty {
		if parts&dirtyCursors != 0 {
			ch.CursorKeys = append(ch.CursorKeys, key)
			if m, ok := p.Cursors[key]; ok {
				ch.Cursors[key] = maps.Clone(m)
			}
		}
		if parts&dirtyLive != 0 {
			ch.LiveKeys = append(ch.LiveKeys, key)
			if l := p.Lives[key]; l != nil {
				if saved := savedLive(l); saved != nil {
					ch.Lives[key] = saved
				}
			}
		}
	}
	clear(p.dirty)
	return ch
}

// savedLive gives the part of the presence of a caller that a checkpoint
// keeps, as a copy (a step changes in place), or nil when it keeps none.
func savedLive(l *Live) *SavedLive {
	if l.Status == nil && l.Step == nil && l.Block == nil && l.CalledMs == 0 && !l.Daemon {
		return nil
	}
	saved := &SavedLive{CalledMs: l.CalledMs, Daemon: l.Daemon}
	if l.Block != nil {
		block := *l.Block
		saved.Block = &block
	}
	if l.Status != nil {
		status := *l.Status
		saved.Status = &status
	}
	if l.Step != nil {
		step := *l.Step
		saved.Step = &step
	}
	return saved
}

// ensure builds the riff of the Shadow at its first use.
func (sh *Shadow) ensure() error {
	if sh.riff != nil {
		return nil
	}
	// Built whole or not at all: a checkpoint that does not decode leaves
	// the Shadow unbuilt, so that each use fails again and none encodes
	// a riff that lacks the checkpoint.
	riff, answered := NewRiff(), NewAnswered()
	if sh.base != nil {
		cp, err := decodeCheckpoint(sh.base)
		if err != nil {
			return fmt.Errorf("the copy of the checkpoint: %w", err)
		}
		riff, answered = cp.Riff.fill(), answeredOf(cp.Calls)
	}
	sh.riff, sh.answered = riff, answered
	for _, block := range sh.replayed {
		sh.step(block)
	}
	sh.base, sh.replayed = nil, nil
	return nil
}

// step applies records as the written copy took them.
func (sh *Shadow) step(records []record.Record) {
	for _, rec := range records {
		Apply(sh.riff, rec)
		sh.answered.record(rec)
	}
}

// Advance moves the Shadow on by the steps of the written copy, in their
// order, and takes the changes of the presence. After it, the Shadow is
// the written state at the time of the changes.
func (sh *Shadow) Advance(steps []ShadowStep, ch Changes) error {
	if err := sh.ensure(); err != nil {
		return err
	}
	for _, st := range steps {
		sh.step(st.Records)
		for _, k := range st.Answers {
			sh.answered.add(k.Key, k.Asked, Done{Made: k.Made}, k.AtMs)
		}
	}
	for _, key := range ch.CursorKeys {
		if m, ok := ch.Cursors[key]; ok {
			sh.cursors[key] = m
		} else {
			delete(sh.cursors, key)
		}
	}
	for _, key := range ch.LiveKeys {
		if l, ok := ch.Lives[key]; ok {
			sh.lives[key] = l
		} else {
			delete(sh.lives, key)
		}
	}
	return nil
}

// Position gives the position of the riff of the Shadow (0 before its
// first use).
func (sh *Shadow) Position() uint64 {
	if sh.riff == nil {
		return 0
	}
	return sh.riff.Position
}

// Encode gives the checkpoint of the Shadow as JSON: the same bytes as
// [State.EncodeCheckpoint] of the state that it copies.
func (sh *Shadow) Encode() ([]byte, error) { return sh.EncodeAfter(0) }

// EncodeAfter gives room bytes (for the head of the object of the
// checkpoint; their value is not given) and then the checkpoint of the
// Shadow as [Shadow.Encode] gives it, in one buffer of about the size of
// the last one.
func (sh *Shadow) EncodeAfter(room int) ([]byte, error) {
	b, err := sh.AppendEncode(make([]byte, room, room+sh.size+sh.size/16+4096))
	if err != nil {
		return nil, err
	}
	sh.size = len(b) - room
	return b, nil
}

// AppendEncode appends the checkpoint of the Shadow as JSON to b: the
// bytes of [State.EncodeCheckpoint] of the state that it copies (that
// one by json.Marshal, this one by hand: appendCheckpoint), so that the
// caller can give a buffer of the size of the last one, with room in
// front for the object of the checkpoint.
func (sh *Shadow) AppendEncode(b []byte) ([]byte, error) {
	if err := sh.ensure(); err != nil {
		return nil, err
	}
	b, err := appendCheckpoint(b, checkpointOf(sh.opts, sh.riff, sh.cursors, sh.lives, sh.answered))
	if err != nil {
		return nil, fmt.Errorf("encode checkpoint: %w", err)
	}
	return b, nil
}
