package record

import (
	"bytes"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/selector"
)

//go:generate go run ./internal/genbodies

// The fast path of Decode.
//
// decodeFast reads a line with the scanner of scan.go, a reader for each
// type of the fields of a record (this file) and, for the body of each
// kind, a reader generated from the struct tags of its type
// (bodies_gen.go, by go generate; the test of internal/genbodies fails
// while it is not what the tags give), with no reflection. It reads only the
// forms that it can read exactly as decodeSlow (encoding/json,
// checkFields and the UnmarshalJSON of each type) would: JSON that it
// checks byte for byte as it reads it, strings with no escape, each key
// once and in its own case, numbers with no fraction and no exponent,
// true and false, and values that read with no error and as no value of
// a later build. For each other form (an escape, null, a key twice or in
// another case, a value that is other or that does not read...) it
// reports false and Decode takes the slow path, which stays the
// reference and gives the errors. The differential tests and
// FuzzFastDecodeAgrees check that the two agree.

// envelopeKeys are the keys of the envelope.
const envelopeKeys = "position written_at_ms by command call change"

// envelopeIndex is wordIndex(envelopeKeys, key) as a switch, which the
// compiler makes a few compares: each record reads six keys of the
// envelope, and the search of the list was a tenth of a decode
// (docs/performance.md, "Issue 23, eighth pass").
// TestEnvelopeIndexIsWordIndex holds the two together.
func envelopeIndex(key []byte) int {
	switch string(key) {
	case "position":
		return 0
	case "written_at_ms":
		return 1
	case "by":
		return 2
	case "command":
		return 3
	case "call":
		return 4
	case "change":
		return 5
	}
	return -1
}

// decodeFast reads a line on the fast path; ok is false for each line
// that it does not read exactly as decodeSlow, which then decides.
func decodeFast(line []byte, d *Decoder) (rec Record, ok bool) {
	if rec, ok := decodeEncoded(line, d); ok {
		return rec, true
	}
	return decodeKeys(line, d)
}

// decodeEncoded reads the envelope of a line in the form that Encode
// writes: its keys in their order (by, command and call when they are
// there), each once, with no white space, and nothing after it. ok is
// false for each other form, which decodeKeys reads by its keys. It
// reads each value with the reader that decodeKeys takes for its key, so
// it reads a line as decodeKeys does; it only finds the keys with no
// search (docs/performance.md, "Issue 23, tenth pass").
func decodeEncoded(line []byte, d *Decoder) (rec Record, ok bool) {
	r := reader{b: line, d: d}
	if !r.exactly(`{"position":`) {
		return Record{}, false
	}
	if rec.Position, ok = r.digits(); !ok || !r.exactly(`,"written_at_ms":`) {
		return Record{}, false
	}
	if rec.WrittenAtMs, ok = r.int64(); !ok {
		return Record{}, false
	}
	if r.exactly(`,"by":`) {
		if rec.By, ok = r.by(); !ok {
			return Record{}, false
		}
	}
	if r.exactly(`,"command":`) {
		if rec.Command, ok = r.name(); !ok {
			return Record{}, false
		}
	}
	if r.exactly(`,"call":`) {
		if rec.Call, ok = r.str(); !ok {
			return Record{}, false
		}
	}
	if !r.exactly(`,"change":`) {
		return Record{}, false
	}
	start := r.i
	if rec.Change, ok = r.change(); !ok || r.i != len(r.b)-1 || r.b[r.i] != '}' {
		return Record{}, false
	}
	if o, isOther := rec.Change.(Other); isOther {
		o.Raw = bytes.Clone(r.b[start:r.i])
		rec.Change = o
	}
	return rec, true
}

// decodeKeys reads a line by the keys of its envelope, in any order.
func decodeKeys(line []byte, d *Decoder) (rec Record, ok bool) {
	r := reader{b: line, d: d}
	var seen keySet
	var change []byte
	ok = r.object(func(key []byte) bool {
		i := envelopeIndex(key)
		if i < 0 {
			return r.unknown(key, envelopeKeys, "")
		}
		if !seen.add(i) {
			return false
		}
		var ok bool
		switch string(key) {
		case "position":
			rec.Position, ok = r.uint64()
		case "written_at_ms":
			rec.WrittenAtMs, ok = r.int64()
		case "by":
			rec.By, ok = r.by()
		case "command":
			rec.Command, ok = r.name()
		case "call":
			rec.Call, ok = r.str()
		case "change":
			start := r.space()
			rec.Change, ok = r.change()
			change = r.b[start:r.i]
		}
		return ok
	})
	if !ok || change == nil || r.space() != len(r.b) {
		return Record{}, false
	}
	if o, isOther := rec.Change.(Other); isOther {
		o.Raw = bytes.Clone(change)
		rec.Change = o
	}
	return rec, true
}

