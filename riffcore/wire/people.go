package wire

import "github.com/como-technologies/riff/riffcore/name"

// The commands of the people of a riff with sign-in. Each names a person
// by the email of the person; a riff with no sign-in refuses each one
// with no_sign_in.

// Invite lets the person of an email join the riff: the person signs in
// with riff login.
type Invite struct {
	Me    name.SessionURI `json:"me"`
	Email string          `json:"email"`
}

// Remove takes a member out of the riff and ends each sign-in of the
// person.
type Remove struct {
	Me    name.SessionURI `json:"me"`
	Email string          `json:"email"`
}

// SetAdmin adds (Admin true) or removes an admin. A person who is not a
// member becomes a member first.
type SetAdmin struct {
	Me    name.SessionURI `json:"me"`
	Email string          `json:"email"`
	Admin bool            `json:"admin"`
}

// PassOwner passes the owner role to a member. The old owner stays an
// admin.
type PassOwner struct {
	Me    name.SessionURI `json:"me"`
	Email string          `json:"email"`
}

// TakeOwner asks for the owner role: at once in a riff with no owner,
// else after the wait of a request, when the owner does not deny it.
type TakeOwner struct {
	Me name.SessionURI `json:"me"`
}

// DenyOwner ends the request for the owner role that waits.
type DenyOwner struct {
	Me name.SessionURI `json:"me"`
}

// Revoke ends each sign-in of a person: with no email, the caller's own.
type Revoke struct {
	Me    name.SessionURI `json:"me"`
	Email string          `json:"email,omitempty"`
}

// People lists the people of the riff: who may join, the members, the
// admins and the owner.
type People struct {
	Me name.SessionURI `json:"me"`
}

func (Invite) Path() string    { return "/v1/invite" }
func (Remove) Path() string    { return "/v1/remove" }
func (SetAdmin) Path() string  { return "/v1/admin/set" }
func (PassOwner) Path() string { return "/v1/owner/pass" }
func (TakeOwner) Path() string { return "/v1/owner/take" }
func (DenyOwner) Path() string { return "/v1/owner/deny" }
func (Revoke) Path() string    { return "/v1/revoke" }
func (People) Path() string    { return "/v1/people" }

func (Invite) reply() (r InviteReply)   { return }
func (Remove) reply() (r EndedReply)    { return }
func (SetAdmin) reply() (r TextReply)   { return }
func (PassOwner) reply() (r TextReply)  { return }
func (TakeOwner) reply() (r OwnerReply) { return }
func (DenyOwner) reply() (r TextReply)  { return }
func (Revoke) reply() (r EndedReply)    { return }
func (People) reply() (r PeopleReply)   { return }

func (c Invite) Caller() name.SessionURI    { return c.Me }
func (c Remove) Caller() name.SessionURI    { return c.Me }
func (c SetAdmin) Caller() name.SessionURI  { return c.Me }
func (c PassOwner) Caller() name.SessionURI { return c.Me }
func (c TakeOwner) Caller() name.SessionURI { return c.Me }
func (c DenyOwner) Caller() name.SessionURI { return c.Me }
func (c Revoke) Caller() name.SessionURI    { return c.Me }
func (c People) Caller() name.SessionURI    { return c.Me }

// InviteReply names the invited email and the public address of the
// riff, which the person gives riff login (--server). Server is empty
// when the riff-server has no public address set.
type InviteReply struct {
	Email  string `json:"email"`
	Server string `json:"server,omitempty"`
	Text   string `json:"text"`
}

// EndedReply is the reply of a remove and of a revoke: the email of the
// person and the number of its sign-ins that ended. The end of the
// sign-ins is an effect of the engine after the write of the record; the
// engine counts them (0 in the kept reply of a repeated call).
type EndedReply struct {
	Email string `json:"email"`
	Ended int    `json:"ended"`
	Text  string `json:"text"`
}

// OwnerReply says what a take of the owner role did: Owner when the
// caller is the owner now, else DueMs is the time (Unix ms) after which
// the server grants the request that waits, unless the owner denies it.
type OwnerReply struct {
	Owner bool   `json:"owner,omitempty"`
	DueMs int64  `json:"due_ms,omitempty"`
	Text  string `json:"text"`
}

// PeopleReply lists the people of the riff, each list in the order of
// the email. A caller who is not a member gets the users only, with no
// email: the people are personal data.
type PeopleReply struct {
	// Owner is the owner, or none (empty) when the riff has no owner.
	Owner *Person `json:"owner,omitempty"`
	// Asked is the admin whose request for the owner role waits, with
	// AskedDueMs, the time after which the server grants it.
	Asked      *Person `json:"asked,omitempty"`
	AskedDueMs int64   `json:"asked_due_ms,omitempty"`
	// Admins are the admins of the log and of the settings.
	Admins []Person `json:"admins"`
	// Members are the members who signed in.
	Members []Person `json:"members"`
	// MayJoin are the invited people who did not sign in yet.
	MayJoin []Person `json:"may_join"`
	// Domain is the allowed domain of the settings: each person with an
	// email of it may join.
	Domain string `json:"domain,omitempty"`
	// Emails says whether the reply holds the emails: only a member
	// reads them.
	Emails bool `json:"emails,omitempty"`
}

// Person is one person of the riff: the user (empty before the first
// sign-in), the email (only to a member), and Settings for an admin of
// the settings of the server, whom no command of the people changes.
type Person struct {
	User     string `json:"user,omitempty"`
	Email    string `json:"email,omitempty"`
	Settings bool   `json:"settings,omitempty"`
}
