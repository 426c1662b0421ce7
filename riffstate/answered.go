package riffstate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"

	"github.com/como-technologies/riff/riffcore/quote"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The limits of the answered calls: a call ID lives for an hour after its
// result, and the table holds at most MaxAnsweredCalls of them, the oldest
// going first. The client tries one call for at most 60 seconds, so an
// hour covers each repeat with a wide margin.
const (
	AnsweredCallMs   = 60 * 60 * 1000
	MaxAnsweredCalls = 100_000
)

// Key is the key of a call: the caller (Who.String()) and its call ID.
type Key struct {
	Caller string `json:"caller"`
	Call   string `json:"call"`
}

// KeyOf gives the key of a call of c with the call ID call.
func KeyOf(c Caller, call string) Key { return Key{Caller: c.Who().String(), Call: call} }

// Asked is what a call asked, to know whether a second call with its
// call ID is a repeat: the kind of its command and the sum of its body.
type Asked struct {
	Kind record.Command
	Sum  string
}

// AskedOf gives what a command asks: its kind, and the SHA-256 of its
// JSON (the first 16 bytes, in hex). The JSON of a decoded command is
// the same for each try of one call, whatever the spaces and the order
// of the fields of the body that came.
func AskedOf[R any](cmd Command[R]) Asked {
	b, err := json.Marshal(cmd)
	if err != nil {
		// A command that does not encode has no sum: only its kind is
		// compared.
		return Asked{Kind: cmd.Kind()}
	}
	sum := sha256.Sum256(b)
	return Asked{Kind: cmd.Kind(), Sum: hex.EncodeToString(sum[:16])}
}

// Answered is the table of the answered calls: the result of each
// accepted call with a call ID, so that a repeated call gets the first reply and runs
// handle no second time. A reply is a function of the records and the
// written copy, so the records are all that a repeat needs; the kind and
// the sum of the body tell a repeat from a reuse of the call ID. A
// checkpoint keeps all three. A call answered in the records of a replay
// has the kind of its records and no sum: only its kind is compared.
type Answered struct {
	calls map[Key]*answeredCall
	order []Key
}

type answeredCall struct {
	Made []record.Record
	// Kind is the kind as the records and a checkpoint keep it: text.
	Kind string
	Sum  string
	AtMs int64
}

// NewAnswered gives an empty table.
func NewAnswered() *Answered { return &Answered{calls: map[Key]*answeredCall{}} }

func (k *Answered) get(key Key, asked Asked) (Done, bool, *wire.Refused) {
	c := k.calls[key]
	if c == nil {
		return Done{}, false, nil
	}
	if c.Kind != "" && asked.Kind != "" && c.Kind != string(asked.Kind) {
		return Done{}, false, wire.Refuse(wire.BadRequest,
			"the call ID %s is the ID of an earlier %s call of this caller, and this call is a %s: a call ID is unique per caller, so this %s did not run. Send it with a new call ID",
			quote.Input(key.Call), c.Kind, asked.Kind, asked.Kind)
	}
	if c.Sum != "" && asked.Sum != "" && c.Sum != asked.Sum {
		return Done{}, false, wire.Refuse(wire.BadRequest,
			"the call ID %s is the ID of an earlier %s call of this caller with another body: a call ID is unique per caller, so this %s did not run. Send it with a new call ID",
			quote.Input(key.Call), c.Kind, asked.Kind)
	}
	return Done{Made: c.Made}, true, nil
}

func (k *Answered) add(key Key, asked Asked, done Done, atMs int64) {
	if c := k.calls[key]; c != nil {
		// The replay of the written records made it first.
		c.Kind, c.Sum = string(asked.Kind), asked.Sum
		return
	}
	k.calls[key] = &answeredCall{Made: done.Made, Kind: string(asked.Kind), Sum: asked.Sum, AtMs: atMs}
	k.order = append(k.order, key)
	k.trim(atMs)
}

// record adds a written record with a call ID: a load makes the
// answered calls again from the checkpoint and the records after it.
func (k *Answered) record(rec record.Record) {
	if rec.Call == "" || rec.By == nil {
		return
	}
	key := Key{Caller: rec.By.Who.String(), Call: rec.Call}
	c := k.calls[key]
	if c == nil {
		c = &answeredCall{AtMs: rec.WrittenAtMs, Kind: rec.Command}
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

func (k *Answered) trim(nowMs int64) {
	drop := 0
	for drop < len(k.order) {
		c := k.calls[k.order[drop]]
		if c != nil && len(k.order)-drop <= MaxAnsweredCalls && nowMs-c.AtMs < AnsweredCallMs {
			break
		}
		delete(k.calls, k.order[drop])
		drop++
	}
	if drop > 0 {
		k.order = append(k.order[:0], k.order[drop:]...)
	}
}

// clone gives a copy of the table that shares nothing that add, record
// or trim changes: a new map of new calls, a new order, and the records
// of each call clipped, so that an append to them on either side takes
// a new array (the records themselves are values, never changed).
func (k *Answered) clone() *Answered {
	c := &Answered{calls: make(map[Key]*answeredCall, len(k.calls)), order: slices.Clone(k.order)}
	for key, call := range k.calls {
		copied := *call
		copied.Made = slices.Clip(copied.Made)
		c.calls[key] = &copied
	}
	return c
}

// Len gives the number of answered calls.
func (k *Answered) Len() int { return len(k.calls) }
