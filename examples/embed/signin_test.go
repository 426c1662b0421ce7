package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/como-technologies/riff/riffcore/dpop"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/tools/oidcfake"
)

// device is a machine of the test: its key, which signs a DPoP proof
// for each call as riff does.
type device struct{ key *ecdsa.PrivateKey }

// do sends one call with a proof of the device and the token ("" for
// none), and gives the status and the body.
func (d device) do(t *testing.T, url, path, token string, body any) (int, []byte) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequest(http.MethodPost, url+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	proof, err := dpop.Make(d.key, http.MethodPost, url+path, token, time.Now(), rand.Text())
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(wire.HeaderDPoP, proof)
	if token != "" {
		req.Header.Set(wire.HeaderAuthorization, "DPoP "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// TestGivenEmbedWithSignInWhenTheOwnerSignsInAtTheProviderThenItsTokenActsAndSurvivesARestart
// runs the embedded riff with sign-in against the provider of the tests:
// a call with no token is refused, the owner signs in with an ID token of
// the provider and acts with its token, a forged ID token is refused, and
// after a restart on the same directory the token works again.
func TestGivenEmbedWithSignInWhenTheOwnerSignsInAtTheProviderThenItsTokenActsAndSurvivesARestart(t *testing.T) {
	ctx := context.Background()
	p, err := oidcfake.New(oidcfake.Options{ClientID: "riff-embed"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	signIn := SignIn{Issuer: p.Issuer(), ClientID: "riff-embed", Owner: "mike@example.com"}
	path := t.TempDir()
	log := slog.New(slog.DiscardHandler)
	r, err := open(ctx, path, log, signIn)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(r.Handler)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	d := device{key: key}
	jwk, _ := json.Marshal(jose.JSONWebKey{Key: &key.PublicKey})

	if status, out := d.do(t, srv.URL, "/v1/whoami", "", map[string]any{"me": person}); status != http.StatusUnauthorized {
		t.Fatalf("whoami with no token = %d %s; want 401", status, out)
	}
	forged, _ := p.Forge(oidcfake.Claims{Email: "mike@example.com", EmailVerified: true})
	if status, out := d.do(t, srv.URL, wire.SignIn{}.Path(), "", wire.SignIn{IDToken: forged, Key: jwk}); status != http.StatusUnauthorized {
		t.Fatalf("a sign-in with a forged ID token = %d %s; want 401", status, out)
	}
	idToken, err := p.Sign(oidcfake.Claims{Email: "mike@example.com", EmailVerified: true})
	if err != nil {
		t.Fatal(err)
	}
	status, out := d.do(t, srv.URL, wire.SignIn{}.Path(), "", wire.SignIn{IDToken: idToken, Key: jwk})
	var tok wire.TokenReply
	if err := json.Unmarshal(out, &tok); status != http.StatusOK || err != nil || tok.User != "mike" {
		t.Fatalf("sign-in = %d %s; want 200 for the user mike", status, out)
	}
	me := "riff://mike@pangolin"
	if status, out := d.do(t, srv.URL, "/v1/resume", tok.AccessToken, map[string]any{"me": me, "riff": true}); status != http.StatusOK {
		t.Fatalf("resume by the owner = %d %s; want 200", status, out)
	}
	srv.Close()
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}

	r, err = open(ctx, path, log, signIn)
	if err != nil {
		t.Fatalf("open again: %v", err)
	}
	defer r.Close(ctx)
	srv = httptest.NewServer(r.Handler)
	defer srv.Close()
	status, out = d.do(t, srv.URL, "/v1/whoami", tok.AccessToken, map[string]any{"me": me})
	var who wire.WhoamiReply
	if err := json.Unmarshal(out, &who); status != http.StatusOK || err != nil || who.Owner == "" {
		t.Fatalf("whoami with the token after the restart = %d %s; want 200 with the owner", status, out)
	}
}
