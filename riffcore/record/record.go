// Package record holds the records of the log of a riff: the envelope
// that each writer and each reader shares, each kind of change with its
// fields, and the registry of the kinds and the commands of this release.
//
// It only encodes and decodes. It never applies a record: that is the
// work of riffstate.
//
// # Values of a later build
//
// The format changes by rules (docs/state.md, "Decisions where the seeds
// are silent": a value of a later build). A reader of this build meets the values of later builds
// this way; each line names the type and its rule:
//
//   - a change kind it does not know: [Other], with the raw JSON; the
//     record counts as skipped.
//   - [Reason] of session_started: "other" for a value it does not know;
//     skipped.
//   - [Scope] of pause_set: Other with the raw JSON; skipped.
//   - [PauseState]: paused or running; the set never grows, another
//     value does not read.
//   - [MessageKind] of posted: "other"; skipped.
//   - each selector of posted: selector.Selector.Other; skipped.
//   - the class of [By]: ClassOther with the raw JSON; skipped.
//   - a session URI with a query part it does not know: kept in
//     name.SessionURI.Unknown; skipped.
//   - a field it does not know: ignored (a new field's default means "as
//     before"). So a new field of a change gets omitempty: a field with
//     no omitempty must be in the change, or the record does not read.
//   - the command of the envelope: text; a command it does not know is
//     kept as text.
//
// # A new kind or a new field
//
// A kind is its type in changes.go, its constant in [Kinds] and its case
// in decodeKind; then run go generate in this folder, which writes the
// reader of its body on the fast path of [Decode] from its struct tags
// (bodies_gen.go). A field of a type with no reader of the fast path
// leaves the kind to the slow path (encoding/json), which reads it all
// the same; internal/genbodies names the types that have a reader.
package record

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/como-technologies/riff/riffcore/name"
)

// Record is one line of the log: the envelope and its change.
type Record struct {
	// Position is the place of the record in the one log: 1, 2, 3...
	Position uint64 `json:"position"`
	// WrittenAtMs is the time that the engine gave the record, in Unix
	// milliseconds. apply reads time only from here.
	WrittenAtMs int64 `json:"written_at_ms"`
	// By is the caller whose command made the record; nil when the cause
	// is not known.
	By *By `json:"by,omitempty"`
	// Command is the kind of the command that made the record.
	Command string `json:"command,omitempty"`
	// Call is the call ID of the command, when its call has one.
	Call string `json:"call,omitempty"`
	// Change is what happened.
	Change Change `json:"-"`
}

// Change is one change of a record: a type of this package for each kind
// that this build knows, or [Other].
type Change interface {
	// Kind is the name of the change in the log. Never renamed.
	Kind() Kind
	// hasOther says whether the change holds a value that this build
	// read as other.
	hasOther() bool
}

// Kind is the name of a change kind, in the past tense.
type Kind string

// Skipped says whether a reader of this build skips the record: a kind
// that it does not know, or a value that it read as other (in the change
// or in by), or a session URI with a part that it does not know. A build
// writes no checkpoint past such a record.
func (r Record) Skipped() bool {
	if r.Change == nil {
		return true
	}
	if r.By != nil && r.By.Class == ClassOther {
		return true
	}
	return r.Change.hasOther()
}

type envelope struct {
	Position    uint64          `json:"position"`
	WrittenAtMs int64           `json:"written_at_ms"`
	By          *By             `json:"by,omitempty"`
	Command     string          `json:"command,omitempty"`
	Call        string          `json:"call,omitempty"`
	Change      json.RawMessage `json:"change"`
}

// MarshalJSON writes the record as one line of the log, with the change
// as {"KIND":{...}}.
func (r Record) MarshalJSON() ([]byte, error) {
	if r.Change == nil {
		return nil, errors.New("record: no change")
	}
	change, err := MarshalChange(r.Change)
	if err != nil {
		return nil, err
	}
	line, err := json.Marshal(envelope{r.Position, r.WrittenAtMs, r.By, r.Command, r.Call, change})
	if err != nil {
		return nil, err
	}
	return rawReplacement(line), nil
}

// UnmarshalJSON reads one line of the log. A change kind that this build
// does not know reads as [Other]; the error is only for a line that does
// not read as a record.
func (r *Record) UnmarshalJSON(b []byte) error {
	e, ok := fastEnvelope(b)
	if !ok {
		if err := json.Unmarshal(b, &e); err != nil {
			return fmt.Errorf("record: %w", err)
		}
	}
	if e.Change == nil {
		return fmt.Errorf("record at position %d: no change", e.Position)
	}
	change, err := UnmarshalChange(e.Change)
	if err != nil {
		return fmt.Errorf("record at position %d: %w", e.Position, err)
	}
	*r = Record{e.Position, e.WrittenAtMs, e.By, e.Command, e.Call, change}
	return nil
}

