package riffstate

import (
	"github.com/como-technologies/riff/riffcore/record"
)

// The limits of the kept calls: a call ID lives for an hour after its
// result, and the table holds at most MaxKeptCalls of them, the oldest
// going first. The client tries one call for at most 60 seconds, so an
// hour covers each repeat with a wide margin.
const (
	KeptCallMs   = 60 * 60 * 1000
	MaxKeptCalls = 100_000
)

// Key is the key of a call: the caller (Who.String()) and its call ID.
type Key struct {
	Caller string `json:"caller"`
	Call   string `json:"call"`
}

// KeyOf gives the key of a call of c with the call ID call.
func KeyOf(c Caller, call string) Key { return Key{Caller: c.Who().String(), Call: call} }

// Kept is the table of the kept calls: the result of each accepted call
// with a call ID, so that a repeated call gets the kept reply and runs
// handle no second time. A checkpoint keeps the records of each kept
// call; after a load a kept call has the default note.
type Kept struct {
	calls map[Key]*keptCall
	order []Key
}

type keptCall struct {
	Made []record.Record `json:"made"`
	Note any             `json:"-"`
	AtMs int64           `json:"at_ms"`
}

// NewKept gives an empty table.
func NewKept() *Kept { return &Kept{calls: map[Key]*keptCall{}} }

func (k *Kept) get(key Key) (Done, bool) {
	c := k.calls[key]
	if c == nil {
		return Done{}, false
	}
	return Done{Made: c.Made, Note: c.Note}, true
}

func (k *Kept) keep(key Key, done Done, atMs int64) {
	if c := k.calls[key]; c != nil {
		c.Note = done.Note
		return
	}
	k.calls[key] = &keptCall{Made: done.Made, Note: done.Note, AtMs: atMs}
	k.order = append(k.order, key)
	k.trim(atMs)
}

// record keeps a written record with a call ID: a load makes the kept
// calls again from the checkpoint and the records after it.
func (k *Kept) record(rec record.Record) {
	if rec.Call == "" || rec.By == nil {
		return
	}
	key := Key{Caller: rec.By.Who.String(), Call: rec.Call}
	c := k.calls[key]
	if c == nil {
		c = &keptCall{AtMs: rec.WrittenAtMs}
		k.calls[key] = c
		k.order = append(k.order, key)
	}
	for _, m := range c.Made {
		if m.Position == rec.Position {
			return
		}
	}
	c.Made = append(c.Made, rec)
	k.trim(rec.WrittenAtMs)
}

func (k *Kept) trim(nowMs int64) {
	drop := 0
	for drop < len(k.order) {
		c := k.calls[k.order[drop]]
		if c != nil && len(k.order)-drop <= MaxKeptCalls && nowMs-c.AtMs < KeptCallMs {
			break
		}
		delete(k.calls, k.order[drop])
		drop++
	}
	if drop > 0 {
		k.order = append(k.order[:0], k.order[drop:]...)
	}
}

// Len gives the number of kept calls.
func (k *Kept) Len() int { return len(k.calls) }
