package riffengine_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/wire"
)

// The small rules of the state texts over HTTP (issue 11, item 8).

func TestGivenTheLeadWhenItSaysBlockedThenTheReplyIsTheGuidesAndNoMessageGoes(t *testing.T) {
	r := startWithLead(t)
	at := r.position()

	var rep wire.TextReply
	r.ok("/v1/blocked", wire.Blocked{Me: uri("ann/ann1"), Reason: "run riff owner --take"}, &rep)

	want := "You wait for your person: run riff owner --take. Ask your user. The next prompt ends the wait."
	if rep.Text != want {
		t.Errorf("the reply of riff blocked from the lead = %q; want %q", rep.Text, want)
	}
	if got := commandsAfter(t, r, at); len(got) != 0 {
		t.Errorf("the block of the lead wrote %q; want no message", got)
	}
	var who wire.WhoReply
	r.ok("/v1/who", wire.Who{Me: uri("ann/ann2")}, &who)
	found := false
	for _, row := range who.Rows {
		if row.URI.Who() != whoOf("ann/ann1") {
			continue
		}
		found = true
		if row.State != "waiting" || row.Detail != "waits for ann: run riff owner --take" {
			t.Errorf("who row of the lead = %+v; want waiting, waits for ann: run riff owner --take", row)
		}
	}
	if !found {
		t.Errorf("who has no row of the lead: %+v", who.Rows)
	}
}

func TestGivenAMissedWakeOfAWatchThenItNamesTheDirectThreadDmPeer(t *testing.T) {
	r := start(t, setup{})
	r.register("ann/ann1", "bob/bob1")
	r.ok("/v1/post", wire.Post{Me: uri("ann/ann1"), Tell: "bob1", Body: "one"}, nil)

	w := r.open("/v1/watch", wire.Watch{Me: uri("bob/bob1")})
	if ev, ok := w.next(); !ok || ev.Type != wire.EventHello {
		t.Fatalf("first line = %+v, %v; want hello", ev, ok)
	}
	if ev, ok := w.nextOf(); !ok || ev.Wake == nil || ev.Wake.Thread != "dm:ann1" {
		t.Fatalf("the missed wake = %+v, %v; want one in dm:ann1, as the live wake names it", ev.Wake, ok)
	}
}

func TestGivenAPostOfAnUnknownKindThenTheRefusalNamesTheKindThatWasSent(t *testing.T) {
	r := start(t, setup{})
	r.register("ann/ann1")
	rep := r.post("/v1/post", map[string]any{"me": uri("ann/ann1").String(), "kind": "poll", "body": "which design?"})
	if rep.status != http.StatusBadRequest || !strings.Contains(string(rep.body), `"poll"`) {
		t.Errorf("a post of the kind poll = %s; want 400 that names \"poll\"", rep)
	}
}
