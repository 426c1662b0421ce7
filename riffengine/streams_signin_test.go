package riffengine_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/dpop"
	"github.com/como-technologies/riff/riffcore/jsonlog"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/riffengine/tokens"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/como-technologies/riff/riffstate"
)

// The streams of a riff with sign-in (docs/wire.md, "Streams"): each
// stream belongs to the sign-in that opened it, and ends with it, in the
// step that ends its tokens and before the reply of that command, with a
// last line that says why; and a stream lives no longer than the token
// that opened it.

// streamTimers are the timers of the ends of the streams at the expiry of
// their tokens, on the clock of the test: advance moves the clock and
// fires each timer that is due. A timer that is due when it starts fires
// at once, as a real one does.
type streamTimers struct {
	clock *clock
	mu    sync.Mutex
	timer []*streamTimer
	asked int
}

type streamTimer struct {
	at      time.Time
	c       chan time.Time
	stopped bool
	fired   bool
}

func (s *streamTimers) after(d time.Duration) (<-chan time.Time, func() bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked++
	t := &streamTimer{at: s.clock.Now().Add(d), c: make(chan time.Time, 1)}
	s.timer = append(s.timer, t)
	s.fireLocked()
	return t.c, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		was := !t.stopped && !t.fired
		t.stopped = true
		return was
	}
}

func (s *streamTimers) fireLocked() {
	now := s.clock.Now()
	for _, t := range s.timer {
		if !t.stopped && !t.fired && !now.Before(t.at) {
			t.fired = true
			t.c <- now
		}
	}
}

// advance moves the clock by d and fires the timers that are due.
func (s *streamTimers) advance(d time.Duration) {
	s.clock.Add(d)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fireLocked()
}

func (s *streamTimers) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked
}

// streamRiff is a riff with sign-in on the clock of the test.
type streamRiff struct {
	*signedRiff
	timers *streamTimers
}

func startStreamRiff(t *testing.T, opts riffstate.Options, topts tokens.Options) *streamRiff {
	t.Helper()
	c := newClock()
	r := &streamRiff{signedRiff: &signedRiff{t: t, logs: &lines{}}, timers: &streamTimers{clock: c}}
	e, err := riffengine.Open(context.Background(), mem.New(), riffengine.Options{
		StoreName: "memory", Build: serverBuild(), Logger: jsonlog.New(r.logs, slog.LevelDebug),
		NoLease: true, SignIn: true, StateOptions: opts, TimerEvery: time.Hour, Now: c.Now, Tokens: topts,
		SignInsEvery: time.Millisecond, // a sign-in waits for no real second
	})
	if err != nil {
		t.Fatal(err)
	}
	r.e = e
	layer, err := riffengine.NewSignedIn(e, riffengine.SignInOptions{IDTokens: idTokens{}})
	if err != nil {
		t.Fatal(err)
	}
	h := riffengine.NewHandler(e, layer)
	h.SetStreamTimer(r.timers.after)
	r.http = httptest.NewServer(h)
	t.Cleanup(func() {
		r.http.Close()
		// The last write of signins.json waits for no real second.
		r.timers.advance(riffengine.SignInsEvery)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = e.Close(ctx)
	})
	return r
}

// joinNow signs the person of email in on a new device. The clock first
// moves on by the wait between two writes of signins.json, so that the
// sign-in waits for no real second.
func (r *streamRiff) joinNow(email string) *member {
	r.t.Helper()
	r.timers.advance(riffengine.SignInsEvery)
	return r.join(email)
}

// inviteNow invites email as by, and signs the person in.
func (r *streamRiff) inviteNow(by *member, email string) *member {
	r.t.Helper()
	var inv wire.InviteReply
	r.okAs(by, wire.Invite{}.Path(), wire.Invite{Me: uri(by.user), Email: email}, &inv)
	return r.joinNow(email)
}

// postAs posts p as m, signed as riff signs it: the content of
// PostContent, the time of the clock, the signature of m's device key.
func (r *streamRiff) postAs(m *member, p wire.Post) {
	r.t.Helper()
	var content signed.Content
	r.okAs(m, wire.PostContent{}.Path(), wire.PostContent{Post: p}, &content)
	content.TimeMS = r.timers.clock.Now().UnixMilli()
	payload, err := signed.Encode(content)
	if err != nil {
		r.t.Fatal(err)
	}
	if p.Sig, err = signed.Sign(m.d.key, payload); err != nil {
		r.t.Fatal(err)
	}
	p.Payload = payload
	var reply wire.PostReply
	r.okAs(m, wire.Post{}.Path(), p, &reply)
}

