package riffengine_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/jsonlog"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/como-technologies/riff/riffstate"
)

// The denied lines of the token layer over real loopback (the engine
// design, "The trace of a command": named, proved, the limits, the
// dropped line, the reserved lines, the same reply).

// windowTimer is the timer of the windows of the denied lines that the
// test fires: each timer that the denier arms comes on asked.
type windowTimer struct {
	asked   chan askedTimer
	stopped atomic.Int64
}

type askedTimer struct {
	wait time.Duration
	// fire runs the end of the window, as the timer would.
	fire func()
}

func newWindowTimer() *windowTimer { return &windowTimer{asked: make(chan askedTimer, 1024)} }

func (w *windowTimer) after(d time.Duration, f func()) func() bool {
	w.asked <- askedTimer{wait: d, fire: f}
	return func() bool { w.stopped.Add(1); return true }
}

// next waits until the denier arms a timer.
func (w *windowTimer) next(t *testing.T) askedTimer {
	t.Helper()
	select {
	case a := <-w.asked:
		return a
	case <-time.After(time.Minute):
		t.Fatal("waited a minute for the timer of a window")
		return askedTimer{}
	}
}

// deniedRiff is a riff with sign-in whose windows of denied lines a test
// times: the clock of the engine, and the timer of the windows.
type deniedRiff struct {
	*signedRiff
	srv   *riffengine.Handler
	clock *clock
	timer *windowTimer
	stop  func() // ends the open window, as the stop of the program does
}

type deniedSetup struct {
	opts     riffstate.Options
	bodyTime time.Duration // 0 is riffengine.BodyTime
	noSignIn bool
}

