package riffengine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/jsonlog"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/como-technologies/riff/riffstate"
)

// The helpers of the engine tests: a real engine on a real store, a real
// HTTP server on loopback, a clock that the test moves, and the JSON log
// lines in a buffer.

// t0 is the start of the test clock.
var t0 = time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)

// serverBuild is the build of the engine of the tests.
func serverBuild() build.Build {
	v, err := build.ParseVersion("0.4.0")
	if err != nil {
		panic(err)
	}
	return build.Build{Version: v, Commit: "0123456789ab", Time: time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC)}
}

// clock is a clock that only the test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: t0} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// lines keeps the JSON log lines of the engine, safe for many goroutines.
type lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// all gives each line as a map.
func (l *lines) all(t testing.TB) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q is not JSON: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// with gives the lines whose message is msg.
func (l *lines) with(t testing.TB, msg string) []map[string]any {
	var out []map[string]any
	for _, m := range l.all(t) {
		if m["message"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// gate is a real store (memory) whose Put of a chunk waits until the
// test lets it go. Each Put of a chunk first says so on entered. With
// fail set, a Put of a chunk fails after its wait.
type gate struct {
	rifflog.Store
	held    atomic.Bool
	entered chan string
	release chan struct{}
	fail    atomic.Bool
	puts    atomic.Int64 // the chunk puts that returned nil
}

func newGate(s rifflog.Store) *gate {
	return &gate{Store: s, entered: make(chan string, 1024), release: make(chan struct{}, 1024)}
}

// hold makes each next chunk put wait for a let.
func (g *gate) hold() { g.held.Store(true) }

// let lets one waiting put go.
func (g *gate) let() { g.release <- struct{}{} }

// open lets every put go, now and later.
func (g *gate) open() {
	g.held.Store(false)
	for range 64 {
		select {
		case g.release <- struct{}{}:
		default:
		}
	}
}

func (g *gate) Put(ctx context.Context, name string, data []byte) error {
	if strings.HasPrefix(name, rifflog.ChunkPrefix) {
		if g.held.Load() {
			g.entered <- name
			select {
			case <-g.release:
			case <-ctx.Done():
				return fmt.Errorf("put %s: %w", name, ctx.Err())
			}
		}
		if g.fail.Load() {
			return fmt.Errorf("put %s: the disk is gone", name)
		}
	}
	if err := g.Store.Put(ctx, name, data); err != nil {
		return err
	}
	if strings.HasPrefix(name, rifflog.ChunkPrefix) {
		g.puts.Add(1)
	}
	return nil
}

// riff is one engine under test with its HTTP server.
type riff struct {
	t     testing.TB
	store rifflog.Store
	e     *riffengine.Engine
	srv   *riffengine.Handler
	http  *httptest.Server
	clock *clock
	logs  *lines

	// calls counts the calls that reached the server, by call ID.
	callsMu sync.Mutex
	calls   map[string]int
}

// started gives the number of calls with the call ID that reached the
// server.
func (r *riff) started(call string) int {
	r.callsMu.Lock()
	defer r.callsMu.Unlock()
	return r.calls[call]
}

type setup struct {
	store     rifflog.Store
	clock     *clock
	keepAlive time.Duration
	// checkpointInterval is the longest time between two checkpoints;
	// 0 is a century, so that a test that moves the clock keeps each
	// chunk of its log.
	checkpointInterval time.Duration
	// checkpointEvery is the number of records between two
	// checkpoints; 0 is the default (1,000).
	checkpointEvery int
}

// start loads the store (a new memory store when nil) into an engine
// that serves, and a real HTTP server on loopback. The test ends both.
func start(t testing.TB, s setup) *riff {
	t.Helper()
	if s.store == nil {
		s.store = mem.New()
	}
	if s.clock == nil {
		s.clock = newClock()
	}
	if s.checkpointInterval == 0 {
		s.checkpointInterval = 100 * 365 * 24 * time.Hour
	}
	r := &riff{t: t, store: s.store, clock: s.clock, logs: &lines{}, calls: map[string]int{}}
	loaded, err := riffengine.Load(context.Background(), s.store, riffstate.Options{Build: serverBuild().String()})
	if err != nil {
		t.Fatalf("Load = %v", err)
	}
	r.e = riffengine.New(loaded.State, loaded.Replayed, riffengine.Options{
		Store: s.store, StoreName: "memory", Build: serverBuild(), Logger: jsonlog.New(r.logs, slog.LevelDebug),
		Now: s.clock.Now, TimerEvery: time.Hour, CheckpointInterval: s.checkpointInterval, CheckpointEvery: s.checkpointEvery,
	})
	r.e.SetServing(true, "")
	r.srv = riffengine.NewHandler(r.e, riffengine.NoSignIn{})
	if s.keepAlive > 0 {
		r.srv.KeepAlive = s.keepAlive
	}
	r.http = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if id := req.Header.Get(wire.HeaderCall); id != "" {
			r.callsMu.Lock()
			r.calls[id]++
			r.callsMu.Unlock()
		}
		r.srv.ServeHTTP(w, req)
	}))
	t.Cleanup(func() {
		if g, ok := s.store.(*gate); ok {
			g.open()
		}
		r.e.Halt(errors.New("the test ends"))
		r.http.Close()
		r.srv.FlushDenied() // stops the timer of an open window
	})
	return r
}

