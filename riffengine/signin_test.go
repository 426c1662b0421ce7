package riffengine_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/como-technologies/riff/riffcore/dpop"
	"github.com/como-technologies/riff/riffcore/jsonlog"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/como-technologies/riff/riffstate"
)

// The tests of the token layer of a riff with sign-in: a real engine
// (riffengine.Open on a memory store), a real HTTP server on loopback,
// and a client that makes real DPoP proofs.

// idTokens is the provider of the engine tests: each ID token is the
// email of its person, with "unverified:" in front for a token that a
// provider would not give. The cmd tests check real ID tokens with
// go-oidc against a provider on loopback.
type idTokens struct{}

func (idTokens) Check(_ context.Context, raw string) (riffengine.Identity, error) {
	if raw == "" || strings.HasPrefix(raw, "unverified:") {
		return riffengine.Identity{}, errors.New("the email of the ID token is not verified")
	}
	email, domain, _ := strings.Cut(raw, "#")
	return riffengine.Identity{Email: email, Domain: domain}, nil
}

type signedRiff struct {
	t     testing.TB
	e     *riffengine.Engine
	http  *httptest.Server
	logs  *lines
	layer *riffengine.SignedIn
	h     *riffengine.Handler
}

func startSignedIn(t testing.TB, opts riffstate.Options) *signedRiff {
	t.Helper()
	return startSignedInOn(t, mem.New(), opts)
}

// failingSwaps is a memory store whose writes of signins.json fail while
// fail is set.
type failingSwaps struct {
	rifflog.Store
	fail atomic.Bool
}

func (f *failingSwaps) Swap(ctx context.Context, name string, data []byte, gen int64) (int64, error) {
	if f.fail.Load() && name == rifflog.SignInsName {
		return 0, errors.New("the bucket answers 500")
	}
	return f.Store.Swap(ctx, name, data, gen)
}

