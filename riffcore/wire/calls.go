package wire

import (
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/selector"
)

// Register makes the caller known at its place. A register of a session
// that the riff does not know, or with another worker mark, starts it
// with the reason join.
type Register struct {
	Me     name.SessionURI `json:"me"`
	Worker bool            `json:"worker,omitempty"`
	// Relay is the instance ID of the relay that registers (one run of
	// riff relay mcp; see [End]). None is a client of an older build.
	Relay string `json:"relay,omitempty"`
}

// Start is a new start of a session: a new process (process), a resume,
// or a clear. It frees each claim of the session.
type Start struct {
	Me     name.SessionURI `json:"me"`
	Reason record.Reason   `json:"reason"`
	Worker bool            `json:"worker,omitempty"`
}

// End ends a session: its claims are free at once. An end that names
// its Relay ends only that relay while another relay of the session
// gives signs of life (docs/wire.md, end): a second riff relay mcp of
// the same session (claude mcp list starts one) does not end the live
// one when it exits. An end with no relay ends the session, as an older
// client's end does.
type End struct {
	Me    name.SessionURI `json:"me"`
	Relay string          `json:"relay,omitempty"`
}

// Join joins a thread.
type Join struct {
	Me     name.SessionURI `json:"me"`
	Thread string          `json:"thread"`
}

// Leave leaves a thread.
type Leave struct {
	Me     name.SessionURI `json:"me"`
	Thread string          `json:"thread"`
}

// Post posts a message. Thread is empty for the default thread of the
// caller. Tell names the other side of a direct message: a session ID,
// the start of one (4 characters or more), ~USER for a person, or lead
// for the lead of the caller's user in its repository.
type Post struct {
	Me     name.SessionURI     `json:"me"`
	Thread string              `json:"thread,omitempty"`
	Tell   string              `json:"tell,omitempty"`
	To     []selector.Selector `json:"to,omitempty"`
	Kind   record.MessageKind  `json:"kind,omitempty"`
	Body   string              `json:"body"`
	// Key drops a later post with the same key from the same person.
	Key string `json:"key,omitempty"`
	// Payload and Sig are the signed content and its detached JWS, in a
	// riff with sign-in. With no payload, the server makes it from the
	// fields of the call.
	Payload []byte `json:"payload,omitempty"`
	Sig     string `json:"sig,omitempty"`
}

// Claim claims an item in a thread (empty: the default thread).
type Claim struct {
	Me     name.SessionURI `json:"me"`
	Thread string          `json:"thread,omitempty"`
	Item   name.Item       `json:"item"`
}

// Release releases an item that the caller holds.
type Release struct {
	Me     name.SessionURI `json:"me"`
	Thread string          `json:"thread,omitempty"`
	Item   name.Item       `json:"item"`
}

// ReleaseFor frees the claim of another session of the caller's user:
// only the lead of the user in the repository can.
type ReleaseFor struct {
	Me     name.SessionURI `json:"me"`
	Thread string          `json:"thread,omitempty"`
	Item   name.Item       `json:"item"`
	// Session is the session ID of the holder, or its start (4
	// characters or more).
	Session string `json:"session"`
}

// Lead names a session the lead of the caller's user in the repository
// of the session. Only a person can.
type Lead struct {
	Me name.SessionURI `json:"me"`
	// Session is the session ID of the new lead, or its start (4
	// characters or more).
	Session string `json:"session"`
}

// Pause pauses the repository of the caller, the whole riff (Riff), or a
// repository by its name (Repository).
type Pause struct {
	Me         name.SessionURI `json:"me"`
	Riff       bool            `json:"riff,omitempty"`
	Repository name.Repo       `json:"repository,omitempty"`
}

// Resume ends a pause, in the same scopes as [Pause].
type Resume struct {
	Me         name.SessionURI `json:"me"`
	Riff       bool            `json:"riff,omitempty"`
	Repository name.Repo       `json:"repository,omitempty"`
}

