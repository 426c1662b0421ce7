package render

import (
	"errors"
	"fmt"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The texts of the errors of a call, for a person and for an agent. No
// Go error text of another kind reaches them: an error that these texts
// do not know is a reply that riff cannot use ([UnusableReply]).

// NotSignedInText is the text of a refusal no_token: the riff has
// sign-in, and the call had no token.
const NotSignedInText = "This riff has sign-in, and this machine is not signed in to it. Run riff login."

// ErrorWords gives the text of an error of riffclient or of a name for a
// person, and whether it is one of them. A refusal of the server is not
// one: its text is its reason.
func ErrorWords(err error) (string, bool) {
	var reach *riffclient.ReachError
	var noReply *riffclient.NoReplyError
	var reply *riffclient.ReplyError
	var front *riffclient.FrontEndError
	var nameErr *name.Error
	var auth *riffclient.AuthError
	switch {
	case errors.As(err, &auth):
		return Clean(auth.Error()), true
	case errors.As(err, &reach):
		return reach.Error(), true
	case errors.As(err, &noReply):
		return noReply.Error(), true
	case errors.As(err, &reply):
		return Clean(reply.Error()), true
	case errors.As(err, &front):
		return Clean(front.Error()), true
	case errors.As(err, &nameErr):
		return Clean(nameErr.Error()), true
	}
	return "", false
}

// UnusableReply is the text of an error that riff does not know: a
// reply of the server at server that riff cannot read.
func UnusableReply(server string) string {
	return fmt.Sprintf("riff cannot use the reply of riff-server at %s. Run riff server to see its build", server)
}

// SignInRefusal gives the text of a refusal of the token layer (no_token
// or bad_token) for a person: the fault of the sign-in of this machine
// (fault gives it; nil is a machine with no sign-in), else for no_token
// what to run. ok is false for any other refusal, and for bad_token
// with no fault: then the reason of the server says it.
func SignInRefusal(r *wire.Refused, fault func() error) (string, bool) {
	switch r.Code {
	case wire.NoToken, wire.BadToken:
	default:
		return "", false
	}
	if fault != nil {
		if err := fault(); err != nil {
			return err.Error(), true
		}
	}
	if r.Code == wire.NoToken {
		return NotSignedInText, true
	}
	return "", false
}

// LostSignIn gives the text of a fault of the sign-in of this machine
// for a person or a session (docs/login.md, "A lost sign-in"),
// and whether err is one: the Auth gave no token, or the riff refused the
// token or its lack. fault is as for [SignInRefusal].
func LostSignIn(err error, fault func() error) (string, bool) {
	var auth *riffclient.AuthError
	if errors.As(err, &auth) {
		return Clean(auth.Error()), true
	}
	var refused *wire.Refused
	if errors.As(err, &refused) {
		return SignInRefusal(refused, fault)
	}
	return "", false
}
