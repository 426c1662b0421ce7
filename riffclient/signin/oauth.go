package signin

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/como-technologies/riff/riffcore/wire"
)

// defaultScopes are the scopes of riff login when the riff names none:
// an ID token with the email.
var defaultScopes = []string{"openid", "email"}

// Endpoints are the endpoints of an OpenID provider, from its discovery
// document.
type Endpoints struct {
	Issuer        string `json:"issuer"`
	AuthURL       string `json:"authorization_endpoint"`
	TokenURL      string `json:"token_endpoint"`
	DeviceAuthURL string `json:"device_authorization_endpoint"`
}

// maxDiscovery bounds the discovery document that riff reads.
const maxDiscovery = 1 << 20

// Discover reads the discovery document of the issuer
// (ISSUER/.well-known/openid-configuration). The document must name the
// issuer that was asked, as OpenID Connect Discovery 1.0 §4.3 says ("The
// issuer value returned MUST be identical to the Issuer URL that was
// used as the prefix to /.well-known/openid-configuration"), and as
// go-oidc checks on the server: a document of another issuer is refused,
// so riff login never sends the person to endpoints that the riff did
// not name.
func Discover(ctx context.Context, hc *http.Client, issuer string) (Endpoints, error) {
	var e Endpoints
	u := strings.TrimRight(issuer, "/") + "/.well-known/openid-configuration"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return e, fmt.Errorf("the issuer %q of the riff is no URL: %w", issuer, err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return e, fmt.Errorf("riff cannot reach the sign-in provider %s: %w", issuer, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return e, fmt.Errorf("the sign-in provider %s replied %s to %s", issuer, resp.Status, u)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxDiscovery)).Decode(&e); err != nil {
		return e, fmt.Errorf("the discovery document of %s does not read: %w", issuer, err)
	}
	if e.Issuer != issuer {
		return e, fmt.Errorf("the discovery document of %s names the issuer %q: riff signs in only with the issuer that the riff names (OpenID Connect Discovery 1.0, §4.3)", issuer, e.Issuer)
	}
	if e.AuthURL == "" || e.TokenURL == "" {
		return e, fmt.Errorf("the discovery document of %s names no authorization or token endpoint", issuer)
	}
	return e, nil
}

// Flow signs a person in with the provider of a riff, as an installed
// app: the browser with a loopback redirect and PKCE, or the device flow.
type Flow struct {
	Provider  wire.ProviderReply
	Endpoints Endpoints
	// HTTP sends the calls to the provider.
	HTTP *http.Client
	// Out gets the lines for the person: the URL to open, the code.
	Out io.Writer
	// Open opens a URL in a browser; nil opens none.
	Open func(url string) error
}

func (f Flow) config() *oauth2.Config {
	scopes := f.Provider.Scopes
	if len(scopes) == 0 {
		scopes = defaultScopes
	}
	return &oauth2.Config{
		ClientID:     f.Provider.ClientID,
		ClientSecret: f.Provider.ClientSecret,
		Scopes:       scopes,
		Endpoint: oauth2.Endpoint{
			AuthURL:       f.Endpoints.AuthURL,
			TokenURL:      f.Endpoints.TokenURL,
			DeviceAuthURL: f.Endpoints.DeviceAuthURL,
		},
	}
}

func (f Flow) context(ctx context.Context) context.Context {
	if f.HTTP == nil {
		return ctx
	}
	return context.WithValue(ctx, oauth2.HTTPClient, f.HTTP)
}

// idToken takes the ID token of a token reply of the provider.
func idToken(t *oauth2.Token) (string, error) {
	id, _ := t.Extra("id_token").(string)
	if id == "" {
		return "", errors.New("the sign-in provider gave no ID token: the riff wants the scope openid")
	}
	return id, nil
}

// callbackPath is the path of the loopback redirect.
const callbackPath = "/callback"

// Browser signs in through the browser: a redirect to a free port of
// 127.0.0.1, with PKCE S256 and a state. It prints the URL (and opens a
// browser when Open is set) and waits for the redirect. It gives the ID
// token.
func (f Flow) Browser(ctx context.Context) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("riff cannot listen on 127.0.0.1 for the sign-in: %w", err)
	}
	cfg := f.config()
	cfg.RedirectURL = "http://" + l.Addr().String() + callbackPath
	verifier := oauth2.GenerateVerifier()
	state := rand.Text()
	authURL := cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier))

	type result struct {
		code string
		err  error
	}
	got := make(chan result, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != callbackPath {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		var res result
		switch {
		case q.Get("state") != state:
			// Not the reply to this sign-in: it changes nothing.
			http.Error(w, "This is not the sign-in that riff login waits for.", http.StatusBadRequest)
			return
		case q.Get("error") != "":
			res.err = fmt.Errorf("the sign-in provider refused the sign-in: %s %s", q.Get("error"), q.Get("error_description"))
		case q.Get("code") == "":
			res.err = errors.New("the sign-in provider gave no code")
		default:
			res.code = q.Get("code")
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if res.err != nil {
			fmt.Fprintf(w, "<p>riff login: %s</p>", html.EscapeString(res.err.Error()))
		} else {
			fmt.Fprint(w, "<p>riff login: the sign-in is done. You can close this tab.</p>")
		}
		select {
		case got <- res:
		default:
		}
	})}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(l)
	}()
	defer func() {
		_ = srv.Close()
		<-served
	}()

	fmt.Fprintf(f.Out, "Open this URL in a browser to sign in:\n  %s\n", authURL)
	if f.Open != nil {
		_ = f.Open(authURL)
	}
	var res result
	select {
	case res = <-got:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	if res.err != nil {
		return "", res.err
	}
	tok, err := cfg.Exchange(f.context(ctx), res.code, oauth2.VerifierOption(verifier))
	if err != nil {
		return "", fmt.Errorf("the sign-in provider refused the code of the sign-in: %w", err)
	}
	return idToken(tok)
}

// Device signs in with the device flow (RFC 8628): it prints the URL and
// the code, and waits while the person approves on another device.
func (f Flow) Device(ctx context.Context) (string, error) {
	if f.Endpoints.DeviceAuthURL == "" {
		return "", errors.New("the sign-in provider of this riff has no device flow: run riff login on a machine with a browser, or with BROWSER set")
	}
	cfg := f.config()
	octx := f.context(ctx)
	da, err := cfg.DeviceAuth(octx)
	if err != nil {
		return "", fmt.Errorf("the sign-in provider refused the device flow: %w", err)
	}
	fmt.Fprintf(f.Out, "To sign in, open %s on any device and enter the code %s\n", da.VerificationURI, da.UserCode)
	if da.VerificationURIComplete != "" {
		fmt.Fprintf(f.Out, "  or open %s\n", da.VerificationURIComplete)
	}
	tok, err := cfg.DeviceAccessToken(octx, da)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("the device sign-in did not end: %w", err)
	}
	return idToken(tok)
}
