package riffstate

import (
	"slices"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/quote"
	"github.com/como-technologies/riff/riffcore/record"
)

// The relays of a session. A relay is one run of riff relay mcp, named by
// an instance ID that it makes at its start and names in its register,
// its keep-alives and its end. Claude Code can run two at once for one
// session (claude mcp list starts a second one with the same session ID,
// which exits at once): the end of one relay must not end the session
// that another live relay serves.
//
// The rule: an end that names its relay ends the session only when no
// other relay of the session is live; else it ends only that relay (a
// relay_ended record), and the session keeps its claims. A relay is live
// while it gives signs of life (its register or its keep-alives) within
// GoneMs, the time after which who drops a session. The relays come from
// the log (relay_started, relay_ended), so a start of the server knows
// them: a relay of the log with no sign since the load counts as seen at
// the load, as a session does. A relay that only its keep-alives name (its
// register failed) counts from its keep-alives. An end with no relay (a
// client of an older build) ends the session, as it always did.

// MaxRelays bounds the relays that the riff keeps for one session: a new
// register beyond it ends the oldest ones.
const MaxRelays = 8

// checkRelay checks the relay of a call: none, or a word.
func checkRelay(relay string) error {
	if relay == "" {
		return nil
	}
	if err := name.CheckRelay(relay); err != nil {
		return bad("the relay %s is not an instance ID: %v", quote.Input(relay), err)
	}
	return nil
}

// relaySeenMs gives the time of the last sign of life of a relay of who:
// its register or keep-alive since the load, else the load for a relay of
// the log, else 0.
func (v View) relaySeenMs(w name.Who, relay string, inLog bool) int64 {
	var seen int64
	if l := v.presence.Live(w); l != nil {
		seen = l.Relays[relay]
	}
	if inLog {
		seen = max(seen, v.presence.LoadedMs)
	}
	return seen
}

// liveRelays gives the relays of the session s that are live at now, but
// the relay but, in a fixed order: those of the log first (oldest first), then
// those that only keep-alives name, sorted.
func (v View) liveRelays(s *Session, but string, now Now) []string {
	w := s.URI.Who()
	live := func(relay string, inLog bool) bool {
		return relay != but && now.Ms-v.relaySeenMs(w, relay, inLog) < GoneMs
	}
	var out []string
	for _, relay := range s.Relays {
		if live(relay, true) {
			out = append(out, relay)
		}
	}
	if l := v.presence.Live(w); l != nil {
		var more []string
		for relay := range l.Relays {
			if !slices.Contains(s.Relays, relay) && live(relay, false) {
				more = append(more, relay)
			}
		}
		slices.Sort(more)
		out = append(out, more...)
	}
	return out
}

// relayStart gives the records of a register of relay by the session of
// c: relay_ended for each relay of the log that is not live (no sign of
// life for GoneMs: a kill -9 sends no end) and for the oldest ones beyond
// MaxRelays, then relay_started for a relay that the log does not have.
func (v View) relayStart(c Caller, relay string, now Now) []record.Change {
	if relay == "" || c.Class != record.ClassSession {
		return nil
	}
	s := v.riff.Session(c.Who())
	if s == nil {
		return []record.Change{record.RelayStarted{Session: c.URI, Relay: relay}}
	}
	var changes []record.Change
	var kept []string // the relays that stay, oldest first
	for _, id := range s.Relays {
		if id == relay || now.Ms-v.relaySeenMs(s.URI.Who(), id, true) < GoneMs {
			kept = append(kept, id)
			continue
		}
		changes = append(changes, record.RelayEnded{Session: s.URI, Relay: id})
	}
	// The relay of the register counts among the MaxRelays; the oldest
	// others make room.
	count := len(kept)
	if !slices.Contains(kept, relay) {
		count++
	}
	for _, id := range kept {
		if count <= MaxRelays {
			break
		}
		if id != relay {
			changes = append(changes, record.RelayEnded{Session: s.URI, Relay: id})
			count--
		}
	}
	if !slices.Contains(s.Relays, relay) {
		changes = append(changes, record.RelayStarted{Session: c.URI, Relay: relay})
	}
	return changes
}

// RelayGone is the end of one relay of a session that another relay
// serves: the session goes on.
type RelayGone struct{ Relay string }

func (g RelayGone) Set(p *Presence, w name.Who, now Now) {
	if l := p.Live(w); l != nil {
		delete(l.Relays, g.Relay)
	}
}

// relaySeen notes a sign of life of a relay in the presence of who.
func (l *Live) relaySeen(relay string, nowMs int64) {
	if relay == "" {
		return
	}
	if l.Relays == nil {
		l.Relays = map[string]int64{}
	}
	l.Relays[relay] = nowMs
}

// Registered is the register of a session at its place, by its relay
// ("" for none): a sign of life of that relay.
type Registered struct {
	Place name.Place
	Relay string
}

func (r Registered) Set(p *Presence, w name.Who, now Now) {
	Place{Place: r.Place}.Set(p, w, now)
	p.live(w).relaySeen(r.Relay, now.Ms)
}
