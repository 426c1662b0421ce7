package record

import (
	"encoding/json"
	"fmt"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/quote"
	"github.com/como-technologies/riff/riffcore/selector"
)

// The kinds of change of release 1.0.0. A kind is never renamed, and the
// name of a removed kind is never used again.
const (
	KindRiffMade         Kind = "riff_made"
	KindSessionStarted   Kind = "session_started"
	KindSessionForgotten Kind = "session_forgotten"
	KindJoinedThread     Kind = "joined_thread"
	KindLeftThread       Kind = "left_thread"
	KindPosted           Kind = "posted"
	KindClaimed          Kind = "claimed"
	KindReleased         Kind = "released"
	KindLeadSet          Kind = "lead_set"
	KindPauseSet         Kind = "pause_set"
	KindItemHeld         Kind = "item_held"
	KindItemFreed        Kind = "item_freed"
	KindPlanSet          Kind = "plan_set"
	KindPlanEnded        Kind = "plan_ended"
	KindNotesSet         Kind = "notes_set"
	KindSettingChanged   Kind = "setting_changed"
	KindPersonJoined     Kind = "person_joined"
	KindMemberInvited    Kind = "member_invited"
	KindMemberRemoved    Kind = "member_removed"
	KindAdminSet         Kind = "admin_set"
	KindOwnerSet         Kind = "owner_set"
	KindOwnerAsked       Kind = "owner_asked"
	KindOwnerDenied      Kind = "owner_denied"
	KindOwnerEnded       Kind = "owner_ended"
	KindSigninsEnded     Kind = "signins_ended"
)

// The kinds of change after release 1.0.0: each has a name of its own,
// and a build of 1.0.0 skips it.
const (
	KindRelayStarted Kind = "relay_started"
	KindRelayEnded   Kind = "relay_ended"
)

// Kinds lists each change kind of this build: the registry. The fixture
// kinds.json lists the same names, and a test compares the two.
func Kinds() []Kind {
	return []Kind{
		KindRiffMade, KindSessionStarted, KindSessionForgotten, KindJoinedThread, KindLeftThread,
		KindPosted, KindClaimed, KindReleased, KindLeadSet, KindPauseSet, KindItemHeld, KindItemFreed,
		KindPlanSet, KindPlanEnded, KindNotesSet, KindSettingChanged,
		KindPersonJoined, KindMemberInvited, KindMemberRemoved, KindAdminSet, KindOwnerSet,
		KindOwnerAsked, KindOwnerDenied, KindOwnerEnded, KindSigninsEnded,
		KindRelayStarted, KindRelayEnded,
	}
}

// decodeKind reads the body of a change of kind k; known is false for a
// kind that this build does not know.
func decodeKind(k Kind, body []byte) (c Change, known bool, err error) {
	switch k {
	case KindRiffMade:
		return decodeAs[RiffMade](body)
	case KindSessionStarted:
		return decodeAs[SessionStarted](body)
	case KindSessionForgotten:
		return decodeAs[SessionForgotten](body)
	case KindJoinedThread:
		return decodeAs[JoinedThread](body)
	case KindLeftThread:
		return decodeAs[LeftThread](body)
	case KindPosted:
		return decodeAs[Posted](body)
	case KindClaimed:
		return decodeAs[Claimed](body)
	case KindReleased:
		return decodeAs[Released](body)
	case KindLeadSet:
		return decodeAs[LeadSet](body)
	case KindPauseSet:
		return decodeAs[PauseSet](body)
	case KindItemHeld:
		return decodeAs[ItemHeld](body)
	case KindItemFreed:
		return decodeAs[ItemFreed](body)
	case KindPlanSet:
		return decodeAs[PlanSet](body)
	case KindPlanEnded:
		return decodeAs[PlanEnded](body)
	case KindNotesSet:
		return decodeAs[NotesSet](body)
	case KindSettingChanged:
		return decodeAs[SettingChanged](body)
	case KindPersonJoined:
		return decodeAs[PersonJoined](body)
	case KindMemberInvited:
		return decodeAs[MemberInvited](body)
	case KindMemberRemoved:
		return decodeAs[MemberRemoved](body)
	case KindAdminSet:
		return decodeAs[AdminSet](body)
	case KindOwnerSet:
		return decodeAs[OwnerSet](body)
	case KindOwnerAsked:
		return decodeAs[OwnerAsked](body)
	case KindOwnerDenied:
		return decodeAs[OwnerDenied](body)
	case KindOwnerEnded:
		return decodeAs[OwnerEnded](body)
	case KindSigninsEnded:
		return decodeAs[SigninsEnded](body)
	case KindRelayStarted:
		return decodeAs[RelayStarted](body)
	case KindRelayEnded:
		return decodeAs[RelayEnded](body)
	}
	return nil, false, nil
}