func startSignedInOn(t testing.TB, store rifflog.Store, opts riffstate.Options) *signedRiff {
	t.Helper()
	r := &signedRiff{t: t, logs: &lines{}}
	e, err := riffengine.Open(context.Background(), store, riffengine.Options{
		StoreName: "memory", Build: serverBuild(), Logger: jsonlog.New(r.logs, slog.LevelDebug),
		NoLease: true, SignIn: true, StateOptions: opts, TimerEvery: time.Hour,
		// A write of signins.json each millisecond: a sign-in waits for
		// its write, and no test waits a real second for it.
		SignInsEvery: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	r.e = e
	layer, err := riffengine.NewSignedIn(e, riffengine.SignInOptions{IDTokens: idTokens{},
		Provider: wire.ProviderReply{Issuer: "https://issuer.example", ClientID: "riff-client", Scopes: []string{"openid", "email"}}})
	if err != nil {
		t.Fatal(err)
	}
	r.layer, r.h = layer, riffengine.NewHandler(e, layer)
	r.http = httptest.NewServer(r.h)
	t.Cleanup(func() {
		r.http.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = e.Close(ctx)
	})
	return r
}

// device is one machine: its key.
type device struct{ key *ecdsa.PrivateKey }

func newDevice(t testing.TB) device {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return device{key: k}
}

func (d device) jwk(t testing.TB) json.RawMessage {
	b, err := json.Marshal(jose.JSONWebKey{Key: &d.key.PublicKey})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// req is one call: method, path, body, token, and how its proof is made.
type req struct {
	method, path string
	body         any
	token        string
	proofKey     *ecdsa.PrivateKey // nil: no proof
	proofURL     string            // "" is the URL of the call
	proofMethod  string            // "" is the method of the call
	proofAt      time.Time         // zero is now
	proof        string            // a proof as it is (a replay)
	jti          string            // "" is a new one
	build        string
	// headers are more headers, as name and value in turn.
	headers []string
}

func (r *signedRiff) do(q req) (reply, string) {
	r.t.Helper()
	if q.method == "" {
		q.method = http.MethodPost
	}
	data, err := json.Marshal(q.body)
	if err != nil {
		r.t.Fatal(err)
	}
	u := r.http.URL + q.path
	hr, err := http.NewRequest(q.method, u, bytes.NewReader(data))
	if err != nil {
		r.t.Fatal(err)
	}
	if q.token != "" {
		hr.Header.Set(wire.HeaderAuthorization, "DPoP "+q.token)
	}
	proof := q.proof
	if proof == "" && q.proofKey != nil {
		pu, pm, at := u, q.method, time.Now()
		if q.proofURL != "" {
			pu = q.proofURL
		}
		if q.proofMethod != "" {
			pm = q.proofMethod
		}
		if !q.proofAt.IsZero() {
			at = q.proofAt
		}
		jti := q.jti
		if jti == "" {
			jti = rand.Text()
		}
		if proof, err = dpop.Make(q.proofKey, pm, pu, q.token, at, jti); err != nil {
			r.t.Fatal(err)
		}
	}
	if proof != "" {
		hr.Header.Set(wire.HeaderDPoP, proof)
	}
	if q.build != "" {
		hr.Header.Set(wire.HeaderBuild, q.build)
	}
	for i := 0; i+1 < len(q.headers); i += 2 {
		hr.Header.Add(q.headers[i], q.headers[i+1])
	}
	resp, err := r.http.Client().Do(hr)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: out}, proof
}

// signIn signs the person of idToken in with the device, and wants 200.
func (r *signedRiff) signIn(d device, idToken string) wire.TokenReply {
	r.t.Helper()
	rep, _ := r.do(req{path: wire.SignIn{}.Path(), body: wire.SignIn{IDToken: idToken, Key: d.jwk(r.t)}, proofKey: d.key})
	var tr wire.TokenReply
	rep.decode(r.t, &tr)
	return tr
}

// swap gives a session token of the person token for session.
func (r *signedRiff) swap(d device, person, session string) wire.TokenReply {
	r.t.Helper()
	rep, _ := r.do(req{path: wire.Swap{}.Path(), body: wire.Swap{Session: session}, token: person, proofKey: d.key})
	var tr wire.TokenReply
	rep.decode(r.t, &tr)
	return tr
}

func wantRefused(t *testing.T, rep reply, code wire.Code, status int) {
	t.Helper()
	if got := rep.header.Get(wire.HeaderRefused); got != string(code) || rep.status != status {
		t.Fatalf("reply %s (riff-refused %q); want %d %s", rep, got, status, code)
	}
}

var adaOpts = riffstate.Options{Owner: "ada@example.com", AllowedDomain: "example.com"}

func whoami(who string) wire.Whoami { return wire.Whoami{Me: uri(who)} }

func TestGivenASignInWhenACallHasItsTokenAndProofThenItActsAsThePerson(t *testing.T) {
	r := startSignedIn(t, adaOpts)
	d := newDevice(t)
	tr := r.signIn(d, "ada@example.com")
	if tr.User != "ada" || tr.AccessToken == "" || tr.RefreshToken == "" || tr.Riff == "" || tr.ExpiresSecs <= 0 {
		t.Fatalf("sign-in reply = %+v; want user ada, both tokens, the riff and a life", tr)
	}
	rep, _ := r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: tr.AccessToken, proofKey: d.key})
	if rep.status != http.StatusOK {
		t.Fatalf("whoami with the token = %s; want 200", rep)
	}
	// A session swaps the person token for its own, and acts as itself.
	st := r.swap(d, tr.AccessToken, "s1")
	rep, _ = r.do(req{path: wire.Register{}.Path(), body: wire.Register{Me: uri("ada/s1")}, token: st.AccessToken, proofKey: d.key})
	if rep.status != http.StatusOK {
		t.Fatalf("register with the session token = %s; want 200", rep)
	}
	// The owner of --owner is the owner: it pauses the riff.
	rep, _ = r.do(req{path: wire.Pause{}.Path(), body: wire.Pause{Me: uri("ada"), Riff: true}, token: tr.AccessToken, proofKey: d.key})
	if rep.status != http.StatusOK {
		t.Fatalf("pause of the riff by the owner = %s; want 200", rep)
	}
}

func TestGivenARiffWithSignInWhenACallHasNoTokenThenNoToken(t *testing.T) {
	r := startSignedIn(t, adaOpts)
	rep, _ := r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada")})
	wantRefused(t, rep, wire.NoToken, http.StatusUnauthorized)
	// The facts of the server too.
	rep, _ = r.do(req{method: http.MethodGet, path: wire.Server{}.Path()})
	wantRefused(t, rep, wire.NoToken, http.StatusUnauthorized)
	// The provider needs none.
	var pr wire.ProviderReply
	rep, _ = r.do(req{path: wire.SignInProvider{}.Path(), body: wire.SignInProvider{}})
	rep.decode(t, &pr)
	if !pr.SignIn || pr.ClientID != "riff-client" || pr.Riff == "" {
		t.Errorf("provider = %+v; want sign_in, the client and the riff", pr)
	}
}