func startDenied(t *testing.T, s deniedSetup) *deniedRiff {
	t.Helper()
	r := &deniedRiff{signedRiff: &signedRiff{t: t, logs: &lines{}}, clock: newClock(), timer: newWindowTimer()}
	e, err := riffengine.Open(context.Background(), mem.New(), riffengine.Options{
		StoreName: "memory", Build: serverBuild(), Logger: jsonlog.New(r.logs, slog.LevelDebug),
		NoLease: true, SignIn: !s.noSignIn, StateOptions: s.opts, TimerEvery: time.Hour, Now: r.clock.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	r.e = e
	var layer riffengine.TokenLayer = riffengine.NoSignIn{}
	if !s.noSignIn {
		if layer, err = riffengine.NewSignedIn(e, riffengine.SignInOptions{IDTokens: idTokens{}}); err != nil {
			t.Fatal(err)
		}
	}
	r.srv = riffengine.NewHandler(e, layer)
	if s.bodyTime > 0 {
		r.srv.BodyTime = s.bodyTime
	}
	r.srv.SetDeniedTimer(r.timer.after)
	var once sync.Once
	r.stop = func() { once.Do(r.srv.FlushDenied) }
	r.http = httptest.NewServer(r.srv)
	t.Cleanup(func() {
		r.stop()
		r.http.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = e.Close(ctx)
	})
	return r
}

// raw sends a call on a new TCP connection: the headers with
// Content-Length length, then only the first bytes of the body, and it
// sends no more. It gives the reply and whether the server closed the
// connection after it. A server that waited for the rest of the body
// would hang the test (a minute).
func (r *deniedRiff) raw(path string, length int, first []byte) (*http.Response, []byte, bool) {
	r.t.Helper()
	conn, err := net.Dial("tcp", r.http.Listener.Addr().String())
	if err != nil {
		r.t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Minute))
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", path, r.http.Listener.Addr(), length)
	if _, err := conn.Write(first); err != nil {
		r.t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		r.t.Fatalf("no reply while the body waits: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	// The end of the connection: a FIN, or a reset when the server closed
	// with a part of the body unread in its buffer (the kernel then sends
	// RST); a deadline is no end.
	_, err = br.ReadByte()
	return resp, body, err == io.EOF || errors.Is(err, syscall.ECONNRESET)
}

// noToken is a call with no token. closed says that the reply had
// connection: close (net/http takes the header out of the reply).
func (r *deniedRiff) noToken(path string, body any) (rep reply, closed bool) {
	r.t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		r.t.Fatal(err)
	}
	resp, err := r.http.Client().Post(r.http.URL+path, "application/json", bytes.NewReader(data))
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: out}, resp.Close
}

func thumbprint(t *testing.T, d device) string {
	t.Helper()
	k, err := signed.Thumbprint(&d.key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestGivenAFloodWithNoTokenWhenAMemberActsAsAnotherSessionThenItsLinesAreKept
// is the flood of issue 15: 10,000 calls with no token and 5 calls of a
// member acting as another session, in one window.
func TestGivenAFloodWithNoTokenWhenAMemberActsAsAnotherSessionThenItsLinesAreKept(t *testing.T) {
	email := "mark-ada@mark-domain.example"
	r := startDenied(t, deniedSetup{opts: riffstate.Options{Owner: email, AllowedDomain: "mark-domain.example"}})
	d := newDevice(t)
	tr := r.signIn(d, email)
	st := r.swap(d, tr.AccessToken, "s1")
	const flood, members = 10000, 5

	// given 10,000 calls with no token (8 at a time), each with a marked
	// body
	var wg sync.WaitGroup
	var bad atomic.Int64
	calls := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{}
			for i := range calls {
				body := fmt.Sprintf(`{"me":"riff://eve@pangolin/o/repo?session=e%d","thread":"o/repo","body":"mark-body-flood %d"}`, i%50, i)
				hr, _ := http.NewRequest(http.MethodPost, r.http.URL+wire.Post{}.Path(), strings.NewReader(body))
				resp, err := client.Do(hr)
				if err != nil {
					bad.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get(wire.HeaderRefused) != string(wire.NoToken) {
					bad.Add(1)
				}
			}
		}()
	}
	for i := range flood {
		calls <- i
	}
	close(calls)
	wg.Wait()
	if n := bad.Load(); n != 0 {
		t.Fatalf("%d calls of the flood did not get 401 no_token", n)
	}
	// when a member acts as another session 5 times, in the same window
	for i := range members {
		rep, _ := r.do(req{path: wire.Post{}.Path(), token: st.AccessToken, proofKey: d.key,
			body: wire.Post{Me: uri("mark-ada/s2"), Thread: "o/repo", Body: fmt.Sprintf("mark-body-member %d", i)}})
		wantRefused(t, rep, wire.NotYou, http.StatusForbidden)
	}

	// then at most 100 denied lines: 80 of the flood and the 5 kept
	denied := r.logs.with(t, "denied")
	byCode := map[string]int{}
	for _, l := range denied {
		byCode[l["code"].(string)]++
	}
	if len(denied) > riffengine.DeniedMax || byCode["no_token"] != riffengine.DeniedMax-riffengine.DeniedReserved || byCode["not_you"] != members {
		t.Errorf("denied lines = %v; want %d no_token and the %d not_you", byCode, riffengine.DeniedMax-riffengine.DeniedReserved, members)
	}
	key := thumbprint(t, d)
	for _, l := range denied {
		if l["code"] != "not_you" {
			continue
		}
		named, _ := l["named"].(map[string]any)
		if l["path"] != "/v1/post" || l["proved"] != false || l["key"] != key || named["session"] != "mark-ada/s2" || l["caller"] != nil || l["reason"] != nil {
			t.Errorf("reserved line = %v; want path, proved false, the key %s, named mark-ada/s2, no caller, no reason", l, key)
		}
	}
	if n := len(r.logs.with(t, "dropped")); n != 0 {
		t.Errorf("%d dropped lines before the end of the window; want none", n)
	}

	// and the end of the window writes one dropped line with the counts
	a := r.timer.next(t)
	if a.wait != riffengine.DeniedInterval {
		t.Errorf("the timer of the window waits %v; want %v from its first call", a.wait, riffengine.DeniedInterval)
	}
	a.fire()
	until(t, "the dropped line", func() bool { return len(r.logs.with(t, "dropped")) > 0 })
	r.stop()
	dropped := r.logs.with(t, "dropped")
	wantCount := float64(flood - (riffengine.DeniedMax - riffengine.DeniedReserved))
	if len(dropped) != 1 || dropped[0]["count"] != wantCount || dropped[0]["severity"] != "WARNING" ||
		!mapsEqual(dropped[0]["counts"], map[string]any{"no_token": wantCount}) {
		t.Errorf("dropped lines = %v; want one with count %v and counts {no_token: %v}", dropped, wantCount, wantCount)
	}

	// and no line holds an email, a token, a key or a body of the run
	var k struct {
		X string `json:"x"`
	}
	_ = json.Unmarshal(d.jwk(t), &k)
	marks := []string{email, "mark-domain", tr.AccessToken, tr.RefreshToken, st.AccessToken, "mark-body", k.X}
	logs := r.logs.String()
	for _, m := range marks {
		if m != "" && strings.Contains(logs, m) {
			t.Errorf("a log line holds %q", m)
		}
	}
}

func mapsEqual(got any, want map[string]any) bool {
	m, ok := got.(map[string]any)
	if !ok || len(m) != len(want) {
		return false
	}
	for k, v := range want {
		if m[k] != v {
			return false
		}
	}
	return true
}

// TestGivenEachRefusalOfTheTokenLayerWhenItIsDeniedThenTheLineHasNamedProvedPathCodeAndKey
// checks the fields of each denied line: named from the me of the body
// (read after the refusal) or the uri of the query, proved false, the
// path, the code, and the key only of a valid token.
func TestGivenEachRefusalOfTheTokenLayerWhenItIsDeniedThenTheLineHasNamedProvedPathCodeAndKey(t *testing.T) {
	r := startDenied(t, deniedSetup{opts: adaOpts})
	d := newDevice(t)
	tr := r.signIn(d, "ada@example.com")
	old := "riff 0.1.0 (0123456789ab, 2026-01-01)"
	key := thumbprint(t, d)
	for _, tc := range []struct {
		name  string
		q     req
		code  wire.Code
		named map[string]any
		key   string
	}{
		{"no token", req{path: "/v1/whoami", body: whoami("bob")}, wire.NoToken, map[string]any{"person": "bob"}, ""},
		{"no token, the uri of the query", req{path: "/v1/whoami?uri=riff://cy@pangolin", body: map[string]any{}}, wire.NoToken, map[string]any{"person": "cy"}, ""},
		{"a bad token", req{path: "/v1/whoami", body: whoami("ada/s9"), token: "mark-bad-token", proofKey: d.key}, wire.BadToken, map[string]any{"session": "ada/s9"}, ""},
		{"a proof of another key", req{path: "/v1/whoami", body: map[string]any{"me": "not a uri\nsecond line"}, token: tr.AccessToken, proofKey: newDevice(t).key}, wire.BadProof, map[string]any{"text": `not a uri\nsecond line`}, key},
		{"not you", req{path: "/v1/claim", body: wire.Claim{Me: uri("bob/b1"), Item: "issue-1"}, token: tr.AccessToken, proofKey: d.key}, wire.NotYou, map[string]any{"session": "bob/b1"}, key},
		{"an old build", req{path: "/v1/whoami", body: whoami("ada"), token: tr.AccessToken, proofKey: d.key, build: old}, wire.OldBuild, map[string]any{"person": "ada"}, ""},
		{"no name", req{path: "/v1/whoami", body: []int{1}}, wire.NoToken, nil, ""},
		{"the facts with no token", req{method: http.MethodGet, path: wire.Server{}.Path()}, wire.NoToken, nil, ""},
		// A proof of a key with an unknown refresh token: no valid token,
		// so no key.
		{"an unknown refresh token", req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: "mark-bad-token"}, proofKey: d.key}, wire.BadToken, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(r.logs.with(t, "denied"))
			rep, _ := r.do(tc.q)
			if got := rep.header.Get(wire.HeaderRefused); got != string(tc.code) {
				t.Fatalf("reply %s (%s); want %s", rep, got, tc.code)
			}
			lines := r.logs.with(t, "denied")
			if len(lines) != before+1 {
				t.Fatalf("%d new denied lines; want 1", len(lines)-before)
			}
			l := lines[len(lines)-1]
			path, _, _ := strings.Cut(tc.q.path, "?")
			if l["code"] != string(tc.code) || l["path"] != path || l["proved"] != false || l["caller"] != nil || l["reason"] != nil {
				t.Errorf("line = %v; want code %s, path %s, proved false, no caller, no reason", l, tc.code, path)
			}
			if tc.named == nil && l["named"] != nil || tc.named != nil && !mapsEqual(l["named"], tc.named) {
				t.Errorf("named = %v; want %v", l["named"], tc.named)
			}
			if got, _ := l["key"].(string); got != tc.key {
				t.Errorf("key = %q; want %q", got, tc.key)
			}
		})
	}
	if logs := r.logs.String(); strings.Contains(logs, "mark-bad-token") || strings.Contains(logs, tr.AccessToken) {
		t.Errorf("a line holds a token:\n%s", logs)
	}
}

