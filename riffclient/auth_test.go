package riffclient

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/dpop"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/google/go-cmp/cmp"
)

// fakeAuth is the sign-in of a machine in a test: one key, a token per
// caller, and a count of the refusals.
type fakeAuth struct {
	key *ecdsa.PrivateKey
	mu  sync.Mutex
	// tokens gives the token of each caller (its Session; "" for the
	// person), in turn: each Refused moves to the next one.
	tokens  map[string][]string
	refused []string
	// fail is the error of Token while it is set.
	fail error
}

func newFakeAuth(t *testing.T) *fakeAuth {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &fakeAuth{key: key, tokens: map[string][]string{}}
}

func (a *fakeAuth) Key() *ecdsa.PrivateKey { return a.key }

func (a *fakeAuth) Token(_ context.Context, me name.SessionURI) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.fail != nil {
		return "", a.fail
	}
	ts := a.tokens[me.Session]
	if len(ts) == 0 {
		return "", fmt.Errorf("no token for %q", me.Session)
	}
	return ts[0], nil
}

func (a *fakeAuth) Refused(_ context.Context, me name.SessionURI, token string, code wire.Code) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.refused = append(a.refused, token+" "+string(code))
	ts := a.tokens[me.Session]
	if len(ts) > 1 && ts[0] == token {
		a.tokens[me.Session] = ts[1:]
		return true
	}
	return false
}

func (a *fakeAuth) setFail(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.fail = err
}

// seenTry is what a server in a test saw of one try.
type seenTry struct {
	path, token, jti, htu string
	thumbprint            string
	err                   error
}

// proofServer checks the headers of each try as the token layer does:
// the token of Authorization and the proof of DPoP, with dpop.Verify on
// the clock of the client.
type proofServer struct {
	t     *testing.T
	clock *fakeClock
	mu    sync.Mutex
	tries []seenTry
	// answer answers a try after its check; nil answers {}.
	answer func(n int, tr seenTry, w http.ResponseWriter)
}

func (p *proofServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var tr seenTry
	tr.path = r.URL.Path
	if auth := r.Header.Get(wire.HeaderAuthorization); auth != "" {
		token, ok := strings.CutPrefix(auth, "DPoP ")
		if !ok {
			tr.err = fmt.Errorf("Authorization %q is not DPoP TOKEN", auth)
		}
		tr.token = token
	}
	htu := "http://" + r.Host + r.URL.Path
	proof, err := dpop.Verify(r.Header.Get(wire.HeaderDPoP), r.Method, htu, tr.token, p.clock.Now())
	if err != nil && tr.err == nil {
		tr.err = err
	}
	tr.jti, tr.htu, tr.thumbprint = proof.JTI, htu, proof.Thumbprint
	p.mu.Lock()
	p.tries = append(p.tries, tr)
	n := len(p.tries)
	p.mu.Unlock()
	w.Header().Set(wire.HeaderBuild, buildA)
	if p.answer != nil {
		p.answer(n, tr, w)
		return
	}
	fmt.Fprint(w, "{}")
}

func (p *proofServer) seen() []seenTry {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]seenTry(nil), p.tries...)
}

func refuse(w http.ResponseWriter, code wire.Code) {
	w.Header().Set(wire.HeaderRefused, string(code))
	w.WriteHeader(code.Status())
	fmt.Fprintf(w, `{"reason":"refused: %s"}`, code)
}

func authClient(t *testing.T, p *proofServer, a Auth) (*Client, *url.URL) {
	t.Helper()
	srv := newServer(t, p.ServeHTTP)
	u, err := url.Parse(srv.URL + "/riff")
	if err != nil {
		t.Fatal(err)
	}
	return New(u, Options{Build: mustBuild(t, buildA), Clock: p.clock, Auth: a}), u
}

