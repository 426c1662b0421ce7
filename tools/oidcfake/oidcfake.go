// Package oidcfake is an OpenID Connect provider for the tests of riff and
// riff-server, on a real loopback listener: discovery, the keys (JWKS),
// an authorization endpoint with PKCE (S256) that approves at once, a
// token endpoint that gives an ID token for a code and its verifier, and
// the device flow of RFC 8628. The test picks the identity of the next
// approval with SetNext.
//
// # Basics
//
//	p, err := oidcfake.New(oidcfake.Options{ClientID: "riff"})
//	defer p.Close()
//	p.SetNext(oidcfake.Identity{Email: "ada@example.com"})
//	// riff-server --issuer p.Issuer() --client-id riff ...
//
// A browser of the test is Browse(ctx, authURL): it follows the redirect
// to the loopback redirect_uri of riff login. A device flow waits for the
// test: WaitDevice gives the user code of the next pending request, and
// Approve approves it as the next identity.
//
// # Caveats
//
// It is for tests only, and for a person who tries sign-in on one
// machine (examples/oidcprovider): it signs with a key made at New,
// keeps all in memory, and approves every browser request at once.
package oidcfake

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/como-technologies/riff/riffcore/loopback"
)

// Options configure a provider.
type Options struct {
	// ClientID is the one OAuth client the provider knows; "" is "riff".
	ClientID string
	// ClientSecret, when set, must come with each call of the token
	// endpoint (form field or basic auth), as Google asks of an
	// installed app.
	ClientSecret string
	// Addr is the listen address; "" is 127.0.0.1:0.
	Addr string
	// Interval is the poll interval of the device flow; 0 is 1 s.
	Interval time.Duration
	// Lifetime is the lifetime of an ID token; 0 is an hour.
	Lifetime time.Duration
	// Now is the clock of the tokens; nil is time.Now.
	Now func() time.Time
	// Activate serves the verification page of the device flow, GET
	// /activate?user_code=CODE: it approves that code as the next
	// identity at once, so that a person (a browser, or curl) does what
	// Approve does in a test. The provider that a person runs
	// (examples/oidcprovider) sets it.
	Activate bool
}

// Identity is who the next approval is for.
type Identity struct {
	Email string
	// Unverified makes email_verified false.
	Unverified bool
	// HD is the hosted domain claim (hd), "" for none.
	HD string
	// Subject is the sub claim; "" derives one from the email.
	Subject string
}

// Provider is a running fake provider. Its methods are safe for
// concurrent use.
type Provider struct {
	opts     Options
	issuer   string
	key      *ecdsa.PrivateKey
	keyID    string
	server   *http.Server
	listener net.Listener
	done     chan struct{}

	mu      sync.Mutex // guards key, keyID and the fields below; held by the handlers and the test's calls
	next    Identity
	codes   map[string]authCode
	devices map[string]*device // by device code
	pending chan struct{}      // closed and replaced when a device request comes
	issued  int
	// keyFetches counts the reads of the keys (JWKS).
	keyFetches int
}

type authCode struct {
	challenge   string
	redirectURI string
	nonce       string
	who         Identity
	expires     time.Time
}

type device struct {
	userCode string
	approved *Identity
	denied   bool
	lastPoll time.Time
	interval time.Duration
	expires  time.Time
	used     bool
}

// New starts a provider on a loopback listener.
func New(opts Options) (*Provider, error) {
	if opts.ClientID == "" {
		opts.ClientID = "riff"
	}
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.Interval == 0 {
		opts.Interval = time.Second
	}
	if opts.Lifetime == 0 {
		opts.Lifetime = time.Hour
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("oidcfake: make the signing key: %w", err)
	}
	l, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("oidcfake: listen on %s: %w", opts.Addr, err)
	}
	p := &Provider{
		opts:     opts,
		issuer:   "http://" + l.Addr().String(),
		key:      key,
		keyID:    randomString(8),
		listener: l,
		done:     make(chan struct{}),
		next:     Identity{Email: "person@example.com"},
		codes:    map[string]authCode{},
		devices:  map[string]*device{},
		pending:  make(chan struct{}),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /keys", p.keys)
	mux.HandleFunc("GET /auth", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	mux.HandleFunc("POST /device", p.deviceAuthorization)
	if opts.Activate {
		mux.HandleFunc("GET /activate", p.activate)
	}
	p.server = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(p.done)
		_ = p.server.Serve(l)
	}()
	return p, nil
}