// TestGivenACallWithALineAndOneWithNoneWhenBothAreDeniedThenTheReplyIsTheSame
// compares the bytes and the headers of two refusals, the date and
// connection: close aside: the limits change only the lines.
func TestGivenACallWithALineAndOneWithNoneWhenBothAreDeniedThenTheReplyIsTheSame(t *testing.T) {
	for _, tc := range []struct {
		name     string
		noSignIn bool
		body     any
	}{
		{"no token in a riff with sign-in (the body read after the refusal)", false, whoami("bob")},
		{"no me in a riff with no sign-in (the body read by the token layer)", true, map[string]any{"thread": "o/repo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startDenied(t, deniedSetup{opts: adaOpts, noSignIn: tc.noSignIn})
			with, withClosed := r.noToken("/v1/whoami", tc.body)
			if n := len(r.logs.with(t, "denied")); n != 1 {
				t.Fatalf("%d denied lines after the first call; want 1", n)
			}
			for range riffengine.DeniedMax {
				r.noToken("/v1/whoami", tc.body)
			}
			lines := len(r.logs.with(t, "denied"))
			without, withoutClosed := r.noToken("/v1/whoami", tc.body)
			if n := len(r.logs.with(t, "denied")); n != lines || n != riffengine.DeniedMax-riffengine.DeniedReserved {
				t.Fatalf("denied lines %d, then %d; want %d and no line of the last call", lines, n, riffengine.DeniedMax-riffengine.DeniedReserved)
			}
			if with.status != without.status || !bytes.Equal(with.body, without.body) {
				t.Errorf("reply with a line %s; with none %s", with, without)
			}
			strip := func(h http.Header) http.Header {
				h = h.Clone()
				h.Del("Date")
				h.Del("Connection")
				return h
			}
			if a, b := strip(with.header), strip(without.header); fmt.Sprint(a) != fmt.Sprint(b) {
				t.Errorf("headers with a line %v; with none %v", a, b)
			}
			if withClosed {
				t.Errorf("a body read to its end closed the connection")
			}
			// With sign-in the call with no line gets no read of its body,
			// so its connection closes.
			if !tc.noSignIn && !withoutClosed {
				t.Errorf("the call with no line kept its connection; want close (its body is not read)")
			}
		})
	}
}

