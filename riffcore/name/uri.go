package name

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
)

// Scheme is the start of each riff URI.
const Scheme = "riff://"

// SessionURI names a session or a person: who, where and what.
//
//	riff://USER@HOST/OWNER/REPO?session=ID&claim=ITEM&lead=true#WORKTREE
//
// The zero value is no URI.
type SessionURI struct {
	User     string
	Host     string
	Repo     Repo
	Session  string
	Claims   []Item
	Lead     bool
	Worktree string
	// Unknown holds each query part that this build does not know, as it
	// came (key=value). It gives no mark.
	Unknown []string
}

// ParseURI reads a session URI or a person URI. The error names the part
// that is wrong.
func ParseURI(s string) (SessionURI, error) {
	var u SessionURI
	rest, ok := strings.CutPrefix(s, Scheme)
	if !ok {
		return u, bad("URI", s, "it does not start with riff://")
	}
	rest, u.Worktree, _ = strings.Cut(rest, "#")
	if strings.Contains(s, "#") {
		if err := CheckWorktree(u.Worktree); err != nil {
			return SessionURI{}, err
		}
	}
	rest, query, hasQuery := strings.Cut(rest, "?")
	authority, path, hasPath := strings.Cut(rest, "/")
	user, host, ok := strings.Cut(authority, "@")
	if !ok {
		return SessionURI{}, bad("URI", s, "it has no USER@HOST")
	}
	if err := CheckUser(user); err != nil {
		return SessionURI{}, err
	}
	if err := CheckHost(host); err != nil {
		return SessionURI{}, err
	}
	u.User, u.Host = user, host
	if hasPath {
		repo, err := ParseRepo(path)
		if err != nil {
			return SessionURI{}, err
		}
		u.Repo = repo
	}
	if hasQuery {
		if err := u.parseQuery(query); err != nil {
			return SessionURI{}, err
		}
	}
	if u.Session == "" && (len(u.Claims) > 0 || u.Lead) {
		return SessionURI{}, bad("URI", s, "only a session holds claims or the lead")
	}
	if u.Session != "" && !hasPath {
		return SessionURI{}, bad("URI", s, "a session names its repository (- outside git)")
	}
	return u, nil
}

func (u *SessionURI) parseQuery(query string) error {
	for more := true; more; {
		// The parts of the query, as strings.Split(query, "&") gives
		// them, with no list.
		var part string
		part, query, more = strings.Cut(query, "&")
		key, value, _ := strings.Cut(part, "=")
		switch key {
		case "session":
			if u.Session != "" {
				return bad("query part session", part, "the URI names two sessions")
			}
			if err := CheckSessionID(value); err != nil {
				return err
			}
			u.Session = value
		case "claim":
			item, err := ParseItem(value)
			if err != nil {
				return bad("query part claim", part, err.Error())
			}
			u.Claims = append(u.Claims, item)
		case "lead":
			switch value {
			case "true":
				u.Lead = true
			case "false":
			default:
				return bad("query part lead", part, "lead is true or false")
			}
		default:
			if key == "" {
				return bad("query part", part, "it has no name")
			}
			if strings.ContainsAny(part, " \t\r\n#") {
				return bad("query part "+key, part, "it holds a space or #")
			}
			if !utf8.ValidString(part) {
				// JSON cannot carry it as it came.
				return bad("query part "+key, part, "it is not UTF-8")
			}
			u.Unknown = append(u.Unknown, part)
		}
	}
	return nil
}

// String formats the URI; ParseURI(u.String()) gives u again.
func (u SessionURI) String() string {
	var buf [128]byte // most URIs fit: one allocation, the string
	return string(u.appendURI(buf[:0]))
}

// AppendText appends the URI as String formats it (encoding.TextAppender).
func (u SessionURI) AppendText(b []byte) ([]byte, error) { return u.appendURI(b), nil }

func (u SessionURI) appendURI(b []byte) []byte {
	if u.User == "" {
		return b
	}
	b = append(b, Scheme...)
	b = append(b, u.User...)
	b = append(b, '@')
	b = append(b, u.Host...)
	if u.Repo != "" {
		b = append(b, '/')
		b = append(b, u.Repo...)
	}
	sep := byte('?')
	if u.Session != "" {
		b = append(b, sep)
		b = append(b, "session="...)
		b = append(b, u.Session...)
		sep = '&'
	}
	for _, c := range u.Claims {
		b = append(b, sep)
		b = append(b, "claim="...)
		b = append(b, c...)
		sep = '&'
	}
	if u.Lead {
		b = append(b, sep)
		b = append(b, "lead=true"...)
		sep = '&'
	}
	for _, part := range u.Unknown {
		b = append(b, sep)
		b = append(b, part...)
		sep = '&'
	}
	if u.Worktree != "" {
		b = append(b, '#')
		b = append(b, u.Worktree...)
	}
	return b
}