// fastEnvelope reads the envelope of a record with objectFields: the
// fast path of a replay. It reports false for each form that it does
// not read exactly as encoding/json would; the caller then takes the
// slow path, which gives the error.
func fastEnvelope(b []byte) (envelope, bool) {
	var e envelope
	keys, values, ok := objectFields(b)
	if !ok {
		return e, false
	}
	for i, key := range keys {
		v := values[i]
		null := string(v) == "null"
		var err error
		switch {
		case strings.EqualFold(key, "position"):
			if !null {
				e.Position, err = strconv.ParseUint(string(v), 10, 64)
			}
		case strings.EqualFold(key, "written_at_ms"):
			if !null {
				e.WrittenAtMs, err = strconv.ParseInt(string(v), 10, 64)
			}
		case strings.EqualFold(key, "by"):
			e.By = nil
			if !null {
				e.By = &By{}
				err = e.By.UnmarshalJSON(v)
			}
		case strings.EqualFold(key, "command"):
			e.Command, err = fastString(v, null)
		case strings.EqualFold(key, "call"):
			e.Call, err = fastString(v, null)
		case strings.EqualFold(key, "change"):
			e.Change = nil
			if !null {
				e.Change = v
			}
		}
		if err != nil {
			return envelope{}, false
		}
	}
	return e, true
}

func fastString(v []byte, null bool) (string, error) {
	if null {
		return "", nil
	}
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && !bytes.ContainsAny(v[1:len(v)-1], "\\\"") {
		inner := v[1 : len(v)-1]
		for _, c := range inner {
			if c < 0x20 || c >= 0x80 {
				var s string
				err := json.Unmarshal(v, &s)
				return s, err
			}
		}
		return string(inner), nil
	}
	var s string
	err := json.Unmarshal(v, &s)
	return s, err
}

// Decode reads one line of the log. It takes the fast path (fast.go),
// and the slow path for each line that the fast path does not read.
func Decode(line []byte) (Record, error) {
	if r, ok := decodeFast(line, nil); ok {
		return r, nil
	}
	return decodeSlow(line)
}

// decodeSlow reads one line of the log with encoding/json and the
// UnmarshalJSON of each type: the reference of the fast path.
func decodeSlow(line []byte) (Record, error) {
	if json.Valid(line) {
		var r Record
		err := r.UnmarshalJSON(line)
		return r, err
	}
	var r Record
	err := json.Unmarshal(line, &r)
	return r, err
}

// MarshalChange writes a change as {"KIND":{...}}.
func MarshalChange(c Change) ([]byte, error) {
	if o, ok := c.(Other); ok {
		return o.Raw, nil
	}
	body, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("change %s: %w", c.Kind(), err)
	}
	body = rawReplacement(body)
	key, _ := json.Marshal(string(c.Kind()))
	out := make([]byte, 0, len(key)+len(body)+3)
	out = append(out, '{')
	out = append(out, key...)
	out = append(out, ':')
	out = append(out, body...)
	out = append(out, '}')
	return out, nil
}

// UnmarshalChange reads {"KIND":{...}}. A kind that this build does not
// know, or a change that is not an object with one field, reads as
// [Other]. The error is only for a known kind whose fields do not read.
func UnmarshalChange(b []byte) (Change, error) {
	keys, values, ok := objectFields(b)
	if !ok || len(keys) != 1 || !json.Valid(b) {
		return Other{Raw: bytes.Clone(b)}, nil
	}
	key, body := keys[0], values[0]
	c, known, err := decodeKind(Kind(key), body)
	switch {
	case !known:
		return Other{Name: Kind(key), Raw: bytes.Clone(b)}, nil
	case err != nil:
		return nil, fmt.Errorf("change %s: %w", key, err)
	}
	return c, nil
}

// decodeAs reads the body of a change of the kind T.
func decodeAs[T Change](body []byte) (Change, bool, error) {
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		return v, true, err
	}
	return v, true, checkFields(reflect.TypeFor[T](), body)
}