// Close stops the listener and waits for the server's goroutine.
func (p *Provider) Close() error {
	err := p.server.Close()
	<-p.done
	return err
}

// Issuer is the issuer URL (the base of every endpoint).
func (p *Provider) Issuer() string { return p.issuer }

// PublicKey is the public key that signs the ID tokens (the one key of
// the JWKS).
func (p *Provider) PublicKey() *ecdsa.PublicKey {
	p.mu.Lock()
	defer p.mu.Unlock()
	return &p.key.PublicKey
}

// ClientID is the client ID that the provider accepts.
func (p *Provider) ClientID() string { return p.opts.ClientID }

// SetNext sets who the next approvals are for (browser and device), until
// the next SetNext.
func (p *Provider) SetNext(who Identity) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next = who
}

// Issued counts the ID tokens the token endpoint gave.
func (p *Provider) Issued() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.issued
}

// Claims are the claims of an ID token that Sign makes. A zero Issuer,
// Audience, IssuedAt or Expires takes the provider's value.
type Claims struct {
	Issuer        string
	Audience      string
	Subject       string
	Email         string
	EmailVerified bool
	HD            string
	Nonce         string
	IssuedAt      time.Time
	Expires       time.Time
}

// KeyFetches counts the reads of the keys of the provider (its JWKS).
func (p *Provider) KeyFetches() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.keyFetches
}

// Rotate puts a new signing key with a new key ID in place of the old
// one, as a provider rotates its keys: the next tokens and the JWKS have
// the new key only.
func (p *Provider) Rotate() error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("oidcfake: make the signing key: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.key, p.keyID = key, randomString(8)
	return nil
}

// Sign makes an ID token with the provider's key: a test makes tokens
// that the token endpoint would not give (another audience, an expired
// one, an unverified email).
func (p *Provider) Sign(c Claims) (string, error) {
	p.mu.Lock()
	key, keyID := p.key, p.keyID
	p.mu.Unlock()
	return p.sign(c, key, keyID)
}

// Forge makes an ID token as Sign does, signed by a key that the
// provider never gave, with a key ID that it does not know: the token of
// an attacker.
func (p *Provider) Forge(c Claims) (string, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", fmt.Errorf("oidcfake: make the forger's key: %w", err)
	}
	return p.sign(c, key, randomString(8))
}

func (p *Provider) sign(c Claims, key *ecdsa.PrivateKey, keyID string) (string, error) {
	now := p.opts.Now()
	if c.Issuer == "" {
		c.Issuer = p.issuer
	}
	if c.Audience == "" {
		c.Audience = p.opts.ClientID
	}
	if c.IssuedAt.IsZero() {
		c.IssuedAt = now
	}
	if c.Expires.IsZero() {
		c.Expires = c.IssuedAt.Add(p.opts.Lifetime)
	}
	if c.Subject == "" {
		c.Subject = subjectOf(c.Email)
	}
	claims := map[string]any{
		"iss":            c.Issuer,
		"aud":            c.Audience,
		"azp":            p.opts.ClientID,
		"sub":            c.Subject,
		"email":          c.Email,
		"email_verified": c.EmailVerified,
		"iat":            c.IssuedAt.Unix(),
		"exp":            c.Expires.Unix(),
	}
	if c.HD != "" {
		claims["hd"] = c.HD
	}
	if c.Nonce != "" {
		claims["nonce"] = c.Nonce
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", fmt.Errorf("oidcfake: encode the claims: %w", err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", keyID))
	if err != nil {
		return "", fmt.Errorf("oidcfake: make the signer: %w", err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("oidcfake: sign the ID token: %w", err)
	}
	return jws.CompactSerialize()
}

