package riffclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/google/go-cmp/cmp"
)

// counter counts the tries and the runs of each call ID.
type counter struct {
	mu    sync.Mutex
	tries map[string]int
	runs  map[string]int
}

func newCounter() *counter { return &counter{tries: map[string]int{}, runs: map[string]int{}} }

// serveOneTry serves h, counting the tries of each call, and gives a
// client of it and wantOneTry, which fails the test unless the client
// sent one call, once, and never waited to try again.
func serveOneTry(t *testing.T, h http.HandlerFunc) (c *Client, srv *httptest.Server, wantOneTry func()) {
	t.Helper()
	count := newCounter()
	c, clock, _, srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		count.try(r.Header.Get(wire.HeaderCall))
		h(w, r)
	})
	return c, srv, func() {
		t.Helper()
		if len(clock.Waits()) != 0 || len(count.tries) != 1 {
			t.Errorf("tries %v, waits %v; want one try and no wait", count.tries, clock.Waits())
		}
	}
}

func (c *counter) try(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tries[id]++
	return c.tries[id]
}

func (c *counter) run(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runs[id]++
}

func TestSendRetriesWithOneCallID(t *testing.T) {
	tests := []struct {
		name   string
		faults []string
		waits  []time.Duration
		line   bool
	}{
		{name: "no fault"},
		{name: "503", faults: []string{"503"}, waits: []time.Duration{250 * time.Millisecond}},
		{name: "502 then 429", faults: []string{"502", "429"}, waits: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond}},
		{name: "cut", faults: []string{"cut"}, waits: []time.Duration{250 * time.Millisecond}},
		{name: "500 and 429 of Cloud Run", faults: []string{"500", "429", "500"},
			waits: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second}, line: true},
		{name: "many, wait grows to 5 s", faults: []string{"503", "cut", "503", "502", "429", "503", "cut"},
			waits: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second,
				4 * time.Second, 5 * time.Second, 5 * time.Second},
			line: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			count := newCounter()
			c, clock, out, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
				id := r.Header.Get(wire.HeaderCall)
				n := count.try(id)
				if n <= len(tt.faults) {
					switch tt.faults[n-1] {
					case "cut":
						conn, _, err := http.NewResponseController(w).Hijack()
						if err != nil {
							t.Errorf("hijack: %v", err)
							return
						}
						conn.Close()
						return
					case "503":
						w.WriteHeader(http.StatusServiceUnavailable)
					case "502":
						w.WriteHeader(http.StatusBadGateway)
					case "429":
						// Cloud Run: no riff-build.
						w.WriteHeader(http.StatusTooManyRequests)
					case "500":
						w.WriteHeader(http.StatusInternalServerError)
						io.WriteString(w, "The request was aborted because there was no available instance.")
					}
					return
				}
				count.run(id)
				var call wire.Claim
				if err := decodeJSON(r.Body, &call); err != nil {
					t.Errorf("decode: %v", err)
				}
				w.Header().Set(wire.HeaderBuild, buildA)
				fmt.Fprintf(w, `{"holder":"riff://mike@pangolin/acme/app?session=a6cf&claim=%s","text":"You hold %s in acme/app."}`, call.Item, call.Item)
			})
			me, _ := name.ParseURI("riff://mike@pangolin/acme/app?session=a6cf")
			reply, err := Send(context.Background(), c, wire.Claim{Me: me, Item: "issue-12"})
			if err != nil {
				t.Fatalf("Send(claim) = %v", err)
			}
			if reply.Text != "You hold issue-12 in acme/app." {
				t.Errorf("Send(claim).Text = %q", reply.Text)
			}
			if len(count.tries) != 1 {
				t.Errorf("call IDs = %v; want one ID over all tries", count.tries)
			}
			for id, n := range count.runs {
				if n != 1 || count.tries[id] != len(tt.faults)+1 {
					t.Errorf("call %s: runs %d, tries %d; want 1 run, %d tries", id, n, count.tries[id], len(tt.faults)+1)
				}
			}
			if diff := cmp.Diff(tt.waits, clock.Waits()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			wantOut := ""
			if tt.line {
				wantOut = WaitText + "\n"
			}
			if got := out.String(); got != wantOut {
				t.Errorf("out = %q; want %q", got, wantOut)
			}
		})
	}
}

// TestGivenA500Or429WithABuildWhenACallGetsItThenItIsNotTriedAgain: such
// a reply is the server's own answer, not one of Cloud Run.
func TestGivenA500Or429WithABuildWhenACallGetsItThenItIsNotTriedAgain(t *testing.T) {
	for _, status := range []int{http.StatusInternalServerError, http.StatusTooManyRequests} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			c, srv, wantOneTry := serveOneTry(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set(wire.HeaderBuild, buildA)
				w.WriteHeader(status)
				io.WriteString(w, "riff-server: the write failed "+strings.Repeat("and its text is long ", 20))
			})
			_, err := Send(context.Background(), c, wire.Claim{Item: "issue-12"})
			var reply *ReplyError
			if !errors.As(err, &reply) {
				t.Fatalf("Send(claim) = %v; want *ReplyError", err)
			}
			want := fmt.Sprintf("riff-server replied %d %s to %s/v1/claim: riff-server: the write failed %s", status, http.StatusText(status), srv.URL,
				strings.TrimSpace(strings.Repeat("and its text is long ", 20)))
			if err.Error() != want {
				t.Errorf("Send(claim) = %q; want %q", err, want)
			}
			wantOneTry()
		})
	}
}

