package riffstate

import (
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Presence is the part of the state in memory: the places, the signs of
// life, the statuses, blocks and steps, the numbers of the machines, the
// facts, the looks at a plan, the open watches and the read cursors. A
// signal changes only the presence. The checkpoint keeps the read
// cursors, the statuses and the steps.
type Presence struct {
	// Lives holds each caller that called since the start, by
	// Who.String(): sessions and people.
	Lives map[string]*Live `json:"lives"`
	// Cursors holds the read cursor of each caller in each thread: the
	// seq of the last message that a read showed.
	Cursors map[string]map[name.Thread]uint64 `json:"cursors"`
	// LoadedMs is the time of the start of the server: a session with no
	// sign of life since counts as seen then, so its claims have 5
	// minutes from the load.
	LoadedMs int64 `json:"-"`
	// ClaimsChangedMs and PauseChangedMs make a step stale.
	ClaimsChangedMs int64                    `json:"-"`
	PauseChangedMs  int64                    `json:"-"`
	RepoPauseMs     map[name.Repo]int64      `json:"-"`
	PlanSeenMs      map[name.Thread]int64    `json:"-"`
	Facts           map[name.Thread][]string `json:"-"`
	// dirty holds each caller whose cursors (dirtyCursors) or live part
	// (dirtyLive) may have changed since the last State.ShadowChanges;
	// nil until the state gives its Shadow.
	dirty map[string]uint8
}

// The parts of a caller that a checkpoint keeps, in Presence.dirty.
const (
	dirtyLive uint8 = 1 << iota
	dirtyCursors
)

// touched notes that parts of key that a checkpoint keeps may change.
func (p *Presence) touched(key string, parts uint8) {
	if p.dirty != nil {
		p.dirty[key] |= parts
	}
}

// touchedKey is touched for the bytes of a key (whoKey): a key noted
// already with its parts makes no string, as each call of a caller
// after its first since the last checkpoint.
func (p *Presence) touchedKey(key []byte, parts uint8) {
	if p.dirty == nil {
		return
	}
	if had, ok := p.dirty[string(key)]; ok && had|parts == had {
		return
	}
	p.touched(string(key), parts)
}

// Live is the presence of one caller.
type Live struct {
	Place name.Place `json:"place"`
	// SeenMs is the time of the last sign of life: a call or a
	// keep-alive. CalledMs is the time of the last call: each call but a
	// keep-alive and a watch. who shows it as seen; the checkpoint keeps
	// it.
	SeenMs   int64 `json:"seen_ms,omitempty"`
	CalledMs int64 `json:"called_ms,omitempty"`
	Ended    bool  `json:"ended,omitempty"`
	Watching int   `json:"-"`
	// WatchEndedMs is the time that the last open watch ended: the
	// session is offline ReconnectMs after it.
	WatchEndedMs int64 `json:"-"`
	// WakeSeen is the position up to which a read showed the messages
	// that woke the session: a watch does not wake for them again.
	WakeSeen uint64 `json:"wake_seen,omitempty"`
	// Activity is the newest fact of the hooks of the session.
	// ActivityMs is the time of the hook that gave it, ActivitySentMs
	// the time of the last keep-alive that carried it: a fact is the
	// work of now only while keep-alives carry it.
	Activity       string `json:"-"`
	ActivityMs     int64  `json:"-"`
	ActivitySentMs int64  `json:"-"`
	Container      bool   `json:"-"`
	// Daemon marks the session of a riff daemon (a keep-alive with
	// daemon): the checkpoint keeps it (SavedLive), so a start of the
	// server does not make it a plain session until its next keep-alive.
	Daemon  bool         `json:"-"`
	Binary  *wire.Binary `json:"-"`
	Machine string       `json:"-"`
	// LeadWakeMs is lead.wake of the machine of the session, as its last
	// keep-alive told it (0: none, the 15 minutes of the guide).
	LeadWakeMs int64 `json:"-"`
	// Relays holds the time of the last sign of life of each relay of the
	// session (its register, its keep-alives) since the load; the riff
	// keeps which relays serve it (Session.Relays).
	Relays map[string]int64 `json:"-"`
	Status *TextAt          `json:"status,omitempty"`
	Block  *Block           `json:"block,omitempty"`
	Step   *Step            `json:"step,omitempty"`
}

// TextAt is a text with the time it was set: a status.
type TextAt struct {
	Text string `json:"text"`
	AtMs int64  `json:"at_ms"`
}

// Block is the block of a session: its reason and its time, what became
// of it since (docs/state.md, "The blocks"). A checkpoint keeps
// it, as it keeps the status and the step.
type Block struct {
	Text string `json:"text"`
	AtMs int64  `json:"at_ms"`
	// AnsweredMs is the time of the first message that woke the session
	// after the block (its answer), 0 before: the next work of the
	// session after it ends the block.
	AnsweredMs int64 `json:"answered_ms,omitempty"`
	// RemindedMs is the time of the second wake of the lead ("has no
	// answer after 15 minutes"), 0 before; lead.wake minutes after it the
	// block is unanswered. RemindedAfterMs is the wait that it named.
	RemindedMs      int64 `json:"reminded_ms,omitempty"`
	RemindedAfterMs int64 `json:"reminded_after_ms,omitempty"`
}

// Answered says whether a message answered the block.
func (b *Block) Answered() bool { return b.AnsweredMs != 0 }

// Step is the long step of a session.
type Step struct {
	Name    string `json:"name"`
	StartMs int64  `json:"start_ms"`
	// Failed holds the reason of a failed step, shown until the next
	// step command.
	Failed   string `json:"failed,omitempty"`
	FailedMs int64  `json:"failed_ms,omitempty"`
}

// NewPresence gives an empty presence.
func NewPresence() *Presence {
	return &Presence{
		Lives:       map[string]*Live{},
		Cursors:     map[string]map[name.Thread]uint64{},
		RepoPauseMs: map[name.Repo]int64{},
		PlanSeenMs:  map[name.Thread]int64{},
		Facts:       map[name.Thread][]string{},
	}
}

func (p *Presence) live(w name.Who) *Live {
	var buf [keyRoom]byte
	key := whoKey(buf[:0], w)
	l := p.Lives[string(key)]
	if l == nil {
		l = &Live{}
		p.Lives[string(key)] = l
	}
	p.touchedKey(key, dirtyLive)
	return l
}

// Live gives the presence of who, or nil.
func (p *Presence) Live(w name.Who) *Live {
	var buf [keyRoom]byte
	return p.Lives[string(whoKey(buf[:0], w))]
}

// Cursor gives the read cursor of who in thread, and whether it has one.
func (p *Presence) Cursor(w name.Who, thread name.Thread) (uint64, bool) {
	seq, ok := p.Cursors[w.String()][thread]
	return seq, ok
}

func (p *Presence) setCursor(w name.Who, thread name.Thread, seq uint64) {
	key := w.String()
	m := p.Cursors[key]
	if m == nil {
		m = map[name.Thread]uint64{}
		p.Cursors[key] = m
	}
	m[thread] = seq
	p.touched(key, dirtyCursors)
}

// Applied changes the presence for a record that the writer applied to
// the written copy: riff is the riff after the apply, and nowMs the time
// of the call that made the record (0 in a replay, which sets no time).
// A session_forgotten removes the session and its cursors; a claimed or
// released record sets the time of the last change of the claims; a
// pause_set sets the time for a stale status; a lead_set gives the new
// lead the read marks of the old one.
func (p *Presence) Applied(rec record.Record, riff *Riff, nowMs int64) {
	p.endAnswered(rec)
	switch c := rec.Change.(type) {
	case record.SessionForgotten:
		key := c.Session.Who().String()
		delete(p.Lives, key)
		delete(p.Cursors, key)
		p.touched(key, dirtyLive|dirtyCursors)
	case record.Claimed, record.Released:
		if nowMs != 0 {
			p.ClaimsChangedMs = nowMs
		}
	case record.PauseSet:
		if nowMs == 0 || c.Scope.IsOther() {
			return
		}
		if c.Scope.Riff {
			p.PauseChangedMs = nowMs
		} else {
			p.RepoPauseMs[c.Scope.Repository] = nowMs
		}
	case record.LeadSet:
		if c.Old == nil {
			return
		}
		oldCursors := p.Cursors[c.Old.String()]
		newWho := c.Session.Who()
		for thread, seq := range oldCursors {
			if !riff.Member(thread, newWho) && !thread.Has(newWho) {
				continue
			}
			if mine, ok := p.Cursor(newWho, thread); !ok || mine > seq {
				p.setCursor(newWho, thread, seq)
			}
		}
	}
}

// endAnswered ends the answered block of the session of a record that
// is work of the session after the answer: its claim, its own release,
// or a new start (each start but a join). A replay ends it too: the
// time is the time of the record.
func (p *Presence) endAnswered(rec record.Record) {
	if rec.By == nil || rec.By.Class != record.ClassSession {
		return
	}
	var work bool
	switch c := rec.Change.(type) {
	case record.Claimed:
		work = c.Session.Who() == rec.By.Who
	case record.Released:
		work = rec.Command == string(record.CommandRelease) && c.Session.Who() == rec.By.Who
	case record.SessionStarted:
		work = c.Session.Who() == rec.By.Who && c.Reason != record.ReasonJoin
	}
	if !work {
		return
	}
	if l := p.Live(rec.By.Who); l != nil && l.Block != nil && l.Block.Answered() && rec.WrittenAtMs >= l.Block.AnsweredMs {
		l.Block = nil
		p.touched(rec.By.Who.String(), dirtyLive)
	}
}

// Signal is a change of the presence only: it makes no record, and it
// cannot change the riff. [Signal.Set] takes the presence, never a
// [Riff].
type Signal interface {
	// Set changes the presence of who at now.
	Set(p *Presence, who name.Who, now Now)
}

// Called is a call of a caller from its place: a sign of life. A refused
// call is one too.
type Called struct{ Place name.Place }

// Alive is a keep-alive: a sign of life that is not a call. It carries
// the newest fact of the session. A prompt of the person ends a block.
type Alive struct {
	Activity string
	// ActivitySecs is the age of Activity at the keep-alive; nil is 0.
	ActivitySecs *int64
	PromptSecs   *int64
	Container    bool
	// Daemon marks the session of a riff daemon; it stays set.
	Daemon bool
	// Binary is the riff of the session; nil keeps the one before.
	Binary *wire.Binary
	// Relay is the relay that sent the keep-alive, "" for none.
	Relay string
	// LeadWakeMs is lead.wake of the machine of the session; 0 keeps the
	// one before.
	LeadWakeMs int64
}

// Place is the place of the session, from a register or a move.
type Place struct{ Place name.Place }

// StatusSet is the status of the session: one line of at most 400
// characters (the wire refuses a longer one).
type StatusSet struct{ Text string }

// BlockedSet says that the session cannot go on with no decision. A new
// block replaces the old one.
type BlockedSet struct{ Reason string }

// StepChange starts, ends or fails the long step of the session.
type StepChange struct {
	Start string
	Done  bool
	Fail  string
}

// Machine holds the numbers of the machine of the session.
type Machine struct{ Numbers string }

// Facts holds what a client saw of the items of a thread on the forge.
type Facts struct {
	Thread name.Thread
	Items  []string
	All    bool
}

// PlanSeen says that a look saw the plan of a thread.
type PlanSeen struct{ Thread name.Thread }

// WatchStarted and WatchEnded open and close a watch stream. The end of a
// watch is no sign of life.
type WatchStarted struct{}

// WatchEnded closes a watch stream.
type WatchEnded struct{}

// Ended ends the session: it leaves who at once.
type Ended struct{}

// Read moves the cursor of a thread to the seq of the last message that
// a read showed. A read of all the messages never moves it back.
type Read struct {
	Thread name.Thread
	Seq    uint64
	All    bool
}

func (s Called) Set(p *Presence, w name.Who, now Now) {
	l := p.live(w)
	l.Place, l.SeenMs, l.CalledMs, l.Ended = s.Place, now.Ms, now.Ms, false
}

// Seen is the sign of life of a query: it keeps the place and the time,
// and is no work.
type Seen struct{ Place name.Place }

func (s Seen) Set(p *Presence, w name.Who, now Now) {
	l := p.live(w)
	l.Place, l.SeenMs, l.CalledMs, l.Ended = s.Place, now.Ms, now.Ms, false
}

func (s Alive) Set(p *Presence, w name.Who, now Now) {
	l := p.live(w)
	l.SeenMs, l.Ended = now.Ms, false
	l.relaySeen(s.Relay, now.Ms)
	if s.Activity != "" {
		at := now.Ms
		if s.ActivitySecs != nil {
			at = now.Ms - *s.ActivitySecs*1000
		}
		// A fact of work after an answer ends a block. Each keep-alive
		// carries the newest fact again: one older than the answer is no
		// new work.
		if wire.IsWork(s.Activity) && l.Block != nil && l.Block.Answered() && at >= l.Block.AnsweredMs {
			l.Block = nil
		}
		l.Activity, l.ActivityMs, l.ActivitySentMs = s.Activity, at, now.Ms
	}
	if s.PromptSecs != nil && l.Block != nil && now.Ms-*s.PromptSecs*1000 >= l.Block.AtMs {
		l.Block = nil
	}
	if s.Container {
		l.Container = true
	}
	if s.Daemon {
		l.Daemon = true
	}
	if s.Binary != nil {
		b := *s.Binary
		l.Binary = &b
	}
	if s.LeadWakeMs != 0 {
		l.LeadWakeMs = s.LeadWakeMs
	}
}

func (s Place) Set(p *Presence, w name.Who, now Now) {
	l := p.live(w)
	l.Place, l.SeenMs, l.CalledMs, l.Ended = s.Place, now.Ms, now.Ms, false
}

func (s StatusSet) Set(p *Presence, w name.Who, now Now) {
	l := p.live(w)
	l.Status, l.SeenMs, l.CalledMs = &TextAt{Text: s.Text, AtMs: now.Ms}, now.Ms, now.Ms
}

func (s BlockedSet) Set(p *Presence, w name.Who, now Now) {
	l := p.live(w)
	l.Block, l.SeenMs, l.CalledMs = &Block{Text: s.Reason, AtMs: now.Ms}, now.Ms, now.Ms
}

func (s StepChange) Set(p *Presence, w name.Who, now Now) {
	l := p.live(w)
	l.SeenMs, l.CalledMs = now.Ms, now.Ms
	switch {
	case s.Start != "":
		l.Step = &Step{Name: s.Start, StartMs: now.Ms}
	case s.Fail != "" && l.Step != nil:
		l.Step.Failed, l.Step.FailedMs = s.Fail, now.Ms
	case s.Fail != "":
		l.Step = &Step{Name: "step", StartMs: now.Ms, Failed: s.Fail, FailedMs: now.Ms}
	default:
		l.Step = nil
	}
}

func (s Machine) Set(p *Presence, w name.Who, now Now) {
	l := p.live(w)
	l.Machine, l.SeenMs, l.CalledMs = s.Numbers, now.Ms, now.Ms
}

func (s Facts) Set(p *Presence, w name.Who, now Now) {
	if s.All {
		p.Facts[s.Thread] = append([]string(nil), s.Items...)
		return
	}
	p.Facts[s.Thread] = append(p.Facts[s.Thread], s.Items...)
}

func (s PlanSeen) Set(p *Presence, w name.Who, now Now) { p.PlanSeenMs[s.Thread] = now.Ms }

func (WatchStarted) Set(p *Presence, w name.Who, now Now) {
	l := p.live(w)
	l.Watching++
	l.SeenMs = now.Ms
}

func (WatchEnded) Set(p *Presence, w name.Who, now Now) {
	if l := p.Live(w); l != nil && l.Watching > 0 {
		l.Watching--
		if l.Watching == 0 {
			l.WatchEndedMs = now.Ms
		}
	}
}

func (Ended) Set(p *Presence, w name.Who, now Now) {
	l := p.live(w)
	l.Ended = true
	// No relay serves an ended session.
	l.Relays = nil
}

func (s Read) Set(p *Presence, w name.Who, now Now) {
	if cur, ok := p.Cursor(w, s.Thread); ok && cur >= s.Seq {
		return
	}
	p.setCursor(w, s.Thread, s.Seq)
}
