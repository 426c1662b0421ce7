package record

import (
	"hash/maphash"
	"sync/atomic"
)

// The strings of the fast path that come again and again in a log (the
// command, the cause, the session URI, the thread, the item, the reason
// and the kind of a message) are interned: a text that is in the table
// is not allocated again, so a replay allocates them once, not once a
// record, and the records of a state share them.
//
// The table is a fixed array of slots, each found by a hash of the text.
// A slot holds the last string put there and the hash of the last text
// that missed it: a text goes in at its second miss in a row, so a text
// that comes once (a new session ID) costs no more than before, and a
// text that comes again takes the slot, whatever was there. The table
// never grows, holds only short texts, and needs no lock: a slot is
// atomic, and a string never changes. So two decodes at once are safe,
// and the worst a race does is a string allocated once more.

const (
	internSlots = 4096 // a power of two
	internMax   = 96   // longer texts are not interned
)

type internSlot struct {
	s      atomic.Pointer[string]
	missed atomic.Uint64 // the hash of the last text that missed the slot
}

// Decoder reads the lines of one log, as [Decode] does, and interns the
// texts that come again. A replay makes one and drops it at its end: the
// table lives no longer than its decoder. A Decoder is safe for use by
// many goroutines.
type Decoder struct {
	seed  maphash.Seed
	table [internSlots]internSlot
}

// NewDecoder gives a decoder with an empty table.
func NewDecoder() *Decoder { return &Decoder{seed: maphash.MakeSeed()} }

// Decode reads one line of the log, as the function Decode does.
func (d *Decoder) Decode(line []byte) (Record, error) {
	if r, ok := decodeFast(line, d); ok {
		return r, nil
	}
	return decodeSlow(line)
}

// intern gives the string of b, from the table when it is there. A nil
// decoder interns nothing.
func (d *Decoder) intern(b []byte) string {
	if d == nil || len(b) > internMax {
		return string(b)
	}
	h := maphash.Bytes(d.seed, b)
	slot := &d.table[h&(internSlots-1)]
	if p := slot.s.Load(); p != nil && *p == string(b) {
		return *p
	}
	s := string(b)
	if slot.missed.Swap(h) == h {
		p := new(string) // not &s: s would go to the heap at each miss
		*p = s
		slot.s.Store(p)
	}
	return s
}
