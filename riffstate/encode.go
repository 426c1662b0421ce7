package riffstate

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/como-technologies/riff/riffcore/name"
)

// The checkpoint of a large riff is most of the CPU of a riff that
// grows: its sessions, its claims, the members of its threads and the
// presence of each caller, each a map of many small structs that
// encoding/json walks by reflection (docs/performance.md, "Issue 23,
// second pass: growth"). appendCheckpoint writes those parts by hand and
// every other part by json.Marshal of that part, so that the bytes are
// those of json.Marshal of the whole checkpoint (a part of a value
// encodes to the same bytes alone as inside it). The fields that it
// knows are listed in TestTheHandEncoderKnowsEachFieldOfTheCheckpoint:
// a new field fails that test until the encoder writes it.

// appendCheckpoint appends the JSON of cp to b: the bytes of
// json.Marshal(cp).
func appendCheckpoint(b []byte, cp Checkpoint) ([]byte, error) {
	var err error
	b = append(b, `{"version":`...)
	b = appendJSONString(b, cp.Version)
	b = append(b, `,"position":`...)
	b = strconv.AppendUint(b, cp.Position, 10)
	b = append(b, `,"riff":`...)
	if b, err = appendRiff(b, cp.Riff); err != nil {
		return nil, err
	}
	if len(cp.Cursors) > 0 {
		b = append(b, `,"cursors":`...)
		b = appendCursors(b, cp.Cursors)
	}
	if len(cp.Lives) > 0 {
		b = append(b, `,"lives":`...)
		if b, err = appendLives(b, cp.Lives); err != nil {
			return nil, err
		}
	}
	if len(cp.Calls) > 0 {
		b = append(b, `,"calls":`...)
		if b, err = appendMarshal(b, cp.Calls); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendMarshal appends json.Marshal(v): a part that the encoder does not
// write by hand.
func appendMarshal(b []byte, v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, data...), nil
}

func appendRiff(b []byte, r *Riff) ([]byte, error) {
	if r == nil {
		return append(b, "null"...), nil
	}
	var err error
	b = append(b, '{')
	if r.ID != "" {
		b = append(b, `"id":`...)
		b = appendJSONString(b, r.ID)
		b = append(b, ',')
	}
	b = append(b, `"position":`...)
	b = strconv.AppendUint(b, r.Position, 10)
	b = append(b, `,"sessions":`...)
	b = appendSessions(b, r.Sessions)
	b = append(b, `,"threads":`...)
	if b, err = appendThreads(b, r.Threads); err != nil {
		return nil, err
	}
	b = append(b, `,"claims":`...)
	b = appendClaims(b, r.Claims)
	b = append(b, `,"leads":`...)
	b = appendLeads(b, r.Leads)
	for _, part := range []struct {
		key string
		v   any
	}{{"pauses", r.Pauses}, {"holds", r.Holds}, {"plans", r.Plans}, {"notes", r.Notes}, {"idle", r.Idle}, {"people", r.People}} {
		b = append(b, `,"`...)
		b = append(b, part.key...)
		b = append(b, `":`...)
		if b, err = appendMarshal(b, part.v); err != nil {
			return nil, err
		}
	}
	b = append(b, `,"warnings":`...)
	b = strconv.AppendUint(b, r.Warnings, 10)
	b = append(b, `,"skipped":`...)
	b = strconv.AppendUint(b, r.Skipped, 10)
	if r.FirstSkipped != 0 {
		b = append(b, `,"first_skipped":`...)
		b = strconv.AppendUint(b, r.FirstSkipped, 10)
	}
	if len(r.Signed) > 0 {
		b = append(b, `,"signed":`...)
		if b, err = appendMarshal(b, r.Signed); err != nil {
			return nil, err
		}
	}
	if r.SignedSweptMs != 0 {
		b = append(b, `,"signed_swept_ms":`...)
		b = strconv.AppendInt(b, r.SignedSweptMs, 10)
	}
	return append(b, '}'), nil
}

// entry is one entry of a map.
type entry[K ~string, V any] struct {
	key   K
	value V
}

// sorted gives the entries of m in the order of encoding/json: by the
// bytes of their keys (with the values: no lookup again).
func sorted[K ~string, V any](m map[K]V) []entry[K, V] {
	entries := make([]entry[K, V], 0, len(m))
	for key, value := range m {
		entries = append(entries, entry[K, V]{key, value})
	}
	sortEntries(entries)
	return entries
}

// appendKey appends the key of a map entry, with the comma before each
// but the first.
func appendKey(b []byte, i int, key string) []byte {
	if i > 0 {
		b = append(b, ',')
	}
	b = appendJSONString(b, key)
	return append(b, ':')
}

func appendSessions(b []byte, m map[string]*Session) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, e := range sorted(m) {
		b = appendKey(b, i, e.key)
		b = appendSession(b, e.value)
	}
	return append(b, '}')
}