// uri gives the session URI of "user/session" in the repository o/repo,
// or of a person for "user".
func uri(who string) name.SessionURI {
	user, session, _ := strings.Cut(who, "/")
	u := name.SessionURI{User: user, Host: "pangolin", Repo: "o/repo", Session: session}
	if session == "" {
		u.Repo = ""
	}
	return u
}

func whoOf(who string) name.Who { return uri(who).Who() }

// reply is the reply to one HTTP call.
type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) String() string { return fmt.Sprintf("%d %s", r.status, r.body) }

// decode reads the JSON body of a reply into v.
func (r reply) decode(t testing.TB, v any) {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("reply %s; want 200", r)
	}
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("reply %s does not read: %v", r.body, err)
	}
}

// call posts body (JSON of a value, or raw []byte) to path with the
// headers (name, value, ...).
func (r *riff) call(ctx context.Context, path string, body any, headers ...string) (reply, error) {
	var data []byte
	switch b := body.(type) {
	case []byte:
		data = b
	default:
		var err error
		if data, err = json.Marshal(b); err != nil {
			return reply{}, err
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.http.URL+path, bytes.NewReader(data))
	if err != nil {
		return reply{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := r.http.Client().Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: out}, err
}

// post is call with the background context; a failed call ends the test.
func (r *riff) post(path string, body any, headers ...string) reply {
	r.t.Helper()
	rep, err := r.call(context.Background(), path, body, headers...)
	if err != nil {
		r.t.Fatalf("POST %s: %v", path, err)
	}
	return rep
}

// ok is post that wants 200 and decodes the reply into v (when not nil).
func (r *riff) ok(path string, body any, v any, headers ...string) reply {
	r.t.Helper()
	rep := r.post(path, body, headers...)
	if rep.status != http.StatusOK {
		r.t.Fatalf("POST %s = %s; want 200", path, rep)
	}
	if v != nil {
		rep.decode(r.t, v)
	}
	return rep
}

// async runs post in a goroutine and gives its reply on a channel.
func (r *riff) async(ctx context.Context, path string, body any, headers ...string) <-chan reply {
	out := make(chan reply, 1)
	go func() {
		rep, err := r.call(ctx, path, body, headers...)
		if err != nil {
			rep = reply{status: -1, body: []byte(err.Error())}
		}
		out <- rep
	}()
	return out
}

// register makes each session known, with its write done.
func (r *riff) register(who ...string) {
	r.t.Helper()
	for _, w := range who {
		r.ok(wire.Register{}.Path(), wire.Register{Me: uri(w)}, nil)
	}
}

// queued waits until n entries wait in the queue of the writer. It
// polls a condition, it asserts no time.
func (r *riff) queued(n int) {
	r.t.Helper()
	until(r.t, fmt.Sprintf("%d entries in the queue", n), func() bool { return r.e.QueueLen() >= n })
}

// until polls cond; it fails the test only when cond never holds in a
// minute (a hang, not a slow machine).
func until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// position gives the position of the written copy.
func (r *riff) position() uint64 {
	var p uint64
	r.e.View(func(v riffstate.View, now riffstate.Now) { p = v.Riff().Position })
	return p
}

// records reads every record of the log in the store.
func records(t testing.TB, s rifflog.Store) []record.Record {
	t.Helper()
	var out []record.Record
	_, err := rifflog.Replay(context.Background(), s, rifflog.From{}, func(line []byte, position uint64) error {
		rec, err := record.Decode(line)
		if err != nil {
			return err
		}
		out = append(out, rec)
		return nil
	})
	if err != nil {
		t.Fatalf("Replay = %v", err)
	}
	return out
}

// chunks gives the records of each chunk of the log, in order: the
// chunk names give where each chunk starts.
func chunks(t testing.TB, s rifflog.Store) [][]record.Record {
	t.Helper()
	names, err := s.List(context.Background(), rifflog.ChunkPrefix)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]record.Record
	for _, rec := range records(t, s) {
		starts := false
		for _, n := range names {
			if first, ok := rifflog.ParseChunkName(n); ok && first == rec.Position {
				starts = true
			}
		}
		if starts || len(out) == 0 {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], rec)
	}
	return out
}

