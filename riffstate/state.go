package riffstate

import (
	"errors"
	"slices"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Command is a call that asks for a change. Handle holds its rule; R is
// the type of its reply.
type Command[R any] interface {
	// Kind is the name of the command in each record and each log line:
	// a constant of riffcore/record/commands.go with a row in the
	// permits table (a test reads the source and checks both).
	Kind() record.Command
	// Needs is the role that the command of the caller needs. permits
	// compares it with the role of the caller.
	Needs(c Caller) Role
	// Handle checks the command of c against v, the pending copy, at
	// now. It gives the changes, or a refusal (*wire.Refused). It does
	// no I/O and changes nothing.
	Handle(c Caller, v View, now Now) (Handled, error)
	// Reply makes the reply from v, the written copy, after the write of
	// the records of the command. It is a function of the command, the
	// records in done and the written copy only: a repeated call after a
	// checkpoint or a replay, which has only the records, gets the reply
	// of the first try.
	Reply(c Caller, v View, done Done, now Now) R
	// Signal is the signal of the call for the presence, or nil. The
	// state sets it at the check, only when the command is not refused.
	Signal(c Caller) Signal
}

// signalOfHandled is a command whose signal depends on the changes that
// its handle gave (an end of a relay that another serves is no end of
// the session).
type signalOfHandled interface {
	SignalOf(c Caller, h Handled) Signal
}

// Handled is what handle gives: the changes. Handle gives nothing else
// to the reply: a reply reads the records and the written copy, which a
// checkpoint keeps.
type Handled struct {
	Changes []record.Change
}

// Done is what the writer hands back to a command once its chunk is
// written: the records of the command, and Ended, the number of
// sign-ins that the effect of its member_removed or signins_ended ended
// (the engine counts them; an answered call gives 0, as the state keeps only
// the records).
type Done struct {
	Made  []record.Record
	Ended int
}

// Options set a state.
type Options struct {
	// PeopleOptions are the settings of the people of a riff with
	// sign-in (people.go, owner.go).
	PeopleOptions
	// SignIn is a riff with sign-in. A riff with no sign-in trusts its
	// network: each caller has the role of an admin, and the commands of
	// the people are refused with no_sign_in.
	SignIn bool
	// Build is the build of the server, for whoami and who.
	Build string
	// Owner is the email that the setting --owner names: that person may
	// join (admit), and name_owner makes it the first owner.
	Owner string
	// AllowedDomain is the email domain whose people may join a riff
	// with sign-in (admit), "" for none.
	AllowedDomain string
	// LiveKeys gives the keys of the live sign-ins of a user, for the
	// readers' check of the signed messages (see [MessageOf]); nil gives
	// none. A checkpoint does not keep it.
	LiveKeys LiveKeys `json:"-"`
}

// State is the whole state of a riff: the pending copy of the riff
// (each record in the queue), the written copy (each record whose chunk
// is written), the presence, and the answered calls.
//
// A State is not safe for concurrent use: the engine holds its one lock.
type State struct {
	pending  *Riff
	written  *Riff
	presence *Presence
	answered *Answered
	opts     Options
	// dropped are the records that the written copy did not take.
	dropped drops
	// origin is kept from the load until NewShadow, while the state
	// takes only a replay: nil once anything else changed it.
	origin *origin
	// texts keeps the JSON of the claims of the sessions of the written
	// copy with many claims, for the replies (replyjson.go).
	texts claimTexts
}

// New gives the state of an empty log. Its two copies are one riff
// until the first change that is not a replay (clone.go).
func New(opts Options) *State {
	r := NewRiff()
	return &State{pending: r, written: r, presence: NewPresence(), answered: NewAnswered(), opts: opts, origin: &origin{}}
}

// Split gives the pending copy a riff of its own, a clone of the written
// copy, when the two copies are one riff: a state that has only
// replayed. A start splits the state before it serves, so that no call
// pays for the clone under the lock; a change of either copy splits it
// first too.
func (s *State) Split() {
	if s.pending == s.written {
		s.pending = s.written.clone()
	}
}

// Pending is the view of the pending copy, for handle.
func (s *State) Pending() View { return View{riff: s.pending, presence: s.presence, opts: &s.opts} }

// Written is the view of the written copy, for replies, queries and
// views.
func (s *State) Written() View {
	return View{riff: s.written, presence: s.presence, opts: &s.opts, texts: &s.texts}
}

// Presence gives the presence, for signals.
func (s *State) Presence() *Presence { return s.presence }

// Position is the position of the last record in the queue.
func (s *State) Position() uint64 { return s.pending.Position }

// Caller adds the worker mark and the role of the pending copy to a
// caller of the token layer.
func (s *State) Caller(c Caller) Caller {
	if c.Class == record.ClassServer {
		return ServerCaller()
	}
	// The role and the email come from the people of the pending copy,
	// with the admins of the settings: the token layer gives no role.
	c = s.Pending().WithRole(c)
	c.URI = c.URI.Bare()
	c.Worker = false
	if sess := s.pending.Session(c.Who()); sess != nil && c.Class == record.ClassSession {
		c.Worker = sess.Worker
	}
	switch {
	case !s.opts.SignIn:
		c.Role = Admin
	case c.Class == record.ClassPerson || c.Class == record.ClassSession:
		// The role comes from the people of the pending copy; it adds to
		// a role that the caller has (the token layer gives none).
		c.Role = max(c.Role, s.pending.People.roleOf(c.URI.User))
	}
	return c
}

// Knows says whether the state knows the caller: a session of the
// pending copy, or a person that called since the start. The engine runs
// [Arrive] first for a caller that it does not know.
func (s *State) Knows(c Caller) bool {
	switch c.Class {
	case record.ClassSession:
		return s.pending.Session(c.Who()) != nil
	case record.ClassPerson:
		return s.presence.Live(c.Who()) != nil
	}
	return true
}

// Check runs the steps of a command that need the lock: the signal
// Called of a known caller, the refusal of a command of the people in a
// riff with no sign-in (no_sign_in), permits, handle, and the signal of
// the command. It gives the changes, or the refusal: an error of handle
// that is not a refusal is refused as bad_request.
func Check[R any](s *State, cmd Command[R], c Caller, now Now) (Handled, *wire.Refused) {
	c = s.Caller(c)
	view := s.Pending()
	// The view keeps whether the caller was live before this call: a
	// new start of a live session tells it that its claims ended.
	view.wasLive = !view.Stopped(c.Who(), now)
	if c.Class == record.ClassSession || c.Class == record.ClassPerson {
		if s.Knows(c) {
			Called{Place: c.URI.Place()}.Set(s.presence, c.Who(), now)
		}
	}
	// A riff with no sign-in has no people: each command of the group
	// people is refused there, before permits, with no_sign_in.
	if !s.opts.SignIn && slices.Contains(PeopleCommands(), cmd.Kind()) {
		return Handled{}, wire.Refuse(wire.NoSignIn, "this riff has no sign-in, so it has no people: the command %s needs a riff with sign-in", cmd.Kind())
	}
	// A caller whose sign-in started before the last end of the
	// sign-ins of its user (a remove, a revoke in the queue) changes
	// nothing, also not through a session, before the effect ends it.
	if c.SignedInAt > 0 && c.SignedInAt < view.Ended(c.URI.User) {
		return Handled{}, wire.Refuse(wire.BadToken, "%s", LostSignIn)
	}
	if refused := Permits(cmd.Kind(), c, cmd.Needs(c)); refused != nil {
		return Handled{}, s.noOwner(cmd.Kind(), c, cmd.Needs(c), refused)
	}
	handled, err := cmd.Handle(c, view, now)
	if err != nil {
		var refused *wire.Refused
		if !errors.As(err, &refused) {
			refused = wire.Refuse(wire.BadRequest, "%v", err)
		}
		return Handled{}, refused
	}
	sig := cmd.Signal(c)
	if of, ok := any(cmd).(signalOfHandled); ok {
		sig = of.SignalOf(c, handled)
	}
	if sig != nil {
		sig.Set(s.presence, c.Who(), now)
	}
	return handled, nil
}

// Queue gives the changes of a command their positions, their time and
// their cause, and applies them to the pending copy. The records of one
// command follow one another.
func (s *State) Queue(c Caller, kind record.Command, call string, changes []record.Change, now Now) []record.Record {
	if len(changes) == 0 {
		return nil
	}
	s.Split()
	c = s.Caller(c)
	records := make([]record.Record, len(changes))
	for i, change := range changes {
		records[i] = record.Record{
			Position:    s.pending.Position + 1,
			WrittenAtMs: now.Ms,
			By:          c.By(),
			Command:     string(kind),
			Call:        call,
			Change:      change,
		}
		Apply(s.pending, records[i])
	}
	return records
}

// WrittenRecords applies the records of a written chunk to the written
// copy, in order, with the presence, and gives the effects: the wakes and
// the messages of the tail. now is the time of the write.
func (s *State) WrittenRecords(records []record.Record, now Now) Effects {
	s.origin = nil
	return s.applyWritten(records, now.Ms)
}

// Reply makes the reply of a command from the written copy.
func Reply[R any](s *State, cmd Command[R], c Caller, done Done, now Now) R {
	return cmd.Reply(s.Caller(c), s.Written(), done, now)
}

// Run runs a command on a state with no writer: the arrival of an
// unknown caller, the check, the queue, the write and the reply, in one
// go. The tests, the examples and the tools use it; the engine runs the
// same steps with its writer between them.
func Run[R any](s *State, cmd Command[R], c Caller, now Now) (R, Effects, error) {
	var zero R
	var effects Effects
	if !s.Knows(c) && cmd.Kind() != record.CommandEnd && c.Class != record.ClassServer {
		if h, err := Check[wire.RegisterReply](s, Arrive{}, c, now); err == nil {
			made := s.Queue(c, Arrive{}.Kind(), "", h.Changes, now)
			effects.add(s.WrittenRecords(made, now))
		}
	}
	h, err := Check(s, cmd, c, now)
	if err != nil {
		return zero, effects, err
	}
	made := s.Queue(c, cmd.Kind(), "", h.Changes, now)
	effects.add(s.WrittenRecords(made, now))
	return Reply(s, cmd, c, Done{Made: made}, now), effects, nil
}

// Replay applies records of the log to both copies, as a start does
// (once, while the two are one riff). It sets no time in the presence.
func (s *State) Replay(records ...record.Record) {
	for _, rec := range records {
		if s.pending != s.written {
			Apply(s.pending, rec)
		}
		took := Apply(s.written, rec)
		if !took {
			s.dropped.add(rec)
		}
		s.texts.applied(rec, took)
		s.presence.Applied(rec, s.written, 0)
		s.answered.record(rec)
	}
	if s.origin != nil {
		s.origin.keep(records)
	}
}

// Loaded marks the start of the server at now: each session has 5
// minutes from now to call again before its claims end.
func (s *State) Loaded(now Now) { s.presence.LoadedMs = now.Ms }

// Answer adds an accepted call with a call ID to the answered calls:
// its records, and what it asked, to know a repeat.
func (s *State) Answer(key Key, asked Asked, done Done, now Now) {
	s.origin = nil
	s.answered.add(key, asked, done, now.Ms)
}

// AnsweredCall gives the result of a call, when a call with the key was
// answered. A call that reuses the call ID of an answered call of its
// caller for another command, or for the same command with another
// body, is refused with bad_request: a call ID is unique per caller, and
// the first reply would tell of a command that did not run.
func (s *State) AnsweredCall(key Key, asked Asked) (Done, bool, *wire.Refused) {
	return s.answered.get(key, asked)
}

// View is the state as handle, a reply or a query reads it: the riff of
// one copy, the presence, and the settings. It changes nothing.
type View struct {
	riff     *Riff
	presence *Presence
	// opts are the options of the state, which nothing changes after
	// New: a view, made for each step of each call, does not copy them.
	opts *Options
	// wasLive says, in handle, whether the caller gave a sign of life
	// in the last 5 minutes before this call.
	wasLive bool
	// texts are the kept JSON of claims of the written copy (nil in a
	// view of the pending copy).
	texts *claimTexts
}

// Riff gives the riff of the view. Do not change it.
func (v View) Riff() *Riff { return v.riff }

// Presence gives the presence. Do not change it.
func (v View) Presence() *Presence { return v.presence }

// Build gives the build of the server.
func (v View) Build() string { return v.opts.Build }

// SeenMs gives the time of the last sign of life of who: its last call
// or keep-alive, or the start of the server when it has none since.
func (v View) SeenMs(w name.Who) int64 {
	if l := v.presence.Live(w); l != nil {
		return max(l.SeenMs, v.presence.LoadedMs)
	}
	return v.presence.LoadedMs
}

// Stopped says whether who stopped: it ended, or it gave no sign of life
// for the claim timeout.
func (v View) Stopped(w name.Who, now Now) bool {
	if l := v.presence.Live(w); l != nil && l.Ended {
		return true
	}
	return now.Ms-v.SeenMs(w) >= ClaimTimeoutMs
}

// Claims gives the claims of a session that count now: each claim that
// it holds in the riff, or none when it stopped. The claims of a stopped
// session stay in the riff, so that a session that comes back gets back
// each one that no other session took; until then who, whoami and the
// board show them as ended, and another session may take each item.
func (v View) Claims(s *Session, now Now) []ClaimRef {
	if len(s.Claims) == 0 || v.Stopped(s.URI.Who(), now) {
		return nil
	}
	return s.Claims
}

// Holds says whether the claim h counts now: its holder did not stop.
func (v View) Holds(h *Holding, now Now) bool { return h != nil && !v.Stopped(h.Holder, now) }

// Gone says whether who is gone from who: it ended, or it stopped for 3
// minutes.
func (v View) Gone(w name.Who, now Now) bool {
	l := v.presence.Live(w)
	if l == nil {
		return true
	}
	return l.Ended || now.Ms-l.SeenMs >= GoneMs
}

// LiveLead gives the lead of user in repo when it counts now: it did not
// end, it gave a sign of life in the last 5 minutes, and it works in
// repo.
func (v View) LiveLead(user string, repo name.Repo, now Now) (*Session, bool) {
	w, ok := v.riff.LeadOf(user, repo)
	if !ok {
		return nil, false
	}
	s := v.riff.Session(w)
	if s == nil || v.Stopped(w, now) {
		return nil, false
	}
	if l := v.presence.Live(w); l != nil && l.Place.Repo != "" && l.Place.Repo != repo {
		return nil, false
	}
	return s, true
}

// Marked gives the URI of a session with its marks: the claims that
// count now (none for a stopped session), and lead=true when it is the
// live lead of its repository.
func (v View) Marked(s *Session, now Now) name.SessionURI {
	u, claims, lead := v.marks(s, now)
	items := make([]name.Item, len(claims))
	for i, c := range claims {
		items[i] = c.Item
	}
	u.Claims, u.Lead = items, lead
	return u
}

// marks gives the parts of the URI that Marked gives: the URI of s at
// the place of its presence with its own marks, the claims that count
// now, and the lead mark.
func (v View) marks(s *Session, now Now) (u name.SessionURI, claims []ClaimRef, lead bool) {
	u = s.URI
	if l := v.presence.Live(u.Who()); l != nil && l.Place.Host != "" {
		u = u.At(l.Place)
	}
	live, ok := v.LiveLead(u.User, u.Repo, now)
	return u, v.Claims(s, now), ok && live.URI.Who() == u.Who()
}

// Paused gives the pause that stops a session at its place.
func (v View) Paused(place name.Place) (string, *PauseInfo, bool) {
	if place.Repo.InGit() {
		return v.riff.Pauses.Check(name.Thread(place.Repo))
	}
	return v.riff.Pauses.Check(name.Chat)
}
