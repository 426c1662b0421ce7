package riffengine_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/wire"
)

// The timer of the second wake of the lead (the guide, "A blocked
// session"), on the fake clock of the engine: the lead's watch gets the
// second wake after lead.wake minutes, and lead.wake minutes after it the
// keep-alive of the lead lists the unanswered block and who marks it.

func TestGivenABlockedWorkerWhenTheTimerLooksAfterLeadWakeMinutesThenTheLeadGetsItsSecondWakeAndThenTheBlockIsUnanswered(t *testing.T) {
	r := startWithLead(t)
	// The lead's keep-alive tells its lead.wake: 10 minutes.
	tenMinutes := int64(10)
	r.ok("/v1/alive", wire.Alive{Me: uri("ann/ann1"), LeadWake: &tenMinutes}, nil)
	watch := r.open("/v1/watch", wire.Watch{Me: uri("ann/ann1")})
	if ev, ok := watch.next(); !ok || ev.Type != wire.EventHello {
		t.Fatalf("first line = %+v; want hello", ev)
	}
	// The worker has its watch too: a session with none is offline.
	r.open("/v1/watch", wire.Watch{Me: uri("ann/ann2")})
	r.ok("/v1/blocked", wire.Blocked{Me: uri("ann/ann2"), Reason: "which of two designs?"}, nil)
	if ev, ok := watch.nextOf(); !ok || ev.Wake == nil || ev.Wake.Thread != "dm:ann2" {
		t.Fatalf("the first wake of the lead = %+v; want the block's message in dm:ann2", ev)
	}
	at := r.position()

	// 9 minutes: no second wake.
	keepAlives := func() {
		r.ok("/v1/alive", wire.Alive{Me: uri("ann/ann1"), LeadWake: &tenMinutes}, nil)
		r.ok("/v1/alive", wire.Alive{Me: uri("ann/ann2")}, nil)
	}
	r.clock.Add(9 * time.Minute)
	keepAlives()
	r.e.Tick(context.Background())
	if got := changesAfter(t, r.store, at); len(got) != 0 {
		t.Fatalf("records after 9 minutes = %v; want none", got)
	}

	// 10 minutes: the second wake, a direct message of riff@server.
	r.clock.Add(time.Minute)
	keepAlives()
	r.e.Tick(context.Background())
	if got, want := changesAfter(t, r.store, at), []string{"remind_lead posted"}; !slices.Equal(got, want) {
		t.Fatalf("records after 10 minutes = %v; want %v", got, want)
	}
	ev, ok := watch.nextOf()
	if !ok || ev.Wake == nil || ev.Wake.Thread != "dm:~riff" || ev.Wake.From != "riff@server" {
		t.Fatalf("the second wake of the lead = %+v; want a wake in dm:~riff from riff@server", ev)
	}
	var page wire.ReadReply
	r.ok("/v1/read", wire.Read{Me: uri("ann/ann1"), Thread: "dm:~riff"}, &page)
	if len(page.Threads) != 1 || len(page.Threads[0].Messages) != 1 ||
		!strings.HasSuffix(page.Threads[0].Messages[0].Body, `"which of two designs?" has no answer after 10 minutes`) {
		t.Fatalf("the message of the second wake = %+v; want \"... has no answer after 10 minutes\"", page)
	}
	// The timer sends it once.
	r.e.Tick(context.Background())
	if got := changesAfter(t, r.store, at); len(got) != 1 {
		t.Errorf("records after a second look = %v; want the one second wake", got)
	}

	// 10 minutes after the second wake: unanswered.
	r.clock.Add(10 * time.Minute)
	keepAlives()
	var alive wire.AliveReply
	r.ok("/v1/alive", wire.Alive{Me: uri("ann/ann1"), LeadWake: &tenMinutes}, &alive)
	if len(alive.Unanswered) != 1 || alive.Unanswered[0].Session.Who() != whoOf("ann/ann2") || alive.Unanswered[0].Reason != "which of two designs?" {
		t.Fatalf("the reply to the keep-alive of the lead = %+v; want the unanswered block of ann2", alive)
	}
	var who wire.WhoReply
	r.ok("/v1/who", wire.Who{Me: uri("ann")}, &who)
	for _, row := range who.Rows {
		if row.URI.Who() == whoOf("ann/ann2") && (!row.Unanswered || !strings.Contains(row.Detail, "the lead gave no answer")) {
			t.Errorf("the who row of ann2 = %+v; want unanswered, the lead gave no answer", row)
		}
	}
}
