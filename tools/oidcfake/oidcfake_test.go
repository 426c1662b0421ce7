package oidcfake_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/como-technologies/riff/tools/oidcfake"
)

func start(t *testing.T, opts oidcfake.Options) (*oidcfake.Provider, *oidc.Provider) {
	t.Helper()
	p, err := oidcfake.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	op, err := oidc.NewProvider(context.Background(), p.Issuer())
	if err != nil {
		t.Fatalf("oidc.NewProvider: %v", err)
	}
	return p, op
}

// redirectCatcher is the loopback redirect of an installed app.
func redirectCatcher(t *testing.T) (string, <-chan string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	codes := make(chan string, 1)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		codes <- r.URL.Query().Get("code")
	})}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Close(); <-done })
	return "http://" + l.Addr().String() + "/callback", codes
}

func TestGivenABrowserFlowWithPKCEWhenTheCodeIsSwappedThenGoOIDCVerifiesTheIDToken(t *testing.T) {
	p, op := start(t, oidcfake.Options{ClientID: "riff-test", ClientSecret: "not-secret"})
	p.SetNext(oidcfake.Identity{Email: "ada@example.com", HD: "example.com"})
	redirect, codes := redirectCatcher(t)
	conf := oauth2.Config{ClientID: "riff-test", ClientSecret: "not-secret", Endpoint: op.Endpoint(), RedirectURL: redirect, Scopes: []string{oidc.ScopeOpenID, "email"}}
	verifier := oauth2.GenerateVerifier()
	ctx := context.Background()
	if err := oidcfake.Browse(ctx, conf.AuthCodeURL("state1", oauth2.S256ChallengeOption(verifier), oidc.Nonce("n-1"))); err != nil {
		t.Fatal(err)
	}
	code := <-codes
	if _, err := conf.Exchange(ctx, code, oauth2.VerifierOption("wrong-verifier-wrong-verifier-wrong-verifier")); err == nil {
		t.Fatal("Exchange with a wrong verifier worked; want invalid_grant")
	}
	// The code worked once even when refused: a new flow.
	if err := oidcfake.Browse(ctx, conf.AuthCodeURL("state2", oauth2.S256ChallengeOption(verifier), oidc.Nonce("n-2"))); err != nil {
		t.Fatal(err)
	}
	tok, err := conf.Exchange(ctx, <-codes, oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatalf("Exchange: %v", err)
	}
	raw, _ := tok.Extra("id_token").(string)
	id, err := op.Verifier(&oidc.Config{ClientID: "riff-test"}).Verify(ctx, raw)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	var claims struct {
		Email    string `json:"email"`
		Verified bool   `json:"email_verified"`
		HD       string `json:"hd"`
	}
	if err := id.Claims(&claims); err != nil {
		t.Fatal(err)
	}
	if claims.Email != "ada@example.com" || !claims.Verified || claims.HD != "example.com" || id.Nonce != "n-2" {
		t.Fatalf("claims = %+v nonce %q; want ada@example.com, verified, hd example.com, nonce n-2", claims, id.Nonce)
	}
}

func TestGivenNoPKCEWhenTheBrowserAsksThenTheRedirectHasAnError(t *testing.T) {
	p, op := start(t, oidcfake.Options{})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got <- r.URL.RawQuery })}
	go srv.Serve(l)
	defer srv.Close()
	conf := oauth2.Config{ClientID: p.ClientID(), Endpoint: op.Endpoint(), RedirectURL: "http://" + l.Addr().String() + "/cb"}
	if err := oidcfake.Browse(context.Background(), conf.AuthCodeURL("s")); err != nil {
		t.Fatal(err)
	}
	if q := <-got; !strings.Contains(q, "error=invalid_request") || strings.Contains(q, "code=") {
		t.Fatalf("redirect query = %q; want error=invalid_request and no code", q)
	}
}

func TestGivenADeviceFlowWhenTheTestApprovesThenThePollGetsTheIDTokenOfTheNextEmail(t *testing.T) {
	p, op := start(t, oidcfake.Options{Interval: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var endpoints struct {
		Device string `json:"device_authorization_endpoint"`
	}
	if err := op.Claims(&endpoints); err != nil || endpoints.Device == "" {
		t.Fatalf("discovery has no device_authorization_endpoint: %v", err)
	}
	end := op.Endpoint()
	end.DeviceAuthURL = endpoints.Device
	conf := oauth2.Config{ClientID: p.ClientID(), Endpoint: end, Scopes: []string{oidc.ScopeOpenID, "email"}}
	da, err := conf.DeviceAuth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Two quick polls: pending, then slow_down.
	poll := func() string {
		req, _ := http.NewRequest(http.MethodPost, end.TokenURL, strings.NewReader("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&client_id="+p.ClientID()+"&device_code="+da.DeviceCode))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e struct {
			Error string `json:"error"`
		}
		_ = jsonDecode(resp, &e)
		return e.Error
	}
	if got := poll(); got != "authorization_pending" {
		t.Fatalf("first poll = %q; want authorization_pending", got)
	}
	if got := poll(); got != "slow_down" {
		t.Fatalf("second quick poll = %q; want slow_down", got)
	}
	code, err := p.WaitDevice(ctx)
	if err != nil || code != da.UserCode {
		t.Fatalf("WaitDevice = %q, %v; want %q", code, err, da.UserCode)
	}
	p.SetNext(oidcfake.Identity{Email: "grace@example.org"})
	if err := p.Approve(code); err != nil {
		t.Fatal(err)
	}
	// The interval grew by 5 s with the slow_down: the library waits.
	tok, err := conf.DeviceAccessToken(ctx, da)
	if err != nil {
		t.Fatalf("DeviceAccessToken: %v", err)
	}
	id, err := op.Verifier(&oidc.Config{ClientID: p.ClientID()}).Verify(ctx, tok.Extra("id_token").(string))
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		Email string `json:"email"`
	}
	_ = id.Claims(&claims)
	if claims.Email != "grace@example.org" {
		t.Fatalf("email = %q; want grace@example.org", claims.Email)
	}
}

func TestGivenADeniedDeviceRequestWhenPolledThenAccessDenied(t *testing.T) {
	p, op := start(t, oidcfake.Options{})
	var endpoints struct {
		Device string `json:"device_authorization_endpoint"`
	}
	_ = op.Claims(&endpoints)
	end := op.Endpoint()
	end.DeviceAuthURL = endpoints.Device
	conf := oauth2.Config{ClientID: p.ClientID(), Endpoint: end}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	da, err := conf.DeviceAuth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Deny(da.UserCode); err != nil {
		t.Fatal(err)
	}
	_, err = conf.DeviceAccessToken(ctx, da)
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "access_denied" {
		t.Fatalf("DeviceAccessToken error = %v; want access_denied", err)
	}
}

func TestGivenSignedClaimsWhenTheAudienceIsAnotherThenGoOIDCRefuses(t *testing.T) {
	p, op := start(t, oidcfake.Options{})
	raw, err := p.Sign(oidcfake.Claims{Email: "ada@example.com", EmailVerified: true, Audience: "another-client"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Verifier(&oidc.Config{ClientID: p.ClientID()}).Verify(context.Background(), raw); err == nil {
		t.Fatal("Verify of a token for another audience worked")
	}
}

func jsonDecode(resp *http.Response, v any) error {
	return json.NewDecoder(resp.Body).Decode(v)
}
