package riffengine

import (
	"net/http"
	"strings"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/quote"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffstate"
)

// TokenLayer proves the caller of a call. A riff with sign-in checks a
// token; a riff with no sign-in trusts its network. The layer gives the
// proof, or the refusal of the token layer (no_token, bad_token,
// bad_proof, not_you) as *wire.Refused.
type TokenLayer interface {
	Prove(r *http.Request, me name.SessionURI) (Proof, *wire.Refused)
}

// NoSignIn is the token layer of a riff with no sign-in: it trusts its
// network, so riff-server listens on loopback only unless the person
// says otherwise. The caller is the me of the body, with the role of an
// admin (the state gives it).
type NoSignIn struct{}

var _ TokenLayer = NoSignIn{}

// Prove takes the caller from me. A call that names no me is refused
// with no_token; a me with a query part that this server does not know
// is refused with 400.
func (NoSignIn) Prove(r *http.Request, me name.SessionURI) (Proof, *wire.Refused) {
	if me.IsZero() {
		return Proof{}, wire.Refuse(wire.NoToken, "a riff with no sign-in takes the caller from the field me of the body, and this call names no me")
	}
	if len(me.Unknown) > 0 {
		return Proof{}, wire.Refuse(wire.BadRequest, "the URI %s has a part that this riff-server does not know: %s", me.Bare(), quote.Input(strings.Join(me.Unknown, "&")))
	}
	return Proof{caller: riffstate.CallerOf(me), call: headerValue(r.Header, headerCall)}, nil
}