// RiffMade gives the riff its ID. A new riff has this record first.
type RiffMade struct {
	Riff string `json:"riff"`
}

// SessionStarted is a start of a session, or its first record.
type SessionStarted struct {
	Session name.SessionURI `json:"session"`
	Reason  Reason          `json:"reason"`
	// Worker marks a session that registered as a worker.
	Worker bool `json:"worker,omitempty"`
}

// SessionForgotten takes a session out of the riff: its places in the
// threads, its lead, and each direct thread whose two sides are gone.
type SessionForgotten struct {
	Session name.SessionURI `json:"session"`
}

// JoinedThread is a join of a thread.
type JoinedThread struct {
	Session name.SessionURI `json:"session"`
	Thread  name.Thread     `json:"thread"`
}

// LeftThread is a leave of a thread.
type LeftThread struct {
	Session name.SessionURI `json:"session"`
	Thread  name.Thread     `json:"thread"`
}

// Posted is a message in a thread. Payload and Sig are the signed bytes
// of the sender, kept unchanged: no build encodes the payload again.
// The server adds the fields that it owns: the seq and the sessions that
// the message woke.
type Posted struct {
	Thread name.Thread `json:"thread"`
	Seq    uint64      `json:"seq"`
	// Sender is the session or the person that posted, at its place.
	Sender name.SessionURI     `json:"sender"`
	Type   MessageKind         `json:"kind"`
	To     []selector.Selector `json:"to,omitempty"`
	// Key drops a second post with the same key from the same person.
	Key string `json:"key,omitempty"`
	// Lead is the lead mark of the sender, as the server checked it.
	Lead bool `json:"lead,omitempty"`
	// Payload is the JSON of the signed content (signed.Content).
	Payload []byte `json:"payload"`
	// Sig is the detached JWS of the payload; empty in a riff with no
	// sign-in.
	Sig string `json:"sig,omitempty"`
	// Woken names each session that the message woke.
	Woken []name.Who `json:"woken,omitempty"`
}

// Claimed is a claim of an item in a thread.
type Claimed struct {
	Session name.SessionURI `json:"session"`
	Thread  name.Thread     `json:"thread"`
	Item    name.Item       `json:"item"`
}

// Released ends a claim. MustClear marks the last release of a worker by
// itself: the worker clears its context before its next claim.
type Released struct {
	Session   name.SessionURI `json:"session"`
	Thread    name.Thread     `json:"thread"`
	Item      name.Item       `json:"item"`
	MustClear bool            `json:"must_clear,omitempty"`
}

// LeadSet names the session the lead of its user in the repository of
// the thread. It replaces the lead before it, which Old names: the new
// lead takes its read marks.
type LeadSet struct {
	Session name.SessionURI `json:"session"`
	Thread  name.Thread     `json:"thread"`
	Old     *name.Who       `json:"old,omitempty"`
}

// PauseSet sets the pause of the riff or of a repository.
type PauseSet struct {
	Scope Scope      `json:"scope"`
	State PauseState `json:"state"`
}