// TestGivenAReplyOfCloudRunWhenRiffServerAsksTheFactsThenItSaysTheServerDoesNotAnswer:
// riff server asks once, and says to run it again.
func TestGivenAReplyOfCloudRunWhenRiffServerAsksTheFactsThenItSaysTheServerDoesNotAnswer(t *testing.T) {
	c, srv, wantOneTry := serveOneTry(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "The request was aborted because there was no available instance.")
	})
	_, err := c.Facts(context.Background())
	var front *FrontEndError
	if !errors.As(err, &front) {
		t.Fatalf("Facts = %v; want *FrontEndError", err)
	}
	want := "riff-server does not answer: the front end of " + srv.URL + "/v1/server replied 500 Internal Server Error by itself"
	if err.Error() != want {
		t.Errorf("Facts = %q; want %q", err, want)
	}
	wantOneTry()
}

func TestRefusalIsNotRetried(t *testing.T) {
	c, _, wantOneTry := serveOneTry(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(wire.HeaderBuild, buildA)
		w.Header().Set(wire.HeaderRefused, string(wire.Held))
		w.WriteHeader(http.StatusConflict)
		io.WriteString(w, "issue-12 is held by mike@thelio:app (5b1e).\n")
	})
	_, err := Send(context.Background(), c, wire.Claim{Item: "issue-12"})
	var refused *wire.Refused
	if !errors.As(err, &refused) {
		t.Fatalf("Send(claim) = %v; want *wire.Refused", err)
	}
	want := &wire.Refused{Code: wire.Held, Reason: "issue-12 is held by mike@thelio:app (5b1e).", Status: 409}
	if diff := cmp.Diff(want, refused); diff != "" {
		t.Errorf("refusal (-want +got):\n%s", diff)
	}
	wantOneTry()
}

func TestBudget(t *testing.T) {
	t.Run("503 until the end of the budget", func(t *testing.T) {
		c, clock, out, srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusServiceUnavailable)
		})
		_, err := Send(context.Background(), c, wire.Who{})
		want := fmt.Sprintf("riff-server at %s gave no reply in 60 seconds", srv.URL)
		var noReply *NoReplyError
		if !errors.As(err, &noReply) || err.Error() != want {
			t.Fatalf("Send(who) = %v; want %q", err, want)
		}
		var total time.Duration
		for _, w := range clock.Waits() {
			total += w
		}
		if total != Budget {
			t.Errorf("the waits sum to %v; want %v", total, Budget)
		}
		if got := strings.Count(out.String(), WaitText); got != 1 {
			t.Errorf("the wait line shows %d times; want 1", got)
		}
	})
	t.Run("a stall beyond the budget", func(t *testing.T) {
		stop := make(chan struct{})
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-stop:
			}
		})
		defer close(stop)
		u, _ := url.Parse(srv.URL)
		c := New(u, Options{Build: mustBuild(t, buildA), Budget: 200 * time.Millisecond})
		_, err := Send(context.Background(), c, wire.Who{})
		want := fmt.Sprintf("riff-server at %s gave no reply in 0.2 seconds", srv.URL)
		if err == nil || err.Error() != want {
			t.Fatalf("Send(who) = %v; want %q", err, want)
		}
	})
}

func TestRefusedConnect(t *testing.T) {
	t.Run("no reply before: fails at once", func(t *testing.T) {
		addr := freeAddr(t)
		u, _ := ParseServer(addr)
		clock := newFakeClock()
		c := New(u, Options{Build: mustBuild(t, buildA), Clock: clock})
		_, err := Send(context.Background(), c, wire.Who{})
		want := "cannot reach riff-server at http://" + addr
		var reach *ReachError
		if !errors.As(err, &reach) || err.Error() != want {
			t.Fatalf("Send(who) = %v; want %q", err, want)
		}
		if len(clock.Waits()) != 0 {
			t.Errorf("waits = %v; want none", clock.Waits())
		}
	})
	t.Run("a reply before: waits for the restart", func(t *testing.T) {
		addr := freeAddr(t)
		handler := func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(wire.HeaderBuild, buildA)
			io.WriteString(w, `{"threads":[]}`)
		}
		first := listenAt(t, addr, handler)
		u, _ := ParseServer(addr)
		clock := newFakeClock()
		c := New(u, Options{Build: mustBuild(t, buildA), Clock: clock})
		if _, err := Send(context.Background(), c, wire.Threads{}); err != nil {
			t.Fatalf("Send(threads) = %v", err)
		}
		first.Close()
		// The server starts again at the third wait.
		clock.onSleep = func(n int) {
			if n == 3 {
				listenAt(t, addr, handler)
			}
		}
		if _, err := Send(context.Background(), c, wire.Threads{}); err != nil {
			t.Fatalf("Send(threads) after a restart = %v", err)
		}
		if got := len(clock.Waits()); got != 3 {
			t.Errorf("waits = %v; want 3", clock.Waits())
		}
	})
}

