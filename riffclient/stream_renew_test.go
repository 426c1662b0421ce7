package riffclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/google/go-cmp/cmp"
)

// The end of a stream by the server for its token (docs/wire.md,
// "Streams"): at the expiry of the token the client opens the stream
// again at once with its renewed token, and loses and repeats nothing;
// at the end of the sign-in it says the lost sign-in.

// renewServer is a server of one thread whose streams the test scripts:
// each open gets the token and the body that it came with, and its
// script.
type renewServer struct {
	t       *testing.T
	thread  *fakeThread
	mu      sync.Mutex
	opens   []renewOpen
	scripts []func(s *stream, open renewOpen)
}

// renewOpen is what one open of a stream carried.
type renewOpen struct {
	token string
	after uint64
}

func (r *renewServer) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	switch req.URL.Path {
	case "/v1/tail", "/v1/watch":
		w.Header().Set(wire.HeaderBuild, buildA)
		var body struct {
			After uint64 `json:"after"`
		}
		_ = json.NewDecoder(req.Body).Decode(&body)
		open := renewOpen{token: strings.TrimPrefix(req.Header.Get(wire.HeaderAuthorization), "DPoP "), after: body.After}
		r.mu.Lock()
		n := len(r.opens)
		r.opens = append(r.opens, open)
		r.mu.Unlock()
		s := &stream{f: r.thread, w: w, ctx: req.Context()}
		if n < len(r.scripts) {
			r.scripts[n](s, open)
			return
		}
		s.block()
	case "/v1/threads":
		// The caller lists no thread: only the hello line gives the point
		// of the tail.
		w.Header().Set(wire.HeaderBuild, buildA)
		fmt.Fprint(w, `{"threads":[]}`)
	default:
		r.thread.ServeHTTP(w, req)
	}
}

func (r *renewServer) seen() []renewOpen {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]renewOpen(nil), r.opens...)
}

func (f *fakeThread) lastSeq() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.next
}

// helloAt sends the hello line of a tail, with the newest seq.
func helloAt(s *stream) {
	s.send(wire.Event{Type: wire.EventHello, Last: s.f.lastSeq()})
}

func endExpired(s *stream) {
	s.send(wire.Event{Type: wire.EventEnd, End: wire.EndExpired, Reason: "the token of this stream expired: riff opens it again with its new token"})
}

func TestGivenATailWhenTheServerEndsItAtTheExpiryOfItsTokenThenItOpensAgainWithTheRenewedTokenAndLosesAndRepeatsNothing(t *testing.T) {
	auth := newFakeAuth(t)
	auth.tokens[""] = []string{"token-1", "token-2"}
	f := &fakeThread{t: t, reads: make(chan struct{}, 1)}
	// Two messages before the tail: it starts after them.
	f.post()
	f.post()
	srv := &renewServer{t: t, thread: f, scripts: []func(s *stream, open renewOpen){
		func(s *stream, open renewOpen) {
			// The hello gives the point of the tail (2): the caller lists
			// no thread, and no message came on this stream.
			helloAt(s)
			// 3, 4 and 5 come while the stream ends: it does not send them.
			s.post(false)
			s.post(false)
			s.post(false)
			endExpired(s)
		},
		func(s *stream, open renewOpen) {
			helloAt(s)
			s.waitRead()
			// 5 again on the stream (it came in the read too), then 6.
			s.f.mu.Lock()
			again := s.f.msgs[len(s.f.msgs)-1]
			s.f.mu.Unlock()
			s.send(wire.Event{Type: wire.EventMessage, Message: &again})
			s.post(true)
			s.block()
		},
	}}
	hs := newServer(t, srv.ServeHTTP)
	u, _ := url.Parse(hs.URL)
	clock := newFakeClock()
	c := New(u, Options{Build: mustBuild(t, buildA), Clock: clock, Auth: auth})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var shown []string
	me := name.SessionURI{User: "mike", Host: "pangolin"}
	err := c.Tail(ctx, wire.Tail{Me: me, Thread: "acme/app"}, func(e Event) error {
		switch e.Type {
		case wire.EventMessage:
			shown = append(shown, fmt.Sprint(e.Message.Seq))
			if e.Message.Seq == 6 {
				cancel()
			}
		default:
			shown = append(shown, e.Type)
		}
		return nil
	})
	if err != nil || ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("Tail = %v, %v; shown %v", err, ctx.Err(), shown)
	}
	// No break shows: the end at the expiry is a renewal.
	if diff := cmp.Diff([]string{"open", "3", "4", "5", "6"}, shown); diff != "" {
		t.Errorf("shown (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]renewOpen{{token: "token-1", after: 0}, {token: "token-2", after: 2}}, srv.seen(), cmp.AllowUnexported(renewOpen{})); diff != "" {
		t.Errorf("opens (-want +got):\n%s", diff)
	}
	if waits := clock.Waits(); len(waits) != 0 {
		t.Errorf("waits %v; want none: the stream opens again at once", waits)
	}
	if diff := cmp.Diff([]string{"token-1 bad_token"}, auth.refused); diff != "" {
		t.Errorf("refusals told to the Auth (-want +got):\n%s", diff)
	}
}

