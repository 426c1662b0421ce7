// Package idtoken checks the ID tokens of the OpenID Connect provider of
// a riff with sign-in, with go-oidc: the signature by a key of the
// provider, the issuer, the audience (the OAuth client of riff login),
// the expiry and a verified email. [Checker] is the riffengine.IDTokens
// of riff-server and of any program that embeds the engine with sign-in
// (examples/embed); [Checker.SignInOptions] gives the options of the
// token layer for its provider.
//
// It reads the discovery document at the first sign-in (a start needs no
// network), and the keys of the provider (its JWKS) at most once each
// minute: a token signed by a key that it does not know makes it read the
// keys again only when the last read is a minute old, so a flood of
// forged tokens costs the provider at most one read a minute
// (docs/signin.md, "The provider and the ID token check").
//
// It holds no rule of who may join (riffstate's admit does) and keeps no
// token.
package idtoken

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
)

// KeysEvery is the least time between two reads of the keys of the
// provider.
const KeysEvery = time.Minute

// Options set a [Checker].
type Options struct {
	// Issuer is the URL of the provider (https://accounts.google.com).
	Issuer string
	// ClientID is the OAuth client of riff login: the audience of the
	// ID tokens.
	ClientID string
	// Now is the clock of the expiry and of the reads of the keys; nil
	// is time.Now.
	Now func() time.Time
	// KeysEvery is the least time between two reads of the keys; 0 is
	// KeysEvery (a minute).
	KeysEvery time.Duration
	// Client makes the calls to the provider; nil is http.DefaultClient.
	Client *http.Client
}

// Checker checks ID tokens of one provider and client. It is safe for
// concurrent use.
type Checker struct {
	opts Options

	mu       sync.Mutex // guards verifier; held while the discovery is read
	verifier *oidc.IDTokenVerifier
}

var _ riffengine.IDTokens = (*Checker)(nil)

// New makes a checker; it reads nothing yet.
func New(opts Options) (*Checker, error) {
	if opts.Issuer == "" || opts.ClientID == "" {
		return nil, errors.New("an ID token check needs the issuer and the client ID of the provider")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.KeysEvery <= 0 {
		opts.KeysEvery = KeysEvery
	}
	if opts.Client == nil {
		opts.Client = http.DefaultClient
	}
	return &Checker{opts: opts}, nil
}

// The algorithms that go-oidc checks, all of them with a public key. The
// discovery's id_token_signing_alg_values_supported is taken as far as
// it names them.
var publicKeyAlgs = map[string]bool{
	oidc.RS256: true, oidc.RS384: true, oidc.RS512: true,
	oidc.ES256: true, oidc.ES384: true, oidc.ES512: true,
	oidc.PS256: true, oidc.PS384: true, oidc.PS512: true,
	oidc.EdDSA: true,
}

// verifierOf reads the discovery document once (again after a failure)
// and makes the verifier over the key set of its jwks_uri.
func (c *Checker) verifierOf(ctx context.Context) (*oidc.IDTokenVerifier, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.verifier != nil {
		return c.verifier, nil
	}
	// The read serves the sign-ins that wait for it, and is bounded: a
	// provider that hangs fails this sign-in, and the next one reads again.
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), keysReadFor)
	defer cancel()
	p, err := oidc.NewProvider(oidc.ClientContext(dctx, c.opts.Client), c.opts.Issuer)
	if err != nil {
		return nil, fmt.Errorf("riff-server cannot read the provider %s: %w", c.opts.Issuer, err)
	}
	var doc struct {
		JWKSURL string   `json:"jwks_uri"`
		Algs    []string `json:"id_token_signing_alg_values_supported"`
	}
	if err := p.Claims(&doc); err != nil || doc.JWKSURL == "" {
		return nil, fmt.Errorf("the discovery document of the provider %s names no jwks_uri", c.opts.Issuer)
	}
	var algs []string
	for _, a := range doc.Algs {
		if publicKeyAlgs[a] {
			algs = append(algs, a)
		}
	}
	keys := newKeySet(doc.JWKSURL, c.opts.Client, c.opts.Now, c.opts.KeysEvery)
	c.verifier = oidc.NewVerifier(c.opts.Issuer, keys, &oidc.Config{ClientID: c.opts.ClientID, SupportedSigningAlgs: algs, Now: c.opts.Now})
	return c.verifier, nil
}

// Check gives the identity of a valid ID token: its email, and its hosted
// domain (hd). Any other token gives an error that says what failed and
// names no email.
func (c *Checker) Check(ctx context.Context, raw string) (riffengine.Identity, error) {
	if raw == "" {
		return riffengine.Identity{}, errors.New("the sign-in has no ID token")
	}
	v, err := c.verifierOf(ctx)
	if err != nil {
		return riffengine.Identity{}, err
	}
	tok, err := v.Verify(ctx, raw)
	if err != nil {
		return riffengine.Identity{}, err
	}
	var claims struct {
		Email    string          `json:"email"`
		Verified json.RawMessage `json:"email_verified"`
		HD       string          `json:"hd"`
	}
	if err := tok.Claims(&claims); err != nil {
		return riffengine.Identity{}, fmt.Errorf("the claims of the ID token do not read: %w", err)
	}
	if claims.Email == "" {
		return riffengine.Identity{}, errors.New("the ID token has no email: riff login asks for the scope email")
	}
	// Some providers send the boolean as a string.
	if v := strings.Trim(string(claims.Verified), `"`); v != "true" {
		return riffengine.Identity{}, errors.New("the email of the ID token is not verified")
	}
	return riffengine.Identity{Email: claims.Email, Domain: claims.HD}, nil
}

// Scopes are the scopes that riff login asks of the provider: the ID
// token and the email.
var Scopes = []string{oidc.ScopeOpenID, "email"}

// SignInOptions gives the options of the token layer of a riff whose
// people sign in at the provider of c: this check of the ID tokens, what
// POST /v1/signin/provider tells riff login (the issuer, the client, its
// secret, which is no secret for an installed app, and Scopes), and the
// public URL that the DPoP proofs name ("" takes http:// and the Host of
// each call).
func (c *Checker) SignInOptions(clientSecret, publicURL string) riffengine.SignInOptions {
	return riffengine.SignInOptions{
		IDTokens:  c,
		Provider:  wire.ProviderReply{Issuer: c.opts.Issuer, ClientID: c.opts.ClientID, ClientSecret: clientSecret, Scopes: Scopes},
		PublicURL: publicURL,
	}
}
