package riffclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/google/go-cmp/cmp"
)

// keep is the number of messages that the fake server keeps of a thread.
const keep = 200

// fakeThread is a thread of a fake server: its kept messages, a tail
// stream with a script for each open, and the read of the thread.
type fakeThread struct {
	t       *testing.T
	mu      sync.Mutex
	msgs    []wire.Message
	next    uint64
	opens   int
	reads   chan struct{}
	scripts []func(s *stream)
}

// stream is one open tail stream of the fake server.
type stream struct {
	f   *fakeThread
	w   http.ResponseWriter
	ctx context.Context
}

func (s *stream) send(e wire.Event) {
	b, _ := json.Marshal(e)
	s.w.Write(append(b, '\n'))
	http.NewResponseController(s.w).Flush()
}

// post keeps a new message, and sends it on the stream when live.
func (s *stream) post(live bool) wire.Message {
	m := s.f.post()
	if live {
		s.send(wire.Event{Type: wire.EventMessage, Message: &m})
	}
	return m
}

// waitRead waits for a read of the client.
func (s *stream) waitRead() {
	select {
	case <-s.f.reads:
	case <-s.ctx.Done():
	}
}

func (s *stream) block() { <-s.ctx.Done() }

func (f *fakeThread) post() wire.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	m := wire.Message{Thread: "acme/app", Seq: f.next, Kind: "message", Body: fmt.Sprintf("message %d", f.next), Verified: true}
	f.msgs = append(f.msgs, m)
	if len(f.msgs) > keep {
		f.msgs = f.msgs[len(f.msgs)-keep:]
	}
	return m
}

func (f *fakeThread) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set(wire.HeaderBuild, buildA)
	switch r.URL.Path {
	case "/v1/threads":
		f.mu.Lock()
		defer f.mu.Unlock()
		json.NewEncoder(w).Encode(wire.ThreadsReply{Threads: []wire.ThreadInfo{{Thread: "acme/app", Last: f.next}}})
	case "/v1/read":
		var call wire.Read
		json.NewDecoder(r.Body).Decode(&call)
		f.mu.Lock()
		page := wire.ThreadPage{Thread: "acme/app"}
		for _, m := range f.msgs {
			if m.Seq <= call.After {
				continue
			}
			if len(page.Messages) == 50 {
				page.More = true
				break
			}
			page.Messages = append(page.Messages, m)
			page.Last = m.Seq
		}
		if len(f.msgs) > 0 && f.msgs[0].Seq > call.After+1 {
			page.Lost = f.msgs[0].Seq - call.After - 1
		}
		f.mu.Unlock()
		json.NewEncoder(w).Encode(wire.ReadReply{Threads: []wire.ThreadPage{page}})
		if !page.More {
			select {
			case f.reads <- struct{}{}:
			default:
			}
		}
	case "/v1/tail", "/v1/watch":
		f.mu.Lock()
		n := f.opens
		f.opens++
		f.mu.Unlock()
		s := &stream{f: f, w: w, ctx: r.Context()}
		s.send(wire.Event{Type: wire.EventHello})
		if n < len(f.scripts) {
			f.scripts[n](s)
			return
		}
		s.block()
	default:
		f.t.Errorf("path %s", r.URL.Path)
	}
}

// runTail gives what a tail showed: open, each seq, lost:N, down and
// back.
func runTail(t *testing.T, f *fakeThread, o Options, until uint64) ([]string, error) {
	t.Helper()
	f.t = t
	f.reads = make(chan struct{}, 1)
	srv := newServer(t, f.ServeHTTP)
	u, _ := url.Parse(srv.URL)
	o.Build = mustBuild(t, buildA)
	o.Clock = newFakeClock()
	c := New(u, o)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var shown []string
	err := c.Tail(ctx, wire.Tail{Thread: "acme/app"}, func(e Event) error {
		switch e.Type {
		case wire.EventMessage:
			shown = append(shown, fmt.Sprint(e.Message.Seq))
			if e.Message.Seq == until {
				cancel()
			}
		case EventLost:
			shown = append(shown, fmt.Sprintf("lost:%d", e.Lost))
		default:
			if e.Err != nil {
				t.Logf("%s: %v", e.Type, e.Err)
			}
			shown = append(shown, e.Type)
		}
		return nil
	})
	if ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("the tail did not end: shown %v", shown)
	}
	return shown, err
}

