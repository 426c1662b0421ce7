package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffclient/signin"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/tools/oidcfake"
)

// newSecretProvider starts the OpenID provider of the tests with the
// client secret of riff login; a cleanup stops it.
func newSecretProvider(t *testing.T, secret string) *oidcfake.Provider {
	t.Helper()
	p, err := oidcfake.New(oidcfake.Options{ClientID: "riff-cli", ClientSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// emailOf reads the email of an ID token (no check: the server checks).
func emailOf(t *testing.T, idToken string) string {
	t.Helper()
	parts := strings.Split(idToken, ".")
	if len(parts) != 3 {
		t.Fatalf("ID token %q is no JWT", idToken)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Email string `json:"email"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return c.Email
}

func flowOf(t *testing.T, p *oidcfake.Provider, secret string, out *strings.Builder) signin.Flow {
	t.Helper()
	ctx := context.Background()
	ends, err := signin.Discover(ctx, http.DefaultClient, p.Issuer())
	if err != nil {
		t.Fatal(err)
	}
	return signin.Flow{
		Provider:  wire.ProviderReply{SignIn: true, Issuer: p.Issuer(), ClientID: "riff-cli", ClientSecret: secret},
		Endpoints: ends, HTTP: http.DefaultClient, Out: out,
	}
}

func TestGivenTheBrowserFlowWhenThePersonApprovesThenRiffGetsTheIDTokenWithPKCEOnALoopbackRedirect(t *testing.T) {
	p := newSecretProvider(t, "not-a-secret")
	p.SetNext(oidcfake.Identity{Email: "mike@example.com"})
	var out strings.Builder
	f := flowOf(t, p, "not-a-secret", &out)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var opened string
	f.Open = func(u string) error { opened = u; return oidcfake.Browse(ctx, u) }
	id, err := f.Browser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := emailOf(t, id); got != "mike@example.com" {
		t.Errorf("email %q", got)
	}
	u, err := url.Parse(opened)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	redirect, _ := url.Parse(q.Get("redirect_uri"))
	if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("state") == "" ||
		redirect.Hostname() != "127.0.0.1" || redirect.Port() == "" || redirect.Port() == "0" {
		t.Errorf("authorization URL %s; want PKCE S256, a state and a loopback redirect on a free port", opened)
	}
	if !strings.Contains(out.String(), opened) {
		t.Errorf("printed %q; want the URL", out.String())
	}
}

func TestGivenAReplyWithAnotherStateWhenTheRedirectComesThenTheSignInWaitsOn(t *testing.T) {
	p := newSecretProvider(t, "")
	var out strings.Builder
	f := flowOf(t, p, "", &out)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	f.Open = func(u string) error {
		au, _ := url.Parse(u)
		q := au.Query()
		// A forged redirect with another state: refused, and changes
		// nothing.
		forged := q.Get("redirect_uri") + "?code=stolen&state=other"
		resp, err := http.Get(forged)
		if err != nil {
			t.Error(err)
		} else {
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("a redirect with another state: %s; want 400", resp.Status)
			}
		}
		return oidcfake.Browse(ctx, u)
	}
	id, err := f.Browser(ctx)
	if err != nil || id == "" {
		t.Fatalf("Browser = %q, %v; want the ID token of the true redirect", id, err)
	}
}

func TestGivenTheDeviceFlowWhenThePersonApprovesTheCodeThenRiffGetsTheIDToken(t *testing.T) {
	p := newSecretProvider(t, "")
	p.SetNext(oidcfake.Identity{Email: "ada@example.com"})
	out := &syncBuffer{}
	ends, err := signin.Discover(context.Background(), http.DefaultClient, p.Issuer())
	if err != nil {
		t.Fatal(err)
	}
	f := signin.Flow{Provider: wire.ProviderReply{SignIn: true, Issuer: p.Issuer(), ClientID: "riff-cli"}, Endpoints: ends, HTTP: http.DefaultClient, Out: out}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	approved := make(chan error, 1)
	go func() {
		code, err := p.WaitDevice(ctx)
		if err == nil {
			err = p.Approve(code)
		}
		approved <- err
	}()
	id, err := f.Device(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-approved; err != nil {
		t.Fatal(err)
	}
	if got := emailOf(t, id); got != "ada@example.com" {
		t.Errorf("email %q", got)
	}
	if !strings.Contains(out.String(), p.Issuer()+"/activate") {
		t.Errorf("printed %q; want the URL and the code", out.String())
	}
}
