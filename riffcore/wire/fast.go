package wire

import "github.com/como-technologies/riff/riffcore/name"

// The fast path of the decode of the bodies of the steady calls: claim
// and release, the calls of a session at work, each the body
// {"me":URI,"thread":THREAD,"item":ITEM}. encoding/json reads such a
// body in about 5 µs of the 25 µs of the whole call on the server: it
// checks the bytes once, then decodes them by reflection, and copies
// each string. DecodeFast reads only the forms that it reads exactly as
// json.Unmarshal into the zero value: one object, JSON whitespace
// between the tokens, each key once and in its own case, strings of
// visible ASCII with no escape, a me that ParseURI reads and an item
// that ParseItem reads (the UnmarshalJSON of their types). For each
// other form (an escape, null, a key of another case or unknown, a key
// twice, a URI or an item that does not read...) it reports false, and the caller
// takes json.Unmarshal, which stays the reference and gives the errors.
// FuzzFastDecodeIsTheDecodeOfEncodingJSON checks that the two agree.

// DecodeFast reads body into the zero Claim c as json.Unmarshal would,
// and reports true; it reports false, with c unchanged, for a body that
// it does not read on the fast path.
func (c *Claim) DecodeFast(body []byte) bool {
	me, thread, item, ok := decodeWork(body)
	if ok {
		*c = Claim{Me: me, Thread: thread, Item: item}
	}
	return ok
}

// DecodeFast reads body into the zero Release r as json.Unmarshal would
// (see [Claim.DecodeFast]).
func (r *Release) DecodeFast(body []byte) bool {
	me, thread, item, ok := decodeWork(body)
	if ok {
		*r = Release{Me: me, Thread: thread, Item: item}
	}
	return ok
}

// The fields of a body of work, by their index in decodeWork.
const (
	fieldMe = iota
	fieldThread
	fieldItem
	workFields
)

// decodeWork reads {"me":…,"thread":…,"item":…} (each key at most once,
// in any order). The strings of the values share one copy of the bytes.
func decodeWork(body []byte) (me name.SessionURI, thread string, item name.Item, ok bool) {
	var start, end [workFields]int
	var seen [workFields]bool
	i := skipSpace(body, 0)
	if i == len(body) || body[i] != '{' {
		return me, "", "", false
	}
	i = skipSpace(body, i+1)
	if i < len(body) && body[i] == '}' {
		i++
	} else {
		for {
			ks, ke, next, plain := plainString(body, i)
			if !plain {
				return me, "", "", false
			}
			field := workField(body[ks:ke])
			if field < 0 || seen[field] {
				return me, "", "", false
			}
			seen[field] = true
			i = skipSpace(body, next)
			if i == len(body) || body[i] != ':' {
				return me, "", "", false
			}
			start[field], end[field], next, plain = plainString(body, skipSpace(body, i+1))
			if !plain {
				return me, "", "", false
			}
			i = skipSpace(body, next)
			if i == len(body) {
				return me, "", "", false
			}
			if body[i] == '}' {
				i++
				break
			}
			if body[i] != ',' {
				return me, "", "", false
			}
			i = skipSpace(body, i+1)
		}
	}
	if skipSpace(body, i) != len(body) {
		return me, "", "", false
	}
	// One string holds the bytes from the first value to the last.
	lo, hi := len(body), 0
	for f := range workFields {
		if seen[f] {
			lo, hi = min(lo, start[f]), max(hi, end[f])
		}
	}
	var text string
	if lo < hi {
		text = string(body[lo:hi])
	}
	value := func(f int) string {
		if !seen[f] || start[f] == end[f] {
			return ""
		}
		return text[start[f]-lo : end[f]-lo]
	}
	if uri := value(fieldMe); uri != "" {
		parsed, err := name.ParseURI(uri)
		if err != nil {
			return name.SessionURI{}, "", "", false
		}
		me = parsed
	}
	if seen[fieldItem] {
		// name.Item reads itself: an item that ParseItem refuses is an
		// error of json.Unmarshal.
		parsed, err := name.ParseItem(value(fieldItem))
		if err != nil {
			return name.SessionURI{}, "", "", false
		}
		item = parsed
	}
	return me, value(fieldThread), item, true
}

// workField gives the index of a key of a body of work, or -1.
func workField(key []byte) int {
	switch string(key) {
	case "me":
		return fieldMe
	case "thread":
		return fieldThread
	case "item":
		return fieldItem
	}
	return -1
}

// skipSpace gives the index of the first byte at or after i that is no
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// plainString reads a string at b[i] of visible ASCII with no escape: it
// gives the bounds of its text and the index after its closing quote.
func plainString(b []byte, i int) (start, end, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, 0, 0, false
	}
	start = i + 1
	for j := start; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return start, j, j + 1, true
		case c < 0x20 || c > 0x7e || c == '\\':
			return 0, 0, 0, false
		}
	}
	return 0, 0, 0, false
}
