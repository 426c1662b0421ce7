package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
	"golang.org/x/oauth2"

	"github.com/como-technologies/riff/riffcore/dpop"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/tools/oidcfake"
)

// The sign-in of the real riff-server with the OpenID provider of the
// tests on loopback, and a small client of the test that makes its DPoP
// proofs with dpop.Make: the ID token of a browser flow with PKCE, the
// sign-in, then calls with the tokens.

// machine is the client side of a test: its device key.
type machine struct {
	t   *testing.T
	key *ecdsa.PrivateKey
	url string
}

func newMachine(t *testing.T, url string) *machine {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &machine{t: t, key: k, url: url}
}

// call sends one call with a proof of the machine's key, and the token
// when there is one.
func (m *machine) call(method, path, token string, body any) reply {
	m.t.Helper()
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			m.t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, m.url+path, bytes.NewReader(data))
	if err != nil {
		m.t.Fatal(err)
	}
	proof, err := dpop.Make(m.key, method, m.url+path, token, time.Now(), rand.Text())
	if err != nil {
		m.t.Fatal(err)
	}
	req.Header.Set(wire.HeaderDPoP, proof)
	if token != "" {
		req.Header.Set(wire.HeaderAuthorization, "DPoP "+token)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		m.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: out}
}

func (m *machine) jwk() json.RawMessage {
	b, err := json.Marshal(jose.JSONWebKey{Key: &m.key.PublicKey})
	if err != nil {
		m.t.Fatal(err)
	}
	return b
}

// browserIDToken runs the browser flow of an installed app with PKCE
// against the provider that the riff names, as riff login does, and
// gives the ID token.
func browserIDToken(t *testing.T, pr wire.ProviderReply) string {
	t.Helper()
	ctx := context.Background()
	op, err := oidc.NewProvider(ctx, pr.Issuer)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	codes := make(chan string, 1)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { codes <- r.URL.Query().Get("code") })}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(l) }()
	defer func() { srv.Close(); <-done }()
	conf := oauth2.Config{ClientID: pr.ClientID, ClientSecret: pr.ClientSecret, Endpoint: op.Endpoint(),
		RedirectURL: "http://" + l.Addr().String() + "/callback", Scopes: pr.Scopes}
	verifier := oauth2.GenerateVerifier()
	if err := oidcfake.Browse(ctx, conf.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier))); err != nil {
		t.Fatal(err)
	}
	tok, err := conf.Exchange(ctx, <-codes, oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		t.Fatal("the token reply has no id_token")
	}
	return raw
}

