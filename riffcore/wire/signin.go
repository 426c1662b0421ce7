package wire

import (
	"encoding/json"

	"github.com/como-technologies/riff/riffcore/name"
)

// The headers of a call with a token (RFC 9449): the access token as
// "DPoP TOKEN", and the proof of the device key. A call of the token
// path (sign-in, refresh) has a proof and no token.
const (
	HeaderAuthorization = "Authorization"
	HeaderDPoP          = "DPoP"
)

// SignInProvider asks how a person signs in to this riff. It needs no
// token: riff login asks it first.
type SignInProvider struct{}

// ProviderReply says whether the riff has sign-in, and how to sign in:
// the OpenID Connect provider and the OAuth client of riff login (an
// installed app: its secret is no secret, as the provider says). Riff is
// the ID of the riff, which riff keeps with the sign-in.
type ProviderReply struct {
	SignIn       bool     `json:"sign_in"`
	Riff         string   `json:"riff,omitempty"`
	Issuer       string   `json:"issuer,omitempty"`
	ClientID     string   `json:"client_id,omitempty"`
	ClientSecret string   `json:"client_secret,omitempty"`
	Scopes       []string `json:"scopes,omitempty"`
	// Reason says why no person can sign in, in a riff with sign-in and
	// no provider (riff-server --require-sign-in with no --client-id):
	// riff login shows it.
	Reason string `json:"reason,omitempty"`
}

// SignIn signs a person in: the ID token of the provider and the public
// key of the device (a JWK). The call has a DPoP proof of that key.
type SignIn struct {
	IDToken string          `json:"id_token"`
	Key     json.RawMessage `json:"key"`
}

// Refresh gives the next pair of tokens of a chain. The call has a DPoP
// proof of the device key of the sign-in.
type Refresh struct {
	RefreshToken string `json:"refresh_token"`
}

// Swap gives a session its own access token for the person token of the
// call (Authorization and DPoP): it ends no other token.
type Swap struct {
	Session string `json:"session"`
}

// TokenReply holds the tokens of a sign-in, a refresh or a swap. A swap
// gives no refresh token.
type TokenReply struct {
	AccessToken  string `json:"access_token"`
	ExpiresSecs  int64  `json:"expires_secs"`
	RefreshToken string `json:"refresh_token,omitempty"`
	// User is the USER of the person in the riff, Email its email.
	User  string `json:"user"`
	Email string `json:"email,omitempty"`
	// Riff is the ID of the riff.
	Riff string `json:"riff"`
}

func (SignInProvider) Path() string { return "/v1/signin/provider" }
func (SignIn) Path() string         { return "/v1/signin" }
func (Refresh) Path() string        { return "/v1/token/refresh" }
func (Swap) Path() string           { return "/v1/token/swap" }

func (SignInProvider) reply() (r ProviderReply) { return }
func (SignIn) reply() (r TokenReply)            { return }
func (Refresh) reply() (r TokenReply)           { return }
func (Swap) reply() (r TokenReply)              { return }

// The calls of the token path name no caller: the token layer does not
// read a me for them.
func (SignInProvider) Caller() name.SessionURI { return name.SessionURI{} }
func (SignIn) Caller() name.SessionURI         { return name.SessionURI{} }
func (Refresh) Caller() name.SessionURI        { return name.SessionURI{} }
func (Swap) Caller() name.SessionURI           { return name.SessionURI{} }
