package riffengine_test

import (
	"context"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/rifflog/mem"
)

// seen through a stop and a start of the server (docs/state.md, "The time
// rules": seen): the time since the last call before the stop, not
// since the load; a keep-alive does not change it.

func TestGivenAStopAndAStartThenWhoShowsTheTimeOfTheLastCallBeforeTheStop(t *testing.T) {
	store := mem.New()
	c := newClock()
	first := start(t, setup{store: store, clock: c})
	first.register("ann/ann1", "bob/bob1")
	called := c.Now().UnixMilli()
	c.Add(2 * time.Minute)
	first.ok("/v1/alive", wire.Alive{Me: uri("ann/ann1")}, nil)
	if err := first.e.Close(context.Background()); err != nil {
		t.Fatalf("Close = %v", err)
	}

	// when the server starts again 10 minutes later
	c.Add(10 * time.Minute)
	r := start(t, setup{store: store, clock: c})

	// then bob's who --all shows ann gone, seen 12m ago
	var who wire.WhoReply
	r.ok("/v1/who", wire.Who{Me: uri("bob/bob1"), All: true}, &who)
	found := false
	for _, row := range who.Rows {
		if row.URI.Who() != whoOf("ann/ann1") {
			continue
		}
		found = true
		if !row.Gone || row.Detail != "seen 12m ago" || row.SeenMs != called {
			t.Errorf("row of ann after the start = %+v; want gone, seen 12m ago, seen_ms %d", row, called)
		}
	}
	if !found {
		t.Errorf("who --all has no row of ann: %+v", who.Rows)
	}
}