func TestGivenAuthWhenACallIsTriedAgainThenEachTryHasTheTokenAndANewProofOfItsURL(t *testing.T) {
	auth := newFakeAuth(t)
	auth.tokens["a6cf"] = []string{"session-token-1"}
	p := &proofServer{t: t, clock: newFakeClock(), answer: func(n int, tr seenTry, w http.ResponseWriter) {
		if n < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "{}")
	}}
	c, u := authClient(t, p, auth)
	me := name.SessionURI{User: "mike", Host: "pangolin", Session: "a6cf"}
	if _, err := Send(context.Background(), c, wire.Claim{Me: me, Item: "issue-6"}); err != nil {
		t.Fatal(err)
	}
	tries := p.seen()
	if len(tries) != 3 {
		t.Fatalf("%d tries, want 3", len(tries))
	}
	jtis := map[string]bool{}
	want, _ := signed.Thumbprint(&auth.key.PublicKey)
	for i, tr := range tries {
		if tr.err != nil {
			t.Errorf("try %d: %v", i+1, tr.err)
		}
		if tr.token != "session-token-1" {
			t.Errorf("try %d: token %q, want the session token of the caller", i+1, tr.token)
		}
		if tr.htu != u.String()+"/v1/claim" {
			t.Errorf("try %d: htu %q", i+1, tr.htu)
		}
		if tr.thumbprint != want {
			t.Errorf("try %d: proof of key %s, want the device key %s", i+1, tr.thumbprint, want)
		}
		if jtis[tr.jti] {
			t.Errorf("try %d: jti %q again: a try again must not be a replay", i+1, tr.jti)
		}
		jtis[tr.jti] = true
	}
}