// session gives the session token of m for the session id, and
// registers the session.
func (r *streamRiff) session(m *member, id string) string {
	r.t.Helper()
	st := r.swap(m.d, m.tok.AccessToken, id)
	rep, _ := r.do(req{path: wire.Register{}.Path(), body: wire.Register{Me: uri(m.user + "/" + id)}, token: st.AccessToken, proofKey: m.d.key})
	if rep.status != http.StatusOK {
		r.t.Fatalf("register %s/%s = %s", m.user, id, rep)
	}
	return st.AccessToken
}

// openAs opens a stream with the token of m (its person token, or a
// session token), and reads its lines in a goroutine.
func (r *streamRiff) openAs(m *member, token, path string, body any) *stream {
	r.t.Helper()
	s, rep := r.tryOpen(m, token, path, body)
	if s == nil {
		r.t.Fatalf("open %s = %s; want 200", path, rep)
	}
	return s
}

// tryOpen opens a stream as openAs does; a refused open gives its reply
// and no stream.
func (r *streamRiff) tryOpen(m *member, token, path string, body any) (*stream, reply) {
	r.t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	u := r.http.URL + path
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(data))
	if err != nil {
		r.t.Fatal(err)
	}
	proof, err := dpop.Make(m.d.key, http.MethodPost, u, token, time.Now(), rand.Text())
	if err != nil {
		r.t.Fatal(err)
	}
	hr.Header.Set(wire.HeaderAuthorization, "DPoP "+token)
	hr.Header.Set(wire.HeaderDPoP, proof)
	resp, err := r.http.Client().Do(hr)
	if err != nil {
		cancel()
		r.t.Fatalf("open %s: %v", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		return nil, reply{status: resp.StatusCode, header: resp.Header, body: b}
	}
	return readStream(r.t, resp, cancel), reply{status: resp.StatusCode, header: resp.Header}
}

// hello reads the first line of a stream.
func hello(t *testing.T, s *stream) wire.Event {
	t.Helper()
	ev, ok := s.next()
	if !ok || ev.Type != wire.EventHello {
		t.Fatalf("first line = %+v, %v; want hello", ev, ok)
	}
	return ev
}

// rest reads a stream to its end, and gives its lines but the
// keep-alives. A stream that does not end in 20 s fails the test (a
// safety bound: an end that breaks fails instead of hanging).
func rest(t *testing.T, s *stream) []wire.Event {
	t.Helper()
	var out []wire.Event
	limit := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return out
			}
			if ev.Type != wire.EventKeepAlive {
				out = append(out, ev)
			}
		case <-limit:
			t.Fatalf("the stream did not end in 20 s; its lines: %+v", out)
		}
	}
}

// wantEnd checks that the lines end with the end line of why, and that
// no line holds the mark of what came after the end.
func wantEnd(t *testing.T, what string, lines []wire.Event, end, reason, after string) {
	t.Helper()
	if len(lines) == 0 {
		t.Fatalf("%s ended with no line; want the end line %s", what, end)
	}
	last := lines[len(lines)-1]
	if last.Type != wire.EventEnd || last.End != end || last.Reason != reason {
		t.Errorf("the last line of %s = %+v; want type end, end %s, reason %q", what, last, end, reason)
	}
	for _, ev := range lines {
		if ev.Message != nil && strings.Contains(ev.Message.Body, after) {
			t.Errorf("%s got the message %q, posted after the end", what, ev.Message.Body)
		}
	}
}

// wantMessage reads the next line of s, and wants the message body.
func wantMessage(t *testing.T, what string, s *stream, body string) {
	t.Helper()
	ev, ok := s.nextOf()
	if !ok || ev.Message == nil || ev.Message.Body != body {
		t.Fatalf("%s = %+v, %v; want the message %q", what, ev, ok, body)
	}
}