// Browse is the browser of a test: it opens authURL (the authorization
// URL that riff login shows or opens) and follows the redirect to the
// redirect_uri, as a browser would after the person approves.
func Browse(ctx context.Context, authURL string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return fmt.Errorf("oidcfake: browse %q: %w", authURL, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("oidcfake: browse: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("oidcfake: browse: the redirect answered %s", resp.Status)
	}
	return nil
}

// WaitDevice waits for a device request that is not yet approved or
// denied, and gives its user code.
func (p *Provider) WaitDevice(ctx context.Context) (string, error) {
	for {
		p.mu.Lock()
		code := p.pendingUserCode()
		wake := p.pending
		p.mu.Unlock()
		if code != "" {
			return code, nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("oidcfake: wait for a device request: %w", ctx.Err())
		case <-wake:
		}
	}
}

// pendingUserCode is the user code of the oldest open request, by user
// code order so that the choice does not follow map order. p.mu is held.
func (p *Provider) pendingUserCode() string {
	best := ""
	for _, d := range p.devices {
		if d.approved == nil && !d.denied && !d.used && (best == "" || d.userCode < best) {
			best = d.userCode
		}
	}
	return best
}

// Approve approves the device request of userCode as the next identity.
func (p *Provider) Approve(userCode string) error {
	return p.settle(userCode, false)
}

// Deny refuses the device request of userCode (access_denied).
func (p *Provider) Deny(userCode string) error {
	return p.settle(userCode, true)
}

func (p *Provider) settle(userCode string, deny bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, d := range p.devices {
		if d.userCode != userCode || d.used {
			continue
		}
		if deny {
			d.denied = true
		} else {
			who := p.next
			d.approved = &who
		}
		return nil
	}
	return fmt.Errorf("oidcfake: no device request has the user code %q", userCode)
}

func (p *Provider) discovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                p.issuer,
		"authorization_endpoint":                p.issuer + "/auth",
		"token_endpoint":                        p.issuer + "/token",
		"device_authorization_endpoint":         p.issuer + "/device",
		"jwks_uri":                              p.issuer + "/keys",
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"ES256"},
		"code_challenge_methods_supported":      []string{"S256"},
		"scopes_supported":                      []string{"openid", "email", "profile"},
		"grant_types_supported":                 []string{"authorization_code", "urn:ietf:params:oauth:grant-type:device_code"},
	})
}

func (p *Provider) keys(w http.ResponseWriter, _ *http.Request) {
	p.mu.Lock()
	p.keyFetches++
	key, keyID := p.key, p.keyID
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{
		Key: &key.PublicKey, KeyID: keyID, Algorithm: "ES256", Use: "sig",
	}}})
}

// authorize approves at once: it checks the request as a provider would
// (client, response type, PKCE S256, a loopback redirect) and redirects
// with a code.
func (p *Provider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("client_id") != p.opts.ClientID {
		http.Error(w, "unknown client_id", http.StatusBadRequest)
		return
	}
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || redirect.Scheme != "http" || !loopback.Is(redirect.Hostname()) {
		http.Error(w, "redirect_uri must be an http URL on loopback", http.StatusBadRequest)
		return
	}
	back := redirect.Query()
	back.Set("state", q.Get("state"))
	fail := func(code, text string) {
		back.Set("error", code)
		back.Set("error_description", text)
		redirect.RawQuery = back.Encode()
		http.Redirect(w, r, redirect.String(), http.StatusFound)
	}
	if q.Get("response_type") != "code" {
		fail("unsupported_response_type", "response_type must be code")
		return
	}
	if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		fail("invalid_request", "PKCE with code_challenge_method S256 is required")
		return
	}
	code := randomString(16)
	p.mu.Lock()
	p.codes[code] = authCode{
		challenge:   q.Get("code_challenge"),
		redirectURI: q.Get("redirect_uri"),
		nonce:       q.Get("nonce"),
		who:         p.next,
		expires:     p.opts.Now().Add(5 * time.Minute),
	}
	p.mu.Unlock()
	back.Set("code", code)
	redirect.RawQuery = back.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

func (p *Provider) deviceAuthorization(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		tokenError(w, http.StatusBadRequest, "invalid_request", "the form does not parse")
		return
	}
	if r.PostForm.Get("client_id") != p.opts.ClientID {
		tokenError(w, http.StatusUnauthorized, "invalid_client", "unknown client_id")
		return
	}
	deviceCode := randomString(16)
	userCode := randomString(8)
	p.mu.Lock()
	p.devices[deviceCode] = &device{
		userCode: userCode,
		interval: p.opts.Interval,
		expires:  p.opts.Now().Add(10 * time.Minute),
	}
	close(p.pending)
	p.pending = make(chan struct{})
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"device_code":               deviceCode,
		"user_code":                 userCode,
		"verification_uri":          p.issuer + "/activate",
		"verification_uri_complete": p.issuer + "/activate?user_code=" + userCode,
		"expires_in":                600,
		"interval":                  int(p.opts.Interval / time.Second),
	})
}

