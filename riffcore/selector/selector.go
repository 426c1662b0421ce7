// Package selector holds the to selectors of a message: which sessions a
// post wakes.
//
// A selector names one or more fields: user, session, host, repo,
// worktree, claim, lead or person. A session matches a selector when it
// matches each named field. A selector that this build does not know is a
// selector other: it keeps its JSON as it came and matches no session, so
// a field that the build cannot check never makes a selector wider.
//
// The package only decodes, encodes and matches. It never reads the
// state of a riff: the caller gives the URI of the session with its marks.
package selector

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/quote"
)

// Selector is one selector of a to list. A zero field is not named.
type Selector struct {
	User     string    `json:"user,omitempty"`
	Session  string    `json:"session,omitempty"`
	Host     string    `json:"host,omitempty"`
	Repo     name.Repo `json:"repo,omitempty"`
	Worktree string    `json:"worktree,omitempty"`
	Claim    name.Item `json:"claim,omitempty"`
	Lead     *bool     `json:"lead,omitempty"`
	Person   *bool     `json:"person,omitempty"`

	// Other holds the JSON of a selector that this build does not know.
	// Such a selector matches nothing.
	Other json.RawMessage `json:"-"`
}

// IsOther says whether s is a selector that this build does not know.
func (s Selector) IsOther() bool { return s.Other != nil }

// IsEmpty says whether s names no field. Such a selector matches no
// session. (An empty to list is a post "to all": each member reads it,
// and it wakes nobody.)
func (s Selector) IsEmpty() bool {
	return !s.IsOther() && s.User == "" && s.Session == "" && s.Host == "" && s.Repo == "" &&
		s.Worktree == "" && s.Claim == "" && s.Lead == nil && s.Person == nil
}

// Match says whether the session or person u matches each named field of
// s. u carries its marks: its claims and lead=true when it is a live
// lead. A selector other matches nothing.
func (s Selector) Match(u name.SessionURI) bool {
	if s.IsOther() || s.IsEmpty() {
		return false
	}
	if s.User != "" && s.User != u.User {
		return false
	}
	if s.Session != "" && s.Session != u.Session {
		return false
	}
	if s.Host != "" && s.Host != u.Host {
		return false
	}
	if s.Repo != "" && s.Repo != u.Repo {
		return false
	}
	if s.Worktree != "" && s.Worktree != u.Worktree {
		return false
	}
	if s.Claim != "" && !hasClaim(u, s.Claim) {
		return false
	}
	if s.Lead != nil && *s.Lead != u.Lead {
		return false
	}
	if s.Person != nil && *s.Person != u.IsPerson() {
		return false
	}
	return true
}

func hasClaim(u name.SessionURI, item name.Item) bool {
	for _, c := range u.Claims {
		if c == item {
			return true
		}
	}
	return false
}

// Without gives s with no lead field: the fallback of a lead selector
// that matches no live session.
func (s Selector) Without() Selector {
	s.Lead = nil
	return s
}

// knownFields lists the fields that this build knows, with the JSON kind
// of each: a field of another kind makes the selector other.
func knownFields() map[string]byte {
	return map[string]byte{
		"user": '"', "session": '"', "host": '"', "repo": '"', "worktree": '"', "claim": '"',
		"lead": 'b', "person": 'b',
	}
}

// UnmarshalJSON reads a selector. An object with a field or a value that
// this build does not know, and each other form of JSON, reads as a
// selector other with its JSON kept as it came. It fails only on bytes
// that are not JSON.
func (s *Selector) UnmarshalJSON(b []byte) error {
	// A selector as MarshalJSON writes it (each one of a record or of a
	// checkpoint, where most of the decode of a start is selectors) is
	// read by one decode and one encode that gives it back byte for byte:
	// such bytes read the same by the full read below
	// (FuzzUnmarshalIsTheReadOfAnyForm).
	type plain Selector
	var p plain
	if err := json.Unmarshal(b, &p); err == nil {
		if out, err := json.Marshal(p); err == nil && bytes.Equal(out, b) {
			*s = Selector(p)
			return nil
		}
	}
	return s.unmarshalAnyForm(b)
}

