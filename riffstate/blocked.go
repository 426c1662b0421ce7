package riffstate

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The texts of a block ("A blocked session" and "Say that the lead waits
// for you" of riff's user guide; docs/cli.md lists them). A block is a signal call ([SetBlocked]); the
// message that wakes the lead is a post of the caller through the one
// path, which the engine sends after the signal with the text of
// [View.BlockedTell].

// isLiveLead says whether the caller is the live lead of its user in the
// repository of its place.
func (v View) isLiveLead(c Caller, now Now) bool {
	lead, ok := v.LiveLead(c.URI.User, c.URI.Repo, now)
	return ok && lead.URI.Who() == c.Who()
}

// BlockedTell gives the text of the message that a block of the caller
// sends to the lead of its user: "blocked: REASON". The lead itself is not
// blocked: it waits for its person, who reads its terminal, so it sends
// no message (empty).
func (v View) BlockedTell(c Caller, reason string, now Now) string {
	if v.isLiveLead(c, now) {
		return ""
	}
	return wire.BlockedText(reason)
}

// BlockedReply gives the reply to a block, after its signal: the reason
// is the block of the caller in the presence. told is what became of the
// message to the lead. The reply to the lead is: "You wait
// for your person: REASON. Ask your user. The next prompt ends the wait."
func (v View) BlockedReply(c Caller, told Told, now Now) wire.TextReply {
	if v.isLiveLead(c, now) {
		reason := ""
		if l := v.presence.Live(c.Who()); l != nil && l.Block != nil {
			reason = l.Block.Text
		}
		return wire.TextReply{Text: "You wait for your person: " + sentence(reason) + " Ask your user. The next prompt ends the wait."}
	}
	switch {
	case told.Sent:
		return wire.TextReply{Text: "Blocked. " + told.text(c) + " a message that wakes you is the answer."}
	case told.Refused != nil:
		return wire.TextReply{Text: "Blocked. " + told.text(c)}
	}
	return wire.TextReply{Text: "Blocked. A message that wakes you is the answer."}
}

// sentence ends a text with a period, unless it ends with a mark of its
// own (a question, for example).
func sentence(text string) string {
	text = strings.TrimSpace(text)
	if strings.HasSuffix(text, ".") || strings.HasSuffix(text, "?") || strings.HasSuffix(text, "!") {
		return text
	}
	return text + "."
}

// The unanswered block ("A blocked session" of riff's user guide;
// docs/state.md, "The blocks"): the block wakes the lead once
// (its message), then riff-server wakes the lead a second time after
// lead.wake minutes with no answer ([RemindLead]), and lead.wake minutes
// after that second wake the block is unanswered: who shows "the lead
// gave no answer", and the reply to the keep-alive of the lead lists it
// ([View.UnansweredFor]), so that the relay of the lead sends a desktop
// notification. An answer (a message that wakes the session) ends the
// unanswered block at once. The block of the live lead is no block (it
// waits for its person) and has no second wake.

// NoAnswerText is the line of who and top for an unanswered block.
const NoAnswerText = "the lead gave no answer"

// leadWakeMs gives lead.wake of the live lead of user in repo, as its
// keep-alive told it, or the 15 minutes of the guide.
func (v View) leadWakeMs(user string, repo name.Repo, now Now) int64 {
	if lead, ok := v.LiveLead(user, repo, now); ok {
		if l := v.presence.Live(lead.URI.Who()); l != nil && l.LeadWakeMs > 0 {
			return l.LeadWakeMs
		}
	}
	return wire.DefaultLeadWake * 60_000
}

// leadBlock gives the block of s that waits for the lead: a block that
// no message answered, of a session that is not gone and not the live
// lead of its repository; else nil.
func (v View) leadBlock(s *Session, now Now) *Block {
	w := s.URI.Who()
	l := v.presence.Live(w)
	if l == nil || l.Block == nil || l.Block.Answered() || v.Gone(w, now) {
		return nil
	}
	place := v.placeOf(s)
	if lead, ok := v.LiveLead(s.URI.User, place.Repo, now); ok && lead.URI.Who() == w {
		return nil
	}
	return l.Block
}

// Unanswered says whether the block of s is unanswered at now: the lead
// got its second wake, and gave no answer in the wait that it named.
func (v View) Unanswered(s *Session, now Now) bool {
	b := v.leadBlock(s, now)
	return b != nil && b.RemindedMs != 0 && now.Ms-b.RemindedMs >= b.RemindedAfterMs
}

// blockedSessions gives each session of the riff with a block in the
// presence, in the order of the sessions: the timer and each keep-alive
// of a lead look at these, not at each session of the riff.
func (v View) blockedSessions() []*Session {
	var keys []string
	for key, l := range v.presence.Lives {
		if l.Block != nil {
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	out := make([]*Session, 0, len(keys))
	for _, key := range keys {
		if s := v.riff.Sessions[key]; s != nil {
			out = append(out, s)
		}
	}
	return out
}

// RemindsDue gives the second wake of the lead that is due at now for
// each blocked session, in the order of the sessions: its block is
// lead.wake old, and had no second wake. The engine sends each as the
// command [RemindLead] of the server.
func (v View) RemindsDue(now Now) []RemindLead {
	var due []RemindLead
	for _, s := range v.blockedSessions() {
		b := v.leadBlock(s, now)
		if b == nil || b.RemindedMs != 0 {
			continue
		}
		wait := v.leadWakeMs(s.URI.User, v.placeOf(s).Repo, now)
		if now.Ms-b.AtMs >= wait {
			due = append(due, RemindLead{Session: s.URI.Who(), BlockAtMs: b.AtMs, AfterMs: wait})
		}
	}
	return due
}

// UnansweredFor gives, when c is the live lead of its repository, each
// unanswered block of another session of its user there, oldest first;
// else none.
func (v View) UnansweredFor(c Caller, now Now) []wire.UnansweredBlock {
	me := v.riff.Session(c.Who())
	if me == nil {
		return nil
	}
	repo := v.placeOf(me).Repo
	if lead, ok := v.LiveLead(c.URI.User, repo, now); !ok || lead.URI.Who() != c.Who() {
		return nil
	}
	var out []wire.UnansweredBlock
	for _, s := range v.blockedSessions() {
		if s.URI.User != c.URI.User || s.URI.Who() == c.Who() || v.placeOf(s).Repo != repo || !v.Unanswered(s, now) {
			continue
		}
		b := v.presence.Live(s.URI.Who()).Block
		var items []name.Item
		for _, ref := range v.Claims(s, now) {
			items = append(items, ref.Item)
		}
		out = append(out, wire.UnansweredBlock{Session: v.Marked(s, now), Items: items, Reason: b.Text, AtMs: b.AtMs, WaitSecs: (now.Ms - b.AtMs) / 1000})
	}
	slices.SortStableFunc(out, func(a, b wire.UnansweredBlock) int { return cmp.Compare(a.AtMs, b.AtMs) })
	return out
}

// RemindLead is the command of the server that wakes the lead a second
// time for a block with no answer: a direct message of riff@server to
// the live lead of the session's user in its repository, "blocked:
// SESSION, working on ITEM: "REASON" has no answer after 15 minutes".
// Its signal marks the block reminded, also when the user has no live
// lead (then no message goes: nobody got the first one either), so
// that lead.wake minutes later the block is unanswered.
type RemindLead struct {
	Session name.Who
	// BlockAtMs names the block (a new block replaces the old one), and
	// AfterMs is the wait that the engine read: lead.wake of the lead.
	BlockAtMs int64
	AfterMs   int64
	base
}

func (RemindLead) Kind() record.Command { return record.CommandRemindLead }

// Handle checks against the pending copy that the second wake is still
// due (an answer or a new block may have come since the engine looked),
// and makes the message to the lead.
func (r RemindLead) Handle(c Caller, v View, now Now) (Handled, error) {
	s := v.riff.Session(r.Session)
	var b *Block
	if s != nil {
		b = v.leadBlock(s, now)
	}
	if b == nil || b.AtMs != r.BlockAtMs || b.RemindedMs != 0 || r.AfterMs <= 0 || now.Ms-b.AtMs < r.AfterMs {
		return Handled{}, bad("the block of %s has no second wake of the lead due", r.Session)
	}
	lead, ok := v.LiveLead(s.URI.User, v.placeOf(s).Repo, now)
	if !ok {
		return Handled{}, nil
	}
	return Handled{Changes: []record.Change{v.serverDirect(lead.URI, v.remindText(s, b, r.AfterMs, now), now)}}, nil
}

// remindText is the text of the second wake of the lead.
func (v View) remindText(s *Session, b *Block, afterMs int64, now Now) string {
	who := v.Marked(s, now).Bare().Named()
	if claims := v.Claims(s, now); len(claims) > 0 {
		who += ", " + workingOn(claims)
	}
	return fmt.Sprintf("blocked: %s: %q has no answer after %s", who, b.Text, minutesText(afterMs))
}

// minutesText gives a wait of whole minutes: 1 minute, 15 minutes.
func minutesText(ms int64) string {
	if m := ms / 60_000; m != 1 {
		return fmt.Sprintf("%d minutes", m)
	}
	return "1 minute"
}

func (r RemindLead) Signal(Caller) Signal {
	return BlockReminded{Session: r.Session, BlockAtMs: r.BlockAtMs, AfterMs: r.AfterMs}
}

func (RemindLead) Reply(Caller, View, Done, Now) struct{} { return struct{}{} }

// BlockReminded marks a block whose lead got its second wake: AfterMs
// after it, the block is unanswered. It changes the block of Session,
// not of the caller (the server), and only the block that BlockAtMs
// names.
type BlockReminded struct {
	Session   name.Who
	BlockAtMs int64
	AfterMs   int64
}

func (s BlockReminded) Set(p *Presence, _ name.Who, now Now) {
	l := p.Live(s.Session)
	if l == nil || l.Block == nil || l.Block.AtMs != s.BlockAtMs {
		return
	}
	p.touched(s.Session.String(), dirtyLive)
	l.Block.RemindedMs, l.Block.RemindedAfterMs = now.Ms, s.AfterMs
}
