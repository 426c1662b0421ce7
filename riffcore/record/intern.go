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

var (
	internSeed  = maphash.MakeSeed()
	internTable [internSlots]internSlot
)

// intern gives the string of b, from the table when it is there.
func intern(b []byte) string {
	if len(b) > internMax {
		return string(b)
	}
	h := maphash.Bytes(internSeed, b)
	slot := &internTable[h&(internSlots-1)]
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