func TestGivenABadTokenWhenTheAuthRenewsItThenTheCallIsTriedOnceMoreWithTheNewToken(t *testing.T) {
	auth := newFakeAuth(t)
	auth.tokens[""] = []string{"old", "new", "newer"}
	p := &proofServer{t: t, clock: newFakeClock(), answer: func(n int, tr seenTry, w http.ResponseWriter) {
		if tr.token != "newer" {
			refuse(w, wire.BadToken)
			return
		}
		fmt.Fprint(w, "{}")
	}}
	c, _ := authClient(t, p, auth)
	_, err := Send(context.Background(), c, wire.Who{Me: name.SessionURI{User: "mike", Host: "pangolin"}})
	var refused *wire.Refused
	if !errors.As(err, &refused) || refused.Code != wire.BadToken {
		t.Fatalf("Send = %v; want bad_token after one more try", err)
	}
	var got []string
	for _, tr := range p.seen() {
		got = append(got, tr.token)
	}
	if diff := cmp.Diff([]string{"old", "new"}, got); diff != "" {
		t.Errorf("tokens of the tries (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"old bad_token"}, auth.refused); diff != "" {
		t.Errorf("refusals told to the Auth (-want +got):\n%s", diff)
	}
}

func TestGivenTheTokenPathWhenItIsSentThenSignInAndRefreshHaveAProofAndNoTokenAndSwapThePersonToken(t *testing.T) {
	auth := newFakeAuth(t)
	auth.tokens[""] = []string{"person"}
	p := &proofServer{t: t, clock: newFakeClock()}
	c, _ := authClient(t, p, auth)
	ctx := context.Background()
	if _, err := Send(ctx, c, wire.SignIn{IDToken: "id"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Send(ctx, c, wire.Refresh{RefreshToken: "c.1.s"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Send(ctx, c, wire.Swap{Session: "a6cf"}); err != nil {
		t.Fatal(err)
	}
	if _, err := SendProved(ctx, c, wire.Swap{Session: "a6cf"}, auth.key, "given"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range p.seen() {
		if tr.err != nil {
			t.Errorf("%s: %v", tr.path, tr.err)
		}
		got = append(got, tr.path+" token="+tr.token)
	}
	want := []string{"/riff/v1/signin token=", "/riff/v1/token/refresh token=", "/riff/v1/token/swap token=person", "/riff/v1/token/swap token=given"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tries (-want +got):\n%s", diff)
	}
}

func TestGivenBuildsThatDoNotTalkWhenRiffLoginSignsInThenTheReplyComesThrough(t *testing.T) {
	auth := newFakeAuth(t)
	p := &proofServer{t: t, clock: newFakeClock(), answer: func(n int, tr seenTry, w http.ResponseWriter) {
		w.Header().Set(wire.HeaderBuild, buildOld)
		fmt.Fprint(w, `{"access_token":"a","user":"mike","riff":"r1"}`)
	}}
	c, _ := authClient(t, p, nil)
	ctx := context.Background()
	reply, err := SendProved(ctx, c, wire.SignIn{IDToken: "id"}, auth.key, "")
	if err != nil || reply.User != "mike" {
		t.Fatalf("SignIn = %+v, %v; want the reply", reply, err)
	}
	if _, err := SendProved(ctx, c, wire.SignInProvider{}, nil, ""); err != nil {
		t.Fatalf("SignInProvider = %v; want the reply", err)
	}
	var mismatch *MismatchError
	if _, err := SendProved(ctx, c, wire.Refresh{}, auth.key, ""); !errors.As(err, &mismatch) {
		t.Fatalf("Refresh = %v; want the mismatch of the builds", err)
	}
}

func TestGivenALostSignInWhenAWatchRunsThenItSaysItOnceAndGoesOnAfterASignIn(t *testing.T) {
	auth := newFakeAuth(t)
	auth.tokens["a6cf"] = []string{"t1"}
	lost := errors.New("The sign-in of this machine ended. Run riff login.")
	auth.setFail(lost)
	clock := newFakeClock()
	p := &proofServer{t: t, clock: clock, answer: func(n int, tr seenTry, w http.ResponseWriter) {
		w.WriteHeader(http.StatusOK)
		fmt.Fprintln(w, `{"type":"wake","wake":{"thread":"acme/app","seq":7,"from":"mike/a6cf"}}`)
	}}
	// The fourth wait: a riff login in another terminal.
	clock.onSleep = func(n int) {
		if n == 4 {
			auth.setFail(nil)
		}
	}
	c, _ := authClient(t, p, auth)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var got []string
	me := name.SessionURI{User: "mike", Host: "pangolin", Session: "a6cf"}
	err := c.Watch(ctx, wire.Watch{Me: me}, func(e Event) error {
		switch e.Type {
		case wire.EventWake:
			cancel()
			got = append(got, "wake")
		case EventDown:
			got = append(got, "down: "+e.Err.Error())
		default:
			got = append(got, e.Type)
		}
		return nil
	})
	if err != nil || ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("Watch = %v, %v", err, ctx.Err())
	}
	if diff := cmp.Diff([]string{"down: " + lost.Error(), "back", "wake"}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Duration{5 * time.Second, 5 * time.Second, 5 * time.Second, 5 * time.Second}, clock.Waits()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	if n := len(p.seen()); n != 1 {
		t.Errorf("%d opens; want 1: no request while the sign-in is lost", n)
	}
}

func TestGivenAnAuthWithNoSignInWhenACallIsSentThenItHasNoTokenAndNoProof(t *testing.T) {
	auth := newFakeAuth(t)
	auth.tokens[""] = []string{""}
	var got []string
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get(wire.HeaderAuthorization)+"|"+r.Header.Get(wire.HeaderDPoP))
		w.Header().Set(wire.HeaderBuild, buildA)
		fmt.Fprint(w, "{}")
	})
	u, _ := url.Parse(srv.URL)
	c := New(u, Options{Build: mustBuild(t, buildA), Clock: newFakeClock(), Auth: auth})
	if _, err := Send(context.Background(), c, wire.Who{}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"|"}, got); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
}

func TestGivenASignInWhenRiffServerAsksTheFactsThenTheyCarryThePersonToken(t *testing.T) {
	auth := newFakeAuth(t)
	auth.tokens[""] = []string{"person"}
	p := &proofServer{t: t, clock: newFakeClock(), answer: func(n int, tr seenTry, w http.ResponseWriter) {
		fmt.Fprintf(w, `{"build":%q,"serves":true}`, buildA)
	}}
	c, _ := authClient(t, p, auth)
	if _, err := c.Facts(context.Background()); err != nil {
		t.Fatal(err)
	}
	tries := p.seen()
	if len(tries) != 1 || tries[0].err != nil || tries[0].token != "person" {
		t.Errorf("tries %+v; want one with the person token and a valid proof", tries)
	}
}
