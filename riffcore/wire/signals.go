package wire

import (
	"time"

	"github.com/como-technologies/riff/riffcore/name"
)

// MaxStatus is the longest status and the longest block reason.
const MaxStatus = 400

// ReconnectBound is the longest time in which a stream of riff (riff
// relay watch, riff tail, riff chat) that died comes back: the stall
// limit of the client, three keep-alive lines of the server ("When a
// connection dies with no sign" of riff's user guide). The server gives
// a watch that ended this grace before the session is offline.
const ReconnectBound = 45 * time.Second

// Alive is a keep-alive of a session: a sign of life that is not a call.
// It carries the newest fact of the session.
type Alive struct {
	Me name.SessionURI `json:"me"`
	// Activity is the newest work of the session, for example
	// "runs Bash: run just ci".
	Activity string `json:"activity,omitempty"`
	// ActivitySecs is the age of Activity: the seconds since the hook
	// that gave it. The server counts the age of the fact from it, as it
	// counts the time of a prompt from PromptSecs; none is a fact of now.
	ActivitySecs *int64 `json:"activity_secs,omitempty"`
	PromptSecs   *int64 `json:"prompt_secs,omitempty"`
	Container    bool   `json:"container,omitempty"`
	// Daemon marks the session of the riff daemon of a machine: it runs
	// the sessions in containers, takes no claims, and no lead fallback
	// wakes it (docs/daemon.md, "The session of the daemon").
	Daemon bool `json:"daemon,omitempty"`
	// Binary is the riff that sends the keep-alive: the process that lives
	// as long as the session (riff relay mcp, riff relay watch, the riff
	// daemon). None keeps the one that the server holds.
	Binary *Binary `json:"binary,omitempty"`
	// Relay is the instance ID of the relay that sends the keep-alive
	// (riff relay mcp): a sign of life of that relay, so that the end of
	// another relay does not end the session. The watch and the hooks
	// send none.
	Relay string `json:"relay,omitempty"`
	// LeadWake is lead.wake of the settings file of the machine of the
	// session, in minutes (1 to 1440): the wait from a block of a session
	// of its user to the second wake of the lead, and from there to the
	// unanswered block, while this session is the lead. None is 15.
	LeadWake *int64 `json:"lead_wake,omitempty"`
}

// The bounds of [Alive.LeadWake], in minutes.
const (
	DefaultLeadWake = 15
	MaxLeadWake     = 24 * 60
)

// UnansweredBlock is a block that the lead gave no answer: the session,
// its claims, the reason and the time of the block. The reply to the
// keep-alive of the live lead lists each block of a session of its user
// in its repository; riff relay mcp sends a desktop notification for
// each new one.
type UnansweredBlock struct {
	Session name.SessionURI `json:"session"`
	Items   []name.Item     `json:"items,omitempty"`
	Reason  string          `json:"reason"`
	AtMs    int64           `json:"at_ms"`
	// WaitSecs is the age of the block at the reply, by the clock of
	// the server.
	WaitSecs int64 `json:"wait_secs"`
}

// Binary is the riff of a session, as its keep-alive tells it: the build
// of the running riff, and whether its file was replaced since it started
// (for example by riff update). who marks a session whose riff is older
// than the server, or replaced (docs/wire.md, who: update).
type Binary struct {
	// Build is the header form of the build, as riff-build carries it:
	// "0.4.3 7213825ab1c2 2026-09-27T20:10:44Z".
	Build    string `json:"build"`
	Replaced bool   `json:"replaced,omitempty"`
}

// The activities of a keep-alive, as "The state of a session" shows
// them. A tool is "runs TOOL" or "runs TOOL: TEXT"; who adds the age of
// each ("runs Bash: run just ci for 12m", "5s ago between two tools",
// "turn ended 5m ago").
const (
	ActivityRuns         = "runs "
	ActivityWorks        = "works"
	ActivityBetweenTools = "between two tools"
	ActivityTurnEnded    = "turn ended"
)

// IsWork says whether an activity is work: each but the end of a turn.
func IsWork(activity string) bool { return activity != "" && activity != ActivityTurnEnded }

// Status sets the status of the caller: one line of at most 400
// characters.
type Status struct {
	Me   name.SessionURI `json:"me"`
	Text string          `json:"text"`
}

// Blocked says that the caller cannot go on with no decision of a
// person. It wakes the lead of its user with the message
// [BlockedText]. In a riff with sign-in, Payload and Sig are that message
// signed by the caller (the content of [PostContent] for a tell of the
// lead): with none, the server writes it, and it has no signature.
type Blocked struct {
	Me      name.SessionURI `json:"me"`
	Reason  string          `json:"reason"`
	Payload []byte          `json:"payload,omitempty"`
	Sig     string          `json:"sig,omitempty"`
}

// BlockedText is the text of the message that a block sends to the lead.
func BlockedText(reason string) string { return "blocked: " + reason }

// Step starts, ends or fails the long step of the caller. Exactly one of
// Start, Done and Fail is set.
type Step struct {
	Me    name.SessionURI `json:"me"`
	Start string          `json:"start,omitempty"`
	Done  bool            `json:"done,omitempty"`
	Fail  string          `json:"fail,omitempty"`
}

// Move tells the server the new place of the caller.
type Move struct {
	Me name.SessionURI `json:"me"`
}

func (Alive) Path() string   { return "/v1/alive" }
func (Status) Path() string  { return "/v1/status" }
func (Blocked) Path() string { return "/v1/blocked" }
func (Step) Path() string    { return "/v1/step" }
func (Move) Path() string    { return "/v1/move" }

func (Alive) reply() (r AliveReply)   { return }
func (Status) reply() (r TextReply)   { return }
func (Blocked) reply() (r TextReply)  { return }
func (Step) reply() (r TextReply)     { return }
func (Move) reply() (r RegisterReply) { return }

func (c Alive) Caller() name.SessionURI   { return c.Me }
func (c Status) Caller() name.SessionURI  { return c.Me }
func (c Blocked) Caller() name.SessionURI { return c.Me }
func (c Step) Caller() name.SessionURI    { return c.Me }
func (c Move) Caller() name.SessionURI    { return c.Me }

// AliveReply asks a worker in MustClear to clear its context when its
// turn ends.
type AliveReply struct {
	Clear bool `json:"clear,omitempty"`
	// Unanswered holds, for the live lead, each blocked session of its
	// user in its repository whose lead gave no answer, oldest first.
	Unanswered []UnansweredBlock `json:"unanswered,omitempty"`
}