func TestGivenAnUnknownTokenWhenACallHasItThenBadToken(t *testing.T) {
	r := startSignedIn(t, adaOpts)
	d := newDevice(t)
	rep, _ := r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: "not-a-token", proofKey: d.key})
	wantRefused(t, rep, wire.BadToken, http.StatusUnauthorized)
	rep, _ = r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), proofKey: d.key})
	wantRefused(t, rep, wire.NoToken, http.StatusUnauthorized)
}

func TestGivenATokenWhenTheProofIsReplayedThenBadProof(t *testing.T) {
	r := startSignedIn(t, adaOpts)
	d := newDevice(t)
	tr := r.signIn(d, "ada@example.com")
	rep, proof := r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: tr.AccessToken, proofKey: d.key})
	if rep.status != http.StatusOK {
		t.Fatalf("first call = %s", rep)
	}
	rep, _ = r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: tr.AccessToken, proof: proof})
	wantRefused(t, rep, wire.BadProof, http.StatusUnauthorized)
}

func TestGivenATokenWhenTheProofNamesAnotherURLOrMethodThenBadProof(t *testing.T) {
	r := startSignedIn(t, adaOpts)
	d := newDevice(t)
	tr := r.signIn(d, "ada@example.com")
	for _, q := range []req{
		{proofURL: r.http.URL + wire.Who{}.Path()},
		{proofURL: strings.Replace(r.http.URL, "127.0.0.1", "localhost", 1) + wire.Whoami{}.Path()},
		{proofMethod: http.MethodGet},
	} {
		q.path, q.body, q.token, q.proofKey = wire.Whoami{}.Path(), whoami("ada"), tr.AccessToken, d.key
		rep, _ := r.do(q)
		wantRefused(t, rep, wire.BadProof, http.StatusUnauthorized)
	}
}

func TestGivenATokenWhenTheProofIsOldThenBadProof(t *testing.T) {
	r := startSignedIn(t, adaOpts)
	d := newDevice(t)
	tr := r.signIn(d, "ada@example.com")
	rep, _ := r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: tr.AccessToken, proofKey: d.key, proofAt: time.Now().Add(-2 * dpop.MaxAge)})
	wantRefused(t, rep, wire.BadProof, http.StatusUnauthorized)
}

func TestGivenANewInstanceWhenAProofIsFromBeforeItsStartThenBadProof(t *testing.T) {
	r := startSignedIn(t, adaOpts)
	d := newDevice(t)
	tr := r.signIn(d, "ada@example.com")
	// A proof in the window of dpop, made 3 s before the start of this
	// token layer.
	before := time.Now().Add(-3 * time.Second)
	layer, err := riffengine.NewSignedIn(r.e, riffengine.SignInOptions{IDTokens: idTokens{}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(riffengine.NewHandler(r.e, layer))
	defer srv.Close()
	other := &signedRiff{t: t, e: r.e, http: srv, logs: r.logs}
	rep, _ := other.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: tr.AccessToken, proofKey: d.key, proofAt: before})
	wantRefused(t, rep, wire.BadProof, http.StatusUnauthorized)
	if !strings.Contains(string(rep.body), "before this riff-server started") {
		t.Errorf("reply %s; want the text of a proof from before the start", rep)
	}
	rep, _ = other.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: tr.AccessToken, proofKey: d.key})
	if rep.status != http.StatusOK {
		t.Errorf("a new proof to the new instance = %s; want 200", rep)
	}
}

func TestGivenATokenWhenTheProofIsOfAnotherKeyThenBadProof(t *testing.T) {
	r := startSignedIn(t, adaOpts)
	d := newDevice(t)
	tr := r.signIn(d, "ada@example.com")
	thief := newDevice(t)
	rep, _ := r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: tr.AccessToken, proofKey: thief.key})
	wantRefused(t, rep, wire.BadProof, http.StatusUnauthorized)
	// A stolen token with no proof at all.
	rep, _ = r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: tr.AccessToken})
	wantRefused(t, rep, wire.BadProof, http.StatusUnauthorized)
	// The denied line of a valid token has its key (the thumbprint).
	found := false
	for _, l := range r.logs.with(t, "denied") {
		if l["code"] == "bad_proof" && l["key"] != nil && l["key"] != "" {
			found = true
		}
	}
	if !found {
		t.Errorf("no denied line of bad_proof with the key; lines:\n%s", r.logs)
	}
}