func TestGivenAWatchWhenTheServerEndsItAtTheExpiryOfItsTokenThenItOpensAgainWithTheRenewedTokenAndGivesTheMissedWakeOnce(t *testing.T) {
	auth := newFakeAuth(t)
	auth.tokens["a6cf"] = []string{"session-1", "session-2"}
	wake := func(s *stream, seq uint64) {
		s.send(wire.Event{Type: wire.EventWake, Wake: &wire.Wake{Thread: "dm:ann", Seq: seq, From: "ann@heron"}})
	}
	srv := &renewServer{t: t, thread: &fakeThread{t: t}, scripts: []func(s *stream, open renewOpen){
		func(s *stream, open renewOpen) {
			s.send(wire.Event{Type: wire.EventHello})
			wake(s, 7)
			endExpired(s)
		},
		func(s *stream, open renewOpen) {
			// The missed wake of the open is the one that it gave (still
			// unread), then a new one.
			s.send(wire.Event{Type: wire.EventHello})
			wake(s, 7)
			wake(s, 8)
			s.block()
		},
	}}
	hs := newServer(t, srv.ServeHTTP)
	u, _ := url.Parse(hs.URL)
	clock := newFakeClock()
	c := New(u, Options{Build: mustBuild(t, buildA), Clock: clock, Auth: auth})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var got []string
	me := name.SessionURI{User: "mike", Host: "pangolin", Session: "a6cf"}
	err := c.Watch(ctx, wire.Watch{Me: me}, func(e Event) error {
		if e.Type == wire.EventWake {
			got = append(got, fmt.Sprintf("wake %d", e.Wake.Seq))
			if e.Wake.Seq == 8 {
				cancel()
			}
			return nil
		}
		got = append(got, e.Type)
		return nil
	})
	if err != nil || ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("Watch = %v, %v; got %v", err, ctx.Err(), got)
	}
	if diff := cmp.Diff([]string{"open", "wake 7", "wake 8"}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]renewOpen{{token: "session-1"}, {token: "session-2"}}, srv.seen(), cmp.AllowUnexported(renewOpen{})); diff != "" {
		t.Errorf("opens (-want +got):\n%s", diff)
	}
}

func TestGivenAServerThatEndsEachStreamAtOnceWhenTheTokenExpiresThenTheClientWaitsBeforeTheSecondOpen(t *testing.T) {
	auth := newFakeAuth(t)
	auth.tokens["a6cf"] = []string{"s1", "s2", "s3", "s4"}
	srv := &renewServer{t: t, thread: &fakeThread{t: t}, scripts: []func(s *stream, open renewOpen){
		func(s *stream, open renewOpen) { s.send(wire.Event{Type: wire.EventHello}); endExpired(s) },
		func(s *stream, open renewOpen) { s.send(wire.Event{Type: wire.EventHello}); endExpired(s) },
		func(s *stream, open renewOpen) { s.send(wire.Event{Type: wire.EventHello}); endExpired(s) },
	}}
	hs := newServer(t, srv.ServeHTTP)
	u, _ := url.Parse(hs.URL)
	clock := newFakeClock()
	c := New(u, Options{Build: mustBuild(t, buildA), Clock: clock, Auth: auth})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	clock.onSleep = func(n int) {
		if n == 2 {
			cancel()
		}
	}
	me := name.SessionURI{User: "mike", Host: "pangolin", Session: "a6cf"}
	if err := c.Watch(ctx, wire.Watch{Me: me}, func(Event) error { return nil }); err != nil || ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("Watch = %v, %v", err, ctx.Err())
	}
	// The first end opens again at once; each quiet end after it waits.
	if diff := cmp.Diff([]time.Duration{FirstWait, FirstWait}, clock.Waits()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

func TestGivenAStreamWhenTheServerEndsItWithItsSignInThenItSaysTheLostSignInOnceAndTellsTheAuth(t *testing.T) {
	auth := newFakeAuth(t)
	auth.tokens[""] = []string{"token-1"}
	f := &fakeThread{t: t, reads: make(chan struct{}, 1)}
	srv := &renewServer{t: t, thread: f, scripts: []func(s *stream, open renewOpen){
		func(s *stream, open renewOpen) {
			helloAt(s)
			s.post(true)
			s.send(wire.Event{Type: wire.EventEnd, End: wire.EndSignIn, Reason: "the sign-in of this machine ended: run riff login"})
			// Nothing after the end line counts.
			s.post(true)
		},
	}}
	hs := newServer(t, srv.ServeHTTP)
	u, _ := url.Parse(hs.URL)
	clock := newFakeClock()
	c := New(u, Options{Build: mustBuild(t, buildA), Clock: clock, Auth: auth})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// The Auth of a sign-in that ended gives no token after the refusal.
	clock.onSleep = func(n int) {
		auth.setFail(fmt.Errorf("The sign-in of this machine ended. Run riff login."))
		if n == 2 {
			cancel()
		}
	}
	var shown []string
	err := c.Tail(ctx, wire.Tail{Me: name.SessionURI{User: "mike", Host: "pangolin"}, Thread: "acme/app"}, func(e Event) error {
		switch e.Type {
		case wire.EventMessage:
			shown = append(shown, fmt.Sprint(e.Message.Seq))
		case EventDown:
			shown = append(shown, "down: "+e.Err.Error())
		default:
			shown = append(shown, e.Type)
		}
		return nil
	})
	if err != nil || ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("Tail = %v, %v; shown %v", err, ctx.Err(), shown)
	}
	if diff := cmp.Diff([]string{"open", "1", "down: the sign-in of this machine ended: run riff login"}, shown); diff != "" {
		t.Errorf("shown (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"token-1 bad_token"}, auth.refused); diff != "" {
		t.Errorf("refusals told to the Auth (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Duration{5 * time.Second, 5 * time.Second}, clock.Waits()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}