// ItemHeld keeps an item from the workers, with a reason of 1 to 200
// characters. A hold of a held item replaces its reason.
type ItemHeld struct {
	Thread name.Thread `json:"thread"`
	Item   name.Item   `json:"item"`
	Reason string      `json:"reason"`
}

// ItemFreed ends a hold.
type ItemFreed struct {
	Thread name.Thread `json:"thread"`
	Item   name.Item   `json:"item"`
}

// PlanSet keeps the plan of a repository thread: the text of the lead's
// plan of its wave.
type PlanSet struct {
	Thread name.Thread `json:"thread"`
	Plan   string      `json:"plan"`
}

// PlanEnded ends the plan of a thread.
type PlanEnded struct {
	Thread name.Thread `json:"thread"`
}

// NotesSet replaces the notes of the lead of a user in a repository. The
// riff keeps each old text.
type NotesSet struct {
	User   string      `json:"user"`
	Thread name.Thread `json:"thread"`
	Text   string      `json:"text"`
}

// SettingChanged holds each setting that changed; an absent field is not
// changed.
type SettingChanged struct {
	IdleWorkers *IdleWorkers `json:"idle_workers,omitempty"`
}

// IdleWorkers is the number of idle workers that the riff keeps for a
// user, a host and a repository.
type IdleWorkers struct {
	User  string    `json:"user"`
	Host  string    `json:"host"`
	Repo  name.Repo `json:"repo"`
	Count int       `json:"count"`
}

// PersonJoined gives a user its email at its first sign-in.
type PersonJoined struct {
	User  string `json:"user"`
	Email string `json:"email"`
}

// MemberInvited lets a person join.
type MemberInvited struct {
	Email string `json:"email"`
}

// MemberRemoved takes a member out, and ends its sign-ins.
type MemberRemoved struct {
	Email string `json:"email"`
}

// AdminSet adds or removes an admin.
type AdminSet struct {
	Email string `json:"email"`
	Admin bool   `json:"admin"`
}

// OwnerSet names the owner.
type OwnerSet struct {
	Email string `json:"email"`
}

// OwnerAsked is a request of an admin for the owner role.
type OwnerAsked struct {
	Email string `json:"email"`
}

// OwnerDenied ends a request for the owner role.
type OwnerDenied struct {
	Email string `json:"email"`
}

// OwnerEnded ends the role of an owner who is gone.
type OwnerEnded struct {
	Email string `json:"email"`
}

// SigninsEnded ends each sign-in of a person.
type SigninsEnded struct {
	Email string `json:"email"`
}

// RelayStarted is a relay of a session (one run of riff relay mcp) that
// registered with its instance ID: it serves the session until its
// relay_ended. An end of another relay does not end a session that it
// serves while it gives signs of life.
type RelayStarted struct {
	Session name.SessionURI `json:"session"`
	Relay   string          `json:"relay"`
}

// RelayEnded is a relay of a session that no longer serves it: its end,
// or no sign of life for 3 minutes when another relay registers. Last
// marks the end that ended the session (no other relay served it): the
// session has no relay left.
type RelayEnded struct {
	Session name.SessionURI `json:"session"`
	Relay   string          `json:"relay"`
	Last    bool            `json:"last,omitempty"`
}

