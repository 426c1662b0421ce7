// Package wire holds the wire of riff: each call as a type with its HTTP
// path and the type of its reply, the refusal codes with their HTTP
// statuses, and the headers. The server and the client use the same
// types, so they cannot disagree on a path or a field.
//
// It holds only types, codes and texts, and the fast path of the decode
// of the bodies of the steady calls (fast.go). It never sends a call and
// never serves one.
//
// # Basics
//
// Each call is a JSON body sent with POST to its path under /v1. The
// body names the caller in its field me: a session URI, or a person URI.
// A reply is JSON. A refusal has the status of its code, the header
// riff-refused with the code, and the reason as its text.
package wire

import (
	"fmt"
	"net/http"

	"github.com/como-technologies/riff/riffcore/quote"
)

// Call is one wire type with its path and the type of its reply. The
// client sends each call with one generic function, and the server makes
// one route for each.
type Call[R any] interface {
	// Path is the HTTP path of the call, for example /v1/claim.
	Path() string
	// reply ties the call to the type of its reply. It is never called.
	reply() R
}

// The headers of riff.
const (
	// HeaderBuild names the build of the sender on each call and each
	// reply: "0.4.3 7213825ab1c2 2026-09-27T20:10:44Z".
	HeaderBuild = "riff-build"
	// HeaderRefused holds the code of a refusal.
	HeaderRefused = "riff-refused"
	// HeaderRepeat is "1" on the reply of a repeated call: the reply
	// comes from the kept result.
	HeaderRepeat = "riff-repeat"
	// HeaderCall holds the call ID of a command. Each try of one call
	// sends the same ID, so the server runs the command once.
	HeaderCall = "riff-call"
)

// MaxBody is the largest body of a call.
const MaxBody = 64 << 10

// MaxCallID is the longest call ID. The client makes 32 hexadecimal
// characters, and ULIDs have 26: 128 leaves room
// for the IDs of other tools, and keeps each record that holds one small.
const MaxCallID = 128

// CheckCallID checks the call ID of riff-call: 1 to MaxCallID
// characters, each a visible ASCII character (no space, no control
// character). An empty ID is a call with no call ID, which the caller
// does not check.
func CheckCallID(id string) *Refused {
	if len(id) > MaxCallID {
		return Refuse(BadRequest, "the call ID of %s has %d bytes; the limit is %d", HeaderCall, len(id), MaxCallID)
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return Refuse(BadRequest, "the call ID %s of %s has a character that is not visible ASCII at byte %d: a call ID has only letters, digits and visible signs", quote.Input(id), HeaderCall, i+1)
		}
	}
	return nil
}

// Code is the code of a refusal. A reader takes a code that it does not
// know as text.
type Code string

// The codes of a refused command.
const (
	NotAllowed Code = "not_allowed"
	NoSignIn   Code = "no_sign_in"
	Held       Code = "held"
	Paused     Code = "paused"
	MustClear  Code = "must_clear"
	NotHolder  Code = "not_holder"
	OtherUser  Code = "other_user"
	NotMember  Code = "not_member"
	BadRequest Code = "bad_request"
	// OnHold refuses a held item to a worker.
	OnHold Code = "on_hold"
)

// The codes of the token layer. They are not codes of a refused command.
const (
	NoToken  Code = "no_token"
	BadToken Code = "bad_token"
	BadProof Code = "bad_proof"
	NotYou   Code = "not_you"
	OldBuild Code = "old_build"
)

// Codes lists each code of this build.
func Codes() []Code {
	return []Code{NotAllowed, NoSignIn, Held, Paused, MustClear, NotHolder, OtherUser, NotMember,
		BadRequest, OnHold, NoToken, BadToken, BadProof, NotYou, OldBuild}
}

// Status gives the HTTP status of a code. bad_proof is 401 for a proof
// of the device key; the refused signature of a post is 403, which the
// token layer sets itself. A code that this build does not know is 400.
func (c Code) Status() int {
	switch c {
	case NotAllowed, NoSignIn, NotMember, NotYou:
		return http.StatusForbidden
	case Held, Paused, MustClear, NotHolder, OtherUser, OnHold, OldBuild:
		return http.StatusConflict
	case NoToken, BadToken, BadProof:
		return http.StatusUnauthorized
	}
	return http.StatusBadRequest
}

// Known says whether this build knows the code.
func (c Code) Known() bool {
	for _, k := range Codes() {
		if k == c {
			return true
		}
	}
	return false
}

// Refused is a refusal: a code and a reason as text. It is the one typed
// error of a refused call, on the server and in the client.
type Refused struct {
	Code   Code
	Reason string
	// Status is the HTTP status of the reply, when it came over HTTP.
	Status int
}

// Refuse makes a refusal.
func Refuse(code Code, format string, args ...any) *Refused {
	return &Refused{Code: code, Reason: fmt.Sprintf(format, args...), Status: code.Status()}
}

func (r *Refused) Error() string { return r.Reason }