func appendSession(b []byte, s *Session) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"uri":`...)
	b = appendURI(b, s.URI)
	if s.Worker {
		b = append(b, `,"worker":true`...)
	}
	b = append(b, `,"life":`...)
	b = appendJSONString(b, string(s.Life))
	if s.FreshMs != 0 {
		b = append(b, `,"fresh_ms":`...)
		b = strconv.AppendInt(b, s.FreshMs, 10)
	}
	b = append(b, `,"last_ms":`...)
	b = strconv.AppendInt(b, s.LastMs, 10)
	if len(s.Claims) > 0 {
		b = append(b, `,"claims":[`...)
		for i, ref := range s.Claims {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"thread":`...)
			b = appendJSONString(b, string(ref.Thread))
			b = append(b, `,"item":`...)
			b = appendJSONString(b, string(ref.Item))
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if s.ReleasedMs != 0 {
		b = append(b, `,"released_ms":`...)
		b = strconv.AppendInt(b, s.ReleasedMs, 10)
	}
	if len(s.Relays) > 0 {
		b = append(b, `,"relays":[`...)
		for i, relay := range s.Relays {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, relay)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendURI appends a URI as its MarshalJSON writes it (the JSON string
// of its text), with no string of the text made.
func appendURI(b []byte, u name.SessionURI) []byte {
	return u.AppendJSON(b)
}

func appendThreads(b []byte, m map[name.Thread]*Thread) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	var err error
	b = append(b, '{')
	for i, e := range sorted(m) {
		b = appendKey(b, i, string(e.key))
		t := e.value
		if t == nil {
			b = append(b, "null"...)
			continue
		}
		b = append(b, `{"name":`...)
		b = appendJSONString(b, string(t.Name))
		b = append(b, `,"last_seq":`...)
		b = strconv.AppendUint(b, t.LastSeq, 10)
		b = append(b, `,"members":`...)
		b = appendSeqs(b, t.Members)
		if len(t.Messages) > 0 {
			b = append(b, `,"messages":`...)
			if b, err = appendMarshal(b, t.Messages); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// appendSeqs appends a map of numbers by key: the members of a thread.
func appendSeqs(b []byte, m map[string]uint64) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, e := range sorted(m) {
		b = appendKey(b, i, e.key)
		b = strconv.AppendUint(b, e.value, 10)
	}
	return append(b, '}')
}

func appendClaims(b []byte, m map[string]*Holding) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, e := range sorted(m) {
		b = appendKey(b, i, e.key)
		h := e.value
		if h == nil {
			b = append(b, "null"...)
			continue
		}
		b = append(b, `{"holder":`...)
		b = appendWho(b, h.Holder)
		if !h.URI.IsZero() {
			b = append(b, `,"uri":`...)
			b = appendURI(b, h.URI)
		}
		b = append(b, `,"thread":`...)
		b = appendJSONString(b, string(h.Thread))
		b = append(b, `,"item":`...)
		b = appendJSONString(b, string(h.Item))
		b = append(b, `,"at_ms":`...)
		b = strconv.AppendInt(b, h.AtMs, 10)
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendLeads(b []byte, m map[string]name.Who) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, e := range sorted(m) {
		b = appendKey(b, i, e.key)
		b = appendWho(b, e.value)
	}
	return append(b, '}')
}

func appendCursors(b []byte, m map[string]map[name.Thread]uint64) []byte {
	b = append(b, '{')
	for i, e := range sorted(m) {
		b = appendKey(b, i, e.key)
		threads := e.value
		if threads == nil {
			b = append(b, "null"...)
			continue
		}
		b = append(b, '{')
		for j, c := range sorted(threads) {
			b = appendKey(b, j, string(c.key))
			b = strconv.AppendUint(b, c.value, 10)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendLives(b []byte, m map[string]*SavedLive) ([]byte, error) {
	var err error
	b = append(b, '{')
	for i, e := range sorted(m) {
		b = appendKey(b, i, e.key)
		l := e.value
		if l == nil {
			b = append(b, "null"...)
			continue
		}
		b = append(b, '{')
		// n counts the fields written: a comma goes before each but the first.
		n := 0
		if l.Status != nil {
			b, n = appendField(b, n, `"status":`)
			if b, err = appendMarshal(b, l.Status); err != nil {
				return nil, err
			}
		}
		if l.Step != nil {
			b, n = appendField(b, n, `"step":`)
			if b, err = appendMarshal(b, l.Step); err != nil {
				return nil, err
			}
		}
		if l.CalledMs != 0 {
			b, n = appendField(b, n, `"called_ms":`)
			b = strconv.AppendInt(b, l.CalledMs, 10)
		}
		if l.Block != nil {
			b, n = appendField(b, n, `"block":`)
			if b, err = appendMarshal(b, l.Block); err != nil {
				return nil, err
			}
		}
		if l.Daemon {
			b, _ = appendField(b, n, `"daemon":true`)
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// appendField appends the key of the field after n fields.
func appendField(b []byte, n int, key string) ([]byte, int) {
	if n > 0 {
		b = append(b, ',')
	}
	return append(b, key...), n + 1
}

// appendJSONString appends s as encoding/json writes a string: <, >, &,
// U+2028 and U+2029 escaped, a control character by its short escape
// or \u00XX, a byte that is not UTF-8 as \ufffd. FuzzAppendJSONString
// holds it to json.Marshal.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendJSONStringBody(b, s)
	return append(b, '"')
}

// appendJSONStringBody appends s as appendJSONString does, with no
// quotes around it. Each escape is of one character (a byte that is not
// UTF-8 is one character too), so the body of a+b is the body of a then
// that of b when b starts with ASCII.
func appendJSONStringBody(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}

// appendWho appends w as json.Marshal writes w.String(), with no string
// made: the holder of each claim of a checkpoint.
func appendWho(b []byte, w name.Who) []byte {
	b = append(b, '"')
	b = appendJSONStringBody(b, w.User)
	if w.Session != "" {
		b = append(b, '/')
		b = appendJSONStringBody(b, w.Session)
	}
	return append(b, '"')
}