func (RiffMade) Kind() Kind         { return KindRiffMade }
func (SessionStarted) Kind() Kind   { return KindSessionStarted }
func (SessionForgotten) Kind() Kind { return KindSessionForgotten }
func (JoinedThread) Kind() Kind     { return KindJoinedThread }
func (LeftThread) Kind() Kind       { return KindLeftThread }
func (Posted) Kind() Kind           { return KindPosted }
func (Claimed) Kind() Kind          { return KindClaimed }
func (Released) Kind() Kind         { return KindReleased }
func (LeadSet) Kind() Kind          { return KindLeadSet }
func (PauseSet) Kind() Kind         { return KindPauseSet }
func (ItemHeld) Kind() Kind         { return KindItemHeld }
func (ItemFreed) Kind() Kind        { return KindItemFreed }
func (PlanSet) Kind() Kind          { return KindPlanSet }
func (PlanEnded) Kind() Kind        { return KindPlanEnded }
func (NotesSet) Kind() Kind         { return KindNotesSet }
func (SettingChanged) Kind() Kind   { return KindSettingChanged }
func (PersonJoined) Kind() Kind     { return KindPersonJoined }
func (MemberInvited) Kind() Kind    { return KindMemberInvited }
func (MemberRemoved) Kind() Kind    { return KindMemberRemoved }
func (AdminSet) Kind() Kind         { return KindAdminSet }
func (OwnerSet) Kind() Kind         { return KindOwnerSet }
func (OwnerAsked) Kind() Kind       { return KindOwnerAsked }
func (OwnerDenied) Kind() Kind      { return KindOwnerDenied }
func (OwnerEnded) Kind() Kind       { return KindOwnerEnded }
func (SigninsEnded) Kind() Kind     { return KindSigninsEnded }
func (RelayStarted) Kind() Kind     { return KindRelayStarted }
func (RelayEnded) Kind() Kind       { return KindRelayEnded }

func unknownURI(u name.SessionURI) bool { return len(u.Unknown) > 0 }

func (RiffMade) hasOther() bool           { return false }
func (c SessionStarted) hasOther() bool   { return c.Reason == ReasonOther || unknownURI(c.Session) }
func (c SessionForgotten) hasOther() bool { return unknownURI(c.Session) }
func (c JoinedThread) hasOther() bool     { return unknownURI(c.Session) }
func (c LeftThread) hasOther() bool       { return unknownURI(c.Session) }
func (c Posted) hasOther() bool {
	return c.Type == MessageOther || selector.AnyOther(c.To) || unknownURI(c.Sender)
}
func (c Claimed) hasOther() bool      { return unknownURI(c.Session) }
func (c Released) hasOther() bool     { return unknownURI(c.Session) }
func (c LeadSet) hasOther() bool      { return unknownURI(c.Session) }
func (c PauseSet) hasOther() bool     { return c.Scope.IsOther() }
func (ItemHeld) hasOther() bool       { return false }
func (ItemFreed) hasOther() bool      { return false }
func (PlanSet) hasOther() bool        { return false }
func (PlanEnded) hasOther() bool      { return false }
func (NotesSet) hasOther() bool       { return false }
func (SettingChanged) hasOther() bool { return false }
func (PersonJoined) hasOther() bool   { return false }
func (MemberInvited) hasOther() bool  { return false }
func (MemberRemoved) hasOther() bool  { return false }
func (AdminSet) hasOther() bool       { return false }
func (OwnerSet) hasOther() bool       { return false }
func (OwnerAsked) hasOther() bool     { return false }
func (OwnerDenied) hasOther() bool    { return false }
func (OwnerEnded) hasOther() bool     { return false }
func (SigninsEnded) hasOther() bool   { return false }
func (c RelayStarted) hasOther() bool { return unknownURI(c.Session) }
func (c RelayEnded) hasOther() bool   { return unknownURI(c.Session) }

// Reason is why a session started.
type Reason string

// The reasons of session_started. process and clear are fresh starts.
const (
	ReasonProcess Reason = "process"
	ReasonResume  Reason = "resume"
	ReasonClear   Reason = "clear"
	ReasonJoin    Reason = "join"
	// ReasonOther is a reason that this build does not know.
	ReasonOther Reason = "other"
)

// Fresh says whether the start has a fresh context: it ends MustClear.
func (r Reason) Fresh() bool { return r == ReasonProcess || r == ReasonClear }

// ParseReason reads a reason of a call; a value that this build does not
// know is an error here, since only the read of the log takes a value of
// a later build.
func ParseReason(s string) (Reason, error) {
	switch r := Reason(s); r {
	case ReasonProcess, ReasonResume, ReasonClear, ReasonJoin:
		return r, nil
	}
	return "", fmt.Errorf("reason %s: the reasons are process, resume, clear and join", quote.Input(s))
}