// wantWake reads the next line of s, and wants a wake.
func wantWake(t *testing.T, what string, s *stream) wire.Wake {
	t.Helper()
	ev, ok := s.nextOf()
	if !ok || ev.Wake == nil {
		t.Fatalf("%s = %+v, %v; want a wake", what, ev, ok)
	}
	return *ev.Wake
}

// bobsStreams: ada is the owner, bob an invited member with a watch of
// his session b0b1 and a tail of chat, each of which got one line.
type bobsStreams struct {
	r            *streamRiff
	ada, bob     *member
	watch, chat  *stream
	sessionToken string
}

func startBobsStreams(t *testing.T) *bobsStreams {
	r := startStreamRiff(t, inviteOpts, tokens.Options{})
	b := &bobsStreams{r: r, ada: r.joinNow("ada@example.com")}
	b.bob = r.inviteNow(b.ada, "bob@example.com")
	b.sessionToken = r.session(b.bob, "b0b1")
	b.watch = r.openAs(b.bob, b.sessionToken, wire.Watch{}.Path(), wire.Watch{Me: uri("bob/b0b1")})
	b.chat = r.openAs(b.bob, b.bob.tok.AccessToken, wire.Tail{}.Path(), wire.Tail{Me: uri("bob"), Thread: "chat"})
	hello(t, b.watch)
	hello(t, b.chat)
	b.postBoth("before the end")
	wantMessage(t, "bob's tail of chat", b.chat, "before the end")
	wantWake(t, "bob's watch", b.watch)
	return b
}

// postBoth posts body as ada in chat, and tells it to bob's session.
func (b *bobsStreams) postBoth(body string) {
	b.r.t.Helper()
	b.r.postAs(b.ada, wire.Post{Me: uri("ada"), Thread: "chat", Body: body})
	b.r.postAs(b.ada, wire.Post{Me: uri("ada"), Tell: "b0b1", Body: body})
}

// wantBothEnded checks that at the reply of the end no stream of bob is
// open, then posts after it, and wants both streams to end with the
// lost sign-in and none of what came after.
func (b *bobsStreams) wantBothEnded(t *testing.T) {
	t.Helper()
	if n := b.r.e.OpenStreams(); n != 0 {
		t.Errorf("%d streams open at the reply of the end; want 0: the end of the sign-in ends its streams before the reply", n)
	}
	b.postBoth("after the end")
	wantEnd(t, "bob's watch", rest(t, b.watch), wire.EndSignIn, riffstate.LostSignIn, "after the end")
	chat := rest(t, b.chat)
	wantEnd(t, "bob's tail of chat", chat, wire.EndSignIn, riffstate.LostSignIn, "after the end")
	if len(chat) != 1 {
		t.Errorf("bob's tail of chat after the end = %+v; want only the end line", chat)
	}
}

func TestGivenAWatchAndATailOfAPersonWhenTheOwnerRemovesThePersonThenBothEndWithTheLostSignInBeforeTheReply(t *testing.T) {
	b := startBobsStreams(t)
	var ended wire.EndedReply
	b.r.okAs(b.ada, wire.Remove{}.Path(), wire.Remove{Me: uri("ada"), Email: "bob@example.com"}, &ended)
	if ended.Ended != 1 {
		t.Fatalf("remove = %+v; want 1 sign-in ended", ended)
	}
	b.wantBothEnded(t)
}

func TestGivenAWatchAndATailOfAPersonWhenThePersonRevokesTheirSignInsThenBothEndBeforeTheReply(t *testing.T) {
	b := startBobsStreams(t)
	var ended wire.EndedReply
	b.r.okAs(b.bob, wire.Revoke{}.Path(), wire.Revoke{Me: uri("bob")}, &ended)
	if ended.Ended != 1 {
		t.Fatalf("revoke = %+v; want 1 sign-in ended", ended)
	}
	b.wantBothEnded(t)

	// A sign-in after the end is a new one: its streams go on.
	again := b.r.joinNow("bob@example.com")
	tail := b.r.openAs(again, again.tok.AccessToken, wire.Tail{}.Path(), wire.Tail{Me: uri("bob"), Thread: "chat"})
	hello(t, tail)
	b.postBoth("to the new sign-in")
	wantMessage(t, "the tail of bob's new sign-in", tail, "to the new sign-in")
}

