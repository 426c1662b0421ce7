package riffstate

import (
	"slices"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
)

// Role is the role of a caller. The owner has the role of an admin too.
type Role int

// The roles, in order.
const (
	Member Role = iota
	Admin
	Owner
)

func (r Role) String() string {
	switch r {
	case Admin:
		return "admin"
	case Owner:
		return "owner"
	}
	return "member"
}

// Caller is who sends a command: its URI at its place, its class, its
// worker mark and its role. The token layer gives the URI and the class;
// [State.Caller] adds the worker mark and the role from the pending copy.
type Caller struct {
	URI    name.SessionURI
	Class  record.Class
	Worker bool
	Role   Role
	// Key is the thumbprint (RFC 7638) of the device key of the caller's
	// token: empty in a riff with no sign-in, and for the server.
	Key string
	// SignedInAt is the position of the log at the start of the caller's
	// sign-in; 0 with no sign-in.
	SignedInAt uint64
	// Email is the email of the caller's user, from the people of the
	// copy that gave its role ([View.WithRole]); empty with no sign-in
	// and before the first sign-in of the user.
	Email string
}

// CallerOf makes the caller of a URI: a session, or a person when the URI
// has no session ID. It has no worker mark and the role of a member.
func CallerOf(u name.SessionURI) Caller {
	class := record.ClassSession
	if u.IsPerson() {
		class = record.ClassPerson
	}
	return Caller{URI: u.Bare(), Class: class}
}

// ServerURI is the sender of each message of the server (a note in a
// thread, a direct message): riff@server.
func ServerURI() name.SessionURI { return name.SessionURI{User: "riff", Host: "server"} }

// ServerNames are the user names that riff-server uses for itself: riff,
// the user of its URI riff@server (the sender of its notes and direct
// messages, the person side ~riff of its direct threads), and
// riff-server, the name that its texts give it. No person has one
// (docs/people.md, "The names of the server").
func ServerNames() []string { return []string{ServerURI().User, "riff-server"} }

// IsServerName says whether user is one of [ServerNames].
func IsServerName(user string) bool { return slices.Contains(ServerNames(), user) }

// ServerCaller is the server, as the caller of its own commands.
func ServerCaller() Caller {
	return Caller{URI: ServerURI(), Class: record.ClassServer, Role: Owner}
}

// Who gives the user and the session ID of the caller.
func (c Caller) Who() name.Who { return c.URI.Who() }

// With gives the caller with another role.
func (c Caller) With(r Role) Caller {
	c.Role = r
	return c
}

// AsWorker gives the caller with the worker mark.
func (c Caller) AsWorker() Caller {
	c.Worker = true
	return c
}

// By gives the cause of a record of the caller.
func (c Caller) By() *record.By {
	switch c.Class {
	case record.ClassSession:
		return record.BySession(c.Who())
	case record.ClassPerson:
		return record.ByPerson(c.URI.User)
	case record.ClassSignIn:
		return &record.By{Class: record.ClassSignIn, Who: name.Who{User: c.URI.User}}
	case record.ClassServer:
		return record.ByServer()
	}
	return &record.By{Class: record.ClassOther, Raw: []byte(`{}`)}
}

// Now is the time of a call, given by the engine: riffstate reads no
// clock. Ms is Unix milliseconds.
type Now struct{ Ms int64 }

// Times of the rules that handle and the views decide from now.
const (
	// ClaimTimeoutMs: a claim of a session with no sign of life for 5
	// minutes has ended: another session can take the item, and the views
	// show no such claim. No record ends it, so a session that comes back
	// has it again when nobody took it. A lead that stopped for as long
	// does not count.
	ClaimTimeoutMs = 5 * 60 * 1000
	// GoneMs: who lists no session that stopped for 3 minutes.
	GoneMs = 3 * 60 * 1000
	// ForgetMs: the server forgets a session with no sign of life for 30
	// days.
	ForgetMs = 30 * 24 * 60 * 60 * 1000
	// KeptMessages is the number of messages of a thread that the riff
	// keeps.
	KeptMessages = 200
	// PageSize is the number of messages of a thread in one read.
	PageSize = 50
	// MaxNotes is the largest text of the notes of a lead.
	MaxNotes = 64 << 10
	// MaxHoldReason is the longest reason of a hold.
	MaxHoldReason = 200
)
