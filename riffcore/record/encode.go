package record

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/como-technologies/riff/riffcore/name"
)

// Encode writes one line of the log, with no line break: the same bytes
// as json.Marshal of the record (which stays the reference: the
// differential tests and FuzzEncodeAgrees check that the two agree).
//
// It writes the envelope and the cause by hand, and the change by hand
// for the kinds of the work of sessions with plain fields (appendChange)
// or with MarshalChange, so that a record is compacted and checked once
// and not three times; a record with a value of a later build (a change
// or a cause read as other) takes the path of encoding/json.
func Encode(r Record) ([]byte, error) {
	if r.Change == nil {
		return nil, errors.New("record: no change")
	}
	if _, other := r.Change.(Other); other || (r.By != nil && r.By.Class == ClassOther) {
		return json.Marshal(r)
	}
	var err error
	out := make([]byte, 0, 256+len(r.Command)+len(r.Call))
	out = append(out, `{"position":`...)
	out = strconv.AppendUint(out, r.Position, 10)
	out = append(out, `,"written_at_ms":`...)
	out = strconv.AppendInt(out, r.WrittenAtMs, 10)
	if r.By != nil {
		out = append(out, `,"by":`...)
		if out, err = appendBy(out, *r.By); err != nil {
			return nil, err
		}
	}
	if r.Command != "" {
		out = append(out, `,"command":`...)
		out = appendString(out, r.Command)
	}
	if r.Call != "" {
		out = append(out, `,"call":`...)
		out = appendString(out, r.Call)
	}
	out = append(out, `,"change":`...)
	if out, err = appendChange(out, r.Change); err != nil {
		return nil, err
	}
	return append(out, '}'), nil
}

// appendChange appends {"KIND":{...}} as MarshalChange writes it: by
// hand for the kinds of the work of sessions with plain fields (a claim,
// a release, a join and a leave of a thread), with MarshalChange for
// the others.
func appendChange(out []byte, c Change) ([]byte, error) {
	switch c := c.(type) {
	case Claimed:
		return appendWork(out, KindClaimed, c.Session, c.Thread, &c.Item, false), nil
	case Released:
		return appendWork(out, KindReleased, c.Session, c.Thread, &c.Item, c.MustClear), nil
	case JoinedThread:
		return appendWork(out, KindJoinedThread, c.Session, c.Thread, nil, false), nil
	case LeftThread:
		return appendWork(out, KindLeftThread, c.Session, c.Thread, nil, false), nil
	}
	change, err := MarshalChange(c)
	if err != nil {
		return nil, err
	}
	return append(out, change...), nil
}

// appendWork appends a change of kind k with the fields session and
// thread, then item when it is not nil, then must_clear when it is true
// (the order of the fields of those kinds).
func appendWork(out []byte, k Kind, session name.SessionURI, thread name.Thread, item *name.Item, mustClear bool) []byte {
	out = append(out, `{"`...)
	out = append(out, k...)
	out = append(out, `":{"session":`...)
	out = appendURI(out, session)
	out = append(out, `,"thread":`...)
	out = appendString(out, string(thread))
	if item != nil {
		out = append(out, `,"item":`...)
		out = appendString(out, string(*item))
	}
	if mustClear {
		out = append(out, `,"must_clear":true`...)
	}
	return append(out, `}}`...)
}

// appendBy appends the cause as By.MarshalJSON writes it.
func appendBy(out []byte, b By) ([]byte, error) {
	switch b.Class {
	case ClassSession:
		out = append(out, `{"session":`...)
		out = appendString(out, b.Who.String())
	case ClassPerson:
		out = append(out, `{"person":`...)
		out = appendString(out, b.Who.User)
	case ClassSignIn:
		out = append(out, `{"sign_in":`...)
		out = appendString(out, b.Who.User)
	case ClassServer:
		return append(out, `{"server":true}`...), nil
	default:
		return nil, errors.New("by: no class")
	}
	return append(out, '}'), nil
}

// appendURI appends the URI u as a JSON string exactly as json.Marshal
// writes u: in place when no byte of it needs an escape (the usual URI),
// else by appendString.
func appendURI(out []byte, u name.SessionURI) []byte {
	start := len(out)
	out = append(out, '"')
	out, _ = u.AppendText(out)
	for _, c := range out[start+1:] {
		if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return appendString(out[:start], u.String())
		}
	}
	return append(out, '"')
}

// appendString appends s as a JSON string exactly as json.Marshal writes
// it: with the HTML characters < > & escaped, U+2028 and U+2029 escaped,
// and each byte that is not UTF-8 as the character U+FFFD, raw (the form
// of the log: docs/store.md, "Text that is not UTF-8").
func appendString(out []byte, s string) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			out = append(out, s[start:i]...)
			switch b {
			case '"', '\\':
				out = append(out, '\\', b)
			case '\b':
				out = append(out, '\\', 'b')
			case '\f':
				out = append(out, '\\', 'f')
			case '\n':
				out = append(out, '\\', 'n')
			case '\r':
				out = append(out, '\\', 'r')
			case '\t':
				out = append(out, '\\', 't')
			default:
				out = append(out, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			out = append(out, s[start:i]...)
			out = append(out, string(utf8.RuneError)...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			out = append(out, s[start:i]...)
			out = append(out, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	out = append(out, s[start:]...)
	return append(out, '"')
}