func TestGivenAPersonTokenWhenItActsAsAnotherOrAsASessionThenNotYou(t *testing.T) {
	r := startSignedIn(t, adaOpts)
	d := newDevice(t)
	tr := r.signIn(d, "ada@example.com")
	st := r.swap(d, tr.AccessToken, "s1")
	for _, tc := range []struct {
		name, token, me string
	}{
		{"a person token as another person", tr.AccessToken, "bob"},
		{"a person token as a session of its user", tr.AccessToken, "ada/s1"},
		{"a session token as another session", st.AccessToken, "ada/s2"},
		{"a session token as its person", st.AccessToken, "ada"},
		{"a session token as the session of another user", st.AccessToken, "bob/s1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, _ := r.do(req{path: wire.Whoami{}.Path(), body: whoami(tc.me), token: tc.token, proofKey: d.key})
			wantRefused(t, rep, wire.NotYou, http.StatusForbidden)
		})
	}
}

func TestGivenAPersonWhoMayNotJoinWhenTheySignInThenNotMember(t *testing.T) {
	r := startSignedIn(t, adaOpts)
	d := newDevice(t)
	rep, _ := r.do(req{path: wire.SignIn{}.Path(), body: wire.SignIn{IDToken: "eve@evil.example", Key: d.jwk(t)}, proofKey: d.key})
	wantRefused(t, rep, wire.NotMember, http.StatusForbidden)
	// An ID token that the check refuses.
	rep, _ = r.do(req{path: wire.SignIn{}.Path(), body: wire.SignIn{IDToken: "unverified:bob@example.com", Key: d.jwk(t)}, proofKey: d.key})
	wantRefused(t, rep, wire.BadToken, http.StatusUnauthorized)
	// A proof of another key than the key of the sign-in.
	rep, _ = r.do(req{path: wire.SignIn{}.Path(), body: wire.SignIn{IDToken: "bob@example.com", Key: newDevice(t).jwk(t)}, proofKey: d.key})
	wantRefused(t, rep, wire.BadProof, http.StatusUnauthorized)
	// The hosted domain lets a person of another email domain in.
	tr := r.signIn(d, "cy@alias.org#example.com")
	if tr.User != "cy" {
		t.Errorf("user = %q; want cy", tr.User)
	}
}

func TestGivenASignInWhenItRefreshesThenTheNextPairWorksAndTheKeyIsChecked(t *testing.T) {
	r := startSignedIn(t, adaOpts)
	d := newDevice(t)
	tr := r.signIn(d, "ada@example.com")
	rep, _ := r.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: tr.RefreshToken}, proofKey: newDevice(t).key})
	wantRefused(t, rep, wire.BadProof, http.StatusUnauthorized)
	rep, _ = r.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: tr.RefreshToken}, proofKey: d.key})
	var next wire.TokenReply
	rep.decode(t, &next)
	rep, _ = r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: next.AccessToken, proofKey: d.key})
	if rep.status != http.StatusOK {
		t.Fatalf("whoami with the refreshed token = %s", rep)
	}
	// The generation before (a lost reply) works; then the first one is
	// reuse, which ends the sign-in.
	rep, _ = r.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: next.RefreshToken}, proofKey: d.key})
	rep.decode(t, &next)
	rep, _ = r.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: tr.RefreshToken}, proofKey: d.key})
	wantRefused(t, rep, wire.BadToken, http.StatusUnauthorized)
	rep, _ = r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: next.AccessToken, proofKey: d.key})
	wantRefused(t, rep, wire.BadToken, http.StatusUnauthorized)
}

func TestGivenAnOldClientWhenItSignsInThenTheTokenPathHasNoBuildCheck(t *testing.T) {
	r := startSignedIn(t, adaOpts)
	d := newDevice(t)
	old := "riff 0.1.0 (0123456789ab, 2026-01-01)"
	rep, _ := r.do(req{path: wire.SignInProvider{}.Path(), body: wire.SignInProvider{}, build: old})
	if rep.status != http.StatusOK {
		t.Fatalf("provider of an old client = %s; want 200", rep)
	}
	tr := r.signIn(d, "ada@example.com")
	rep, _ = r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: tr.AccessToken, proofKey: d.key, build: old})
	wantRefused(t, rep, wire.OldBuild, http.StatusConflict)
}

