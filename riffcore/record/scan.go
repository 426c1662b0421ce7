package record

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/bits"
	"strings"
	"unicode/utf8"
)

// The scanner of the codec: the reading of JSON byte for byte, apart from
// what a record holds. objectFields splits an object for the slow path;
// reader reads the JSON values of the fast path, whose readers of the
// types of a record are in fast.go and whose readers of the bodies of the
// kinds are generated from the struct tags (bodies_gen.go).

// objectFields gives the keys and the raw values of the top level of a
// JSON object, in order, with no allocation for the values. It is the
// fast path of the decoder: the record was already checked as JSON by
// encoding/json, and ok is false for each form that is not an object
// (then the slow path decides).
func objectFields(b []byte) (keys []string, values [][]byte, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, nil, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil, nil, skipSpace(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, nil, false
		}
		end, escaped := stringEnd(b, i)
		if end < 0 {
			return nil, nil, false
		}
		key := string(b[i+1 : end-1])
		if escaped || !utf8.ValidString(key) {
			if json.Unmarshal(b[i:end], &key) != nil {
				return nil, nil, false
			}
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, nil, false
		}
		i = skipSpace(b, i+1)
		vend := valueEnd(b, i)
		if vend < 0 {
			return nil, nil, false
		}
		keys = append(keys, key)
		values = append(values, b[i:vend])
		i = skipSpace(b, vend)
		if i >= len(b) {
			return nil, nil, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return keys, values, skipSpace(b, i+1) == len(b)
		default:
			return nil, nil, false
		}
	}
}

