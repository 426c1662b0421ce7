package riffstate

import (
	"fmt"
	"strings"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Arrive is the register that the engine runs first for a caller that
// the state does not know, also when its call is a query, a signal or a
// refused command. Its records name the command register. It keeps the
// worker mark of the state and makes no lead.
type Arrive struct{ base }

func (Arrive) Kind() record.Command { return record.CommandRegister }

func (Arrive) Handle(c Caller, v View, now Now) (Handled, error) {
	return Handled{Changes: arrival(c, v, c.Worker, false)}, nil
}

func (Arrive) Reply(c Caller, v View, _ Done, now Now) wire.RegisterReply {
	return wire.RegisterReply{URI: v.uriOf(c, now)}
}

func (Arrive) Signal(c Caller) Signal { return Place{Place: c.URI.Place()} }

// arrival gives the changes of a register: a session_started with the
// reason join for a session that the riff does not know, or whose worker
// mark differs when explicit; and the join of its repository thread.
func arrival(c Caller, v View, worker, explicit bool) []record.Change {
	var changes []record.Change
	if c.Class == record.ClassSession {
		s := v.riff.Session(c.Who())
		if s == nil || (explicit && s.Worker != worker) {
			changes = append(changes, record.SessionStarted{Session: c.URI, Reason: record.ReasonJoin, Worker: worker})
		}
	}
	if t, ok := c.URI.DefaultThread(); ok && !v.riff.Member(t, c.Who()) {
		changes = append(changes, record.JoinedThread{Session: c.URI, Thread: t})
	}
	return changes
}

// uriOf gives the URI of the caller with its marks.
func (v View) uriOf(c Caller, now Now) name.SessionURI {
	if s := v.riff.Session(c.Who()); s != nil {
		return v.Marked(s, now)
	}
	return c.URI
}

// Register makes the caller known at its place. An explicit register
// whose worker mark is not the mark of the state starts the session with
// the reason join and the new mark.
type Register struct {
	wire.Register
	base
}

func (Register) Kind() record.Command { return record.CommandRegister }

func (r Register) Handle(c Caller, v View, now Now) (Handled, error) {
	if err := checkRelay(r.Relay); err != nil {
		return Handled{}, err
	}
	changes := arrival(c, v, r.Worker, true)
	return Handled{Changes: append(changes, v.relayStart(c, r.Relay, now)...)}, nil
}

func (Register) Reply(c Caller, v View, _ Done, now Now) wire.RegisterReply {
	return wire.RegisterReply{URI: v.uriOf(c, now)}
}

func (r Register) Signal(c Caller) Signal { return Registered{Place: c.URI.Place(), Relay: r.Relay} }

// Start is a new start of a session: one released record for each of
// its claims, then the session_started record. A new start of a live
// session that held claims sends it a direct message of the server.
type Start struct {
	wire.Start
	base
}

func (Start) Kind() record.Command { return record.CommandStart }

func (st Start) Handle(c Caller, v View, now Now) (Handled, error) {
	if _, err := record.ParseReason(string(st.Reason)); err != nil {
		return Handled{}, bad("%v", err)
	}
	var changes []record.Change
	var items []name.Item
	s := v.riff.Session(c.Who())
	if s != nil {
		for _, ref := range s.Claims {
			changes = append(changes, record.Released{Session: s.URI, Thread: ref.Thread, Item: ref.Item})
			items = append(items, ref.Item)
		}
	}
	changes = append(changes, record.SessionStarted{Session: c.URI, Reason: st.Reason, Worker: st.Worker})
	if t, ok := c.URI.DefaultThread(); ok && !v.riff.Member(t, c.Who()) {
		changes = append(changes, record.JoinedThread{Session: c.URI, Thread: t})
	}
	if len(items) > 0 && v.wasLive {
		text := fmt.Sprintf("claims: the new start of this session (%s) ended your claims %s. Claim the item again to go on with it, or stop the work on it.",
			st.Reason, joinItems(items))
		changes = append(changes, v.serverDirect(c.URI, text, now))
	}
	return Handled{Changes: changes}, nil
}

func (Start) Reply(c Caller, v View, d Done, now Now) wire.StartReply {
	return wire.StartReply{URI: v.uriOf(c, now), Released: releasedItems(d)}
}

func (Start) Signal(c Caller) Signal { return Place{Place: c.URI.Place()} }

// End ends a session: one released record for each claim, then, for an
// end that names its relay, relay_ended with last. The presence marks
// the end of the session. While another relay of the session is live,
// the end of a relay ends only that relay: one relay_ended, and the
// session keeps its claims (relays.go).
type End struct {
	wire.End
	base
}

func (End) Kind() record.Command { return record.CommandEnd }

func (e End) Handle(c Caller, v View, now Now) (Handled, error) {
	if err := checkRelay(e.Relay); err != nil {
		return Handled{}, err
	}
	s := v.riff.Session(c.Who())
	if s == nil {
		return Handled{}, nil
	}
	if e.Relay != "" && len(v.liveRelays(s, e.Relay, now)) > 0 {
		return Handled{Changes: []record.Change{record.RelayEnded{Session: s.URI, Relay: e.Relay}}}, nil
	}
	var changes []record.Change
	for _, ref := range s.Claims {
		changes = append(changes, record.Released{Session: s.URI, Thread: ref.Thread, Item: ref.Item})
	}
	if e.Relay != "" {
		changes = append(changes, record.RelayEnded{Session: s.URI, Relay: e.Relay, Last: true})
	}
	return Handled{Changes: changes}, nil
}

// Reply: the items that the end freed, or that the session goes on (a
// relay_ended that is not the last).
func (End) Reply(c Caller, v View, d Done, now Now) wire.EndReply {
	ended, ok := madeOf[record.RelayEnded](d)
	return wire.EndReply{Released: releasedItems(d), GoesOn: ok && !ended.Last}
}

// Signal is the signal of an end with no handle: the end of the session.
// The engine and Run take [End.SignalOf], the signal of the handled end.
func (End) Signal(Caller) Signal { return Ended{} }

// SignalOf is the signal of the end that handle gave: the end of the
// session, or of one relay while another serves it.
func (e End) SignalOf(c Caller, h Handled) Signal {
	for _, change := range h.Changes {
		if ended, ok := change.(record.RelayEnded); ok && !ended.Last {
			return RelayGone{Relay: e.Relay}
		}
	}
	return Ended{}
}

// Join joins a thread.
type Join struct {
	wire.Join
	base
}

func (Join) Kind() record.Command { return record.CommandJoin }

func (j Join) Handle(c Caller, v View, now Now) (Handled, error) {
	t, err := v.threadOf(c, j.Thread, now)
	if err != nil {
		return Handled{}, err
	}
	if t.IsDirect() && !t.Has(c.Who()) {
		return Handled{}, wire.Refuse(wire.NotAllowed, "%s is a direct thread of two other sides", t)
	}
	if err := v.checkChat(c, t); err != nil {
		return Handled{}, err
	}
	if v.riff.Member(t, c.Who()) {
		return Handled{}, nil
	}
	return Handled{Changes: []record.Change{record.JoinedThread{Session: c.URI, Thread: t}}}, nil
}

// Reply: the thread of the joined_thread record, or of the call when the
// caller was in it.
func (j Join) Reply(c Caller, v View, d Done, now Now) wire.ThreadReply {
	joined, ok := madeOf[record.JoinedThread](d)
	if !ok {
		joined.Thread, _ = v.threadOf(c, j.Thread, now)
	}
	return wire.ThreadReply{Thread: joined.Thread.For(c.Who())}
}

// Leave leaves a thread. A lead that leaves its repository thread is not
// the lead any more.
type Leave struct {
	wire.Leave
	base
}

func (Leave) Kind() record.Command { return record.CommandLeave }

func (l Leave) Handle(c Caller, v View, now Now) (Handled, error) {
	t, err := v.threadOf(c, l.Thread, now)
	if err != nil {
		return Handled{}, err
	}
	if !v.riff.Member(t, c.Who()) {
		return Handled{}, nil
	}
	return Handled{Changes: []record.Change{record.LeftThread{Session: c.URI, Thread: t}}}, nil
}

// Reply: the thread of the left_thread record, or of the call when the
// caller was not in it.
func (l Leave) Reply(c Caller, v View, d Done, now Now) wire.ThreadReply {
	left, ok := madeOf[record.LeftThread](d)
	if !ok {
		left.Thread, _ = v.threadOf(c, l.Thread, now)
	}
	return wire.ThreadReply{Thread: left.Thread.For(c.Who())}
}

// Forget is the command of the server that takes out a session with no
// sign of life for 30 days: one released record for each claim, then
// session_forgotten.
type Forget struct {
	Session name.Who
	base
}

func (Forget) Kind() record.Command { return record.CommandForget }

func (f Forget) Handle(c Caller, v View, now Now) (Handled, error) {
	s := v.riff.Session(f.Session)
	if s == nil {
		return Handled{}, bad("the riff knows no session %s", f.Session)
	}
	if seen := max(v.SeenMs(f.Session), s.LastMs); now.Ms-seen < ForgetMs {
		return Handled{}, bad("the session %s gave a sign of life in the last 30 days", f.Session)
	}
	var changes []record.Change
	for _, ref := range s.Claims {
		changes = append(changes, record.Released{Session: s.URI, Thread: ref.Thread, Item: ref.Item})
	}
	changes = append(changes, record.SessionForgotten{Session: s.URI})
	return Handled{Changes: changes}, nil
}

func (Forget) Reply(Caller, View, Done, Now) struct{} { return struct{}{} }

// ToForget lists the sessions that the server forgets now, in the order
// of their keys: the server sends one forget for each, so the log gets
// the same records in the same order for the same state.
func (v View) ToForget(now Now) []name.Who {
	var out []name.Who
	for _, s := range sortedSessions(v.riff) {
		if now.Ms-max(v.SeenMs(s.URI.Who()), s.LastMs) >= ForgetMs {
			out = append(out, s.URI.Who())
		}
	}
	return out
}

// MakeRiff is the first command of a new riff: riff_made with its ID,
// and a pause_set that pauses the riff. It never replaces an ID: in a log
// with records and no ID, it makes only riff_made.
type MakeRiff struct {
	ID string
	base
}

func (MakeRiff) Kind() record.Command { return record.CommandMakeRiff }

func (m MakeRiff) Handle(c Caller, v View, now Now) (Handled, error) {
	if v.riff.ID != "" {
		return Handled{}, bad("the riff has the ID %s already", v.riff.ID)
	}
	if m.ID == "" {
		return Handled{}, bad("a riff needs an ID")
	}
	changes := []record.Change{record.RiffMade{Riff: m.ID}}
	if v.riff.Position == 0 {
		changes = append(changes, record.PauseSet{Scope: record.RiffScope(), State: record.Paused})
	}
	return Handled{Changes: changes}, nil
}

func (MakeRiff) Reply(Caller, View, Done, Now) struct{} { return struct{}{} }

// Announce posts a note of the server to a thread.
type Announce struct {
	Thread name.Thread
	Text   string
	To     []selector.Selector
	base
}

func (Announce) Kind() record.Command { return record.CommandAnnounce }

func (a Announce) Handle(c Caller, v View, now Now) (Handled, error) {
	return Handled{Changes: []record.Change{v.serverPost(a.Thread, record.MessageNote, a.To, a.Text, now)}}, nil
}

func (Announce) Reply(Caller, View, Done, Now) struct{} { return struct{}{} }

// releasedItems gives the items that the records of a command released.
func releasedItems(d Done) []name.Item {
	var items []name.Item
	for _, rec := range d.Made {
		if r, ok := rec.Change.(record.Released); ok {
			items = append(items, r.Item)
		}
	}
	return items
}

func joinItems(items []name.Item) string {
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = string(it)
	}
	return strings.Join(parts, ", ")
}