// Hold keeps an item from the workers, with a reason of 1 to 200
// characters.
type Hold struct {
	Me     name.SessionURI `json:"me"`
	Thread string          `json:"thread,omitempty"`
	Item   name.Item       `json:"item"`
	Reason string          `json:"reason"`
}

// Free ends the hold of an item.
type Free struct {
	Me     name.SessionURI `json:"me"`
	Thread string          `json:"thread,omitempty"`
	Item   name.Item       `json:"item"`
}

// SetPlan keeps the plan of the lead for a repository thread.
type SetPlan struct {
	Me     name.SessionURI `json:"me"`
	Thread string          `json:"thread,omitempty"`
	Plan   string          `json:"plan"`
}

// PlanOff ends the plan of a thread.
type PlanOff struct {
	Me     name.SessionURI `json:"me"`
	Thread string          `json:"thread,omitempty"`
}

// SetNotes replaces the notes of the lead of the caller's user in a
// repository (empty: the repository of the caller).
type SetNotes struct {
	Me     name.SessionURI `json:"me"`
	Thread string          `json:"thread,omitempty"`
	Text   string          `json:"text"`
}

// SetIdle sets the number of idle workers that the riff keeps for a
// user, a host and a repository.
type SetIdle struct {
	Me    name.SessionURI `json:"me"`
	User  string          `json:"user"`
	Host  string          `json:"host"`
	Repo  name.Repo       `json:"repo"`
	Count int             `json:"count"`
}

// The paths of the commands.
func (Register) Path() string   { return "/v1/register" }
func (Start) Path() string      { return "/v1/start" }
func (End) Path() string        { return "/v1/end" }
func (Join) Path() string       { return "/v1/join" }
func (Leave) Path() string      { return "/v1/leave" }
func (Post) Path() string       { return "/v1/post" }
func (Claim) Path() string      { return "/v1/claim" }
func (Release) Path() string    { return "/v1/release" }
func (ReleaseFor) Path() string { return "/v1/release/for" }
func (Lead) Path() string       { return "/v1/lead" }
func (Pause) Path() string      { return "/v1/pause" }
func (Resume) Path() string     { return "/v1/resume" }
func (Hold) Path() string       { return "/v1/hold" }
func (Free) Path() string       { return "/v1/free" }
func (SetPlan) Path() string    { return "/v1/plan" }
func (PlanOff) Path() string    { return "/v1/plan/off" }
func (SetNotes) Path() string   { return "/v1/notes" }
func (SetIdle) Path() string    { return "/v1/idle/set" }

func (Register) reply() (r RegisterReply)     { return }
func (Start) reply() (r StartReply)           { return }
func (End) reply() (r EndReply)               { return }
func (Join) reply() (r ThreadReply)           { return }
func (Leave) reply() (r ThreadReply)          { return }
func (Post) reply() (r PostReply)             { return }
func (Claim) reply() (r ClaimReply)           { return }
func (Release) reply() (r ReleaseReply)       { return }
func (ReleaseFor) reply() (r ReleaseForReply) { return }
func (Lead) reply() (r LeadReply)             { return }
func (Pause) reply() (r PauseReply)           { return }
func (Resume) reply() (r PauseReply)          { return }
func (Hold) reply() (r TextReply)             { return }
func (Free) reply() (r TextReply)             { return }
func (SetPlan) reply() (r TextReply)          { return }
func (PlanOff) reply() (r TextReply)          { return }
func (SetNotes) reply() (r TextReply)         { return }
func (SetIdle) reply() (r TextReply)          { return }

