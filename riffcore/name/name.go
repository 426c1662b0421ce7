// Package name holds the names of riff: the URI of a session or a person,
// who a caller is, where it works, the names of threads, repositories and
// items.
//
// It only parses, checks and formats names. It never reads the state of a
// riff, a clock or a file.
//
// # Basics
//
// A session URI names who (the user and the session ID), where (the host,
// the repository and the worktree) and what (the claims and the lead mark):
//
//	riff://mike@pangolin/como-technologies/riff?session=a6cf&claim=issue-6&lead=true#issue-6
//
// The person form has no repository and no session: riff://mike@pangolin.
//
// # Caveats
//
// A URI keeps each query part that this build does not know, as it came
// ([SessionURI.Unknown]). Such a part gives no mark: no lead and no claim.
// A record that holds one counts as skipped.
package name

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/como-technologies/riff/riffcore/quote"
)

// MaxNameLen is the longest user, host, owner, repository, worktree,
// session ID or item that a name may hold.
const MaxNameLen = 128

// Error is a name that does not parse. Part names the part that is wrong,
// for example "host" or "query part claim".
type Error struct {
	Part  string
	Value string
	Why   string
}

func (e *Error) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("bad %s: %s", e.Part, e.Why)
	}
	return fmt.Sprintf("bad %s %s: %s", e.Part, quote.Input(e.Value), e.Why)
}

// ErrBadName is the error that each bad name wraps, for errors.Is.
var ErrBadName = errors.New("bad name")

func (e *Error) Unwrap() error { return ErrBadName }

func bad(part, value, why string) error { return &Error{Part: part, Value: value, Why: why} }

// wordPunct are the bytes other than ASCII letters and digits that a
// word of a name may hold.
const wordPunct = "._-"

// wordLow and wordHigh are the bytes of a word (ASCII letters, digits and
// wordPunct) as two masks: bit c of wordLow for c < 64, bit c-64 of
// wordHigh for the others under 128. TestWordMasksAreTheWordBytes holds
// them to the rule.
const (
	wordLow  = 1<<'-' | 1<<'.' | (1<<10-1)<<'0'
	wordHigh = (1<<26-1)<<('A'-64) | 1<<('_'-64) | (1<<26-1)<<('a'-64)
)

// checkWord checks one part of a name: not empty, at most MaxNameLen
// bytes, and only ASCII letters, digits and the bytes of wordPunct.
func checkWord(part, s string) error {
	if s == "" {
		return bad(part, s, "it is empty")
	}
	if len(s) > MaxNameLen {
		return bad(part, s, fmt.Sprintf("it has more than %d characters", MaxNameLen))
	}
	if plainWord(s) {
		return nil
	}
	for _, r := range s {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			continue
		}
		if strings.ContainsRune(wordPunct, r) {
			continue
		}
		return bad(part, s, fmt.Sprintf("it holds the character %q", r))
	}
	return nil
}

// plainWord says whether s holds only the bytes of a word: the fast path
// of checkWord, which finds the error otherwise. A decode checks several
// words a record, so it tests 8 bytes at once (wordBytes8), and then
// each byte left by the masks.
func plainWord(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if !wordBytes8(x) {
			return false
		}
	}
	for ; i < len(s); i++ {
		c := s[i]
		var in uint64
		switch {
		case c < 64:
			in = wordLow >> c
		case c < 128:
			in = wordHigh >> (c - 64)
		}
		if in&1 == 0 {
			return false
		}
	}
	return true
}

// wordBytes8 says whether each of the 8 bytes of x is a byte of a word.
// For bytes under 128, (x+lo*(128-a))&^(x+lo*(127-b))&hi marks each
// byte from a to b, with no carry from one byte to the next; a letter is
// a byte from 'a' to 'z' once its bit 0x20 is set.
func wordBytes8(x uint64) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	if x&hi != 0 {
		return false
	}
	between := func(x uint64, a, b byte) uint64 {
		return (x + lo*uint64(128-a)) &^ (x + lo*uint64(127-b)) & hi
	}
	under := x ^ lo*'_'
	in := between(x, '0', '9') | between(x|lo*0x20, 'a', 'z') | between(x, '-', '.') | ^(under+lo*127)&hi
	return in == hi
}

// CheckUser checks a user name, as $USER gives it.
func CheckUser(s string) error { return checkWord("user", s) }

// CheckHost checks a host name.
func CheckHost(s string) error { return checkWord("host", s) }

// CheckSessionID checks a session ID: the ID of the agent tool, often a
// UUID.
func CheckSessionID(s string) error { return checkWord("session ID", s) }

// CheckRelay checks the instance ID of a relay (wire.End): a word of
// letters, digits and "-_." as a session ID.
func CheckRelay(s string) error { return checkWord("relay", s) }

// CheckWorktree checks the name of a worktree.
func CheckWorktree(s string) error { return checkWord("worktree", s) }

// Item is the name of a work item, for example issue-12, verify-issue-12
// or task-iroh-listener. Items are exact names: a hold of issue-12 does
// not hold verify-issue-12.
type Item string

// ParseItem checks an item name.
func ParseItem(s string) (Item, error) {
	if err := checkWord("item", s); err != nil {
		return "", err
	}
	return Item(s), nil
}

// Verify is the item of the verify of i: verify-issue-12 for issue-12.
func (i Item) Verify() Item { return "verify-" + i }

// Who is the part of a caller that never changes: its user, and its
// session ID. A person has no session ID.
type Who struct {
	User    string
	Session string
}

// IsPerson says whether w is a person: a caller with no session.
func (w Who) IsPerson() bool { return w.Session == "" }

// String gives the short form of the cause of a record: mike/a6cf for a
// session, mike for a person.
func (w Who) String() string {
	if w.Session == "" {
		return w.User
	}
	return w.User + "/" + w.Session
}

// ParseWho reads the short form user/session, or user for a person.
func ParseWho(s string) (Who, error) {
	user, session, found := strings.Cut(s, "/")
	if err := CheckUser(user); err != nil {
		return Who{}, err
	}
	if !found {
		return Who{User: user}, nil
	}
	if err := CheckSessionID(session); err != nil {
		return Who{}, err
	}
	return Who{User: user, Session: session}, nil
}

// Short is the start of the session ID that people see: its first 4
// characters (a6cf), or the user for a person.
func (w Who) Short() string {
	if w.Session == "" {
		return w.User
	}
	if len(w.Session) > 4 {
		return w.Session[:4]
	}
	return w.Session
}

// Place is where a caller works: its host, its repository and its
// worktree. It changes when a session moves.
type Place struct {
	Host     string
	Repo     Repo
	Worktree string
}

// MarshalText writes the short form user/session.
func (w Who) MarshalText() ([]byte, error) { return []byte(w.String()), nil }

// UnmarshalText reads the short form user/session, or user.
func (w *Who) UnmarshalText(b []byte) error {
	parsed, err := ParseWho(string(b))
	if err != nil {
		return err
	}
	*w = parsed
	return nil
}

// jsonString reads a JSON string: the fast path for a string with no
// escape, and encoding/json for each other.
func jsonString(b []byte) (string, error) {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		inner := b[1 : len(b)-1]
		simple := true
		for _, c := range inner {
			if c == '\\' || c == '"' || c < 0x20 || c >= 0x80 {
				simple = false
				break
			}
		}
		if simple {
			return string(inner), nil
		}
	}
	var s string
	err := json.Unmarshal(b, &s)
	return s, err
}