// change reads {"KIND":{...}}: a kind that this build does not know
// reads as Other, with no Raw yet (the caller sets it).
func (r *reader) change() (c Change, ok bool) {
	n := 0
	ok = r.object(func(key []byte) bool {
		if n++; n > 1 {
			return false
		}
		if _, _, known := bodyKeys(Kind(key)); known {
			c, ok = r.changeBody(Kind(key))
			return ok
		}
		for _, k := range Kinds() {
			if string(k) == string(key) {
				return false // a kind that the fast path does not read
			}
		}
		c = Other{Name: Kind(key)}
		return r.skip()
	})
	return c, ok && n == 1
}

// The readers of the types of the fields of the bodies, one for each
// type: the generated readers of the kinds call them by the type of each
// field (readerOf in internal/genbodies).

// reason reads a Reason as its UnmarshalJSON does: one of a later build
// reads as ReasonOther.
func (r *reader) reason() (Reason, bool) { return knownOr(r, ParseReason, ReasonOther) }

// messageKind reads a MessageKind as its UnmarshalJSON does: one of a
// later build reads as MessageOther.
func (r *reader) messageKind() (MessageKind, bool) {
	return knownOr(r, ParseMessageKind, MessageOther)
}

// knownOr reads a string, interned, as a value of this build (parse),
// or else as other.
func knownOr[T ~string](r *reader, parse func(string) (T, error), other T) (T, bool) {
	s, ok := r.name()
	if !ok {
		return "", false
	}
	if v, _ := parse(s); v != "" {
		return v, true
	}
	return other, true
}

// pauseState reads a PauseState of this build.
func (r *reader) pauseState() (PauseState, bool) {
	s, _ := r.text()
	v := PauseState(s)
	return v, s != nil && (v == Paused || v == Running)
}

// whoRef reads a *name.Who.
func (r *reader) whoRef() (*name.Who, bool) {
	w, ok := r.who()
	if !ok {
		return nil, false
	}
	return &w, true
}

// repo reads a name.Repo as its UnmarshalJSON does.
func (r *reader) repo() (name.Repo, bool) {
	s, ok := r.str()
	if !ok {
		return "", false
	}
	v, err := name.ParseRepo(s)
	return v, err == nil
}

// int reads an int with no fraction and no exponent that fits.
func (r *reader) int() (int, bool) {
	n, ok := r.int64()
	return int(n), ok && int64(int(n)) == n
}

// idleWorkersRef reads a *IdleWorkers (readIdleWorkers).
func (r *reader) idleWorkersRef() (*IdleWorkers, bool) {
	w, ok := r.readIdleWorkers()
	return &w, ok
}

// uri reads a name.SessionURI as its UnmarshalJSON does. A URI with
// no slice (no claim and no unknown part) is kept by the decoder, so
// the records that read it share only its strings.
func (r *reader) uri() (name.SessionURI, bool) {
	s, _ := r.text()
	if len(s) == 0 {
		return name.SessionURI{}, s != nil
	}
	u, err := parsedName(r.d, uris, s, name.ParseURI, bare)
	return u, err == nil
}

func uris(d *Decoder) *memo[name.SessionURI] { return &d.uris }

// bare says whether u holds no slice that a record could share.
func bare(u name.SessionURI) bool { return u.Claims == nil && u.Unknown == nil }

// parsed reads a string and parses it with parse, from the table of the
// decoder (at) when its text came before, as the UnmarshalJSON of its
// type does.
func parsed[T any](r *reader, at func(*Decoder) *memo[T], parse func(string) (T, error)) (T, bool) {
	s, _ := r.text()
	if s == nil {
		var zero T
		return zero, false
	}
	v, err := parsedName(r.d, at, s, parse, nil)
	return v, err == nil
}

func (r *reader) thread() (name.Thread, bool) {
	return parsed(r, func(d *Decoder) *memo[name.Thread] { return &d.threads }, name.ParseThread)
}

