package riffstate

import (
	"slices"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
)

// Riff is the state that the log gives: each part comes from records
// only, through [Apply]. Two riffs built from the same records are equal.
//
// The fields are plain data so that a checkpoint is the riff as JSON. Only
// Apply changes a riff of a [State]; readers get it through [View].
type Riff struct {
	// ID is the ID of the riff, from riff_made.
	ID string `json:"id,omitempty"`
	// Position is the position of the last record applied.
	Position uint64 `json:"position"`
	// Sessions holds each session that the log knows, by Who.String().
	Sessions map[string]*Session `json:"sessions"`
	// Threads holds each thread with its members and its last messages.
	Threads map[name.Thread]*Thread `json:"threads"`
	// Claims holds each claim, by claimKey(thread, item).
	Claims map[string]*Holding `json:"claims"`
	// Leads holds the lead session of each user in each repository, by
	// leadKey(user, repo).
	Leads  map[string]name.Who `json:"leads"`
	Pauses Pauses              `json:"pauses"`
	// Holds holds each held item, by claimKey(thread, item).
	Holds map[string]*HoldInfo  `json:"holds"`
	Plans map[name.Thread]*Plan `json:"plans"`
	// Notes holds the notes of the lead of each user in each repository
	// thread, by leadKey(user, thread).
	Notes map[string]*Notes `json:"notes"`
	// Idle holds the idle workers of each user, host and repository.
	Idle   map[string]record.IdleWorkers `json:"idle"`
	People People                        `json:"people"`
	// Warnings counts the records that the riff could not take: they
	// changed nothing.
	Warnings uint64 `json:"warnings"`
	// Skipped counts the records that this build skipped: a kind or a
	// value that it does not know.
	Skipped uint64 `json:"skipped"`
	// FirstSkipped is the position of the first skipped record: no
	// checkpoint goes past it.
	FirstSkipped uint64 `json:"first_skipped,omitempty"`
	// Signed holds the hash of the payload of each signed message of the
	// last two windows (signed.Hash, with the time of its record): the
	// server refuses a copy of a signed message. SignedSweptMs is the time
	// of the last sweep of the old hashes. See [Riff.remember].
	Signed        map[string]int64 `json:"signed,omitempty"`
	SignedSweptMs int64            `json:"signed_swept_ms,omitempty"`
}

// Life is the life cycle of a session in the riff.
type Life string

// The states of the life cycle.
const (
	Ready     Life = "ready"
	Working   Life = "working"
	MustClear Life = "must_clear"
)

// Session is one session as the log knows it.
type Session struct {
	// URI is the session at the place of its last record, with no marks.
	URI    name.SessionURI `json:"uri"`
	Worker bool            `json:"worker,omitempty"`
	Life   Life            `json:"life"`
	// FreshMs is the time of the last start with a fresh context.
	FreshMs int64 `json:"fresh_ms,omitempty"`
	// LastMs is the time of the last record that names the session.
	LastMs int64 `json:"last_ms"`
	// Claims are the items that the session holds, in the order of their
	// claims.
	Claims []ClaimRef `json:"claims,omitempty"`
	// ReleasedMs is the time of its last release: an idle session counts
	// its idle time from it.
	ReleasedMs int64 `json:"released_ms,omitempty"`
	// Relays are the instance IDs of the relays that serve the session
	// (relay_started, and no relay_ended since), oldest first: an end of
	// one relay does not end the session while another gives signs of
	// life (relays.go).
	Relays []string `json:"relays,omitempty"`
}

// ClaimRef names one claim: an item in a thread.
type ClaimRef struct {
	Thread name.Thread `json:"thread"`
	Item   name.Item   `json:"item"`
}

// Holding is the holder of an item in a thread.
type Holding struct {
	Holder name.Who `json:"holder"`
	// URI is the holder at the place of its claim: a released record of
	// a holder that is no session of the riff (a person) names it.
	URI    name.SessionURI `json:"uri,omitzero"`
	Thread name.Thread     `json:"thread"`
	Item   name.Item       `json:"item"`
	AtMs   int64           `json:"at_ms"`
}

// Thread is one thread: its members with the seq of their join, its last
// seq and its last messages.
type Thread struct {
	Name    name.Thread `json:"name"`
	LastSeq uint64      `json:"last_seq"`
	// Members holds the seq of the thread at the join of each member, by
	// Who.String(): a member finds the messages before it read.
	Members  map[string]uint64 `json:"members"`
	Messages []Message         `json:"messages,omitempty"`
	// kept is the array that the kept messages move in once the thread
	// kept KeptMessages (keepMessage): memory, not state. Two threads
	// with the same messages are the same thread whatever their arrays.
	kept []Message
}

// Message is one kept message: its posted record.
type Message struct {
	record.Posted
	Position uint64 `json:"position"`
	AtMs     int64  `json:"at_ms"`
}

// Pauses holds the pause of the whole riff, and the pause of each
// repository. A new riff is paused; a new repository runs.
type Pauses struct {
	Riff  *PauseInfo               `json:"riff,omitempty"`
	Repos map[name.Repo]*PauseInfo `json:"repos,omitempty"`
}

