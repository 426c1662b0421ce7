package riffstate

import (
	"slices"
	"strings"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/quote"
	"github.com/como-technologies/riff/riffcore/wire"
)

// MinIDStart is the shortest start of a session ID that names a session.
const MinIDStart = 4

// base gives the defaults of a command: it needs a member and has no
// signal.
type base struct{}

func (base) Needs(Caller) Role    { return Member }
func (base) Signal(Caller) Signal { return nil }

func bad(format string, args ...any) error { return wire.Refuse(wire.BadRequest, format, args...) }

// threadOf gives the thread that a call names, or the default thread of
// the caller: its repository.
func (v View) threadOf(c Caller, given string, now Now) (name.Thread, error) {
	if given == "" {
		t, ok := c.URI.DefaultThread()
		if !ok {
			return "", bad("%s works outside a git repository: name a thread with -t", c.URI.Short())
		}
		return t, nil
	}
	if rest, ok := strings.CutPrefix(given, "dm:"); ok && !strings.Contains(rest, "+") && !strings.HasPrefix(rest, "~") {
		peer, err := v.ResolveSession(rest, "", now)
		if err != nil {
			return "", err
		}
		return name.DirectWith(c.Who(), peer.URI.Who()), nil
	}
	t, err := name.ParseThreadFor(given, c.Who())
	if err != nil {
		return "", bad("%v", err)
	}
	return t, nil
}

// ResolveSession finds the session that an ID or its start names: at
// least 4 characters, and one session only. With user, only the
// sessions of that user count. The error names each session that fits.
func (v View) ResolveSession(start, user string, now Now) (*Session, error) {
	if err := checkIDStart(start); err != nil {
		return nil, err
	}
	var fits []*Session
	var exact *Session
	var exactKey string
	for key, s := range v.riff.Sessions {
		if user != "" && s.URI.User != user {
			continue
		}
		// Of two sessions with the whole ID (of two users), the first key:
		// the same state gives the same session whatever the map order.
		if s.URI.Session == start && (exact == nil || key < exactKey) {
			exact, exactKey = s, key
		}
		if strings.HasPrefix(s.URI.Session, start) {
			fits = append(fits, s)
		}
	}
	if exact != nil {
		return exact, nil
	}
	switch len(fits) {
	case 0:
		return nil, bad("no session has an ID that starts with %s", start)
	case 1:
		return fits[0], nil
	}
	names := make([]string, len(fits))
	for i, s := range fits {
		names[i] = s.URI.Named() + " " + s.URI.Session
	}
	slices.Sort(names)
	return nil, bad("%d sessions have an ID that starts with %s: %s. Give more of the ID", len(fits), start, strings.Join(names, ", "))
}

// checkIDStart checks the start of a session ID that a call names: at
// least MinIDStart characters, and a session ID as a name (no space, no
// control character, at most 128 characters). The refusal names the
// value as it came, quoted and cut.
func checkIDStart(start string) error {
	if len(start) < MinIDStart {
		return bad("give at least %d characters of the session ID, not %s", MinIDStart, quote.Input(start))
	}
	if err := name.CheckSessionID(start); err != nil {
		return bad("%v", err)
	}
	return nil
}

// named gives the short form of who: the session at its place, or the
// user.
func (v View) named(w name.Who) string {
	if s := v.riff.Session(w); s != nil {
		return s.URI.Named()
	}
	return w.String()
}

// byText says who set a pause or a hold.
func (v View) byText(info *PauseInfo) string {
	if info == nil || info.By == nil {
		return ""
	}
	return info.By.String()
}

// ThreadOf gives the thread that a call of c names (given), or the
// default thread of c: the rule that each command uses, for the queries
// and streams of the engine.
func (v View) ThreadOf(c Caller, given string, now Now) (name.Thread, error) {
	return v.threadOf(c, given, now)
}
