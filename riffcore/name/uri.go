package name

import (
	"bytes"
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
	var hasWorktree bool
	rest, u.Worktree, hasWorktree = strings.Cut(rest, "#")
	if hasWorktree {
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

// appendHead appends the part of u before its query: the scheme,
// user@host, and /repo when u has one.
func (u SessionURI) appendHead(b []byte) []byte {
	b = append(b, Scheme...)
	b = append(b, u.User...)
	b = append(b, '@')
	b = append(b, u.Host...)
	if u.Repo != "" {
		b = append(b, '/')
		b = append(b, u.Repo...)
	}
	return b
}

func (u SessionURI) appendURI(b []byte) []byte {
	if u.User == "" {
		return b
	}
	b = u.appendHead(b)
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

// MarshalJSON writes the URI as a string, as json.Marshal writes its
// String (AppendJSON).
func (u SessionURI) MarshalJSON() ([]byte, error) {
	// Room for the text, the quotes, and the \u0026 of each separator.
	size := len(Scheme) + len(u.User) + len(u.Host) + len(u.Repo) + len(u.Session) + len(u.Worktree) + 40
	for _, c := range u.Claims {
		size += len(c) + 12
	}
	for _, p := range u.Unknown {
		size += len(p) + 6
	}
	return u.AppendJSON(make([]byte, 0, size)), nil
}

// AppendJSON appends the URI as a JSON string, byte for byte what
// json.Marshal writes for its String: the & of each separator as \u0026.
// It writes each part once, straight into dst: the URI of a session with
// many claims is long, and a reply carries it (docs/performance.md, "The
// pile-up").
func (u SessionURI) AppendJSON(dst []byte) []byte {
	if out, ok := u.appendJSON(dst, u.Claims, nil, u.Lead); ok {
		return out
	}
	// Rare (a part that JSON escapes, as a query part this build does not
	// know may hold): json.Marshal writes it.
	b, _ := json.Marshal(u.String()) // a string always encodes
	return append(dst, b...)
}

// AppendJSONWith appends the JSON string of u with the marks of a
// session in place of its own: claims, the JSON of its claims as
// [AppendClaimJSON] writes them one after the other, and lead. It writes
// what u.With(items, lead).AppendJSON writes, with no copy of the items:
// a caller that keeps the JSON of the claims of a session writes its URI
// at the cost of a copy of bytes. ok is false, with dst as it came, when
// a part of u needs an escape; then AppendJSON of u.With writes it.
func (u SessionURI) AppendJSONWith(dst, claims []byte, lead bool) (out []byte, ok bool) {
	return u.appendJSON(dst, nil, claims, lead)
}

// AppendClaimJSON appends one claim of a URI as a JSON string holds it
// after the session: \u0026claim=ITEM. ok is false, with dst as it came,
// when the item needs an escape.
func AppendClaimJSON(dst []byte, item Item) (out []byte, ok bool) {
	if !jsonPlain(string(item)) {
		return dst, false
	}
	dst = append(dst, jsonAmpersand+"claim="...)
	return append(dst, item...), true
}

// jsonAmpersand is the & of a separator as json.Marshal writes it.
const jsonAmpersand = `\u0026`

// appendJSON appends the JSON string of u with the claims items, then
// the claims in JSON (of AppendClaimJSON), and the lead mark lead, in
// place of its own marks. ok is false, with dst as it came, when a part
// needs an escape other than the \u0026 of the separators.
func (u SessionURI) appendJSON(dst []byte, items []Item, claims []byte, lead bool) (out []byte, ok bool) {
	if u.User == "" {
		return append(dst, `""`...), true // String gives no text
	}
	if !jsonPlain(u.User) || !jsonPlain(u.Host) || !jsonPlain(string(u.Repo)) || !jsonPlain(u.Session) || !jsonPlain(u.Worktree) {
		return dst, false
	}
	start := len(dst)
	dst = u.appendHead(append(dst, '"'))
	// first: no part of the query yet, so the next one starts with ?.
	first := true
	if u.Session != "" {
		dst = append(dst, "?session="...)
		dst = append(dst, u.Session...)
		first = false
	}
	for _, item := range items {
		if !jsonPlain(string(item)) {
			return dst[:start], false
		}
		dst = appendSeparator(dst, first)
		dst = append(dst, "claim="...)
		dst = append(dst, item...)
		first = false
	}
	if len(claims) > 0 {
		if first {
			// The first part: ? in place of the \u0026 of the first claim.
			rest, ok := bytes.CutPrefix(claims, []byte(jsonAmpersand))
			if !ok {
				return dst[:start], false
			}
			dst = append(dst, '?')
			claims = rest
		}
		dst = append(dst, claims...)
		first = false
	}
	if lead {
		dst = appendSeparator(dst, first)
		dst = append(dst, "lead=true"...)
		first = false
	}
	for _, part := range u.Unknown {
		if !jsonPlain(part) {
			return dst[:start], false
		}
		dst = appendSeparator(dst, first)
		dst = append(dst, part...)
		first = false
	}
	if u.Worktree != "" {
		dst = append(dst, '#')
		dst = append(dst, u.Worktree...)
	}
	return append(dst, '"'), true
}

// appendSeparator appends the separator of a part of the query: ? for
// the first, & (as JSON writes it) for each other.
func appendSeparator(dst []byte, first bool) []byte {
	if first {
		return append(dst, '?')
	}
	return append(dst, jsonAmpersand...)
}

// jsonPlain says whether json.Marshal writes s as it is: printable ASCII
// with no quote, backslash, <, > or &.
func jsonPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
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
