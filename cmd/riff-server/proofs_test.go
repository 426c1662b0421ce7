package main

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/dpop"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/tools/oidcfake"
)

// The proofs of the real riff-server (issue 19, items 3, 5e, 5f, 5j),
// with a client of the test that writes its own headers: the holes that
// an attack with a DPoP client written apart from riff found.

// send sends one call with the proofs as they are (each one header
// DPoP) and the token when there is one.
func (m *machine) send(method, path, token string, body any, proofs ...string) reply {
	m.t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		m.t.Fatal(err)
	}
	req, err := http.NewRequest(method, m.url+path, bytes.NewReader(data))
	if err != nil {
		m.t.Fatal(err)
	}
	for _, p := range proofs {
		req.Header.Add(wire.HeaderDPoP, p)
	}
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

// proof makes a proof of the machine's key for the call, with jti.
func (m *machine) proof(method, path, token, jti string) string {
	m.t.Helper()
	p, err := dpop.Make(m.key, method, m.url+path, token, time.Now(), jti)
	if err != nil {
		m.t.Fatal(err)
	}
	return p
}

func TestGivenTheRealRiffServerWhenRefusedCallsCarryTheJTIsOfTheOwnerThenTheOwnersCallsWithThemPass(t *testing.T) {
	needBinary(t)
	p := startProvider(t)
	s := start(t, serverOpts{args: signInArgs(p, "--owner", "ada@example.com")})
	m := newMachine(t, s.URL)
	idToken, err := p.Sign(oidcfake.Claims{Email: "ada@example.com", EmailVerified: true})
	if err != nil {
		t.Fatal(err)
	}
	tr := m.signIn(idToken)
	// Refused calls of the owner's own key: a garbage ID token, a
	// garbage refresh token, a refresh token of a chain that the server
	// does not hold.
	for i, c := range []struct {
		path string
		body any
	}{
		{wire.SignIn{}.Path(), wire.SignIn{IDToken: "not-a-jwt", Key: m.jwk()}},
		{wire.Refresh{}.Path(), wire.Refresh{RefreshToken: "garbage"}},
		{wire.Refresh{}.Path(), wire.Refresh{RefreshToken: "AAAAAAAAAAAAAAAAAAAAAA.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}},
	} {
		r := m.send(http.MethodPost, c.path, "", c.body, m.proof(http.MethodPost, c.path, "", fmt.Sprintf("owner-jti-%d", i)))
		refusedWith(t, r, wire.BadToken, http.StatusUnauthorized)
	}
	path := wire.Whoami{}.Path()
	for i := range 3 {
		r := m.send(http.MethodPost, path, tr.AccessToken, wire.Whoami{Me: person("ada")}, m.proof(http.MethodPost, path, tr.AccessToken, fmt.Sprintf("owner-jti-%d", i)))
		if r.Status != http.StatusOK {
			t.Errorf("whoami with the jti of refused call %d = %s; want 200", i, r)
		}
	}
	// Two headers DPoP, the first a valid proof (RFC 9449 §4.3).
	r := m.send(http.MethodPost, path, tr.AccessToken, wire.Whoami{Me: person("ada")}, m.proof(http.MethodPost, path, tr.AccessToken, rand.Text()), "garbage")
	refusedWith(t, r, wire.BadProof, http.StatusUnauthorized)
	// An iat that is a JSON string.
	claims := fmt.Sprintf(`{"jti":%q,"htm":"POST","htu":%q,"iat":"%d","ath":%q}`, rand.Text(), s.URL+path, time.Now().Unix(), athOf(tr.AccessToken))
	jws, err := signed.SignES256(m.key, dpop.Type, []byte(claims))
	if err != nil {
		t.Fatal(err)
	}
	stringIat, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	r = m.send(http.MethodPost, path, tr.AccessToken, wire.Whoami{Me: person("ada")}, stringIat)
	refusedWith(t, r, wire.BadProof, http.StatusUnauthorized)
	// The facts: to the person token, not to a session token.
	st := m.call(http.MethodPost, wire.Swap{}.Path(), tr.AccessToken, wire.Swap{Session: "a6cf2205"})
	var sw wire.TokenReply
	if err := json.Unmarshal(st.Body, &sw); err != nil || sw.AccessToken == "" {
		t.Fatalf("swap = %s", st)
	}
	refusedWith(t, m.call(http.MethodGet, wire.Server{}.Path(), sw.AccessToken, nil), wire.NotYou, http.StatusForbidden)
	if r := m.call(http.MethodGet, wire.Server{}.Path(), tr.AccessToken, nil); r.Status != http.StatusOK {
		t.Errorf("the facts for the person token = %s; want 200", r)
	}
}

// athOf is the ath of a token: base64url of its SHA-256 (RFC 9449 §4.2).
func athOf(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
