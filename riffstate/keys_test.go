package riffstate

import (
	"strings"
	"testing"
	"testing/quick"

	"github.com/como-technologies/riff/riffcore/name"
)

// The keys of the look-ups by bytes are the keys that the maps hold.
func TestGivenAWhoWhenItsKeyIsMadeThenItIsItsString(t *testing.T) {
	long := strings.Repeat("x", 2*keyRoom)
	for _, w := range []name.Who{{}, {User: "mike"}, {User: "mike", Session: "a6cf"}, {User: long, Session: long}, {Session: "a6cf"}} {
		var buf [keyRoom]byte
		if got := string(whoKey(buf[:0], w)); got != w.String() {
			t.Errorf("whoKey(%#v) = %q; want %q", w, got, w.String())
		}
	}
	if err := quick.Check(func(user, session string) bool {
		w := name.Who{User: user, Session: session}
		var buf [keyRoom]byte
		return string(whoKey(buf[:0], w)) == w.String()
	}, nil); err != nil {
		t.Error(err)
	}
}

func TestGivenAClaimWhenItsKeyIsMadeThenItIsClaimKey(t *testing.T) {
	if err := quick.Check(func(thread, item string) bool {
		var buf [keyRoom]byte
		return string(claimKeyOf(buf[:0], name.Thread(thread), name.Item(item))) == claimKey(name.Thread(thread), name.Item(item))
	}, nil); err != nil {
		t.Error(err)
	}
}

// A call of a known caller looks up its session and its presence with
// no allocation.
func TestGivenAKnownCallerWhenItIsLookedUpThenNothingIsAllocated(t *testing.T) {
	r := NewRiff()
	p := NewPresence()
	p.dirty = map[string]uint8{}
	w := name.Who{User: "mike", Session: strings.Repeat("a", 36)}
	r.Sessions[w.String()] = &Session{}
	p.live(w)
	allocs := testing.AllocsPerRun(100, func() {
		if r.Session(w) == nil || p.Live(w) == nil || p.live(w) == nil || r.Holder("o/r", "x") != nil || r.Member("o/r", w) {
			t.Fatal("the look-up failed")
		}
	})
	if allocs != 0 {
		t.Errorf("a look-up allocates %v times", allocs)
	}
}