// checkFields checks that body holds each field of the struct t that the
// encoder always writes: each field with no omitempty or omitzero, as
// serde asks of the types of riff-core. So a change with no thread, or a
// pause_set with no state, does not read, and each change that reads
// encodes to a line that reads again. A new field of a change gets
// omitempty: its default means "as before".
func checkFields(t reflect.Type, body []byte) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	pt := reflect.PointerTo(t)
	if t.Kind() != reflect.Struct || pt.Implements(reflect.TypeFor[json.Unmarshaler]()) ||
		pt.Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
		return nil // a type with its own decoder checks itself
	}
	keys, values, ok := objectFields(body)
	if !ok {
		return errors.New("it is not an object")
	}
	for i := range t.NumField() {
		f := t.Field(i)
		key, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || key == "-" || key == "" {
			continue
		}
		var raw []byte
		found := false
		for k, name := range keys {
			// encoding/json takes a key of another case too.
			if name == key || strings.EqualFold(name, key) {
				raw, found = values[k], true
			}
		}
		if !found {
			if opts == "" {
				return fmt.Errorf("it has no field %s", key)
			}
			continue
		}
		if string(raw) == "null" && f.Type.Kind() == reflect.Pointer {
			continue
		}
		if err := checkFields(f.Type, raw); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	return nil
}

// Other is a change that this build does not know. It keeps its JSON as
// it came; a record with it counts as skipped.
type Other struct {
	// Name is the kind of the change, when it has the form {"KIND":...}.
	Name Kind
	Raw  json.RawMessage
}

// Kind gives the name of the kind as it came.
func (o Other) Kind() Kind     { return o.Name }
func (o Other) hasOther() bool { return true }

// Class is the class of a caller: who can send which command.
type Class string

// The classes of callers.
const (
	ClassSession Class = "session"
	ClassPerson  Class = "person"
	ClassSignIn  Class = "sign_in"
	ClassServer  Class = "server"
	// ClassOther is a class that this build does not know.
	ClassOther Class = "other"
)

// By is the cause of a record: the class of the caller, and who it is.
// A session is {"session":"ann/s1"}, a person {"person":"mike"}, a
// sign-in {"sign_in":"mike"} and the server {"server":true}.
type By struct {
	Class Class
	Who   name.Who
	// Raw keeps the JSON of a class that this build does not know.
	Raw json.RawMessage
}

// BySession, ByPerson and ByServer make the cause of a record.
func BySession(w name.Who) *By { return &By{Class: ClassSession, Who: w} }

// ByPerson is the cause of a command of a person.
func ByPerson(user string) *By { return &By{Class: ClassPerson, Who: name.Who{User: user}} }

// ByServer is the cause of a command of the server.
func ByServer() *By { return &By{Class: ClassServer} }

// String gives the cause as people read it: the session mike/a6cf, the
// person mike, the server.
func (b *By) String() string {
	if b == nil {
		return "a cause that is not known"
	}
	switch b.Class {
	case ClassSession:
		return "the session " + b.Who.String()
	case ClassPerson:
		return "the person " + b.Who.User
	case ClassSignIn:
		return "the sign-in of " + b.Who.User
	case ClassServer:
		return "the server"
	}
	return "a caller of another build"
}

// MarshalJSON writes the cause.
func (b By) MarshalJSON() ([]byte, error) {
	switch b.Class {
	case ClassSession, ClassPerson, ClassSignIn:
		return appendBy(nil, b)
	case ClassServer:
		return []byte(`{"server":true}`), nil
	case ClassOther:
		if b.Raw != nil {
			return b.Raw, nil
		}
	}
	return nil, fmt.Errorf("by: no class")
}

// UnmarshalJSON reads the cause. Each form that this build does not know
// reads as ClassOther with its JSON.
func (b *By) UnmarshalJSON(data []byte) error {
	if !json.Valid(data) {
		return errors.New("by: the bytes are not JSON")
	}
	other := By{Class: ClassOther, Raw: bytes.Clone(data)}
	keys, values, ok := objectFields(data)
	if !ok || len(keys) != 1 {
		*b = other
		return nil
	}
	for i, key := range keys {
		raw := values[i]
		if key == "server" {
			var v bool
			if json.Unmarshal(raw, &v) != nil || !v {
				*b = other
				return nil
			}
			*b = By{Class: ClassServer}
			return nil
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			*b = other
			return nil
		}
		switch key {
		case "session":
			w, err := name.ParseWho(s)
			if err != nil || w.IsPerson() {
				*b = other
				return nil
			}
			*b = By{Class: ClassSession, Who: w}
		case "person", "sign_in":
			if name.CheckUser(s) != nil {
				*b = other
				return nil
			}
			class := ClassPerson
			if key == "sign_in" {
				class = ClassSignIn
			}
			*b = By{Class: class, Who: name.Who{User: s}}
		default:
			*b = other
		}
	}
	return nil
}
