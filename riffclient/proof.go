package riffclient

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"

	"github.com/como-technologies/riff/riffcore/dpop"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// AuthError is a fault of the sign-in of the machine before a try: the
// Auth gave no token (the sign-in ended, the riff is new). No request
// went out for it. Its text is the text of the Auth, for a person.
type AuthError struct{ Err error }

func (e *AuthError) Error() string { return e.Err.Error() }
func (e *AuthError) Unwrap() error { return e.Err }

// prover sets the headers of the sign-in on each try of one call: a
// token from Auth (or a fixed one), and a fresh DPoP proof of the key.
// The zero prover sets none.
type prover struct {
	// auth gives the token of each try as me; nil: token is fixed.
	auth Auth
	me   name.SessionURI
	// key signs the proof when auth is nil.
	key *ecdsa.PrivateKey
	// token is the fixed token of a call with no auth ("" for a sign-in
	// and a refresh: a proof and no Authorization).
	token string
	// anyBuild lets the reply through when the builds do not talk: riff
	// login works when the versions do not match.
	anyBuild bool
}

// none says that the prover sets no header.
func (p *prover) none() bool { return p.auth == nil && p.key == nil }

// prove sets the headers of one try.
func (c *Client) prove(ctx context.Context, p *prover, req *http.Request) (string, error) {
	if p.none() {
		return "", nil
	}
	key, token := p.key, p.token
	if p.auth != nil {
		// The token first: the Auth may read its key for it.
		t, err := p.auth.Token(ctx, p.me)
		if err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			return "", &AuthError{Err: err}
		}
		if t == "" {
			// No sign-in kept for this server: a riff with no sign-in.
			return "", nil
		}
		token, key = t, p.auth.Key()
	}
	if key == nil {
		return "", &AuthError{Err: errors.New("the sign-in of this machine has no device key")}
	}
	proof, err := dpop.Make(key, req.Method, req.URL.String(), token, c.clock.Now(), rand.Text())
	if err != nil {
		return "", fmt.Errorf("prove %s: %w", req.URL.Path, err)
	}
	if token != "" {
		req.Header.Set(wire.HeaderAuthorization, "DPoP "+token)
	}
	req.Header.Set(wire.HeaderDPoP, proof)
	return token, nil
}

// refused tells the Auth of a refusal of the token of a try, and says
// whether one more try can work.
func (c *Client) refused(ctx context.Context, p *prover, token string, err error) bool {
	var r *wire.Refused
	if p.auth == nil || token == "" || !errors.As(err, &r) || r.Code != wire.BadToken {
		return false
	}
	return p.auth.Refused(ctx, p.me, token, r.Code)
}

// caller is a call that names its caller.
type caller interface{ Caller() name.SessionURI }

// proverOf gives the prover of a call of Send: none with no Auth; for a
// call of the token path, what that path wants.
func (c *Client) proverOf(call any) *prover {
	if c.auth == nil {
		return &prover{}
	}
	switch call.(type) {
	case wire.SignInProvider, *wire.SignInProvider:
		return &prover{anyBuild: true}
	case wire.SignIn, *wire.SignIn:
		return &prover{key: c.auth.Key(), anyBuild: true}
	case wire.Refresh, *wire.Refresh:
		return &prover{key: c.auth.Key()}
	case wire.Swap, *wire.Swap:
		// The person token, and its proof.
		return &prover{auth: c.auth}
	}
	p := &prover{auth: c.auth}
	if cl, ok := call.(caller); ok {
		p.me = cl.Caller()
	}
	return p
}

// SendProved sends a call of the token path with a DPoP proof of key:
// a sign-in or a refresh with no token, a swap with the person token.
// A sign-in and its provider get their reply also when the builds do
// not talk, so that riff login works when the versions do not match;
// the warning of different builds still goes to [Options.Out].
func SendProved[R any](ctx context.Context, c *Client, call wire.Call[R], key *ecdsa.PrivateKey, token string) (R, error) {
	var p *prover
	switch any(call).(type) {
	case wire.SignInProvider:
		p = &prover{anyBuild: true}
	case wire.SignIn:
		p = &prover{key: key, anyBuild: true}
	default:
		p = &prover{key: key, token: token}
	}
	return send(ctx, c, call, p)
}