// Caller gives the me of a body. Each call has one.
func (c Register) Caller() name.SessionURI   { return c.Me }
func (c Start) Caller() name.SessionURI      { return c.Me }
func (c End) Caller() name.SessionURI        { return c.Me }
func (c Join) Caller() name.SessionURI       { return c.Me }
func (c Leave) Caller() name.SessionURI      { return c.Me }
func (c Post) Caller() name.SessionURI       { return c.Me }
func (c Claim) Caller() name.SessionURI      { return c.Me }
func (c Release) Caller() name.SessionURI    { return c.Me }
func (c ReleaseFor) Caller() name.SessionURI { return c.Me }
func (c Lead) Caller() name.SessionURI       { return c.Me }
func (c Pause) Caller() name.SessionURI      { return c.Me }
func (c Resume) Caller() name.SessionURI     { return c.Me }
func (c Hold) Caller() name.SessionURI       { return c.Me }
func (c Free) Caller() name.SessionURI       { return c.Me }
func (c SetPlan) Caller() name.SessionURI    { return c.Me }
func (c PlanOff) Caller() name.SessionURI    { return c.Me }
func (c SetNotes) Caller() name.SessionURI   { return c.Me }
func (c SetIdle) Caller() name.SessionURI    { return c.Me }

// RegisterReply gives the URI of the caller, as the server holds it:
// with its claims and lead=true.
type RegisterReply struct {
	URI name.SessionURI `json:"uri"`
}

// StartReply gives the URI and the claims that the start freed.
type StartReply struct {
	URI      name.SessionURI `json:"uri"`
	Released []name.Item     `json:"released,omitempty"`
}

// EndReply gives the claims that the end freed. GoesOn says that the end
// ended only its relay: another relay serves the session, which keeps its
// claims.
type EndReply struct {
	Released []name.Item `json:"released,omitempty"`
	GoesOn   bool        `json:"goes_on,omitempty"`
}

// ThreadReply names a thread that the call joined or left.
type ThreadReply struct {
	Thread string `json:"thread"`
}

// PostReply gives the thread and the seq of the message, the sessions
// that it woke, the selectors that matched no session, and whether the
// server dropped it for its key.
type PostReply struct {
	Thread    string              `json:"thread"`
	Seq       uint64              `json:"seq"`
	Woke      []name.SessionURI   `json:"woke,omitempty"`
	Unmatched []selector.Selector `json:"unmatched,omitempty"`
	Dropped   bool                `json:"dropped,omitempty"`
}

// ClaimReply gives the URI of the holder with its claims. Warning holds
// the hold of the item, for a session that is not a worker.
type ClaimReply struct {
	Holder  name.SessionURI `json:"holder"`
	Warning string          `json:"warning,omitempty"`
	Text    string          `json:"text"`
}

// ReleaseReply gives the URI after the release. MustClear asks a worker
// to clear its context when its turn ends.
type ReleaseReply struct {
	URI       name.SessionURI `json:"uri"`
	MustClear bool            `json:"must_clear,omitempty"`
	Text      string          `json:"text"`
}

// ReleaseForReply names the session whose claim the lead freed.
type ReleaseForReply struct {
	Session name.SessionURI `json:"session"`
	Text    string          `json:"text"`
}

// LeadReply names the new lead and the lead before it.
type LeadReply struct {
	Lead name.SessionURI `json:"lead"`
	Old  name.SessionURI `json:"old,omitzero"`
	Text string          `json:"text"`
}

// PauseReply gives the state for the place of the caller, the pause of
// the riff, each paused repository, the sessions that the call woke and
// the leads that it told.
type PauseReply struct {
	Text   string            `json:"text"`
	Here   record.PauseState `json:"here"`
	Pauses Pauses            `json:"pauses"`
	Woke   []name.SessionURI `json:"woke,omitempty"`
	Told   []name.SessionURI `json:"told,omitempty"`
}

// TextReply is the reply of a command whose result is a text.
type TextReply struct {
	Text string `json:"text"`
}

// Pauses is the pause of the riff and of each repository.
type Pauses struct {
	Riff         *PauseInfo  `json:"riff,omitempty"`
	Repositories []RepoPause `json:"repositories,omitempty"`
}

// PauseInfo says who set a pause, and when. By is empty for the pause of
// a new riff.
type PauseInfo struct {
	By   string `json:"by,omitempty"`
	AtMs int64  `json:"at_ms"`
}

// RepoPause is the pause of one repository.
type RepoPause struct {
	Repo name.Repo `json:"repo"`
	PauseInfo
}