func TestGivenAWatchAndATailOfAPersonWhenTheOwnerRevokesTheSignInsOfThePersonThenBothEndBeforeTheReply(t *testing.T) {
	b := startBobsStreams(t)
	// A second machine of bob: a revoke ends each sign-in of the person.
	laptop := b.r.joinNow("bob@example.com")
	tail := b.r.openAs(laptop, laptop.tok.AccessToken, wire.Tail{}.Path(), wire.Tail{Me: uri("bob"), Thread: "chat"})
	hello(t, tail)
	var ended wire.EndedReply
	b.r.okAs(b.ada, wire.Revoke{}.Path(), wire.Revoke{Me: uri("ada"), Email: "bob@example.com"}, &ended)
	if ended.Ended != 2 {
		t.Fatalf("revoke = %+v; want 2 sign-ins ended", ended)
	}
	b.wantBothEnded(t)
	wantEnd(t, "the tail of bob's second machine", rest(t, tail), wire.EndSignIn, riffstate.LostSignIn, "after the end")
}

func TestGivenStreamsOfTwoSignInsWhenARefreshTokenOfOneIsReusedThenItsStreamsEndBeforeTheRefusalAndTheOthersStay(t *testing.T) {
	b := startBobsStreams(t)
	laptop := b.r.joinNow("bob@example.com")
	tail := b.r.openAs(laptop, laptop.tok.AccessToken, wire.Tail{}.Path(), wire.Tail{Me: uri("bob"), Thread: "chat"})
	hello(t, tail)
	// Two refreshes of bob's first sign-in, then its first refresh token
	// again: a copy. The sign-in ends.
	first := b.bob.tok.RefreshToken
	next := first
	for range 2 {
		rep, _ := b.r.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: next}, proofKey: b.bob.d.key})
		var tr wire.TokenReply
		rep.decode(t, &tr)
		next = tr.RefreshToken
	}
	rep, _ := b.r.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: first}, proofKey: b.bob.d.key})
	wantRefused(t, rep, wire.BadToken, http.StatusUnauthorized)
	if n := b.r.e.OpenStreams(); n != 1 {
		t.Errorf("%d streams open at the refusal of the reuse; want 1, of the other sign-in", n)
	}
	b.postBoth("after the end")
	wantEnd(t, "bob's watch", rest(t, b.watch), wire.EndSignIn, riffstate.LostSignIn, "after the end")
	wantEnd(t, "bob's tail of chat", rest(t, b.chat), wire.EndSignIn, riffstate.LostSignIn, "after the end")
	wantMessage(t, "the tail of bob's other sign-in", tail, "after the end")
}

func TestGivenASignInThatEndsBetweenTheCheckOfTheTokenAndTheJoinWhenAStreamOpensThenItIsRefusedWithTheLostSignIn(t *testing.T) {
	r := startStreamRiff(t, inviteOpts, tokens.Options{})
	ada := r.joinNow("ada@example.com")
	bob := r.inviteNow(ada, "bob@example.com")
	var once sync.Once
	r.e.SetBeforeStreamJoin(func() {
		once.Do(func() {
			var ended wire.EndedReply
			r.okAs(ada, wire.Remove{}.Path(), wire.Remove{Me: uri("ada"), Email: "bob@example.com"}, &ended)
		})
	})
	s, rep := r.tryOpen(bob, bob.tok.AccessToken, wire.Tail{}.Path(), wire.Tail{Me: uri("bob"), Thread: "chat"})
	if s != nil {
		r.postAs(ada, wire.Post{Me: uri("ada"), Thread: "chat", Body: "after the end"})
		t.Fatalf("the tail of a removed person opened: %+v", rest(t, s))
	}
	wantRefused(t, rep, wire.BadToken, http.StatusUnauthorized)
	if !strings.Contains(string(rep.body), riffstate.LostSignIn) {
		t.Errorf("refusal %s; want the text of a lost sign-in", rep)
	}
}