func skipSpace(b []byte, i int) int {
	// b[i] > ' ' first: the lines of the log hold no white space, so the
	// loop ends at once, with one compare.
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd gives the index after the closing quote of the string that
// starts at b[i], and whether it holds an escape; -1 when it does not end.
func stringEnd(b []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return -1, escaped
}

// valueEnd gives the index after the JSON value that starts at b[i], or
// -1. It trusts the value to be JSON: it only finds its end.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		end, _ := stringEnd(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _ := stringEnd(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && !strings.ContainsRune(" \t\r\n,}]", rune(b[j])) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// reader reads JSON from b at i, byte for byte.
type reader struct {
	b []byte
	i int
	// d interns the names; nil interns nothing.
	d *Decoder
	// extra reads the value of a key that is no field of the type being
	// read, and says whether the key was its own (read) and whether the
	// value read (ok); nil leaves each such key to unknown. Only
	// DecodePostedAt sets it, for the keys of the top level of a Posted:
	// readPosted calls unknown only for those.
	extra func(key []byte) (read, ok bool)
}

// space skips white space and gives the index after it.
func (r *reader) space() int {
	r.i = skipSpace(r.b, r.i)
	return r.i
}

// next reads the byte c after white space.
func (r *reader) next(c byte) bool {
	if r.space() < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// object reads an object, and calls field after each key: field reads
// the value. A key is read only when it is ASCII with no escape.
func (r *reader) object(field func(key []byte) bool) bool {
	return r.between('{', '}', func() bool {
		key, ascii := r.text()
		return key != nil && ascii && r.next(':') && field(key)
	})
}

// unknown skips the value of a key that is not in the lists; a key that
// is one of theirs in another case is not read here (encoding/json would
// read it into its field: the slow path decides).
func (r *reader) unknown(key []byte, lists ...string) bool {
	if r.extra != nil {
		if read, ok := r.extra(key); read {
			return ok
		}
	}
	for _, list := range lists {
		for rest := list; rest != ""; {
			var known string
			known, rest = nextWord(rest)
			if strings.EqualFold(known, string(key)) {
				return false
			}
		}
	}
	return r.skip()
}

// skip skips a value that is JSON.
func (r *reader) skip() bool {
	start := r.space()
	end := valueEnd(r.b, start)
	if end < 0 || !json.Valid(r.b[start:end]) {
		return false
	}
	r.i = end
	return true
}

// text reads a string with no escape and no control character, that is
// UTF-8, and gives the bytes inside its quotes (not nil), and whether
// they are ASCII. It gives nil for each other form.
func (r *reader) text() (s []byte, ascii bool) {
	if r.space() >= len(r.b) || r.b[r.i] != '"' {
		return nil, false
	}
	start := r.i + 1
	j := start
	for j+8 <= len(r.b) {
		if m := specials(binary.LittleEndian.Uint64(r.b[j:])); m != 0 {
			j += bits.TrailingZeros64(m) / 8 // the first byte to read one by one
			break
		}
		j += 8
	}
	ascii = true
	for ; j < len(r.b); j++ {
		switch c := r.b[j]; {
		case c == '"':
			s = r.b[start:j]
			if !ascii && !utf8.Valid(s) {
				return nil, false
			}
			r.i = j + 1
			return s, ascii
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// specials gives the high bit of each of the 8 bytes of x that is a
// quote, a backslash, a control character or not ASCII (the bytes that
// text reads one by one), at least: its lowest bit is that of the first
// such byte, and it is zero when there is none. (v-lo)&^v&hi marks each
// zero byte of v, and (x-lo*n)&^x&hi each byte of x below n, for n up to
// 128; each can also mark a byte above one it marks (by the borrow), but
// never one below.
func specials(x uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	quote, backslash := x^(lo*'"'), x^(lo*'\\')
	return ((quote-lo)&^quote | (backslash-lo)&^backslash | (x-lo*0x20)&^x | x) & hi
}

func (r *reader) str() (string, bool) {
	s, _ := r.text()
	return string(s), s != nil
}

// name reads a string as str does, interned: for the texts that come
// again from record to record.
func (r *reader) name() (string, bool) {
	s, _ := r.text()
	if s == nil {
		return "", false
	}
	return r.d.intern(s), true
}

// literal reads the literal word.
func (r *reader) literal(word string) bool {
	if r.space()+len(word) <= len(r.b) && string(r.b[r.i:r.i+len(word)]) == word {
		r.i += len(word)
		return true
	}
	return false
}

// exactly reads the bytes of lit, with no white space before them.
func (r *reader) exactly(lit string) bool {
	if len(r.b)-r.i >= len(lit) && string(r.b[r.i:r.i+len(lit)]) == lit {
		r.i += len(lit)
		return true
	}
	return false
}

// key reads the key of a field of an object in the form that Encode
// writes: a '{' before the first field (first, which it clears), a ','
// before each other, then lit, the quoted key and its colon.
func (r *reader) key(first *bool, lit string) bool {
	sep := byte(',')
	if *first {
		sep = '{'
	}
	if r.i < len(r.b) && r.b[r.i] == sep {
		if rest := r.b[r.i+1:]; len(rest) >= len(lit) && string(rest[:len(lit)]) == lit {
			r.i += 1 + len(lit)
			*first = false
			return true
		}
	}
	return false
}

// end reads the end of an object in the form that Encode writes, after
// its fields (or "{}" when it has none: first).
func (r *reader) end(first bool) bool {
	if first {
		return r.exactly("{}")
	}
	return r.exactly("}")
}

func (r *reader) boolean() (bool, bool) {
	switch {
	case r.literal("true"):
		return true, true
	case r.literal("false"):
		return false, true
	}
	return false, false
}

// digits reads the digits of a JSON number with no fraction and no
// exponent, and gives their value; ok is false when they do not fit.
func (r *reader) digits() (n uint64, ok bool) {
	start := r.i
	j := start
	// 19 digits always fit in a uint64: no check of each.
	for ; j < len(r.b) && j-start < 19 && isDigit(r.b[j]); j++ {
		n = n*10 + uint64(r.b[j]-'0')
	}
	if j < len(r.b) && isDigit(r.b[j]) { // a 20th digit may fit
		d := uint64(r.b[j] - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n, j = n*10+d, j+1
		if j < len(r.b) && isDigit(r.b[j]) {
			return 0, false
		}
	}
	r.i = j
	switch {
	case j == start, r.b[start] == '0' && j > start+1:
		return 0, false // no digit, or a leading zero
	case j < len(r.b) && (r.b[j] == '.' || r.b[j] == 'e' || r.b[j] == 'E'):
		return 0, false
	}
	return n, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func (r *reader) uint64() (uint64, bool) {
	r.space()
	return r.digits()
}

func (r *reader) int64() (int64, bool) {
	neg := r.next('-')
	n, ok := r.digits()
	switch {
	case !ok:
		return 0, false
	case neg && n <= 1<<63:
		return int64(-n), true
	case !neg && n <= math.MaxInt64:
		return int64(n), true
	}
	return 0, false
}

// base64 reads a []byte as encoding/json does. It finds the end of the
// string by its quote alone: the base64 decoder refuses each byte that a
// string of no escape and no control character cannot hold (a
// backslash, a control character, a byte that is not ASCII), but for \r
// and \n, which it skips, and which are looked for here. A payload is
// most of the bytes of a post, so this is a search of three bytes, not
// the scan of text.
func (r *reader) base64() ([]byte, bool) {
	start := r.space()
	if start >= len(r.b) || r.b[start] != '"' {
		return nil, false
	}
	end := bytes.IndexByte(r.b[start+1:], '"')
	if end < 0 {
		return nil, false
	}
	s := r.b[start+1 : start+1+end]
	if bytes.IndexByte(s, '\r') >= 0 || bytes.IndexByte(s, '\n') >= 0 {
		return nil, false
	}
	b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(b, s)
	r.i = start + 2 + end
	return b[:n], err == nil
}

// array reads an array; elem reads each value. An empty array gives a
// list that is empty but not nil, as encoding/json does.
func (r *reader) array(elem func() bool) bool {
	return r.between('[', ']', elem)
}

// between reads open, then each item, one by one, with a comma between
// two, up to close; an object and an array are read so.
func (r *reader) between(open, close byte, each func() bool) bool {
	if !r.next(open) {
		return false
	}
	if r.next(close) {
		return true
	}
	for {
		if !each() {
			return false
		}
		switch {
		case r.next(','):
		case r.next(close):
			return true
		default:
			return false
		}
	}
}

// keySet holds the keys of an object that were read, each by its index
// in its list.
type keySet uint64

// add adds the key i; it is false for a key that is already there, or
// for no key (-1).
func (s *keySet) add(i int) bool {
	if i < 0 || *s&(1<<i) != 0 {
		return false
	}
	*s |= 1 << i
	return true
}

// all says whether the set holds each key of want.
func (s keySet) all(want keySet) bool { return s&want == want }

// wordIndex gives the index of key in a list of words separated by
// spaces, or -1.
func wordIndex(list string, key []byte) int {
	n, start := 0, 0
	for i := 0; i < len(list); i++ {
		if list[i] != ' ' {
			continue
		}
		if i-start == len(key) && list[start:i] == string(key) {
			return n
		}
		n, start = n+1, i+1
	}
	if list != "" && list[start:] == string(key) {
		return n
	}
	return -1
}

// nextWord gives the first word of a list separated by spaces, and the
// rest of the list. It is strings.Cut for the short lists of this file.
func nextWord(list string) (word, rest string) {
	for i := 0; i < len(list); i++ {
		if list[i] == ' ' {
			return list[:i], list[i+1:]
		}
	}
	return list, ""
}