// activate is the verification page of the device flow with Activate:
// it approves the user code of its query as the next identity.
func (p *Provider) activate(w http.ResponseWriter, r *http.Request) {
	code := r.URL.Query().Get("user_code")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if code == "" {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintln(w, "Give the code that riff login printed: /activate?user_code=CODE")
		return
	}
	if err := p.Approve(code); err != nil {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintln(w, "No sign-in waits for this code. Run riff login again, and open the URL that it prints.")
		return
	}
	p.mu.Lock()
	email := p.next.Email
	p.mu.Unlock()
	fmt.Fprintf(w, "Approved: riff login signs in as %s.\n", email)
}

func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		tokenError(w, http.StatusBadRequest, "invalid_request", "the form does not parse")
		return
	}
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != p.opts.ClientID || (p.opts.ClientSecret != "" && subtle.ConstantTimeCompare([]byte(secret), []byte(p.opts.ClientSecret)) != 1) {
		tokenError(w, http.StatusUnauthorized, "invalid_client", "unknown client, or a wrong secret")
		return
	}
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		p.codeGrant(w, r)
	case "urn:ietf:params:oauth:grant-type:device_code":
		p.deviceGrant(w, r)
	default:
		tokenError(w, http.StatusBadRequest, "unsupported_grant_type", "grant_type is not known")
	}
}

func (p *Provider) codeGrant(w http.ResponseWriter, r *http.Request) {
	code := r.PostForm.Get("code")
	p.mu.Lock()
	c, ok := p.codes[code]
	delete(p.codes, code) // a code works once
	p.mu.Unlock()
	if !ok || p.opts.Now().After(c.expires) {
		tokenError(w, http.StatusBadRequest, "invalid_grant", "unknown or used code")
		return
	}
	if r.PostForm.Get("redirect_uri") != c.redirectURI {
		tokenError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri is not the one of the authorization")
		return
	}
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
		tokenError(w, http.StatusBadRequest, "invalid_grant", "code_verifier does not match code_challenge")
		return
	}
	p.issue(w, c.who, c.nonce)
}

// deviceGrant answers a poll of RFC 8628 section 3.5.
func (p *Provider) deviceGrant(w http.ResponseWriter, r *http.Request) {
	now := p.opts.Now()
	p.mu.Lock()
	d, ok := p.devices[r.PostForm.Get("device_code")]
	if !ok || d.used {
		p.mu.Unlock()
		tokenError(w, http.StatusBadRequest, "invalid_grant", "unknown or used device_code")
		return
	}
	if now.After(d.expires) {
		p.mu.Unlock()
		tokenError(w, http.StatusBadRequest, "expired_token", "the device code expired")
		return
	}
	if d.denied { // for good: a client may ask twice (oauth2 tries both auth styles)
		p.mu.Unlock()
		tokenError(w, http.StatusBadRequest, "access_denied", "the person refused")
		return
	}
	if d.approved == nil {
		early := !d.lastPoll.IsZero() && now.Sub(d.lastPoll) < d.interval
		d.lastPoll = now
		if early {
			d.interval += 5 * time.Second // RFC 8628: for this and every later poll
			p.mu.Unlock()
			tokenError(w, http.StatusBadRequest, "slow_down", "poll less often")
			return
		}
		p.mu.Unlock()
		tokenError(w, http.StatusBadRequest, "authorization_pending", "the person has not approved yet")
		return
	}
	d.used = true
	who := *d.approved
	p.mu.Unlock()
	p.issue(w, who, "")
}

func (p *Provider) issue(w http.ResponseWriter, who Identity, nonce string) {
	idToken, err := p.Sign(Claims{
		Subject: who.Subject, Email: who.Email, EmailVerified: !who.Unverified, HD: who.HD, Nonce: nonce,
	})
	if err != nil {
		tokenError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	p.mu.Lock()
	p.issued++
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": randomString(16),
		"token_type":   "Bearer",
		"expires_in":   int(p.opts.Lifetime / time.Second),
		"id_token":     idToken,
		"scope":        "openid email",
	})
}

func tokenError(w http.ResponseWriter, status int, code, text string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": text})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func subjectOf(email string) string {
	sum := sha256.Sum256([]byte(email))
	return hex.EncodeToString(sum[:8])
}

// randomString gives n random characters (rand.Text never fails).
func randomString(n int) string {
	return rand.Text()[:n]
}
