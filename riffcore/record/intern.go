package record

import (
	"hash/maphash"
	"sync/atomic"

	"github.com/como-technologies/riff/riffcore/name"
)

// The texts of the fast path that come again and again in a log (the
// command, the cause, the session URI, the thread, the item, the reason
// and the kind of a message) are interned: a text that is in the table
// is not allocated again, so a replay allocates them once, not once a
// record, and the records of a state share them. The names that a text
// parses to (a session URI, a cause, a thread, an item, a Who) are kept
// the same way, by their text: a name that came before is not parsed
// again (docs/decisions.md, "A decoder keeps the names it parsed").
//
// Each table is a fixed array of slots, each found by a hash of the
// text. A slot holds the last entry put there and the hash of the last
// text that missed it: a text goes in at its second miss in a row, so a
// text that comes once (a new session ID) costs no more than before, and
// a text that comes again takes the slot, whatever was there. A table
// never grows, holds only short texts, and needs no lock: a slot is
// atomic, and an entry never changes. So two decodes at once are safe,
// and the worst a race does is a text parsed or allocated once more.

const (
	internSlots = 4096 // a power of two
	internMax   = 96   // longer texts are not kept
)

// memo is a table of the values of texts that come again.
type memo[T any] struct {
	slots [internSlots]memoSlot[T]
}

type memoSlot[T any] struct {
	entry  atomic.Pointer[memoEntry[T]]
	missed atomic.Uint64 // the hash of the last text that missed the slot
}

// memoEntry is the value of a text. It never changes once in a slot.
type memoEntry[T any] struct {
	text  string
	value T
}

// get gives the entry of b, whose hash is h, when its slot holds it.
func (m *memo[T]) get(h uint64, b []byte) *memoEntry[T] {
	if e := m.slots[h&(internSlots-1)].entry.Load(); e != nil && e.text == string(b) {
		return e
	}
	return nil
}

// missed tells the table that the text whose hash is h was not in its
// slot, and says whether it missed the slot twice in a row: then its
// entry should take the slot (put).
func (m *memo[T]) missed(h uint64) bool {
	return m.slots[h&(internSlots-1)].missed.Swap(h) == h
}

// put puts the entry of text, whose hash is h, in its slot.
func (m *memo[T]) put(h uint64, text string, v T) {
	m.slots[h&(internSlots-1)].entry.Store(&memoEntry[T]{text: text, value: v})
}

// Decoder reads the lines of one log, as [Decode] does, and keeps the
// texts and the names that come again. A replay makes one and drops it
// at its end: the tables live no longer than their decoder. A Decoder is
// safe for use by many goroutines.
type Decoder struct {
	seed    maphash.Seed
	texts   memo[struct{}]
	uris    memo[name.SessionURI]
	causes  memo[*By]
	whos    memo[name.Who]
	threads memo[name.Thread]
	items   memo[name.Item]
}

// NewDecoder gives a decoder with empty tables.
func NewDecoder() *Decoder { return &Decoder{seed: maphash.MakeSeed()} }

// Decode reads one line of the log, as the function Decode does.
func (d *Decoder) Decode(line []byte) (Record, error) {
	if r, ok := decodeFast(line, d); ok {
		return r, nil
	}
	return decodeSlow(line)
}

// hash gives the hash of a text for the tables of d.
func (d *Decoder) hash(b []byte) uint64 { return maphash.Bytes(d.seed, b) }

// intern gives the string of b, from the table when it is there. A nil
// decoder interns nothing.
func (d *Decoder) intern(b []byte) string {
	if d == nil || len(b) > internMax {
		return string(b)
	}
	return d.internHashed(d.hash(b), b)
}

// internHashed is intern of a short text b whose hash is h.
func (d *Decoder) internHashed(h uint64, b []byte) string {
	if e := d.texts.get(h, b); e != nil {
		return e.text
	}
	s := string(b)
	if d.texts.missed(h) {
		d.texts.put(h, s, struct{}{})
	}
	return s
}

// parsedName reads a name from a short text b with parse, from the table
// of the decoder (at) when the text came before. A name goes in the table
// only when keep says it may be shared by the records that read it; a
// nil decoder keeps nothing.
func parsedName[T any](d *Decoder, at func(*Decoder) *memo[T], b []byte, parse func(string) (T, error), keep func(T) bool) (T, error) {
	if d == nil || len(b) > internMax {
		return parse(string(b))
	}
	h := d.hash(b)
	m := at(d)
	if e := m.get(h, b); e != nil {
		return e.value, nil
	}
	// The text itself is not interned: the name holds all of it that a
	// record keeps, and the table holds the name.
	text := string(b)
	v, err := parse(text)
	if err == nil && (keep == nil || keep(v)) && m.missed(h) {
		m.put(h, text, v)
	}
	return v, err
}
