package name

import (
	"fmt"
	"sort"
	"strings"
)

// Repo is the repository of a place: OWNER/REPO from the origin of git,
// local/NAME for a repository with no origin, or "-" outside git. The
// zero Repo is no repository: the place of a person.
type Repo string

// NoRepo is the repository of a directory outside git.
const NoRepo Repo = "-"

// ParseRepo checks OWNER/REPO, local/NAME or "-".
func ParseRepo(s string) (Repo, error) {
	if s == string(NoRepo) {
		return NoRepo, nil
	}
	owner, repo, ok := strings.Cut(s, "/")
	if !ok {
		return "", bad("repository", s, "it is not OWNER/REPO")
	}
	if err := checkWord("repository owner", owner); err != nil {
		return "", err
	}
	if err := checkWord("repository name", repo); err != nil {
		return "", err
	}
	return Repo(s), nil
}

// Name is the part after the slash: riff for como-technologies/riff.
func (r Repo) Name() string {
	_, name, ok := strings.Cut(string(r), "/")
	if !ok {
		return string(r)
	}
	return name
}

// Owner is the part before the slash.
func (r Repo) Owner() string {
	owner, _, _ := strings.Cut(string(r), "/")
	return owner
}

// InGit says whether the repository is a git repository: not "-" and
// not empty.
func (r Repo) InGit() bool { return r != "" && r != NoRepo }

// Thread is the name of a thread: a repository thread OWNER/REPO (also
// local/NAME), chat, denials, or a direct thread between two parties.
//
// The name of a direct thread in the log is its canonical form
// dm:A+B, with the two parties in order; a session is its session ID and
// a person is ~USER. People name a direct thread by the other side only,
// dm:PEER: [Thread.Peer] and [DirectWith] move between the two forms.
type Thread string

// The threads of the whole riff.
const (
	Chat    Thread = "chat"
	Denials Thread = "denials"
)

const directPrefix = "dm:"

// ParseThread checks a thread name: OWNER/REPO, chat, denials, or a
// direct thread in its canonical form dm:A+B. A relative direct name
// (dm:PEER) needs the caller: see [ParseThreadFor].
func ParseThread(s string) (Thread, error) {
	switch {
	case s == string(Chat), s == string(Denials):
		return Thread(s), nil
	case strings.HasPrefix(s, directPrefix):
		a, b, ok := strings.Cut(strings.TrimPrefix(s, directPrefix), "+")
		if !ok {
			return "", bad("thread", s, "a direct thread names its two sides as dm:A+B; dm:PEER needs the caller")
		}
		pa, err := parseParty(a)
		if err != nil {
			return "", err
		}
		pb, err := parseParty(b)
		if err != nil {
			return "", err
		}
		if pa == pb {
			return "", bad("thread", s, "a direct thread has two different sides")
		}
		t := Direct(pa, pb)
		if string(t) != s {
			return "", bad("thread", s, fmt.Sprintf("the sides are out of order; the name is %s", t))
		}
		return t, nil
	}
	repo, err := ParseRepo(s)
	if err != nil || repo == NoRepo {
		return "", bad("thread", s, "a thread is OWNER/REPO, chat, denials or dm:PEER")
	}
	return Thread(s), nil
}

// ParseThreadFor reads a thread that a caller names: each form of
// [ParseThread], and dm:PEER, the direct thread of me and PEER. PEER is
// a session ID, or ~USER for a person (a bare USER is taken as a session
// ID when it is not one; the caller resolves a start of an ID first).
func ParseThreadFor(s string, me Who) (Thread, error) {
	if rest, ok := strings.CutPrefix(s, directPrefix); ok && !strings.Contains(rest, "+") {
		peer, err := parseParty(rest)
		if err != nil {
			return "", err
		}
		mine := PartyOf(me)
		if peer == mine {
			return "", bad("thread", s, "a direct thread needs another side than the caller")
		}
		return Direct(mine, peer), nil
	}
	return ParseThread(s)
}

// Party is one side of a direct thread: a session ID, or ~USER for a
// person.
type Party string

// PartyOf gives the side of a direct thread that who is.
func PartyOf(w Who) Party {
	if w.IsPerson() {
		return Party("~" + w.User)
	}
	return Party(w.Session)
}

// Person says whether the side is a person, and gives the user.
func (p Party) Person() (user string, ok bool) {
	return strings.CutPrefix(string(p), "~")
}

func parseParty(s string) (Party, error) {
	if user, ok := strings.CutPrefix(s, "~"); ok {
		if err := CheckUser(user); err != nil {
			return "", err
		}
		return Party(s), nil
	}
	if err := CheckSessionID(s); err != nil {
		return "", err
	}
	return Party(s), nil
}

// Direct is the direct thread of a and b, in its canonical form.
func Direct(a, b Party) Thread {
	sides := []string{string(a), string(b)}
	sort.Strings(sides)
	return Thread(directPrefix + sides[0] + "+" + sides[1])
}

// DirectWith is the direct thread of me and peer.
func DirectWith(me, peer Who) Thread { return Direct(PartyOf(me), PartyOf(peer)) }

// IsDirect says whether t is a direct thread.
func (t Thread) IsDirect() bool { return strings.HasPrefix(string(t), directPrefix) }

// Sides gives the two sides of a direct thread.
func (t Thread) Sides() (Party, Party, bool) {
	rest, ok := strings.CutPrefix(string(t), directPrefix)
	if !ok {
		return "", "", false
	}
	a, b, ok := strings.Cut(rest, "+")
	return Party(a), Party(b), ok
}

// Has says whether who is a side of the direct thread t.
func (t Thread) Has(w Who) bool {
	a, b, ok := t.Sides()
	p := PartyOf(w)
	return ok && (a == p || b == p)
}

// Peer gives the other side of a direct thread for me.
func (t Thread) Peer(me Who) (Party, bool) {
	a, b, ok := t.Sides()
	if !ok {
		return "", false
	}
	switch PartyOf(me) {
	case a:
		return b, true
	case b:
		return a, true
	}
	return "", false
}

// For gives the name that me uses for t: dm:PEER for its direct threads,
// the name itself for each other thread.
func (t Thread) For(me Who) string {
	if peer, ok := t.Peer(me); ok {
		return directPrefix + string(peer)
	}
	return string(t)
}

// Repo gives the repository of a repository thread.
func (t Thread) Repo() (Repo, bool) {
	if t == Chat || t == Denials || t.IsDirect() || t == "" {
		return "", false
	}
	return Repo(t), true
}

// UnmarshalJSON checks the name.
func (t *Thread) UnmarshalJSON(b []byte) error {
	s, err := jsonString(b)
	if err != nil {
		return bad("thread", string(b), "it is not a JSON string")
	}
	parsed, err := ParseThread(s)
	if err != nil {
		return err
	}
	*t = parsed
	return nil
}

// UnmarshalJSON checks the item name.
func (i *Item) UnmarshalJSON(b []byte) error {
	s, err := jsonString(b)
	if err != nil {
		return bad("item", string(b), "it is not a JSON string")
	}
	parsed, err := ParseItem(s)
	if err != nil {
		return err
	}
	*i = parsed
	return nil
}

// UnmarshalJSON checks the repository name.
func (r *Repo) UnmarshalJSON(b []byte) error {
	s, err := jsonString(b)
	if err != nil {
		return bad("repository", string(b), "it is not a JSON string")
	}
	parsed, err := ParseRepo(s)
	if err != nil {
		return err
	}
	*r = parsed
	return nil
}