// UnmarshalJSON reads each value that this build does not know, and each
// form of JSON that is not a string, as other.
func (r *Reason) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) != nil {
		*r = ReasonOther
		return nil
	}
	parsed, err := ParseReason(s)
	if err != nil {
		parsed = ReasonOther
	}
	*r = parsed
	return nil
}

// MessageKind is the kind of a message.
type MessageKind string

// The kinds of a message. A note wakes nobody. A status request wakes the
// sessions that it selects, and they answer with their status.
const (
	MessagePlain  MessageKind = "message"
	MessageNote   MessageKind = "note"
	MessageStatus MessageKind = "status"
	// MessageOther is a kind that this build does not know. A reader
	// shows such a message as a message.
	MessageOther MessageKind = "other"
)

// ParseMessageKind reads the kind of a call; an unknown kind is an error.
func ParseMessageKind(s string) (MessageKind, error) {
	switch k := MessageKind(s); k {
	case MessagePlain, MessageNote, MessageStatus:
		return k, nil
	}
	return "", fmt.Errorf("kind %s: the kinds of a message are message, note and status", quote.Input(s))
}

// UnmarshalJSON reads each kind that this build does not know as other.
func (k *MessageKind) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) != nil {
		*k = MessageOther
		return nil
	}
	parsed, err := ParseMessageKind(s)
	if err != nil {
		parsed = MessageOther
	}
	*k = parsed
	return nil
}

// Scope is the scope of a pause: the whole riff ("riff"), or a
// repository ({"repository":"OWNER/REPO"}).
type Scope struct {
	Riff       bool
	Repository name.Repo
	// Other keeps the JSON of a scope that this build does not know. A
	// pause_set with such a scope changes no pause.
	Other json.RawMessage
}

// RiffScope and RepoScope make the two scopes.
func RiffScope() Scope { return Scope{Riff: true} }

// RepoScope is the scope of one repository.
func RepoScope(r name.Repo) Scope { return Scope{Repository: r} }

// IsOther says whether the scope is one that this build does not know.
func (s Scope) IsOther() bool { return s.Other != nil }

// MarshalJSON writes "riff", {"repository":...}, or the JSON of other.
func (s Scope) MarshalJSON() ([]byte, error) {
	switch {
	case s.IsOther():
		return s.Other, nil
	case s.Riff:
		return []byte(`"riff"`), nil
	case s.Repository != "":
		return json.Marshal(struct {
			Repository name.Repo `json:"repository"`
		}{s.Repository})
	}
	return nil, fmt.Errorf("scope: neither the riff nor a repository")
}

// UnmarshalJSON reads each form that this build does not know as other.
func (s *Scope) UnmarshalJSON(b []byte) error {
	if !json.Valid(b) {
		return fmt.Errorf("scope: the bytes are not JSON")
	}
	var text string
	if json.Unmarshal(b, &text) == nil && text == "riff" {
		*s = RiffScope()
		return nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(b, &fields) == nil && len(fields) == 1 && fields["repository"] != nil {
		var repo name.Repo
		if json.Unmarshal(fields["repository"], &repo) == nil && repo.InGit() {
			*s = RepoScope(repo)
			return nil
		}
	}
	*s = Scope{Other: append(json.RawMessage(nil), b...)}
	return nil
}

// String gives the scope as people read it.
func (s Scope) String() string {
	switch {
	case s.IsOther():
		return "a scope of another build"
	case s.Riff:
		return "the riff"
	}
	return string(s.Repository)
}

// PauseState is paused or running. The set never grows.
type PauseState string

// The two states of a pause.
const (
	Paused  PauseState = "paused"
	Running PauseState = "running"
)

// UnmarshalJSON refuses a state other than paused and running.
func (p *PauseState) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	switch PauseState(s) {
	case Paused, Running:
		*p = PauseState(s)
		return nil
	}
	return fmt.Errorf("state %s: a pause is paused or running", quote.Input(s))
}
