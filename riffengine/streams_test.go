package riffengine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/como-technologies/riff/riffstate"
)

// The watch and tail streams (the store design, "Live messages").

func TestAWatchSendsHelloTheMissedWakeEachWakeAndKeepAlives(t *testing.T) {
	r := start(t, setup{keepAlive: 20 * time.Millisecond})
	r.register("ann/ann1", "bob/bob1")
	// given a message to bob while he has no watch
	r.ok("/v1/post", wire.Post{Me: uri("ann/ann1"), Tell: "bob1", Body: "one"}, nil)

	// when bob opens a watch
	w := r.open("/v1/watch", wire.Watch{Me: uri("bob/bob1")})

	// then its first line comes at the open, then the missed wake
	if ev, ok := w.next(); !ok || ev.Type != wire.EventHello {
		t.Fatalf("first line = %+v, %v; want hello", ev, ok)
	}
	if ev, ok := w.nextOf(); !ok || ev.Wake == nil || ev.Wake.Seq != 1 || ev.Wake.From == "" {
		t.Fatalf("line after hello = %+v, %v; want the missed wake of seq 1", ev, ok)
	}
	// and each new wake
	r.ok("/v1/post", wire.Post{Me: uri("ann/ann1"), Tell: "bob1", Body: "two"}, nil)
	if ev, ok := w.nextOf(); !ok || ev.Wake == nil || ev.Wake.Seq != 2 || ev.Wake.Thread != "dm:ann1" {
		t.Fatalf("next line = %+v, %v; want the wake of seq 2 in dm:ann1", ev, ok)
	}
	// and keep-alive lines
	for {
		ev, ok := w.next()
		if !ok {
			t.Fatal("the watch ended; want a keep-alive")
		}
		if ev.Type == wire.EventKeepAlive {
			break
		}
	}
}

func TestATailSendsEachMessageOfItsThreadAndADirectThreadOnlyToItsSides(t *testing.T) {
	r := start(t, setup{})
	r.register("ann/ann1", "bob/bob1", "carl/carl1")
	direct := r.open("/v1/tail", wire.Tail{Me: uri("ann/ann1"), Thread: "dm:bob1"})
	repo := r.open("/v1/tail", wire.Tail{Me: uri("carl/carl1")})
	for _, s := range []*stream{direct, repo} {
		if ev, ok := s.next(); !ok || ev.Type != wire.EventHello {
			t.Fatalf("first line = %+v, %v; want hello", ev, ok)
		}
	}
	// carl is no side of the direct thread of ann and bob
	rep := r.post("/v1/tail", wire.Tail{Me: uri("carl/carl1"), Thread: "dm:ann1+bob1"})
	if rep.status != http.StatusForbidden || rep.header.Get(wire.HeaderRefused) != string(wire.NotAllowed) {
		t.Errorf("carl's tail of dm:ann1+bob1 = %s; want 403 not_allowed", rep)
	}

	r.ok("/v1/post", wire.Post{Me: uri("bob/bob1"), Tell: "ann1", Body: "direct"}, nil)
	r.ok("/v1/post", wire.Post{Me: uri("bob/bob1"), Body: "to the repo"}, nil)

	if ev, ok := direct.nextOf(); !ok || ev.Message == nil || ev.Message.Body != "direct" || ev.Message.Thread != "dm:bob1" {
		t.Errorf("ann's tail = %+v, %v; want the direct message in dm:bob1", ev, ok)
	}
	if ev, ok := repo.nextOf(); !ok || ev.Message == nil || ev.Message.Body != "to the repo" {
		t.Errorf("carl's tail = %+v, %v; want only the message of the repo", ev, ok)
	}
}

func TestAStreamThatFallsBehindIsEnded(t *testing.T) {
	g := newGate(mem.New())
	r := start(t, setup{store: g})
	r.register("ann/ann1", "bob/bob1")

	// given a watch whose reader reads nothing
	req, err := http.NewRequest(http.MethodPost, r.http.URL+"/v1/watch", bytes.NewReader([]byte(`{"me":"`+uri("bob/bob1").String()+`"}`)))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := r.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()

	// when one chunk gives it many more wakes than its buffer
	total := 4 * riffengine.StreamBuffer
	g.hold()
	first := r.async(context.Background(), "/v1/register", wire.Register{Me: uri("dora/dora1")})
	<-g.entered
	proof := prove(t, uri("ann/ann1"))
	var wg sync.WaitGroup
	for range total {
		wg.Go(func() {
			post := riffstate.Post{Post: wire.Post{Me: uri("ann/ann1"), To: []selector.Selector{{Session: "bob1"}}, Body: "x"}}
			if _, err := riffengine.Dispatch[riffstate.Post, wire.PostReply](context.Background(), r.e, riffengine.Authenticate(proof, post)); err != nil {
				t.Errorf("post: %v", err)
			}
		})
	}
	r.queued(total)
	g.open()
	wg.Wait()
	<-first

	// then the stream ends before it gave each wake
	dec := json.NewDecoder(resp.Body)
	wakes := 0
	for {
		var ev wire.Event
		if err := dec.Decode(&ev); err != nil {
			break
		}
		if ev.Type == wire.EventWake {
			wakes++
		}
		if wakes == total {
			t.Fatalf("the stream gave all %d wakes and did not end", total)
		}
	}
	if wakes == 0 {
		t.Errorf("the stream ended with no wake")
	}
}
