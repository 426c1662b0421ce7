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
// The table is a fixed array of slots, each found by a hash of the text
// and holding the last string put there: a miss puts the new string in
// its slot, whatever was there. It never grows, holds only short texts,
// and needs no lock: a slot is an atomic pointer to a string, and a
// string never changes. So two decodes at once are safe, and the worst a
// race does is a string allocated twice.

const (
	internSlots = 4096 // a power of two
	internMax   = 96   // longer texts are not interned
)

var (
	internSeed  = maphash.MakeSeed()
	internTable [internSlots]atomic.Pointer[string]
)

// intern gives the string of b, from the table when it is there.
func intern(b []byte) string {
	if len(b) > internMax {
		return string(b)
	}
	slot := &internTable[maphash.Bytes(internSeed, b)&(internSlots-1)]
	if p := slot.Load(); p != nil && *p == string(b) {
		return *p
	}
	s := string(b)
	slot.Store(&s)
	return s
}