// stream is an open watch or tail: its lines, one event at a time.
type stream struct {
	t      testing.TB
	events chan wire.Event
	cancel context.CancelFunc
	ended  chan struct{}
}

// open opens a stream with POST and reads its lines in a goroutine.
func (r *riff) open(path string, body any) *stream {
	r.t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.http.URL+path, bytes.NewReader(data))
	if err != nil {
		r.t.Fatal(err)
	}
	resp, err := r.http.Client().Do(req)
	if err != nil {
		cancel()
		r.t.Fatalf("open %s: %v", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		r.t.Fatalf("open %s = %d %s; want 200", path, resp.StatusCode, b)
	}
	return readStream(r.t, resp, cancel)
}

// readStream reads the events of an open stream until it ends; the end
// of the test cancels it and waits for the reader.
func readStream(t testing.TB, resp *http.Response, cancel context.CancelFunc) *stream {
	s := &stream{t: t, events: make(chan wire.Event, 1<<16), cancel: cancel, ended: make(chan struct{})}
	go func() {
		defer close(s.ended)
		defer resp.Body.Close()
		dec := json.NewDecoder(resp.Body)
		for {
			var ev wire.Event
			if err := dec.Decode(&ev); err != nil {
				close(s.events)
				return
			}
			s.events <- ev
		}
	}()
	t.Cleanup(func() { cancel(); <-s.ended })
	return s
}

// next gives the next event of the stream; a stream that ended gives
// ok false.
func (s *stream) next() (wire.Event, bool) {
	s.t.Helper()
	select {
	case ev, ok := <-s.events:
		return ev, ok
	case <-time.After(time.Minute):
		s.t.Fatalf("no line on the stream for a minute")
		return wire.Event{}, false
	}
}

// nextOf skips keep-alive lines.
func (s *stream) nextOf() (wire.Event, bool) {
	s.t.Helper()
	for {
		ev, ok := s.next()
		if !ok || ev.Type != wire.EventKeepAlive {
			return ev, ok
		}
	}
}

// prove gives the proof of the token layer of a riff with no sign-in for
// a call of me.
func prove(t testing.TB, me name.SessionURI) riffengine.Proof {
	t.Helper()
	p, refused := riffengine.NoSignIn{}.Prove(httptest.NewRequest(http.MethodPost, "/", nil), riffengine.Token{}, me)
	if refused != nil {
		t.Fatalf("Prove(%v) = %v", me, refused)
	}
	return p
}

func jsonDecode(resp *http.Response, v any) error { return json.NewDecoder(resp.Body).Decode(v) }