// PauseInfo says who set a pause, and when: the by and the time of its
// record. By is nil for the pause of a new riff and for a record with no
// cause.
type PauseInfo struct {
	By   *record.By `json:"by,omitempty"`
	AtMs int64      `json:"at_ms"`
}

// Check gives the pause that stops a claim in thread: the pause of the
// riff first, then the pause of the repository of a repository thread.
func (p Pauses) Check(thread name.Thread) (scope string, info *PauseInfo, paused bool) {
	if p.Riff != nil {
		return "the riff", p.Riff, true
	}
	if repo, ok := thread.Repo(); ok {
		if info := p.Repos[repo]; info != nil {
			return string(repo), info, true
		}
	}
	return "", nil, false
}

// HoldInfo keeps an item from the workers.
type HoldInfo struct {
	Thread name.Thread `json:"thread"`
	Item   name.Item   `json:"item"`
	Reason string      `json:"reason"`
	By     *record.By  `json:"by,omitempty"`
	AtMs   int64       `json:"at_ms"`
}

// Plan is the plan of a thread.
type Plan struct {
	Text string     `json:"text"`
	By   *record.By `json:"by,omitempty"`
	AtMs int64      `json:"at_ms"`
}

// Notes are the notes of the lead of a user in a repository, with each
// old text.
type Notes struct {
	Text    string        `json:"text"`
	History []NoteVersion `json:"history,omitempty"`
}

// NoteVersion is one text of the notes.
type NoteVersion struct {
	Text string     `json:"text"`
	By   *record.By `json:"by,omitempty"`
	AtMs int64      `json:"at_ms"`
}

// MaxNoteVersions is the number of texts of the notes that the riff
// keeps.
const MaxNoteVersions = 100

// NewRiff gives an empty riff.
func NewRiff() *Riff {
	return &Riff{
		Sessions: map[string]*Session{},
		Threads:  map[name.Thread]*Thread{},
		Claims:   map[string]*Holding{},
		Leads:    map[string]name.Who{},
		Pauses:   Pauses{Repos: map[name.Repo]*PauseInfo{}},
		Holds:    map[string]*HoldInfo{},
		Plans:    map[name.Thread]*Plan{},
		Notes:    map[string]*Notes{},
		Idle:     map[string]record.IdleWorkers{},
	}
}

func claimKey(thread name.Thread, item name.Item) string { return string(thread) + " " + string(item) }

func leadKey(user string, repo name.Repo) string { return user + " " + string(repo) }

func notesKey(user string, thread name.Thread) string { return user + " " + string(thread) }

func idleKey(i record.IdleWorkers) string { return i.User + " " + i.Host + " " + string(i.Repo) }

// keyRoom is the room on the stack for the key of a look-up (whoKey,
// claimKeyOf): a longer key takes the heap.
const keyRoom = 96

// whoKey appends the key of who in the maps that hold a caller by
// Who.String() (mike/a6cf, or mike for a person). A look-up
// m[string(whoKey(buf[:0], w))] makes no string: the compiler reads the
// bytes in place (TestGivenAWhoWhenItsKeyIsMadeThenItIsItsString).
func whoKey(buf []byte, w name.Who) []byte {
	buf = append(buf, w.User...)
	if w.Session != "" {
		buf = append(buf, '/')
		buf = append(buf, w.Session...)
	}
	return buf
}

// claimKeyOf appends claimKey(thread, item) to buf, for a look-up.
func claimKeyOf(buf []byte, thread name.Thread, item name.Item) []byte {
	buf = append(buf, thread...)
	buf = append(buf, ' ')
	return append(buf, item...)
}

// Session gives the session of who.
func (r *Riff) Session(w name.Who) *Session {
	var buf [keyRoom]byte
	return r.Sessions[string(whoKey(buf[:0], w))]
}

// Holder gives the claim of an item in a thread.
func (r *Riff) Holder(thread name.Thread, item name.Item) *Holding {
	var buf [keyRoom]byte
	return r.Claims[string(claimKeyOf(buf[:0], thread, item))]
}

// LeadOf gives the lead session of user in repo, as the log names it.
// Whether it counts now is a rule of handle: see [View.LiveLead].
func (r *Riff) LeadOf(user string, repo name.Repo) (name.Who, bool) {
	w, ok := r.Leads[leadKey(user, repo)]
	return w, ok
}

// IsLead says whether the log names who the lead of its user in repo.
func (r *Riff) IsLead(w name.Who, repo name.Repo) bool {
	lead, ok := r.LeadOf(w.User, repo)
	return ok && lead == w
}

// Member says whether who is a member of thread.
func (r *Riff) Member(thread name.Thread, w name.Who) bool {
	t := r.Threads[thread]
	if t == nil {
		return false
	}
	var buf [keyRoom]byte
	_, ok := t.Members[string(whoKey(buf[:0], w))]
	return ok
}

// ThreadsOf gives the threads of who, in name order.
func (r *Riff) ThreadsOf(w name.Who) []name.Thread {
	var out []name.Thread
	for name, t := range r.Threads {
		if _, ok := t.Members[w.String()]; ok || name.Has(w) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
