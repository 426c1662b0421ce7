package riffstate

import (
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Effects are what the writer sends after a chunk is written: the wakes
// of the sessions, and the messages for the tail streams.
type Effects struct {
	Wakes    []WakeTo
	Messages []wire.Message
	// Ends are the ends of the sign-ins of a person that a remove or a
	// revoke wrote: the engine ends each sign-in of the user from before
	// the position (tokens.Store.End), and puts the count in the reply
	// (wire.EndedReply.Ended).
	Ends []SignInsEnd
}

// SignInsEnd ends the sign-ins of the user of an email from before the
// position of its member_removed or signins_ended record. User is empty
// for an email with no sign-in yet: it has no sign-in to end.
type SignInsEnd struct {
	User     string
	Email    string
	Position uint64
}

// WakeTo is one wake of one session.
type WakeTo struct {
	To   name.Who
	Wake wire.Wake
}

func (e *Effects) add(o Effects) {
	e.Wakes = append(e.Wakes, o.Wakes...)
	e.Messages = append(e.Messages, o.Messages...)
	e.Ends = append(e.Ends, o.Ends...)
}

// applyWritten applies a written chunk to the written copy and the
// presence, in order, and gives its effects. One message gives a session
// one wake. The engine sends no wake to a session in MustClear: the wake
// waits in the written copy, and the record that ends MustClear sends the
// wake of the newest unread message that woke the session (the missed
// wake). When a message and the end of MustClear are in one chunk, the
// session gets only the missed wake.
func (s *State) applyWritten(records []record.Record, nowMs int64) Effects {
	s.Split()
	var e Effects
	cleared := map[string]bool{}
	var posted []Message
	for _, rec := range records {
		var before *Session
		if c, ok := rec.Change.(record.SessionStarted); ok {
			if sess := s.written.Session(c.Session.Who()); sess != nil && sess.Life == MustClear {
				before = sess
			}
		}
		var pauseBefore map[string]bool
		if _, ok := rec.Change.(record.PauseSet); ok {
			pauseBefore = s.pausedSessions(nowMs)
		}
		took := Apply(s.written, rec)
		if !took {
			s.dropped.add(rec)
		}
		s.texts.applied(rec, took)
		s.presence.Applied(rec, s.written, nowMs)
		s.answered.record(rec)
		s.leadStep(rec, nowMs)
		if before != nil && before.Life != MustClear {
			cleared[before.URI.Who().String()] = true
		}
		switch c := rec.Change.(type) {
		case record.MemberRemoved:
			e.Ends = append(e.Ends, SignInsEnd{User: s.written.People.userOf(c.Email), Email: c.Email, Position: rec.Position})
		case record.SigninsEnded:
			e.Ends = append(e.Ends, SignInsEnd{User: s.written.People.userOf(c.Email), Email: c.Email, Position: rec.Position})
		case record.Posted:
			if rec.Skipped() {
				continue
			}
			m := Message{Posted: c, Position: rec.Position, AtMs: rec.WrittenAtMs}
			posted = append(posted, m)
			e.Messages = append(e.Messages, MessageOf(m, s.opts))
		case record.PauseSet:
			after := s.pausedSessions(nowMs)
			for _, key := range slices.Sorted(maps.Keys(pauseBefore)) {
				if pauseBefore[key] != after[key] {
					w, _ := name.ParseWho(key)
					e.Wakes = append(e.Wakes, WakeTo{To: w, Wake: wire.Wake{Kind: "pause"}})
				}
			}
		}
	}
	for _, m := range posted {
		for _, w := range m.Woken {
			sess := s.written.Session(w)
			if sess == nil || sess.Life == MustClear || cleared[w.String()] {
				continue
			}
			// A message that wakes the blocked session is its answer; a
			// note or a status request is none. The answer ends the
			// unanswered block at once, and the next work ends the block.
			if l := s.presence.Live(w); l != nil && l.Block != nil && !l.Block.Answered() && m.AtMs >= l.Block.AtMs && m.Type == record.MessagePlain {
				l.Block.AnsweredMs = max(m.AtMs, 1)
				s.presence.touched(w.String(), dirtyLive)
			}
			e.Wakes = append(e.Wakes, WakeTo{To: w, Wake: wakeOf(m, w)})
		}
	}
	if len(cleared) > 0 {
		// In the order of the sessions: the same chunk gives the same
		// effects.
		for _, key := range slices.Sorted(maps.Keys(cleared)) {
			w, _ := name.ParseWho(key)
			if wake, ok := s.MissedWake(w); ok {
				e.Wakes = append(e.Wakes, WakeTo{To: w, Wake: wake})
			}
		}
	}
	return e
}

// pausedSessions gives, for each session of the written copy that is not
// gone at nowMs, whether a pause stops it at its place: a pause wakes no
// session that is gone (it ended, or it stopped for 3 minutes).
func (s *State) pausedSessions(nowMs int64) map[string]bool {
	out := map[string]bool{}
	v := s.Written()
	for key, sess := range s.written.Sessions {
		l := s.presence.Live(sess.URI.Who())
		if l == nil || v.Gone(sess.URI.Who(), Now{Ms: nowMs}) {
			continue
		}
		place := sess.URI.Place()
		if l.Place.Host != "" {
			place = l.Place
		}
		_, _, paused := v.Paused(place)
		out[key] = paused
	}
	return out
}

// MissedWake gives the wake of the newest unread message that woke who,
// from the written copy, with its thread as who names it (dm:PEER): a
// watch that starts gets it. A session in MustClear gets none.
func (s *State) MissedWake(w name.Who) (wire.Wake, bool) {
	sess := s.written.Session(w)
	if sess == nil || sess.Life == MustClear {
		return wire.Wake{}, false
	}
	var seen uint64
	if l := s.presence.Live(w); l != nil {
		seen = l.WakeSeen
	}
	var best *Message
	for name, t := range s.written.Threads {
		cursor := s.cursorOf(w, name)
		for i := len(t.Messages) - 1; i >= 0; i-- {
			m := &t.Messages[i]
			if m.Seq <= cursor || m.Position <= seen {
				break
			}
			if wokeOf(m, w) && (best == nil || m.Position > best.Position) {
				best = m
				break
			}
		}
	}
	if best == nil {
		return wire.Wake{}, false
	}
	return wakeOf(*best, w), true
}

// cursorOf gives the read cursor of who in a thread of the written copy:
// its cursor, or the seq of its join.
func (s *State) cursorOf(w name.Who, thread name.Thread) uint64 {
	return cursorIn(s.written, s.presence, w, thread)
}

func cursorIn(r *Riff, p *Presence, w name.Who, thread name.Thread) uint64 {
	var seq uint64
	if t := r.Threads[thread]; t != nil {
		seq = t.Members[w.String()]
	}
	if cur, ok := p.Cursor(w, thread); ok && cur > seq {
		seq = cur
	}
	return seq
}

func wokeOf(m *Message, w name.Who) bool {
	for _, x := range m.Woken {
		if x == w {
			return true
		}
	}
	return false
}

// wakeOf gives the wake of a message to who. It names the thread as who
// names it, as every other reply does: a direct thread is dm:PEER.
func wakeOf(m Message, w name.Who) wire.Wake {
	return wire.Wake{Thread: m.Thread.For(w), Seq: m.Seq, From: m.Sender.Named(), Kind: m.Type}
}

// MaxPostStep is the most characters of a message in the step of a lead
// ("The step of a post shows the message in one line of at most 80
// characters").
const MaxPostStep = 80

// leadStep sets the step of the lead from its own calls ("See what the
// lead does" of riff's user guide): a tell shows only the other side
// (told 075ff6a7: a direct message is private to its two sessions), a
// post its message in one line, a pause or a resume its scope. The step
// is the status of the lead, and stays until the next of these calls or
// a status of its own. A replay sets none: the checkpoint keeps the
// status.
func (s *State) leadStep(rec record.Record, nowMs int64) {
	if nowMs == 0 || rec.By == nil || rec.By.Class != record.ClassSession {
		return
	}
	var text string
	switch c := rec.Change.(type) {
	case record.Posted:
		if rec.Command != string(record.CommandPost) || !c.Lead || c.Sender.Who() != rec.By.Who {
			return
		}
		text = postStep(c, rec.By.Who)
	case record.PauseSet:
		if c.Scope.IsOther() {
			return
		}
		verb := "paused "
		if c.State == record.Running {
			verb = "resumed "
		}
		scope := string(c.Scope.Repository)
		if c.Scope.Riff {
			scope = "the riff"
		}
		text = verb + scope
	default:
		return
	}
	l := s.presence.live(rec.By.Who)
	l.Status = &TextAt{Text: text, AtMs: nowMs}
}

// postStep gives the step of a post of the lead me.
func postStep(c record.Posted, me name.Who) string {
	if c.Thread.IsDirect() {
		peer, _ := c.Thread.Peer(me)
		if user, person := peer.Person(); person {
			return "told " + user
		}
		id := string(peer)
		if len(id) > 8 {
			id = id[:8]
		}
		return "told " + id
	}
	if c.Type == record.MessageStatus {
		return "asked for the status in " + string(c.Thread)
	}
	var body string
	if content, err := signed.Decode(c.Payload); err == nil {
		body = content.Body
	}
	return "posted: " + oneLine(body, MaxPostStep)
}

// oneLine gives text in one line (each run of spaces and line breaks is
// one space), cut to at most limit characters with "…".
func oneLine(text string, limit int) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= limit {
		return text
	}
	runes := []rune(text)
	return string(runes[:limit-1]) + "…"
}
