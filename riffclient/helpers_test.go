package riffclient

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/build"
)

// fakeClock sleeps at once: Sleep moves Now and keeps each wait.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
	// onSleep runs at each sleep, with its number (from 1).
	onSleep func(n int)
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 9, 27, 14, 0, 0, 0, time.UTC)} }

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.waits = append(f.waits, d)
	n, hook := len(f.waits), f.onSleep
	f.mu.Unlock()
	if hook != nil {
		hook(n)
	}
	return ctx.Err()
}

func (f *fakeClock) Waits() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.waits...)
}

// syncBuffer is a bytes.Buffer for many goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func mustBuild(t *testing.T, s string) build.Build {
	t.Helper()
	b, err := build.ParseBuild(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const (
	buildA     = "0.4.3 7213825ab1c2 2026-09-27T20:10:44Z"
	buildOlder = "0.4.0 929605821e54 2026-09-27T22:03:01Z"
	buildOld   = "0.2.0 929605821e54 2026-09-27T22:03:01Z"
)

// serve starts a real loopback server and a client of it with a fake
// clock.
func serve(t *testing.T, h http.HandlerFunc) (*Client, *fakeClock, *syncBuffer, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock()
	out := &syncBuffer{}
	c := New(u, Options{Build: mustBuild(t, buildA), Clock: clock, Out: out})
	return c, clock, out, srv
}

func decodeJSON(r io.Reader, v any) error { return json.NewDecoder(r).Decode(v) }

func newServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// listenAt serves h at addr, until the test ends or Close.
func listenAt(t *testing.T, addr string, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}