func (r *reader) item() (name.Item, bool) {
	return parsed(r, func(d *Decoder) *memo[name.Item] { return &d.items }, name.ParseItem)
}

func (r *reader) who() (name.Who, bool) {
	return parsed(r, func(d *Decoder) *memo[name.Who] { return &d.whos }, name.ParseWho)
}

func (r *reader) whoList() ([]name.Who, bool) {
	list := []name.Who{}
	ok := r.array(func() bool {
		w, ok := r.who()
		list = append(list, w)
		return ok
	})
	return list, ok
}

func (r *reader) selectors() ([]selector.Selector, bool) {
	list := []selector.Selector{}
	ok := r.array(func() bool {
		s, ok := r.selector()
		list = append(list, s)
		return ok
	})
	return list, ok
}

// selectorKeys are the fields of a selector of this build.
const selectorKeys = "user session host repo worktree claim lead person"

// selector reads a selector of this build, as its UnmarshalJSON does: a
// non-empty string for each text field, a repository and an item that
// parse, true or false. Each other form is a selector other, which the
// fast path does not read.
func (r *reader) selector() (selector.Selector, bool) {
	var s selector.Selector
	var seen keySet
	ok := r.object(func(key []byte) bool {
		if !seen.add(wordIndex(selectorKeys, key)) {
			return false
		}
		if k := string(key); k == "lead" || k == "person" {
			b, ok := r.boolean()
			if k == "lead" {
				s.Lead = &b
			} else {
				s.Person = &b
			}
			return ok
		}
		text, ok := r.str()
		if !ok || text == "" {
			return false
		}
		var err error
		switch string(key) {
		case "user":
			s.User = text
		case "session":
			s.Session = text
		case "host":
			s.Host = text
		case "repo":
			s.Repo, err = name.ParseRepo(text)
		case "worktree":
			s.Worktree = text
		case "claim":
			s.Claim, err = name.ParseItem(text)
		}
		return err == nil
	})
	return s, ok
}

// scope reads "riff" or {"repository":"OWNER/REPO"}, as Scope's
// UnmarshalJSON does; each other form is a scope other, which the fast
// path does not read.
func (r *reader) scope() (Scope, bool) {
	if r.literal(`"riff"`) {
		return RiffScope(), true
	}
	var repo name.Repo
	n := 0
	ok := r.object(func(key []byte) bool {
		if n++; n > 1 || string(key) != "repository" {
			return false
		}
		s, ok := r.str()
		if !ok {
			return false
		}
		var err error
		repo, err = name.ParseRepo(s)
		return err == nil && repo.InGit()
	})
	return RepoScope(repo), ok && n == 1
}

// by reads the cause as By's UnmarshalJSON does. A cause whose bytes up
// to its first '}' came before is the decoder's: the records share it
// (a *By never changes).
func (r *reader) by() (*By, bool) {
	start := r.space()
	n := bytes.IndexByte(r.b[start:], '}') + 1
	if r.d == nil || n == 0 || n > internMax {
		return r.readBy()
	}
	raw := r.b[start : start+n]
	h := r.d.hash(raw)
	if e := r.d.causes.get(h, raw); e != nil {
		r.i = start + n
		return e.value, true
	}
	// The table holds the cause: its text is not interned as well.
	plain := *r
	plain.d = nil
	b, ok := plain.readBy()
	r.i = plain.i
	if ok && r.i == start+n && r.d.causes.missed(h) {
		r.d.causes.put(h, string(raw), b)
	}
	return b, ok
}

// readBy reads the cause; each form that reads as ClassOther is left to
// the slow path.
func (r *reader) readBy() (*By, bool) {
	var b *By
	n := 0
	ok := r.object(func(key []byte) bool {
		if n++; n > 1 {
			return false
		}
		if string(key) == "server" {
			b = &By{Class: ClassServer}
			return r.literal("true")
		}
		s, ok := r.name()
		if !ok {
			return false
		}
		switch string(key) {
		case "session":
			w, err := name.ParseWho(s)
			b = &By{Class: ClassSession, Who: w}
			return err == nil && !w.IsPerson()
		case "person", "sign_in":
			b = &By{Class: ClassPerson, Who: name.Who{User: s}}
			if key[0] == 's' {
				b.Class = ClassSignIn
			}
			return name.CheckUser(s) == nil
		}
		return false
	})
	return b, ok && n == 1
}
