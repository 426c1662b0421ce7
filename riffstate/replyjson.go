package riffstate

import (
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
)

// A reply that carries the URI of a session carries each of its claims:
// at 1,000 claims a reply of a claim is about 20 KB (the wire;
// docs/decisions.md). The replies of claim and release are written here
// as JSON straight from the written copy, and the JSON of the claims of
// a session with many of them is kept from one reply to the next, so
// that a reply costs a copy of its bytes, not a walk of the claims
// (docs/performance.md, "Issue 23, second pass: the pile-up").

// jsonReplier is a command whose reply is also written as JSON straight
// from the written copy: AppendReply appends the bytes that the wire
// writes for the value of Reply (wire.AppendClaimReply of its fields),
// with its newline.
type jsonReplier interface {
	AppendReply(dst []byte, c Caller, v View, done Done, now Now) []byte
}

// AppendReply appends the reply of cmd as JSON, with its newline, byte
// for byte what the wire writes for the value of [Reply], when cmd
// writes its reply itself; ok is false, with dst as it came, for each
// other command. The JSON of each reply that carries the claims of a
// session is the same, from the same state, as that of its value
// (TestGivenSessionsWithClaimsWhenTheRepliesAreWrittenThenTheyAreTheJSONOfTheirValues).
func AppendReply[R any](dst []byte, s *State, cmd Command[R], c Caller, done Done, now Now) (out []byte, ok bool) {
	r, ok := cmd.(jsonReplier)
	if !ok {
		return dst, false
	}
	return r.AppendReply(dst, s.Caller(c), s.Written(), done, now), true
}

// appendURIOf appends the URI of the caller with its marks (uriOf) as a
// JSON string.
func (v View) appendURIOf(dst []byte, c Caller, now Now) []byte {
	if s := v.riff.Session(c.Who()); s != nil {
		return v.appendMarked(dst, s, now)
	}
	return c.URI.AppendJSON(dst)
}

// appendMarked appends the URI that Marked gives as a JSON string, with
// no copy of the claims: their JSON comes from the claims kept, or is
// written for a session with few of them.
func (v View) appendMarked(dst []byte, s *Session, now Now) []byte {
	u, claims, lead := v.marks(s, now)
	var scratch [512]byte
	if text, ok := v.texts.of(s, claims, scratch[:0]); ok {
		if out, ok := u.AppendJSONWith(dst, text, lead); ok {
			return out
		}
	}
	// A part that JSON escapes (a query part that this build does not
	// know, an item of an old record): the URI as a value.
	return v.Marked(s, now).AppendJSON(dst)
}

// The claims of a session whose JSON is kept: the sessions with at
// least minClaimsKept claims (under it, a walk of the claims costs less
// than the keeping), at most maxSessionsKept of them (a riff holds few:
// when more come, the kept ones go and are written again at their next
// reply).
const (
	minClaimsKept   = 16
	maxSessionsKept = 1024
)

// claimTexts keeps the JSON of the claims of each session of the written
// copy with many claims, as name.AppendClaimJSON writes them, one after
// the other, in the order of Session.Claims. Apply changes the claims of
// a session in place only at a released record (a claimed record appends
// one), so a kept text goes at each release of its session ([applied])
// and grows by the new claims at the next reply. It is part of the State:
// the owner of the State holds its lock for it, as for the riff.
type claimTexts struct {
	bySession map[name.Who]*claimText
}

// claimText is the JSON of the first n claims of session.
type claimText struct {
	// session is the session of the riff whose claims the text holds: a
	// new session of the same who (after a load, or a forget) gets a new
	// text.
	session *Session
	n       int
	// last is the n-th claim: a claim that moved gives a new text, even
	// if a release did not say so.
	last ClaimRef
	// lastAt is where the JSON of last starts in text, -1 when not known
	// (after a release of the last): the release of the last claim cuts
	// it from the text.
	lastAt int
	text   []byte
}

// of gives the JSON of claims, the claims of s that count now (all of
// s.Claims, or none), as name.AppendClaimJSON writes them one after the
// other: the kept text of s, grown by the new claims, or for few claims
// (or with t nil) the text written into scratch. ok is false when an
// item needs an escape.
func (t *claimTexts) of(s *Session, claims []ClaimRef, scratch []byte) (text []byte, ok bool) {
	if t == nil || len(claims) < minClaimsKept {
		for _, ref := range claims {
			if scratch, ok = name.AppendClaimJSON(scratch, ref.Item); !ok {
				return nil, false
			}
		}
		return scratch, true
	}
	w := s.URI.Who()
	kept := t.bySession[w]
	if kept == nil || kept.session != s || kept.n > len(claims) || kept.n > 0 && claims[kept.n-1] != kept.last {
		if t.bySession == nil {
			t.bySession = map[name.Who]*claimText{}
		}
		if kept == nil && len(t.bySession) >= maxSessionsKept {
			clear(t.bySession)
		}
		size := 0
		for _, ref := range claims {
			size += len(claimJSONStart) + len(ref.Item)
		}
		kept = &claimText{session: s, text: make([]byte, 0, size+size/4)}
		t.bySession[w] = kept
	}
	for _, ref := range claims[kept.n:] {
		kept.lastAt = len(kept.text)
		if kept.text, ok = name.AppendClaimJSON(kept.text, ref.Item); !ok {
			delete(t.bySession, w)
			return nil, false
		}
	}
	kept.n, kept.last = len(claims), claims[len(claims)-1]
	return kept.text, true
}

// claimJSONStart is what name.AppendClaimJSON writes before the item.
const claimJSONStart = `\u0026claim=`

// applied follows a record that was applied to the written copy (took:
// Apply took it). A released record changed the claims of its session in
// place: a release of the last claim of the text cuts it from the text
// (the claims before it did not move), any other drops the text.
func (t *claimTexts) applied(rec record.Record, took bool) {
	c, ok := rec.Change.(record.Released)
	if !ok || !took || len(t.bySession) == 0 {
		return
	}
	w := c.Session.Who()
	kept := t.bySession[w]
	if kept == nil {
		return
	}
	if kept.last != (ClaimRef{c.Thread, c.Item}) || kept.lastAt < 0 || kept.n < 2 || len(kept.session.Claims) < kept.n-1 {
		delete(t.bySession, w)
		return
	}
	kept.n--
	kept.text = kept.text[:kept.lastAt]
	kept.last, kept.lastAt = kept.session.Claims[kept.n-1], -1
}