// IsZero says whether u names nobody.
func (u SessionURI) IsZero() bool { return u.User == "" }

// Who gives the user and the session ID.
func (u SessionURI) Who() Who { return Who{User: u.User, Session: u.Session} }

// Place gives the host, the repository and the worktree.
func (u SessionURI) Place() Place { return Place{Host: u.Host, Repo: u.Repo, Worktree: u.Worktree} }

// IsPerson says whether u names a person: no session ID.
func (u SessionURI) IsPerson() bool { return u.Session == "" }

// DefaultThread is the thread of the repository of u, when u is in a git
// repository.
func (u SessionURI) DefaultThread() (Thread, bool) {
	if !u.Repo.InGit() {
		return "", false
	}
	return Thread(u.Repo), true
}

// Bare gives u with no marks: no claims, no lead and no unknown part.
// It names the session and its place.
func (u SessionURI) Bare() SessionURI {
	u.Claims, u.Lead, u.Unknown = nil, false, nil
	return u
}

// At gives u at another place: who stays, where changes.
func (u SessionURI) At(p Place) SessionURI {
	u.Host, u.Repo, u.Worktree = p.Host, p.Repo, p.Worktree
	return u
}

// With gives u with the marks claims and lead.
func (u SessionURI) With(claims []Item, lead bool) SessionURI {
	u.Claims = slices.Clone(claims)
	u.Lead = lead
	return u
}

// Short gives the short form of people: mike@pangolin:riff#issue-6. It
// is not unique.
func (u SessionURI) Short() string {
	if u.User == "" {
		return ""
	}
	s := u.User + "@" + u.Host
	if u.Repo.InGit() {
		s += ":" + u.Repo.Name()
	}
	if u.Worktree != "" {
		s += "#" + u.Worktree
	}
	return s
}

// Named gives the short form with the start of the session ID, as in
// riff who: mike@pangolin:riff#issue-6 (a6cf).
func (u SessionURI) Named() string {
	if u.Session == "" {
		return u.Short()
	}
	return u.Short() + " (" + u.Who().Short() + ")"
}

// Equal says whether u and v are the same URI, marks and all.
func (u SessionURI) Equal(v SessionURI) bool { return u.String() == v.String() }

// MarshalJSON writes the URI as a string. It writes the text once into
// a buffer of about its size and escapes it there, from its end: the URI
// of a session with many claims is long, and a reply carries it
// (docs/performance.md, "The pile-up").
func (u SessionURI) MarshalJSON() ([]byte, error) {
	// Room for the text, the quotes, and the \u0026 of each separator.
	size := len(Scheme) + len(u.User) + len(u.Host) + len(u.Repo) + len(u.Session) + len(u.Worktree) + 40
	for _, c := range u.Claims {
		size += len(c) + 12
	}
	for _, p := range u.Unknown {
		size += len(p) + 6
	}
	out := make([]byte, 1, size)
	out[0] = '"'
	out = u.appendURI(out)
	special := 0
	for _, c := range out[1:] {
		switch {
		case c == '<' || c == '>' || c == '&':
			special++
		case c < 0x20 || c > 0x7e || c == '"' || c == '\\':
			// Rare (a part this build does not know): json.Marshal
			// escapes it.
			return json.Marshal(string(out[1:]))
		}
	}
	// As json.Marshal writes them: the & of each claim, mostly. Each
	// takes 6 bytes in place of 1; the bytes move from the end.
	n := len(out)
	out = append(out, make([]byte, 5*special)...)
	const hex = "0123456789abcdef"
	for i, j := n-1, len(out); special > 0; i-- {
		c := out[i]
		if c == '<' || c == '>' || c == '&' {
			j -= 6
			out[j], out[j+1], out[j+2], out[j+3], out[j+4], out[j+5] = '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF]
			special--
		} else {
			j--
			out[j] = c
		}
	}
	return append(out, '"'), nil
}

// UnmarshalJSON reads the URI from a string.
func (u *SessionURI) UnmarshalJSON(b []byte) error {
	s, err := jsonString(b)
	if err != nil {
		return bad("URI", string(b), "it is not a JSON string")
	}
	if s == "" {
		*u = SessionURI{}
		return nil
	}
	parsed, err := ParseURI(s)
	if err != nil {
		return err
	}
	*u = parsed
	return nil
}

// MarshalText writes the URI, for map keys and flags.
func (u SessionURI) MarshalText() ([]byte, error) { return u.appendURI(nil), nil }
