package riffengine

import (
	"net/http"
	"strings"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/quote"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine/tokens"
	"github.com/como-technologies/riff/riffstate"
)

// TokenLayer proves the caller of each call and serves the token path.
// A riff with sign-in checks a token ([SignedIn]); a riff with no
// sign-in trusts its network ([NoSignIn]). The handler holds no rule of
// the tokens: it asks the layer, and writes what the layer gives.
//
// A refusal is a *wire.Refused with a code of the token layer (no_token,
// bad_token, bad_proof, not_you) or of the call (bad_request,
// no_sign_in, not_allowed, not_member).
type TokenLayer interface {
	// Token checks the token of a call from its headers, before the
	// body is read. On a refusal the Token holds the key of the token
	// when the token was valid (for the denied line).
	Token(r *http.Request) (Token, *wire.Refused)
	// Prove checks that the token t of the call (from Token) may act as
	// me, the me of the body, and gives the proof of the caller.
	Prove(r *http.Request, t Token, me name.SessionURI) (Proof, *wire.Refused)
	// Facts says whether the caller of r may read the facts of the
	// server (GET /v1/server). On a refusal key is the key of a valid
	// token, for the denied line.
	Facts(r *http.Request) (key string, refused *wire.Refused)
	// Provider is what POST /v1/signin/provider tells riff login; its
	// SignIn says whether the riff has sign-in.
	Provider() wire.ProviderReply
	// SignIn, Refresh and Swap are the token path. Each gives the pair,
	// or an error: a *wire.Refused, tokens.ErrNotSaved (503, the client
	// tries again) or an error of the engine. key is the key of a valid
	// token of a refused call, for the denied line.
	SignIn(r *http.Request, call wire.SignIn) (pair tokens.Pair, key string, err error)
	Refresh(r *http.Request, call wire.Refresh) (pair tokens.Pair, key string, err error)
	Swap(r *http.Request, call wire.Swap) (pair tokens.Pair, key string, err error)
}

// Token is what the token layer proved of a call from its headers: the
// token of a riff with sign-in; the zero Token in a riff with no
// sign-in. Only this package makes one.
type Token struct {
	t tokens.Token
}

// Key gives the thumbprint of the device key of the token ("" with
// none).
func (t Token) Key() string { return t.t.Key }

// NoSignIn is the token layer of a riff with no sign-in: it trusts its
// network, so riff-server listens on loopback only unless the person
// says otherwise. The caller is the me of the body, with the role of an
// admin (the state gives it).
type NoSignIn struct{}

var _ TokenLayer = NoSignIn{}

// textNoSignIn is the refusal of the token path in a riff with no
// sign-in.
const textNoSignIn = "this riff has no sign-in: it needs no riff login"

// Token takes any call: a riff with no sign-in checks no token.
func (NoSignIn) Token(*http.Request) (Token, *wire.Refused) { return Token{}, nil }

// Prove takes the caller from me. A call that names no me is refused
// with no_token; a me with a query part that this server does not know
// is refused with 400.
func (NoSignIn) Prove(r *http.Request, _ Token, me name.SessionURI) (Proof, *wire.Refused) {
	if me.IsZero() {
		return Proof{}, wire.Refuse(wire.NoToken, "a riff with no sign-in takes the caller from the field me of the body, and this call names no me")
	}
	if refused := unknownParts(me); refused != nil {
		return Proof{}, refused
	}
	return Proof{caller: riffstate.CallerOf(me), call: headerValue(r.Header, headerCall)}, nil
}

// Facts gives the facts to each caller: the riff trusts its network.
func (NoSignIn) Facts(*http.Request) (string, *wire.Refused) { return "", nil }

// Provider says that the riff has no sign-in.
func (NoSignIn) Provider() wire.ProviderReply { return wire.ProviderReply{} }

// SignIn is refused: no_sign_in.
func (NoSignIn) SignIn(*http.Request, wire.SignIn) (tokens.Pair, string, error) {
	return tokens.Pair{}, "", wire.Refuse(wire.NoSignIn, textNoSignIn)
}

// Refresh is refused: no_sign_in.
func (NoSignIn) Refresh(*http.Request, wire.Refresh) (tokens.Pair, string, error) {
	return tokens.Pair{}, "", wire.Refuse(wire.NoSignIn, textNoSignIn)
}

// Swap is refused: no_sign_in.
func (NoSignIn) Swap(*http.Request, wire.Swap) (tokens.Pair, string, error) {
	return tokens.Pair{}, "", wire.Refuse(wire.NoSignIn, textNoSignIn)
}

// unknownParts refuses a me with a query part that this server does not
// know.
func unknownParts(me name.SessionURI) *wire.Refused {
	if len(me.Unknown) > 0 {
		return wire.Refuse(wire.BadRequest, "the URI %s has a part that this riff-server does not know: %s", me.Bare(), quote.Input(strings.Join(me.Unknown, "&")))
	}
	return nil
}