func TestGivenAStreamWhenItsTokenExpiresThenItEndsThereWithTokenExpired(t *testing.T) {
	const access, session = time.Hour, 10 * time.Minute
	r := startStreamRiff(t, inviteOpts, tokens.Options{AccessLife: access, SessionLife: session})
	ada := r.joinNow("ada@example.com")
	bob := r.inviteNow(ada, "bob@example.com")
	st := r.session(bob, "b0b1")
	watch := r.openAs(bob, st, wire.Watch{}.Path(), wire.Watch{Me: uri("bob/b0b1")})
	chat := r.openAs(bob, bob.tok.AccessToken, wire.Tail{}.Path(), wire.Tail{Me: uri("bob"), Thread: "chat"})
	hello(t, watch)
	hello(t, chat)
	post := func(body string) {
		t.Helper()
		r.postAs(ada, wire.Post{Me: uri("ada"), Thread: "chat", Body: body})
	}

	// Just before the session token expires, both streams go on.
	r.timers.advance(session - time.Second)
	post("the session token lives")
	wantMessage(t, "bob's tail", chat, "the session token lives")
	// The session gives a sign of life, as its relay does, so that a tell
	// reaches it.
	if rep, _ := r.do(req{path: wire.Alive{}.Path(), body: wire.Alive{Me: uri("bob/b0b1")}, token: st, proofKey: bob.d.key}); rep.status != http.StatusOK {
		t.Fatalf("alive of bob's session = %s", rep)
	}
	r.postAs(ada, wire.Post{Me: uri("ada"), Tell: "b0b1", Body: "wake"})
	wantWake(t, "bob's watch", watch)

	// At its expiry the watch of the session token ends.
	r.timers.advance(time.Second)
	wantEnd(t, "bob's watch", rest(t, watch), wire.EndExpired, "the token of this stream expired: riff opens it again with its new token", "")
	post("the person token lives")
	wantMessage(t, "bob's tail", chat, "the person token lives")

	// At the expiry of the person token the tail ends.
	r.timers.advance(access - session)
	wantEnd(t, "bob's tail", rest(t, chat), wire.EndExpired, "the token of this stream expired: riff opens it again with its new token", "")
}

func TestGivenARiffWithNoSignInWhenAStreamRunsThenItHasNoEndOfAToken(t *testing.T) {
	r := start(t, setup{})
	timers := &streamTimers{clock: r.clock}
	r.srv.SetStreamTimer(timers.after)
	r.register("ann/ann1", "bob/bob1")
	tail := r.open("/v1/tail", wire.Tail{Me: uri("bob/bob1"), Thread: "chat"})
	if ev, ok := tail.next(); !ok || ev.Type != wire.EventHello {
		t.Fatalf("first line = %+v, %v; want hello", ev, ok)
	}
	r.ok("/v1/post", wire.Post{Me: uri("ann/ann1"), Thread: "chat", Body: "one"}, nil)
	if ev, ok := tail.nextOf(); !ok || ev.Message == nil || ev.Message.Body != "one" {
		t.Fatalf("tail = %+v, %v; want the message", ev, ok)
	}
	// The stream pumps: it asked for no timer of a token, and a year on
	// the clock ends nothing.
	if n := timers.count(); n != 0 {
		t.Errorf("the stream of a riff with no sign-in asked %d timers of a token; want none", n)
	}
	timers.advance(365 * 24 * time.Hour)
	r.ok("/v1/post", wire.Post{Me: uri("ann/ann1"), Thread: "chat", Body: "two"}, nil)
	if ev, ok := tail.nextOf(); !ok || ev.Message == nil || ev.Message.Body != "two" {
		t.Fatalf("tail a year on = %+v, %v; want the message", ev, ok)
	}
}

func TestGivenATailWhenItOpensThenItsHelloHasTheNewestSeqOfTheThread(t *testing.T) {
	r := start(t, setup{})
	r.register("ann/ann1", "bob/bob1")
	for _, body := range []string{"one", "two", "three"} {
		r.ok("/v1/post", wire.Post{Me: uri("ann/ann1"), Thread: "chat", Body: body}, nil)
	}
	// bob is no member of chat (he never posted there), so his threads do
	// not list it: the hello line gives the point of the tail.
	tail := r.open("/v1/tail", wire.Tail{Me: uri("bob/bob1"), Thread: "chat"})
	if ev, ok := tail.next(); !ok || ev.Type != wire.EventHello || ev.Last != 3 {
		t.Fatalf("first line = %+v, %v; want hello with last 3", ev, ok)
	}
}