func TestGivenARiffWithNoSignInWhenASignInComesThenNoSignIn(t *testing.T) {
	r := start(t, setup{})
	var pr wire.ProviderReply
	r.ok(wire.SignInProvider{}.Path(), wire.SignInProvider{}, &pr)
	if pr.SignIn {
		t.Errorf("provider of a riff with no sign-in = %+v; want sign_in false", pr)
	}
	rep := r.post(wire.SignIn{}.Path(), wire.SignIn{IDToken: "ada@example.com"})
	if rep.status != http.StatusForbidden || rep.header.Get(wire.HeaderRefused) != string(wire.NoSignIn) {
		t.Errorf("sign-in in a riff with no sign-in = %s; want 403 no_sign_in", rep)
	}
}

// TestGivenMarkedValuesWhenEachCallOfTheTokenPathRunsThenNoLineHoldsThem
// signs in with a marked email, uses the tokens right and wrong, and
// finds no token, email, key or body in the lines.
func TestGivenMarkedValuesWhenEachCallOfTheTokenPathRunsThenNoLineHoldsThem(t *testing.T) {
	r := startSignedIn(t, riffstate.Options{AllowedDomain: "mark-domain.example"})
	d := newDevice(t)
	email := "mark-person@mark-domain.example"
	tr := r.signIn(d, email)
	st := r.swap(d, tr.AccessToken, "mark-session")
	calls := []req{
		{path: wire.Whoami{}.Path(), body: whoami("mark-person"), token: tr.AccessToken, proofKey: d.key},
		{path: wire.Whoami{}.Path(), body: whoami("other"), token: tr.AccessToken, proofKey: d.key},
		{path: wire.Whoami{}.Path(), body: whoami("mark-person"), token: tr.AccessToken},
		{path: wire.Whoami{}.Path(), body: whoami("mark-person"), token: "mark-bad-token", proofKey: d.key},
		{path: wire.Post{}.Path(), body: wire.Post{Me: uri("mark-person/mark-session"), Thread: "o/repo", Body: "mark-body"}, token: st.AccessToken, proofKey: d.key},
		{path: wire.SignIn{}.Path(), body: wire.SignIn{IDToken: "mark-out@elsewhere.example", Key: d.jwk(t)}, proofKey: d.key},
		{path: wire.SignIn{}.Path(), body: wire.SignIn{IDToken: "unverified:" + email, Key: d.jwk(t)}, proofKey: d.key},
		{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: tr.RefreshToken}, proofKey: newDevice(t).key},
		{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: tr.RefreshToken}, proofKey: d.key},
	}
	for _, q := range calls {
		r.do(q)
	}
	marks := []string{email, "mark-out@", tr.AccessToken, tr.RefreshToken, st.AccessToken, "mark-bad-token", "mark-body", "mark-domain"}
	jwk := string(d.jwk(t))
	var k struct {
		X string `json:"x"`
	}
	_ = json.Unmarshal([]byte(jwk), &k)
	marks = append(marks, k.X)
	logs := r.logs.String()
	if logs == "" {
		t.Fatal("no log lines: the test would prove nothing")
	}
	for _, m := range marks {
		if m != "" && strings.Contains(logs, m) {
			t.Errorf("a log line holds %q:\n%s", m, logs)
		}
	}
	if !strings.Contains(logs, `"sign_in":"mark-person"`) && !strings.Contains(logs, `"denied"`) {
		t.Errorf("no line of the calls; lines:\n%s", logs)
	}
}

