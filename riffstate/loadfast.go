package riffstate

import (
	"bytes"
	"math"
	"unicode/utf8"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
)

// The fast path of the decode of the threads of a checkpoint. The
// pieces of decodeSplit are almost all of a start, and encoding/json
// reads them by reflection, checks each byte twice and copies each
// string. decodeThreadsFast reads only the compact form that
// appendCheckpoint writes: no space, strings with no escape and no
// control character that are UTF-8, numbers with no fraction and no
// exponent, each key of a thread once and in its own case, with name,
// last_seq and members there, and each message read by the fast path of
// the record codec (record.Decoder.DecodePostedAt). For each other form
// it reports false, and the caller decodes the piece with encoding/json,
// which stays the reference: FuzzDecodeThreadsFastIsTheDecodeOfEncodingJSON
// checks that the two agree.

// decodeThreadsFast reads piece, an object of threads by name, as
// json.Unmarshal reads it into a nil map[name.Thread]*Thread; ok is
// false for each form that it does not read exactly so.
func decodeThreadsFast(piece []byte, d *record.Decoder) (threads map[name.Thread]*Thread, ok bool) {
	threads = map[name.Thread]*Thread{}
	c := cursor{b: piece}
	ok = c.object(func(key string) bool {
		// encoding/json takes the key of a map of a string type as it is:
		// name.Thread has no UnmarshalText.
		if _, twice := threads[name.Thread(key)]; twice {
			return false
		}
		t, ok := c.thread(d)
		threads[name.Thread(key)] = t
		return ok
	})
	if !ok || c.i != len(piece) {
		return nil, false
	}
	return threads, true
}

// cursor reads compact JSON from b at i.
type cursor struct {
	b []byte
	i int
}

// The keys of a thread, by their bit in thread's set of keys read.
const (
	threadName = 1 << iota
	threadLastSeq
	threadMembers
	threadMessages
)

// thread reads a *Thread as encoding/json reads it into the nil value of
// a map: a new Thread.
func (c *cursor) thread(d *record.Decoder) (*Thread, bool) {
	t := &Thread{}
	seen := 0
	ok := c.object(func(key string) bool {
		var bit int
		switch key {
		case "name":
			bit = threadName
		case "last_seq":
			bit = threadLastSeq
		case "members":
			bit = threadMembers
		case "messages":
			bit = threadMessages
		default:
			return false // unknown, or a key in another case
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		var ok bool
		switch bit {
		case threadName:
			var s string
			if s, ok = c.text(); ok {
				var err error
				t.Name, err = name.ParseThread(s)
				ok = err == nil
			}
		case threadLastSeq:
			t.LastSeq, ok = c.uint64()
		case threadMembers:
			t.Members, ok = c.members()
		case threadMessages:
			t.Messages, ok = c.messages(d)
		}
		return ok
	})
	need := threadName | threadLastSeq | threadMembers
	return t, ok && seen&need == need
}

// members reads a map[string]uint64: a name that comes twice takes the
// later value, as in encoding/json.
func (c *cursor) members() (map[string]uint64, bool) {
	m := map[string]uint64{}
	ok := c.object(func(key string) bool {
		n, ok := c.uint64()
		m[key] = n
		return ok
	})
	return m, ok
}

// messages reads a []Message: an empty array gives a list that is empty
// but not nil, as encoding/json does.
func (c *cursor) messages(d *record.Decoder) ([]Message, bool) {
	list := []Message{}
	ok := c.between('[', ']', func() bool {
		end, ok := skipValue(c.b, c.i)
		if !ok || c.b[c.i] != '{' {
			return false
		}
		p, position, atMs, ok := d.DecodePostedAt(c.b[c.i:end])
		list = append(list, Message{Posted: p, Position: position, AtMs: atMs})
		c.i = end
		return ok
	})
	return list, ok
}

// object reads an object; field gets each key and reads its value.
func (c *cursor) object(field func(key string) bool) bool {
	return c.between('{', '}', func() bool {
		key, ok := c.text()
		return ok && c.next(':') && field(key)
	})
}

// between reads open, each item with a comma between two, and close.
func (c *cursor) between(open, close byte, each func() bool) bool {
	if !c.next(open) {
		return false
	}
	if c.next(close) {
		return true
	}
	for {
		if !each() {
			return false
		}
		switch {
		case c.next(','):
		case c.next(close):
			return true
		default:
			return false
		}
	}
}

// next reads the byte b.
func (c *cursor) next(b byte) bool {
	if c.i < len(c.b) && c.b[c.i] == b {
		c.i++
		return true
	}
	return false
}

// text reads a string with no escape and no control character that is
// UTF-8: encoding/json reads its bytes as they are.
func (c *cursor) text() (string, bool) {
	if !c.next('"') {
		return "", false
	}
	k := bytes.IndexByte(c.b[c.i:], '"')
	if k < 0 {
		return "", false
	}
	s := c.b[c.i : c.i+k]
	ascii := true
	for _, b := range s {
		switch {
		case b == '\\' || b < 0x20:
			return "", false
		case b >= utf8.RuneSelf:
			ascii = false
		}
	}
	if !ascii && !utf8.Valid(s) {
		return "", false
	}
	c.i += k + 1
	return string(s), true
}

// uint64 reads a number with no sign, no fraction and no exponent, and
// no leading zero, that fits.
func (c *cursor) uint64() (uint64, bool) {
	start := c.i
	var n uint64
	for ; c.i < len(c.b) && '0' <= c.b[c.i] && c.b[c.i] <= '9'; c.i++ {
		d := uint64(c.b[c.i] - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	switch {
	case c.i == start, c.b[start] == '0' && c.i > start+1:
		return 0, false
	case c.i < len(c.b) && (c.b[c.i] == '.' || c.b[c.i] == 'e' || c.b[c.i] == 'E'):
		return 0, false
	}
	return n, true
}