func TestBuildCheck(t *testing.T) {
	tests := []struct {
		name    string
		header  string // riff-build of the reply; "-" for none
		status  int
		refused wire.Code
		calls   int
		wantErr string // %s is the URL of the server
		wantOut string
	}{
		{name: "same build", header: buildA, status: 200, calls: 2},
		{name: "newer server: one note", header: "0.4.5 aaaaaaaaaaaa 2026-09-28T20:10:44Z", status: 200, calls: 3,
			wantOut: "riff: riff-server runs build 0.4.5 aaaaaaaaaaaa 2026-09-28T20:10:44Z; this riff runs build 0.4.3 7213825ab1c2 2026-09-27T20:10:44Z. Update riff on this machine when you can.\n"},
		{name: "older server: one note", header: buildOlder, status: 200, calls: 2,
			wantOut: "riff: riff-server runs build 0.4.0 929605821e54 2026-09-27T22:03:01Z; this riff runs build 0.4.3 7213825ab1c2 2026-09-27T20:10:44Z. Update riff-server when you can.\n"},
		{name: "lines that cannot talk", header: buildOld, status: 200, calls: 1,
			wantErr: "riff: this riff (0.4.3 7213825ab1c2 2026-09-27T20:10:44Z) and its riff-server (0.2.0 929605821e54 2026-09-27T22:03:01Z) do not match. riff-server 0.2 talks only with riff 0.2 and 0.1. Update riff-server, then start your sessions again. See " + "https://como-technologies.github.io/riff/how-it-works.html#when-the-versions-do-not-match"},
		{name: "409 old_build", header: "0.6.0 aaaaaaaaaaaa 2026-09-28T20:10:44Z", status: 409, refused: wire.OldBuild, calls: 1,
			wantErr: "riff: this riff (0.4.3 7213825ab1c2 2026-09-27T20:10:44Z) and its riff-server (0.6.0 aaaaaaaaaaaa 2026-09-28T20:10:44Z) do not match. riff-server 0.6 talks only with riff 0.6 and 0.5. Update riff on this machine, then start your sessions again. See " + "https://como-technologies.github.io/riff/how-it-works.html#when-the-versions-do-not-match"},
		{name: "no build in a reply", header: "-", status: 200, calls: 1,
			wantErr: "no riff build in the reply: status 200 OK from %s/v1/who"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, out, srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				if tt.header != "-" {
					w.Header().Set(wire.HeaderBuild, tt.header)
				}
				if tt.refused != "" {
					w.Header().Set(wire.HeaderRefused, string(tt.refused))
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, `{"rows":[]}`)
			})
			var err error
			for range tt.calls {
				_, err = Send(context.Background(), c, wire.Who{})
			}
			want := tt.wantErr
			if strings.Contains(want, "%s") {
				want = fmt.Sprintf(want, srv.URL)
			}
			got := ""
			if err != nil {
				got = err.Error()
				var mismatch *MismatchError
				if !errors.As(err, &mismatch) {
					t.Errorf("Send(who) = %T; want *MismatchError", err)
				}
			}
			if got != want {
				t.Errorf("Send(who) = %q; want %q", got, want)
			}
			if out.String() != tt.wantOut {
				t.Errorf("out = %q; want %q", out.String(), tt.wantOut)
			}
		})
	}
}

func TestParseServer(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{in: "first", want: "http://first:7878"},
		{in: "first:9000", want: "http://first:9000"},
		{in: "127.0.0.1:7878", want: "http://127.0.0.1:7878"},
		{in: "http://first", want: "http://first:7878"},
		{in: "https://riff.example.com", want: "https://riff.example.com"},
		{in: "https://riff.example.com/", want: "https://riff.example.com"},
		{in: "https://riff.example.com:8443/riff", want: "https://riff.example.com:8443/riff"},
		{in: "::1", want: "http://[::1]:7878"},
		{in: "[::1]", want: "http://[::1]:7878"},
		{in: "[::1]:7878", want: "http://[::1]:7878"},
		{in: "http://[::1]", want: "http://[::1]:7878"},
		{in: "", err: "parse server: it is empty; give a URL, HOST or HOST:PORT"},
		{in: "ftp://first", err: `parse server "ftp://first": the scheme is "ftp"; riff talks http or https`},
		{in: "http://first?x=1", err: `parse server "http://first?x=1": a server URL has no user, query or fragment`},
		{in: "first:", err: `parse server "http://first:": the port is empty`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			u, err := ParseServer(tt.in)
			got, gotErr := "", ""
			if err != nil {
				gotErr = err.Error()
			} else {
				got = u.String()
			}
			if got != tt.want || gotErr != tt.err {
				t.Errorf("ParseServer(%q) = %q, %q; want %q, %q", tt.in, got, gotErr, tt.want, tt.err)
			}
		})
	}
}

// freeAddr gives a loopback address where nothing listens.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
