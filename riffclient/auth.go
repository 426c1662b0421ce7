package riffclient

import (
	"context"
	"crypto/ecdsa"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Auth gives the client of one process the sign-in of its machine, in a
// riff with sign-in: the device key that signs each DPoP proof and each
// post, and the access token of each caller. A client with no Auth sends
// no token, as a riff with no sign-in wants.
type Auth interface {
	// Key gives the device key of the machine.
	Key() *ecdsa.PrivateKey
	// Token gives the access token for calls as me: the token of the
	// person, or for a session the session token of this process (a swap
	// of the person token, again before it expires). A token of ""
	// sends no token and no proof: the machine has no sign-in for this
	// riff.
	Token(ctx context.Context, me name.SessionURI) (string, error)
	// Refused tells that the server refused token with code (bad_token,
	// say). It says whether one more try with a new Token can work.
	Refused(ctx context.Context, me name.SessionURI, token string, code wire.Code) bool
}