// TestGivenABodyOverTheLimitsWhenTheCallIsDeniedThenTheReplyClosesAndTheLineHasNoName
// checks the read of a refused body: at most 64 KiB and BodyTime, then
// connection: close and no more read of the call.
func TestGivenABodyOverTheLimitsWhenTheCallIsDeniedThenTheReplyClosesAndTheLineHasNoName(t *testing.T) {
	me := []byte(`{"me":"riff://bob@pangolin","pad":"`)
	t.Run("over 64 KiB", func(t *testing.T) {
		r := startDenied(t, deniedSetup{opts: adaOpts, bodyTime: time.Minute})
		first := append(append([]byte{}, me...), bytes.Repeat([]byte("x"), wire.MaxBody+1024)...)
		// The rest of the 1 MiB never comes: a server that read on would
		// hang.
		resp, _, closed := r.raw("/v1/whoami", 1<<20, first)
		if resp.StatusCode != http.StatusUnauthorized || !resp.Close || !closed {
			t.Errorf("reply %d, connection: close %v, closed %v; want 401, close, and the end of the connection", resp.StatusCode, resp.Close, closed)
		}
		if l := r.logs.with(t, "denied"); len(l) != 1 || l[0]["named"] != nil {
			t.Errorf("denied lines = %v; want one with no named", l)
		}
	})
	t.Run("slower than BodyTime", func(t *testing.T) {
		r := startDenied(t, deniedSetup{opts: adaOpts, bodyTime: 50 * time.Millisecond})
		resp, _, closed := r.raw("/v1/whoami", 1000, me)
		if resp.StatusCode != http.StatusUnauthorized || !resp.Close || !closed {
			t.Errorf("reply %d, connection: close %v, closed %v; want 401, close, and the end of the connection", resp.StatusCode, resp.Close, closed)
		}
		if l := r.logs.with(t, "denied"); len(l) != 1 || l[0]["named"] != nil {
			t.Errorf("denied lines = %v; want one with no named", l)
		}
	})
	t.Run("over the limit of the lines: no read at all", func(t *testing.T) {
		r := startDenied(t, deniedSetup{opts: adaOpts, bodyTime: time.Minute})
		for range riffengine.DeniedMax - riffengine.DeniedReserved {
			r.noToken("/v1/whoami", whoami("bob"))
		}
		resp, body, closed := r.raw("/v1/whoami", 1000, me)
		if resp.StatusCode != http.StatusUnauthorized || !resp.Close || !closed {
			t.Errorf("reply %d, connection: close %v, closed %v; want 401, close, and the end of the connection", resp.StatusCode, resp.Close, closed)
		}
		if !strings.Contains(string(body), "riff login") {
			t.Errorf("reply %q; want the text of no_token", body)
		}
	})
	t.Run("within the limits: the name, and the connection serves on", func(t *testing.T) {
		r := startDenied(t, deniedSetup{opts: adaOpts})
		body := append(append([]byte{}, me...), bytes.Repeat([]byte("x"), wire.MaxBody-len(me)-2)...)
		body = append(body, '"', '}')
		if len(body) != wire.MaxBody {
			t.Fatalf("the body has %d bytes; want %d", len(body), wire.MaxBody)
		}
		rep, closed := r.noToken("/v1/whoami", json.RawMessage(body))
		if rep.status != http.StatusUnauthorized || closed {
			t.Errorf("reply %d, connection: close %v; want 401 and no close", rep.status, closed)
		}
		if l := r.logs.with(t, "denied"); len(l) != 1 || !mapsEqual(l[0]["named"], map[string]any{"person": "bob"}) {
			t.Errorf("denied lines = %v; want one named bob", l)
		}
	})
}