func startProvider(t *testing.T) *oidcfake.Provider {
	t.Helper()
	p, err := oidcfake.New(oidcfake.Options{ClientID: "riff-test", ClientSecret: "installed-app"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func signInArgs(p *oidcfake.Provider, more ...string) []string {
	return append([]string{"--issuer", p.Issuer(), "--client-id", p.ClientID(), "--client-secret", "installed-app"}, more...)
}

func (m *machine) signIn(idToken string) wire.TokenReply {
	m.t.Helper()
	r := m.call(http.MethodPost, wire.SignIn{}.Path(), "", wire.SignIn{IDToken: idToken, Key: m.jwk()})
	if r.Status != http.StatusOK {
		m.t.Fatalf("sign-in = %s; want 200", r)
	}
	var tr wire.TokenReply
	if err := json.Unmarshal(r.Body, &tr); err != nil {
		m.t.Fatal(err)
	}
	return tr
}

func refusedWith(t *testing.T, r reply, code wire.Code, status int) {
	t.Helper()
	if got := r.Header.Get(wire.HeaderRefused); got != string(code) || r.Status != status {
		t.Fatalf("reply %s (riff-refused %q); want %d %s", r, got, status, code)
	}
}

func person(user string) name.SessionURI { return name.SessionURI{User: user, Host: "pangolin"} }

func session(user, id string) name.SessionURI {
	return name.SessionURI{User: user, Host: "pangolin", Repo: "o/repo", Session: id}
}

func TestGivenARiffWithAProviderWhenAPersonSignsInByTheBrowserThenTheTokensWorkAcrossARestart(t *testing.T) {
	needBinary(t)
	p := startProvider(t)
	p.SetNext(oidcfake.Identity{Email: "mark-ada@example.com"})
	dir := t.TempDir()
	s := start(t, serverOpts{dir: dir, args: signInArgs(p, "--owner", "mark-ada@example.com")})
	m := newMachine(t, s.URL)

	// riff login asks the riff how to sign in, with no token.
	var pr wire.ProviderReply
	r := m.call(http.MethodPost, wire.SignInProvider{}.Path(), "", wire.SignInProvider{})
	if err := json.Unmarshal(r.Body, &pr); err != nil || !pr.SignIn || pr.Issuer != p.Issuer() || pr.ClientID != "riff-test" || pr.Riff == "" {
		t.Fatalf("provider = %s; want sign-in with the issuer and the client", r)
	}
	tr := m.signIn(browserIDToken(t, pr))
	if tr.User != "mark-ada" || tr.Riff != pr.Riff {
		t.Fatalf("sign-in = %+v; want the user mark-ada of the riff %s", tr, pr.Riff)
	}
	// The person works with the person token; who names the owner.
	r = m.call(http.MethodPost, wire.Who{}.Path(), tr.AccessToken, wire.Who{Me: person("mark-ada")})
	var who wire.WhoReply
	if err := json.Unmarshal(r.Body, &who); r.Status != http.StatusOK || err != nil || who.Owner != "mark-ada (mark-ada@example.com)" {
		t.Fatalf("who = %s; want 200 with the owner of --owner", r)
	}
	// A session swaps, and registers with its own token.
	r = m.call(http.MethodPost, wire.Swap{}.Path(), tr.AccessToken, wire.Swap{Session: "mark-s1"})
	var st wire.TokenReply
	if err := json.Unmarshal(r.Body, &st); r.Status != http.StatusOK || err != nil || st.RefreshToken != "" {
		t.Fatalf("swap = %s; want a session token with no refresh token", r)
	}
	if r := m.call(http.MethodPost, wire.Register{}.Path(), st.AccessToken, wire.Register{Me: session("mark-ada", "mark-s1")}); r.Status != http.StatusOK {
		t.Fatalf("register with the session token = %s", r)
	}
	// A post with a marked body (the server may refuse it: an unsigned
	// post; the lines must not hold the body either way).
	m.call(http.MethodPost, wire.Post{}.Path(), st.AccessToken, wire.Post{Me: session("mark-ada", "mark-s1"), Thread: "o/repo", Body: "mark-body-text"})
	// The facts are for a signed-in caller.
	if r, _ := s.get(wire.Server{}.Path()); r.Status != http.StatusUnauthorized {
		t.Errorf("facts with no token = %s; want 401", r)
	}
	if r := m.call(http.MethodGet, wire.Server{}.Path(), tr.AccessToken, nil); r.Status != http.StatusOK {
		t.Errorf("facts with the token = %s; want 200", r)
	}
	// No token, a stolen token with another key: refused.
	if r, _ := post(context.Background(), s.URL, wire.Whoami{}.Path(), "", wire.Whoami{Me: person("mark-ada")}); r.Header.Get(wire.HeaderRefused) != string(wire.NoToken) {
		t.Errorf("whoami with no token = %s; want no_token", r)
	}
	thief := newMachine(t, s.URL)
	refusedWith(t, thief.call(http.MethodPost, wire.Whoami{}.Path(), tr.AccessToken, wire.Whoami{Me: person("mark-ada")}), wire.BadProof, http.StatusUnauthorized)

	// A restart with the directory keeps the sign-in: the same access
	// token works with a new proof.
	s.stop()
	s2 := start(t, serverOpts{dir: dir, args: signInArgs(p, "--owner", "mark-ada@example.com")})
	m.url = s2.URL
	if r := m.call(http.MethodPost, wire.Whoami{}.Path(), tr.AccessToken, wire.Whoami{Me: person("mark-ada")}); r.Status != http.StatusOK {
		t.Errorf("whoami after the restart = %s; want 200", r)
	}
	s2.stop()

	// No line holds a token, the email, the key or a body.
	var k struct {
		X string `json:"x"`
	}
	_ = json.Unmarshal(m.jwk(), &k)
	for _, srv := range []*server{s, s2} {
		srv.checkLines()
		text := srv.stderrText()
		for _, mark := range []string{"mark-ada@example.com", "mark-body-text", tr.AccessToken, tr.RefreshToken, st.AccessToken, k.X} {
			if strings.Contains(text, mark) {
				t.Errorf("a line of riff-server holds %q:\n%s", mark, text)
			}
		}
	}
}

func TestGivenAProviderWhenTheIDTokenIsNotForThisRiffThenBadToken(t *testing.T) {
	needBinary(t)
	p := startProvider(t)
	s := start(t, serverOpts{args: signInArgs(p, "--allowed-domain", "example.com")})
	m := newMachine(t, s.URL)
	sign := func(c oidcfake.Claims) string {
		raw, err := p.Sign(c)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	for _, tc := range []struct {
		name  string
		token string
		code  wire.Code
		want  int
	}{
		{"another audience", sign(oidcfake.Claims{Email: "ada@example.com", EmailVerified: true, Audience: "another-client"}), wire.BadToken, 401},
		{"another issuer", sign(oidcfake.Claims{Email: "ada@example.com", EmailVerified: true, Issuer: "https://evil.example"}), wire.BadToken, 401},
		{"expired", sign(oidcfake.Claims{Email: "ada@example.com", EmailVerified: true, IssuedAt: time.Now().Add(-2 * time.Hour), Expires: time.Now().Add(-time.Hour)}), wire.BadToken, 401},
		{"an unverified email", sign(oidcfake.Claims{Email: "ada@example.com"}), wire.BadToken, 401},
		{"not a JWT", "not-a-jwt", wire.BadToken, 401},
		{"a person of another domain", sign(oidcfake.Claims{Email: "eve@evil.example", EmailVerified: true}), wire.NotMember, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := m.call(http.MethodPost, wire.SignIn{}.Path(), "", wire.SignIn{IDToken: tc.token, Key: m.jwk()})
			refusedWith(t, r, tc.code, tc.want)
		})
	}
	// The hosted domain lets in a person whose email is of another domain.
	tr := m.signIn(sign(oidcfake.Claims{Email: "bob@alias.org", EmailVerified: true, HD: "example.com"}))
	if tr.User != "bob" {
		t.Errorf("user = %q; want bob", tr.User)
	}
}

func TestGivenTheDeviceFlowWhenTheTestApprovesThenTheIDTokenSignsIn(t *testing.T) {
	needBinary(t)
	p := startProvider(t)
	s := start(t, serverOpts{args: signInArgs(p, "--owner", "grace@example.org")})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	op, err := oidc.NewProvider(ctx, p.Issuer())
	if err != nil {
		t.Fatal(err)
	}
	var disc struct {
		Device string `json:"device_authorization_endpoint"`
	}
	if err := op.Claims(&disc); err != nil {
		t.Fatal(err)
	}
	end := op.Endpoint()
	end.DeviceAuthURL = disc.Device
	conf := oauth2.Config{ClientID: p.ClientID(), ClientSecret: "installed-app", Endpoint: end, Scopes: []string{"openid", "email"}}
	da, err := conf.DeviceAuth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	code, err := p.WaitDevice(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p.SetNext(oidcfake.Identity{Email: "grace@example.org"})
	if err := p.Approve(code); err != nil {
		t.Fatal(err)
	}
	tok, err := conf.DeviceAccessToken(ctx, da)
	if err != nil {
		t.Fatal(err)
	}
	tr := newMachine(t, s.URL).signIn(tok.Extra("id_token").(string))
	if tr.User != "grace" {
		t.Errorf("user = %q; want grace", tr.User)
	}
}

// TestGivenTheListenRuleWhenTheAddressIsNotLoopbackThenOnlyARiffWithSignInListens:
// a riff with a provider, or with --require-sign-in, listens on any
// address with no --listen-anywhere; a riff with no sign-in refuses
// (TestListenLoopbackOnly), and the flags of sign-in need sign-in.
func TestGivenTheListenRuleWhenTheAddressIsNotLoopbackThenOnlyARiffWithSignInListens(t *testing.T) {
	bin := needBinary(t)
	p := startProvider(t)
	for _, args := range [][]string{signInArgs(p, "--owner", "ada@example.com"), {"--require-sign-in"}} {
		for try := 0; ; try++ {
			port := strconv.Itoa(freePort(t))
			s, err := tryStart(t, serverOpts{addr: "0.0.0.0:" + port, args: args})
			if err != nil {
				if try < 4 && strings.Contains(err.Error(), "address already in use") {
					continue
				}
				t.Fatalf("riff-server %v on 0.0.0.0: %v", args, err)
			}
			s.URL = "http://127.0.0.1:" + port
			r, err := post(context.Background(), s.URL, wire.Whoami{}.Path(), "", wire.Whoami{Me: person("ada")})
			if err != nil || r.Header.Get(wire.HeaderRefused) != string(wire.NoToken) {
				t.Errorf("riff-server %v: whoami with no token = %v %v; want no_token", args, r, err)
			}
			s.stop()
			break
		}
	}
	// A new riff with a provider and none of --owner, --admins and
	// --allowed-domain could never have a person: the start says which
	// setting to give, and riff-server exits 1.
	nobody := exec.Command(bin, signInArgs(p, "--listen", "127.0.0.1:"+strconv.Itoa(freePort(t)))...)
	nobody.Env = cleanEnv("RIFF_DIR=" + t.TempDir())
	if out, err := nobody.CombinedOutput(); err == nil || !bytes.Contains(out, []byte("needs --owner EMAIL, --admins EMAILS or --allowed-domain DOMAIN")) {
		t.Errorf("riff-server with a provider and nobody who may join = %v\n%s; want exit 1 that names the flags", err, out)
	}
	// A riff with --require-sign-in and no provider lets nobody sign in.
	s := start(t, serverOpts{args: []string{"--require-sign-in"}})
	m := newMachine(t, s.URL)
	refusedWith(t, m.call(http.MethodPost, wire.SignIn{}.Path(), "", wire.SignIn{IDToken: "x", Key: m.jwk()}), wire.NotAllowed, http.StatusForbidden)
	// The flags of sign-in need sign-in.
	cmd := exec.Command(bin, "--owner", "ada@example.com")
	cmd.Env = cleanEnv()
	out, err := cmd.CombinedOutput()
	if err == nil || !bytes.Contains(out, []byte("--owner needs a riff with sign-in")) {
		t.Errorf("riff-server --owner with no provider = %v\n%s; want exit 1 that says why", err, out)
	}
	// --listen-anywhere with no sign-in warns.
	for try := 0; ; try++ {
		port := strconv.Itoa(freePort(t))
		s, err := tryStart(t, serverOpts{addr: "0.0.0.0:" + port, args: []string{"--listen-anywhere"}})
		if err != nil {
			if try < 4 && strings.Contains(err.Error(), "address already in use") {
				continue
			}
			t.Fatal(err)
		}
		s.stop()
		if !strings.Contains(s.stderrText(), `"severity":"WARNING"`) || !strings.Contains(s.stderrText(), "with no sign-in") {
			t.Errorf("--listen-anywhere with no sign-in gives no warning:\n%s", s.stderrText())
		}
		break
	}
}

// TestGivenASecondMachineOnAnotherAddressWhenItSignsInThenItWorksAndACopyIsRefused:
// riff-server with sign-in on a second loopback address (not the
// address of the first machine's calls), two machines with their own
// keys: each works as its person; a call with no token, a stolen token
// with no key, and a replayed proof are refused with their codes.
func TestGivenASecondMachineOnAnotherAddressWhenItSignsInThenItWorksAndACopyIsRefused(t *testing.T) {
	needBinary(t)
	probe, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no second loopback address here: %v", err)
	}
	port := probe.Addr().(*net.TCPAddr).Port
	probe.Close()
	p := startProvider(t)
	s := start(t, serverOpts{addr: net.JoinHostPort("127.0.0.2", strconv.Itoa(port)), args: signInArgs(p, "--allowed-domain", "example.com")})
	first, second := newMachine(t, s.URL), newMachine(t, s.URL)
	p.SetNext(oidcfake.Identity{Email: "ada@example.com"})
	var pr wire.ProviderReply
	_ = json.Unmarshal(first.call(http.MethodPost, wire.SignInProvider{}.Path(), "", wire.SignInProvider{}).Body, &pr)
	ada := first.signIn(browserIDToken(t, pr))
	p.SetNext(oidcfake.Identity{Email: "bob@example.com"})
	bob := second.signIn(browserIDToken(t, pr))
	if ada.User != "ada" || bob.User != "bob" {
		t.Fatalf("users = %q, %q; want ada, bob", ada.User, bob.User)
	}
	post := wire.Join{Me: session("bob", "b1"), Thread: "o/repo"}
	bs := second.call(http.MethodPost, wire.Swap{}.Path(), bob.AccessToken, wire.Swap{Session: "b1"})
	var bt wire.TokenReply
	if err := json.Unmarshal(bs.Body, &bt); err != nil || bs.Status != http.StatusOK {
		t.Fatalf("swap of bob = %s", bs)
	}
	if r := second.call(http.MethodPost, wire.Join{}.Path(), bt.AccessToken, post); r.Status != http.StatusOK {
		t.Fatalf("join of bob's session = %s; want 200", r)
	}
	// The first machine cannot act as bob, also not with bob's token.
	refusedWith(t, first.call(http.MethodPost, wire.Whoami{}.Path(), ada.AccessToken, wire.Whoami{Me: person("bob")}), wire.NotYou, http.StatusForbidden)
	refusedWith(t, first.call(http.MethodPost, wire.Whoami{}.Path(), bob.AccessToken, wire.Whoami{Me: person("bob")}), wire.BadProof, http.StatusUnauthorized)
	// No token.
	r, err := post2(s.URL+wire.Whoami{}.Path(), "", "", wire.Whoami{Me: person("bob")})
	if err != nil || r.Header.Get(wire.HeaderRefused) != string(wire.NoToken) {
		t.Errorf("no token = %v %v; want no_token", r, err)
	}
	// A stolen token with no proof.
	r, err = post2(s.URL+wire.Whoami{}.Path(), bob.AccessToken, "", wire.Whoami{Me: person("bob")})
	if err != nil || r.Header.Get(wire.HeaderRefused) != string(wire.BadProof) {
		t.Errorf("a stolen token with no proof = %v %v; want bad_proof", r, err)
	}
	// A replayed proof.
	proof, err := dpop.Make(second.key, http.MethodPost, s.URL+wire.Whoami{}.Path(), bob.AccessToken, time.Now(), rand.Text())
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"", string(wire.BadProof)} {
		r, err := post2(s.URL+wire.Whoami{}.Path(), bob.AccessToken, proof, wire.Whoami{Me: person("bob")})
		if err != nil || r.Header.Get(wire.HeaderRefused) != want {
			t.Errorf("try %d of one proof = %v %v; want riff-refused %q", i+1, r, err, want)
		}
	}
}

// post2 sends a POST with a token and a proof as they are.
func post2(url, token, proof string, body any) (reply, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return reply{}, err
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return reply{}, err
	}
	if token != "" {
		req.Header.Set(wire.HeaderAuthorization, "DPoP "+token)
	}
	if proof != "" {
		req.Header.Set(wire.HeaderDPoP, proof)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: data}, err
}