func TestGivenASessionTokenWhenItSwapsThenNotYou(t *testing.T) {
	r := startSignedIn(t, adaOpts)
	d := newDevice(t)
	tr := r.signIn(d, "ada@example.com")
	st := r.swap(d, tr.AccessToken, "s1")
	rep, _ := r.do(req{path: wire.Swap{}.Path(), body: wire.Swap{Session: "s2"}, token: st.AccessToken, proofKey: d.key})
	wantRefused(t, rep, wire.NotYou, http.StatusForbidden)
	// A swap with another key than the key of the person token.
	rep, _ = r.do(req{path: wire.Swap{}.Path(), body: wire.Swap{Session: "s2"}, token: tr.AccessToken, proofKey: newDevice(t).key})
	wantRefused(t, rep, wire.BadProof, http.StatusUnauthorized)
	// A session ID that is no name.
	rep, _ = r.do(req{path: wire.Swap{}.Path(), body: wire.Swap{Session: "a b"}, token: tr.AccessToken, proofKey: d.key})
	wantRefused(t, rep, wire.BadRequest, http.StatusBadRequest)
	// Two swaps of the same session: each token stays live.
	st2 := r.swap(d, tr.AccessToken, "s1")
	for _, tok := range []string{st.AccessToken, st2.AccessToken} {
		if rep, _ := r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada/s1"), token: tok, proofKey: d.key}); rep.status != http.StatusOK {
			t.Errorf("whoami with a session token after a second swap = %s; want 200", rep)
		}
	}
}

func TestGivenTheWritesOfSignInsFailWhenASignInRefreshesThen503AndASwapWorks(t *testing.T) {
	store := &failingSwaps{Store: mem.New()}
	r := startSignedInOn(t, store, adaOpts)
	d := newDevice(t)
	tr := r.signIn(d, "ada@example.com")
	store.fail.Store(true)
	// The first refresh changes the store; its write fails, and then a
	// refresh gets 503 with no code: the client tries again.
	refresh := tr.RefreshToken
	var last reply
	until(t, "a refresh gets 503", func() bool {
		rep, _ := r.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: refresh}, proofKey: d.key})
		last = rep
		if rep.status == http.StatusOK {
			var next wire.TokenReply
			rep.decode(t, &next)
			refresh = next.RefreshToken
		}
		return rep.status == http.StatusServiceUnavailable
	})
	if code := last.header.Get(wire.HeaderRefused); code != "" {
		t.Errorf("503 of a refresh has riff-refused %q; want none", code)
	}
	if rep, _ := r.do(req{path: wire.Swap{}.Path(), body: wire.Swap{Session: "s1"}, token: tr.AccessToken, proofKey: d.key}); rep.status != http.StatusOK {
		t.Errorf("a swap while the writes fail = %s; want 200", rep)
	}
	store.fail.Store(false)
	until(t, "a refresh works again", func() bool {
		rep, _ := r.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: refresh}, proofKey: d.key})
		return rep.status == http.StatusOK
	})
}

func TestGivenTheSignInsOfAPersonEndedWhenTheySignInFromBeforeTheEndThenBadToken(t *testing.T) {
	r := startSignedIn(t, adaOpts)
	d := newDevice(t)
	tr := r.signIn(d, "ada@example.com")
	// The effect of a remove at a position past the log: each sign-in of
	// ada from before it ends, and none starts below it.
	if n := r.e.SignIns().End("ada", 1_000_000); n != 1 {
		t.Fatalf("End = %d; want 1 sign-in", n)
	}
	rep, _ := r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: tr.AccessToken, proofKey: d.key})
	wantRefused(t, rep, wire.BadToken, http.StatusUnauthorized)
	rep, _ = r.do(req{path: wire.SignIn{}.Path(), body: wire.SignIn{IDToken: "ada@example.com", Key: d.jwk(t)}, proofKey: d.key})
	wantRefused(t, rep, wire.BadToken, http.StatusUnauthorized)
	if !strings.Contains(string(rep.body), "riff login") {
		t.Errorf("reply %s; want the text of an ended sign-in", rep)
	}
}

func TestGivenARefreshWithAProofOfAnotherKeyWhenItIsRefusedThenItsLineNamesTheKeyOfTheSignInNotOfTheProof(t *testing.T) {
	r := startSignedIn(t, adaOpts)
	d, thief := newDevice(t), newDevice(t)
	tr := r.signIn(d, "ada@example.com")
	rep, _ := r.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: tr.RefreshToken}, proofKey: thief.key})
	wantRefused(t, rep, wire.BadProof, http.StatusUnauthorized)
	denied := r.logs.with(t, "denied")
	if len(denied) != 1 {
		t.Fatalf("denied lines = %v; want one", denied)
	}
	if got := denied[0]["key"]; got != thumbprint(t, d) {
		t.Errorf("the key of the line = %v; want the key of the sign-in %s, not of the proof %s", got, thumbprint(t, d), thumbprint(t, thief))
	}
}
