package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/wire"
)

// mismatchServer answers the first opens of a watch as a riff-server of
// another line, then as one of the build of the test, with one wake.
type mismatchServer struct {
	mu         sync.Mutex
	opens      int
	mismatches int
	alive      int
}

func (m *mismatchServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	m.mu.Lock()
	defer m.mu.Unlock()
	switch r.URL.Path {
	case "/v1/alive":
		m.alive++
		w.Header().Set(wire.HeaderBuild, testBuild)
		_, _ = io.WriteString(w, "{}")
	case "/v1/watch":
		m.opens++
		if m.opens <= m.mismatches {
			w.Header().Set(wire.HeaderBuild, "0.9.0 929605821e54 2026-09-27T22:03:01Z")
			w.WriteHeader(http.StatusConflict)
			_, _ = io.WriteString(w, "the builds do not match")
			return
		}
		w.Header().Set(wire.HeaderBuild, testBuild)
		enc := json.NewEncoder(w)
		_ = enc.Encode(wire.Event{Type: wire.EventHello})
		_ = enc.Encode(wire.Event{Type: wire.EventWake, Wake: &wire.Wake{Thread: "acme/app", Seq: 7, From: "ann@heron:app (1a2b)", Kind: "message"}})
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

// TestGivenAServerOfAnotherLineWhenAWatchOpensThenItSaysSoOnceAndTriesAgain:
// riff relay watch prints the guide's error of a mismatch once on
// stderr, nothing on stdout, tries again (each 5 s; here the wait of the
// test), and writes the wake once the versions can talk.
func TestGivenAServerOfAnotherLineWhenAWatchOpensThenItSaysSoOnceAndTriesAgain(t *testing.T) {
	fake := &mismatchServer{mismatches: 3}
	code, stdout, stderr := watchAgainst(t, fake, func(o *riffclient.Options) {
		o.Budget, o.ReconnectWait = 2*time.Second, 10*time.Millisecond
	})
	if code != 0 {
		t.Fatalf("riff relay watch = %d\n%s", code, stderr)
	}
	if got, want := stdout, "wake: ann@heron:app (1a2b) wrote in acme/app (message 7)\n"; got != want {
		t.Errorf("stdout = %q; want only the line of the wake %q", got, want)
	}
	errs := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(errs) != 1 || !strings.Contains(errs[0], "do not match") || !strings.HasPrefix(errs[0], "riff: this riff (") {
		t.Errorf("stderr = %q; want the guide's error of a mismatch once", stderr)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if fake.opens != 4 {
		t.Errorf("the watch opened %d times; want 3 refused opens and 1 more", fake.opens)
	}
}

// stallServer opens a watch that sends its first line and then no byte,
// then, at the next open, a wake.
type stallServer struct {
	mu    sync.Mutex
	opens int
}

func (m *stallServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set(wire.HeaderBuild, testBuild)
	if r.URL.Path != "/v1/watch" {
		_, _ = io.WriteString(w, "{}")
		return
	}
	m.mu.Lock()
	m.opens++
	first := m.opens == 1
	m.mu.Unlock()
	enc := json.NewEncoder(w)
	_ = enc.Encode(wire.Event{Type: wire.EventHello})
	if !first {
		_ = enc.Encode(wire.Event{Type: wire.EventWake, Wake: &wire.Wake{Thread: "dm:ann", Seq: 2, From: "ann@heron:app (1a2b)", Kind: "message"}})
	}
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// TestGivenAStreamWithNoByteWhenTheStallLimitPassesThenTheWatchOpensItAgain:
// a watch whose stream gives no byte for the stall limit (45 s; here the
// limit of the test) drops it and opens it again, with nothing on
// stdout but the line of the wake.
func TestGivenAStreamWithNoByteWhenTheStallLimitPassesThenTheWatchOpensItAgain(t *testing.T) {
	fake := &stallServer{}
	code, stdout, stderr := watchAgainst(t, fake, func(o *riffclient.Options) { o.Budget, o.Stall = 2*time.Second, 200*time.Millisecond })
	if code != 0 {
		t.Fatalf("riff relay watch = %d\n%s", code, stderr)
	}
	if got, want := stdout, "wake: ann@heron:app (1a2b) wrote to you in a direct message (message 2)\n"; got != want {
		t.Errorf("stdout = %q; want %q", got, want)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if fake.opens != 2 {
		t.Errorf("the watch opened %d times; want the stalled open and one more", fake.opens)
	}
}

// TestGivenTheEnvVarsOfTheTestBuildWhenThePersonsRiffWatchesThenItPrintsNoMarkAndWaitsForNoGate:
// the riff that a person runs (streamtest.go, not the test build of the
// end-to-end tests) reads no env hook of its streams: no mark on stderr,
// and after a break it connects again with no gate.
func TestGivenTheEnvVarsOfTheTestBuildWhenThePersonsRiffWatchesThenItPrintsNoMarkAndWaitsForNoGate(t *testing.T) {
	fake := &stallServer{}
	never := filepath.Join(t.TempDir(), "never")
	code, stdout, stderr := watchAgainst(t, fake, func(o *riffclient.Options) { o.Budget, o.Stall = 2*time.Second, 200*time.Millisecond },
		envWatchMarks+"=1", envWatchGate+"="+never, envTailGate+"="+never)
	if code != 0 {
		t.Fatalf("riff relay watch = %d\n%s", code, stderr)
	}
	if got, want := stdout, "wake: ann@heron:app (1a2b) wrote to you in a direct message (message 2)\n"; got != want {
		t.Errorf("stdout = %q; want %q: the watch came back with no gate", got, want)
	}
	if stderr != "" {
		t.Errorf("stderr = %q; want no mark", stderr)
	}
}

// watchAgainst runs riff relay watch in this process against fake, as
// the session a6cf2205-aaaa of mike in a repository of acme/app, with
// the client options of the test, for 20 s at the most.
func watchAgainst(t *testing.T, fake http.Handler, client func(*riffclient.Options), moreEnv ...string) (code int, stdout, stderr string) {
	t.Helper()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	dir := repoDir(t)
	b, _ := build.ParseBuild(testBuild)
	env := map[string]string{"USER": "mike", "RIFF_SERVER": srv.URL, "RIFF_SESSION": "a6cf2205-aaaa", "RIFF_HOME": t.TempDir()}
	for _, kv := range moreEnv {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	var out, errOut syncBuffer
	s := &system{
		env:      func(k string) string { return env[k] },
		stdin:    strings.NewReader(""),
		stdout:   &out,
		stderr:   &errOut,
		getwd:    func() (string, error) { return dir, nil },
		hostname: func() (string, error) { return "pangolin", nil },
		build:    b,
		loc:      time.UTC,
		now:      time.Now,
		terminal: func(io.Writer) (bool, int) { return false, 0 },
		client:   client,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code = s.run(ctx, []string{"relay", "watch"})
	return code, out.String(), errOut.String()
}