func seqs(from, to int) []string {
	var s []string
	for i := from; i <= to; i++ {
		s = append(s, fmt.Sprint(i))
	}
	return s
}

func TestTailShowsEachMessageOnceInOrder(t *testing.T) {
	tests := []struct {
		name    string
		scripts []func(s *stream)
		stall   time.Duration
		until   uint64
		want    []string
	}{
		{
			name: "a cut: the read gives the break, the stream repeats one",
			scripts: []func(s *stream){
				func(s *stream) { s.waitRead(); s.post(true); s.post(true); s.post(false) },
				func(s *stream) {
					s.waitRead()
					m3 := s.f.msgs[2]
					s.send(wire.Event{Type: wire.EventMessage, Message: &m3})
					s.post(true)
					s.block()
				},
			},
			until: 4,
			want:  []string{"open", "1", "2", "down", "3", "back", "4"},
		},
		{
			name: "each break is a break: down and back each time",
			scripts: []func(s *stream){
				func(s *stream) { s.waitRead(); s.post(true) },
				func(s *stream) { s.waitRead(); s.post(true) },
				func(s *stream) { s.waitRead(); s.post(true); s.block() },
			},
			until: 3,
			want:  []string{"open", "1", "down", "back", "2", "down", "back", "3"},
		},
		{
			name: "more than 200 in the break: the lost line",
			scripts: []func(s *stream){
				func(s *stream) {
					s.waitRead()
					s.post(true)
					for range 250 {
						s.post(false)
					}
				},
			},
			until: 251,
			want:  append([]string{"open", "1", "down", "lost:50"}, append(seqs(52, 251), "back")...),
		},
		{
			name:  "a stream with no byte is dropped and opened again",
			stall: 100 * time.Millisecond,
			scripts: []func(s *stream){
				func(s *stream) { s.waitRead(); s.post(true); s.block() },
				func(s *stream) { s.waitRead(); s.post(true); s.block() },
			},
			until: 2,
			want:  []string{"open", "1", "down", "back", "2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeThread{scripts: tt.scripts}
			shown, err := runTail(t, f, Options{Stall: tt.stall}, tt.until)
			if err != nil {
				t.Fatalf("Tail = %v", err)
			}
			if diff := cmp.Diff(tt.want, shown); diff != "" {
				t.Errorf("shown (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTailRefused(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(wire.HeaderBuild, buildA)
		w.Header().Set(wire.HeaderRefused, string(wire.NotMember))
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, "you are not a member of the riff")
	})
	u, _ := url.Parse(srv.URL)
	c := New(u, Options{Build: mustBuild(t, buildA), Clock: newFakeClock()})
	err := c.Tail(context.Background(), wire.Tail{Thread: "acme/app"}, func(Event) error { return nil })
	var refused *wire.Refused
	if !errors.As(err, &refused) || refused.Code != wire.NotMember {
		t.Fatalf("Tail = %v; want the refusal not_member", err)
	}
}

func TestWatchReconnects(t *testing.T) {
	wake := func(s *stream, seq uint64) {
		s.send(wire.Event{Type: wire.EventWake, Wake: &wire.Wake{Thread: "acme/app", Seq: seq, From: "mike/a6cf"}})
	}
	f := &fakeThread{t: t, reads: make(chan struct{}, 1), scripts: []func(s *stream){
		func(s *stream) { wake(s, 7) },
		func(s *stream) { s.send(wire.Event{Type: wire.EventKeepAlive}); wake(s, 8); s.block() },
	}}
	srv := newServer(t, f.ServeHTTP)
	u, _ := url.Parse(srv.URL)
	c := New(u, Options{Build: mustBuild(t, buildA), Clock: newFakeClock()})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var got []string
	err := c.Watch(ctx, wire.Watch{}, func(e Event) error {
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
		t.Fatalf("Watch = %v, %v", err, ctx.Err())
	}
	if diff := cmp.Diff([]string{"open", "wake 7", "down", "back", "wake 8"}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// cloudRun answers the first tries of each path as Cloud Run does while
// it has no instance: a status with no riff-build. Then h answers.
func cloudRun(h http.Handler, faults map[string][]int) http.HandlerFunc {
	var mu sync.Mutex
	return func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		left := faults[r.URL.Path]
		if len(left) > 0 {
			faults[r.URL.Path] = left[1:]
		}
		mu.Unlock()
		if len(left) > 0 {
			w.WriteHeader(left[0])
			fmt.Fprint(w, "The request was aborted because there was no available instance.")
			return
		}
		h.ServeHTTP(w, r)
	}
}

// TestGivenA500Or429OfCloudRunWhenAStreamOpensThenItOpensAgain: the tail
// and the watch try again as after a 503, also in the catch-up read.
func TestGivenA500Or429OfCloudRunWhenAStreamOpensThenItOpensAgain(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script func(s *stream)
		faults map[string][]int
		call   string
		open   func(ctx context.Context, c *Client, show func(Event) error) error
		// last gives the text of the event that ends the stream.
		last func(e Event) (string, bool)
		want []string
	}{{
		name:   "tail",
		script: func(s *stream) { s.waitRead(); s.post(true); s.block() },
		faults: map[string][]int{
			"/v1/tail": {http.StatusInternalServerError, http.StatusTooManyRequests},
			"/v1/read": {http.StatusInternalServerError},
		},
		call: "Tail",
		open: func(ctx context.Context, c *Client, show func(Event) error) error {
			return c.Tail(ctx, wire.Tail{Thread: "acme/app"}, show)
		},
		last: func(e Event) (string, bool) {
			if e.Type != wire.EventMessage {
				return "", false
			}
			return fmt.Sprint(e.Message.Seq), true
		},
		want: []string{"down", "back", "1"},
	}, {
		name: "watch",
		script: func(s *stream) {
			s.send(wire.Event{Type: wire.EventWake, Wake: &wire.Wake{Thread: "acme/app", Seq: 7, From: "mike/a6cf"}})
			s.block()
		},
		faults: map[string][]int{
			"/v1/watch": {http.StatusTooManyRequests, http.StatusInternalServerError},
		},
		call: "Watch",
		open: func(ctx context.Context, c *Client, show func(Event) error) error {
			return c.Watch(ctx, wire.Watch{}, show)
		},
		last: func(e Event) (string, bool) {
			if e.Type != wire.EventWake {
				return "", false
			}
			return fmt.Sprintf("wake %d", e.Wake.Seq), true
		},
		want: []string{"down", "back", "wake 7"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeThread{t: t, reads: make(chan struct{}, 1), scripts: []func(s *stream){tc.script}}
			srv := newServer(t, cloudRun(f, tc.faults))
			u, _ := url.Parse(srv.URL)
			c := New(u, Options{Build: mustBuild(t, buildA), Clock: newFakeClock()})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var got []string
			err := tc.open(ctx, c, func(e Event) error {
				if text, ok := tc.last(e); ok {
					got = append(got, text)
					cancel()
					return nil
				}
				got = append(got, e.Type)
				return nil
			})
			if err != nil || ctx.Err() == context.DeadlineExceeded {
				t.Fatalf("%s = %v, %v; shown %v", tc.call, err, ctx.Err(), got)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGivenA500WithABuildWhenAStreamOpensThenItEnds: the server's own
// answer ends the watch with it; no new open.
func TestGivenA500WithABuildWhenAStreamOpensThenItEnds(t *testing.T) {
	var mu sync.Mutex
	opens := 0
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		opens++
		mu.Unlock()
		w.Header().Set(wire.HeaderBuild, buildA)
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, "riff-server: the store failed")
	})
	u, _ := url.Parse(srv.URL)
	clock := newFakeClock()
	c := New(u, Options{Build: mustBuild(t, buildA), Clock: clock})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := c.Watch(ctx, wire.Watch{}, func(Event) error { return nil })
	var reply *ReplyError
	if !errors.As(err, &reply) || reply.Status != "500 Internal Server Error" {
		t.Fatalf("Watch = %v; want the 500 of the server", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if opens != 1 || len(clock.Waits()) != 0 {
		t.Errorf("opens %d, waits %v; want one open and no wait", opens, clock.Waits())
	}
}