// TestGivenAWindowWhenItsTimerFiresOrTheServerStopsThenOneDroppedLineHasItsCounts
// times the windows: a window starts at the first refused call after
// the end of the last, its timer writes the dropped line with no call
// after it, and a stop ends the window with no count lost.
func TestGivenAWindowWhenItsTimerFiresOrTheServerStopsThenOneDroppedLineHasItsCounts(t *testing.T) {
	r := startDenied(t, deniedSetup{opts: adaOpts})
	d := newDevice(t)
	tr := r.signIn(d, "ada@example.com")
	r.clock.Add(7 * time.Second) // the server started 7 s before the first refusal

	// given a window with 90 calls with no token
	for range 90 {
		r.noToken("/v1/whoami", whoami("bob"))
	}
	// when its timer fires, with no call after it
	a := r.timer.next(t)
	if a.wait != riffengine.DeniedInterval {
		t.Errorf("the first timer waits %v; want %v from the first refused call", a.wait, riffengine.DeniedInterval)
	}
	r.clock.Add(riffengine.DeniedInterval)
	a.fire()
	// then one dropped line with the count of the window
	until(t, "the dropped line of the first window", func() bool { return len(r.logs.with(t, "dropped")) == 1 })
	if l := r.logs.with(t, "dropped")[0]; l["count"] != 10.0 || !mapsEqual(l["counts"], map[string]any{"no_token": 10.0}) {
		t.Errorf("dropped line = %v; want count 10 of no_token", l)
	}

	// given a later window (3 s after the end of the last) with calls of
	// two codes over the limit
	r.clock.Add(3 * time.Second)
	for range 85 {
		r.noToken("/v1/whoami", whoami("bob"))
	}
	for range 20 {
		rep, _ := r.do(req{path: "/v1/whoami", body: whoami("bob"), token: tr.AccessToken, proofKey: d.key})
		wantRefused(t, rep, wire.NotYou, http.StatusForbidden)
	}
	a = r.timer.next(t)
	if a.wait != riffengine.DeniedInterval {
		t.Errorf("the second timer waits %v; want %v from the first call of its window", a.wait, riffengine.DeniedInterval)
	}
	// when the server stops before the end of the window
	r.stop()
	// then the stop writes its dropped line, and stops the timer
	dropped := r.logs.with(t, "dropped")
	if len(dropped) != 2 || dropped[1]["count"] != 5.0 || !mapsEqual(dropped[1]["counts"], map[string]any{"no_token": 5.0}) {
		t.Errorf("dropped lines = %v; want a second one with 5 of no_token (the 20 not_you are kept)", dropped)
	}
	if r.timer.stopped.Load() != 1 {
		t.Errorf("the timer was stopped %d times; want once, at the stop", r.timer.stopped.Load())
	}
	var kept int
	for _, l := range r.logs.with(t, "denied") {
		if l["code"] == "not_you" {
			kept++
		}
	}
	if kept != 20 {
		t.Errorf("%d not_you lines; want the 20 reserved lines", kept)
	}
}