// unmarshalAnyForm is UnmarshalJSON of any bytes.
func (s *Selector) unmarshalAnyForm(b []byte) error {
	if !json.Valid(b) {
		return fmt.Errorf("selector: the bytes are not JSON")
	}
	*s = Selector{}
	other := func() error {
		*s = Selector{Other: bytes.Clone(b)}
		return nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil || fields == nil {
		return other()
	}
	known := knownFields()
	for key, raw := range fields {
		kind, ok := known[key]
		if !ok {
			return other()
		}
		switch kind {
		case '"':
			var v string
			if err := json.Unmarshal(raw, &v); err != nil || v == "" {
				return other()
			}
		case 'b':
			var v bool
			if err := json.Unmarshal(raw, &v); err != nil {
				return other()
			}
		}
	}
	type plain Selector
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		// A value of a known field that does not check (a bad repo or
		// claim) is a value this build does not know.
		return other()
	}
	if len(fields) != countNamed(Selector(p)) {
		// Two keys that differ only in case: encoding/json takes either.
		return other()
	}
	*s = Selector(p)
	return nil
}

func countNamed(s Selector) int {
	n := 0
	for _, named := range []bool{s.User != "", s.Session != "", s.Host != "", s.Repo != "", s.Worktree != "", s.Claim != "", s.Lead != nil, s.Person != nil} {
		if named {
			n++
		}
	}
	return n
}

// MarshalJSON writes a known selector with its fields in a fixed order,
// and a selector other as it came.
func (s Selector) MarshalJSON() ([]byte, error) {
	if s.IsOther() {
		return s.Other, nil
	}
	type plain Selector
	return json.Marshal(plain(s))
}

// String gives the selector as people read it: claim=issue-6,lead=true.
// A selector other shows its JSON.
func (s Selector) String() string {
	if s.IsOther() {
		return string(s.Other)
	}
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	add("user", s.User)
	add("session", s.Session)
	add("host", s.Host)
	add("repo", string(s.Repo))
	add("worktree", s.Worktree)
	add("claim", string(s.Claim))
	if s.Lead != nil {
		add("lead", fmt.Sprint(*s.Lead))
	}
	if s.Person != nil {
		add("person", fmt.Sprint(*s.Person))
	}
	return strings.Join(parts, ",")
}

// Parse reads the form of the command line: FIELD=VALUE,FIELD=VALUE. Each
// field must be one that this build knows; the error names the one that
// is not.
func Parse(text string) (Selector, error) {
	var s Selector
	if strings.TrimSpace(text) == "" {
		return s, fmt.Errorf("selector: it is empty; give FIELD=VALUE, for example claim=issue-6")
	}
	for _, part := range strings.Split(text, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || value == "" {
			return Selector{}, fmt.Errorf("selector: %s is not FIELD=VALUE", quote.Input(part))
		}
		var err error
		switch key {
		case "user":
			s.User, err = value, name.CheckUser(value)
		case "session":
			s.Session, err = value, name.CheckSessionID(value)
		case "host":
			s.Host, err = value, name.CheckHost(value)
		case "repo":
			s.Repo, err = name.ParseRepo(value)
		case "worktree":
			s.Worktree, err = value, name.CheckWorktree(value)
		case "claim":
			s.Claim, err = name.ParseItem(value)
		case "lead", "person":
			var b bool
			switch value {
			case "true":
				b = true
			case "false":
			default:
				return Selector{}, fmt.Errorf("selector: %s is true or false, not %s", key, quote.Input(value))
			}
			if key == "lead" {
				s.Lead = &b
			} else {
				s.Person = &b
			}
		default:
			return Selector{}, fmt.Errorf("selector: riff knows no field %s; the fields are user, session, host, repo, worktree, claim, lead and person", quote.Input(key))
		}
		if err != nil {
			return Selector{}, fmt.Errorf("selector: %w", err)
		}
	}
	return s, nil
}

// ParseList reads the selectors of --to: FIELD=VALUE,... for one
// selector. Each flag value gives one selector.
func ParseList(texts []string) ([]Selector, error) {
	var out []Selector
	for _, t := range texts {
		s, err := Parse(t)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// AnyOther says whether a list has a selector other.
func AnyOther(list []Selector) bool {
	for _, s := range list {
		if s.IsOther() {
			return true
		}
	}
	return false
}

// Describe gives a to list as people read it: "all" for an empty list.
func Describe(list []Selector) string {
	if len(list) == 0 {
		return "all"
	}
	parts := make([]string, len(list))
	for i, s := range list {
		parts[i] = s.String()
	}
	return strings.Join(parts, " ")
}
