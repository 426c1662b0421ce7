// Package tokens holds the sign-ins of a riff: the chains of refresh
// tokens, the access tokens of persons and of sessions, the position of
// the log at the start of each sign-in, and the snapshot signins.json. It
// keeps only hashes of tokens. It does no I/O and reads the clock only
// through its options: the engine writes the snapshot.
package tokens

import (
	"errors"
	"time"
)

// Person is who a sign-in is for: the USER of the riff and its email.
type Person struct {
	User  string
	Email string
}

// Token is what an access token proves.
type Token struct {
	Person
	// Session is the session ID of a session token; "" for the token of
	// the person.
	Session string
	// Key is the thumbprint (RFC 7638) of the device key of the sign-in.
	Key string
	// Position is the position of the log at the start of the sign-in.
	Position uint64
	Expires  time.Time
	// SignIn names the sign-in of the token (its chain ID), for the
	// streams that it opens: they end with it (Options.Ended). It is no
	// secret that refreshes: a refresh token also needs its secret.
	SignIn string
}

// Pair is the reply of a sign-in, a refresh or a swap: an access token,
// and for the person a refresh token chain.generation.secret.
type Pair struct {
	Access  string
	Refresh string
	Token   Token
	// SaveFirst is the version of the store that signins.json must hold
	// before the reply of a refresh (0: none): see [Store.Refresh].
	SaveFirst uint64
}

// The refusals of the store. The token layer maps them to its codes.
var (
	// ErrUnknown: the store does not know the token, or it expired
	// (bad_token).
	ErrUnknown = errors.New("riff-server does not know the token, or it expired")
	// ErrWrongKey: the proof is of another device key than the key of the
	// sign-in (bad_proof). The sign-in stays.
	ErrWrongKey = errors.New("the proof is not of the device key of the sign-in")
	// ErrReused: a refresh token of a generation older than the one
	// before the current one came back; the store ended the sign-in
	// (bad_token).
	ErrReused = errors.New("the refresh token was used before, so the sign-in ended: run riff login")
	// ErrEnded: the sign-in started before the last end of the sign-ins of
	// its person (a remove, a revoke).
	ErrEnded = errors.New("the sign-ins of the person ended after this sign-in started: run riff login")
	// ErrSessionSwap: a swap of a session token; a swap takes the token
	// of the person (not_you).
	ErrSessionSwap = errors.New("a session token cannot swap: swap the person token")
	// ErrNotSaved: the last write of signins.json failed, so a refresh
	// waits (503) and the snapshot falls no more generations behind.
	ErrNotSaved = errors.New("riff-server cannot save its sign-ins now; riff tries again")
)
