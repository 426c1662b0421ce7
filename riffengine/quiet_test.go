package riffengine_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/como-technologies/riff/riffstate"
)

// The claims of a quiet session through the engine: no timer writes a
// release; the rule is read when another session claims, and when a view
// shows the claim.

const claimTimeout = riffstate.ClaimTimeoutMs * time.Millisecond

func TestGivenAQuietSessionWhenFiveMinutesPassThenNoTimerWritesAndATakeOverIsOneChunk(t *testing.T) {
	c := newClock()
	r := start(t, setup{clock: c})
	r.register("ann/ann1", "bob/bob1")
	r.ok("/v1/claim", wire.Claim{Me: uri("ann/ann1"), Item: "issue-7"}, nil)
	at := r.position()

	// when 5 minutes pass with no sign of life of ann, and the timers run
	c.Add(claimTimeout)
	r.e.Tick(context.Background())

	// then no record is written
	if got := commandsAfter(t, r, at); len(got) != 0 {
		t.Fatalf("the timers wrote %q after 5 minutes; want nothing", got)
	}
	// and bob takes the item: the released of ann, then the claimed, in
	// one chunk of the claim
	r.ok("/v1/claim", wire.Claim{Me: uri("bob/bob1"), Item: "issue-7"}, nil)
	all := chunks(t, r.store)
	last := all[len(all)-1]
	var got []string
	for _, rec := range last {
		var session name.SessionURI
		switch ch := rec.Change.(type) {
		case record.Released:
			session = ch.Session
		case record.Claimed:
			session = ch.Session
		}
		got = append(got, rec.Command+" "+string(rec.Change.Kind())+" "+session.Who().String())
	}
	want := []string{"claim released ann/ann1", "claim claimed bob/bob1"}
	if !cmp.Equal(got, want) {
		t.Errorf("the chunk of the take-over = %q; want %q", got, want)
	}
}

func TestGivenAQuietSessionThatComesBackThenItGetsBackEachClaimThatNobodyTook(t *testing.T) {
	c := newClock()
	r := start(t, setup{clock: c})
	r.register("ann/ann1", "bob/bob1")
	r.ok("/v1/claim", wire.Claim{Me: uri("ann/ann1"), Item: "issue-7"}, nil)
	r.ok("/v1/claim", wire.Claim{Me: uri("ann/ann1"), Item: "issue-8"}, nil)

	// given 6 minutes with no sign of life of ann, the timers, and a
	// take-over of issue-7 by bob
	c.Add(claimTimeout + time.Minute)
	r.e.Tick(context.Background())
	var whoRep wire.WhoReply
	r.ok("/v1/who", wire.Who{Me: uri("bob/bob1"), All: true}, &whoRep)
	for _, row := range whoRep.Rows {
		if row.URI.Who() == whoOf("ann/ann1") && len(row.URI.Claims) != 0 {
			t.Errorf("who --all shows the claims %v of the quiet session; want them ended", row.URI.Claims)
		}
	}
	r.ok("/v1/claim", wire.Claim{Me: uri("bob/bob1"), Item: "issue-7"}, nil)

	// when ann calls again
	var me wire.WhoamiReply
	r.ok("/v1/whoami", wire.Whoami{Me: uri("ann/ann1")}, &me)

	// then it holds issue-8 again, and bob holds issue-7
	if !slices.Equal(me.URI.Claims, []name.Item{"issue-8"}) {
		t.Errorf("whoami of ann after it came back = %s; want claim=issue-8", me.URI)
	}
	if w, ok := r.holderOf("issue-7"); !ok || w != whoOf("bob/bob1") {
		t.Errorf("holder of issue-7 = %v, %v; want bob/bob1", w, ok)
	}
	rep := r.post("/v1/claim", wire.Claim{Me: uri("bob/bob1"), Item: "issue-8"})
	if rep.status != http.StatusConflict || rep.header.Get(wire.HeaderRefused) != string(wire.Held) {
		t.Errorf("bob's claim of issue-8 after ann came back = %s; want 409 held", rep)
	}
}

func TestGivenARestartThenTheClaimTimerOfEachSessionStartsAtTheLoad(t *testing.T) {
	store := mem.New()
	c := newClock()
	first := start(t, setup{store: store, clock: c})
	first.register("ann/ann1", "bob/bob1")
	first.ok("/v1/claim", wire.Claim{Me: uri("ann/ann1"), Item: "issue-7"}, nil)
	first.ok("/v1/claim", wire.Claim{Me: uri("bob/bob1"), Item: "issue-9"}, nil)
	if err := first.e.Close(context.Background()); err != nil {
		t.Fatalf("Close = %v", err)
	}

	// given a start an hour later
	c.Add(time.Hour)
	r := start(t, setup{store: store, clock: c})

	// when ann comes back within the 5 minutes, and bob does not
	c.Add(claimTimeout - time.Millisecond)
	r.ok("/v1/alive", wire.Alive{Me: uri("ann/ann1")}, nil)
	rep := r.post("/v1/claim", wire.Claim{Me: uri("carl/carl1"), Item: "issue-9"})
	if rep.status != http.StatusConflict {
		t.Errorf("a claim of bob's item 4:59 after the load = %s; want 409 held", rep)
	}
	c.Add(time.Millisecond)
	r.e.Tick(context.Background())

	// then ann keeps its claim, and bob's item is free 5 minutes after
	// the load
	if rep := r.post("/v1/claim", wire.Claim{Me: uri("carl/carl1"), Item: "issue-7"}); rep.status != http.StatusConflict {
		t.Errorf("a claim of ann's item after ann came back = %s; want 409 held", rep)
	}
	r.ok("/v1/claim", wire.Claim{Me: uri("carl/carl1"), Item: "issue-9"}, nil)
	if w, ok := r.holderOf("issue-9"); !ok || w != whoOf("carl/carl1") {
		t.Errorf("holder of issue-9 = %v, %v; want carl/carl1", w, ok)
	}
}
