package wire

import (
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/signed"
)

// Who lists the sessions of the riff. All lists the gone sessions too.
type Who struct {
	Me  name.SessionURI `json:"me"`
	All bool            `json:"all,omitempty"`
}

// Whoami gives the URI of the caller and the pauses.
type Whoami struct {
	Me name.SessionURI `json:"me"`
}

// Read gives the unread messages of the caller: each direct thread
// first, then its other threads, in pages of 50. Thread names one
// thread; All gives each kept message; After gives the messages after a
// seq (with one thread).
type Read struct {
	Me     name.SessionURI `json:"me"`
	Thread string          `json:"thread,omitempty"`
	All    bool            `json:"all,omitempty"`
	After  uint64          `json:"after,omitempty"`
}

// Threads lists the threads of the caller.
type Threads struct {
	Me name.SessionURI `json:"me"`
}

// Riff gives the pauses of the riff.
type Riff struct {
	Me name.SessionURI `json:"me"`
}

// Idle gives the settings of the idle workers.
type Idle struct {
	Me name.SessionURI `json:"me"`
}

// Server gives the facts of the server. It answers also while the server
// replies 503 to each other call.
type Server struct{}

// Notes gives the notes of the lead of a user in a repository, and with
// History each old text.
type Notes struct {
	Me      name.SessionURI `json:"me"`
	Thread  string          `json:"thread,omitempty"`
	User    string          `json:"user,omitempty"`
	History bool            `json:"history,omitempty"`
}

// PostContent gives the content that the server would sign for a post:
// the thread (the default thread, or the direct thread of a tell), the
// to list (the side of a tell), the lead mark of the caller now, the
// kind and the body, with the time of the server. A client in a riff
// with sign-in sends it before each post, puts its own time in it, signs
// its JSON with the device key, and sends the post with the payload and
// the signature. It changes nothing. Its me is the me of the post.
type PostContent struct {
	Post
}

func (PostContent) Path() string              { return "/v1/post/content" }
func (PostContent) reply() (r signed.Content) { return }

// Watch opens the stream of the wakes of the caller.
type Watch struct {
	Me name.SessionURI `json:"me"`
}

// Tail opens the stream of the messages of a thread, after a seq.
type Tail struct {
	Me     name.SessionURI `json:"me"`
	Thread string          `json:"thread,omitempty"`
	After  uint64          `json:"after,omitempty"`
}

func (Who) Path() string     { return "/v1/who" }
func (Whoami) Path() string  { return "/v1/whoami" }
func (Read) Path() string    { return "/v1/read" }
func (Threads) Path() string { return "/v1/threads" }
func (Riff) Path() string    { return "/v1/riff" }
func (Idle) Path() string    { return "/v1/idle" }
func (Server) Path() string  { return "/v1/server" }
func (Notes) Path() string   { return "/v1/notes/read" }
func (Watch) Path() string   { return "/v1/watch" }
func (Tail) Path() string    { return "/v1/tail" }

func (Who) reply() (r WhoReply)         { return }
func (Whoami) reply() (r WhoamiReply)   { return }
func (Read) reply() (r ReadReply)       { return }
func (Threads) reply() (r ThreadsReply) { return }
func (Riff) reply() (r Pauses)          { return }
func (Idle) reply() (r IdleReply)       { return }
func (Server) reply() (r ServerFacts)   { return }
func (Notes) reply() (r NotesReply)     { return }
func (Watch) reply() (r Event)          { return }
func (Tail) reply() (r Event)           { return }

func (c Who) Caller() name.SessionURI     { return c.Me }
func (c Whoami) Caller() name.SessionURI  { return c.Me }
func (c Read) Caller() name.SessionURI    { return c.Me }
func (c Threads) Caller() name.SessionURI { return c.Me }
func (c Riff) Caller() name.SessionURI    { return c.Me }
func (c Idle) Caller() name.SessionURI    { return c.Me }
func (Server) Caller() name.SessionURI    { return name.SessionURI{} }
func (c Notes) Caller() name.SessionURI   { return c.Me }
func (c Watch) Caller() name.SessionURI   { return c.Me }
func (c Tail) Caller() name.SessionURI    { return c.Me }

// WhoReply holds the facts of the riff and one row for each session.
type WhoReply struct {
	Pauses Pauses   `json:"pauses"`
	Owner  string   `json:"owner,omitempty"`
	Build  string   `json:"build"`
	Rows   []WhoRow `json:"rows"`
	// Act is the last line when the person must act, for example when
	// the riff is paused.
	Act string `json:"act,omitempty"`
}

// WhoRow is one session: its URI with its marks, its state, its role
// tags and the detail of its state.
type WhoRow struct {
	URI    name.SessionURI `json:"uri"`
	You    bool            `json:"you,omitempty"`
	State  string          `json:"state"`
	Role   string          `json:"role,omitempty"`
	Detail string          `json:"detail,omitempty"`
	Gone   bool            `json:"gone,omitempty"`
	// SeenMs is the time of the last call of the session.
	SeenMs int64 `json:"seen_ms,omitempty"`
	// Update says that the session runs an old riff: a build older than
	// the server's, or a file that was replaced since it started. riff top
	// marks it ↑ and counts it on its host (docs/wire.md, who: update).
	Update bool `json:"update,omitempty"`
	// Unanswered says that the session is blocked and its lead gave no
	// answer: two wakes of the lead, lead.wake minutes apart, and then
	// lead.wake minutes more. riff top shows "the lead gave no answer"
	// (docs/state.md, "The blocks").
	Unanswered bool `json:"unanswered,omitempty"`
}

// WhoamiReply gives the URI of the caller as the server holds it, the
// pauses and the build of the server.
type WhoamiReply struct {
	URI    name.SessionURI   `json:"uri"`
	Here   record.PauseState `json:"here"`
	Pauses Pauses            `json:"pauses"`
	Build  string            `json:"build"`
	// Owner is the owner line, as in who: USER (EMAIL) to a member, none
	// in a riff with sign-in and no owner, empty with no sign-in.
	Owner string `json:"owner,omitempty"`
}

// ReadReply holds a page of each thread: the direct threads first. ToYou
// holds each unread message after a page that woke the caller.
type ReadReply struct {
	ToYou   []ThreadPage `json:"to_you,omitempty"`
	Threads []ThreadPage `json:"threads"`
}

// ThreadPage is one page of a thread. More says that more messages
// follow: read again with After set to Last.
type ThreadPage struct {
	Thread   string    `json:"thread"`
	Title    string    `json:"title,omitempty"`
	Messages []Message `json:"messages"`
	More     bool      `json:"more,omitempty"`
	Last     uint64    `json:"last,omitempty"`
	// Lost counts the messages after the asked seq that the server no
	// longer keeps.
	Lost uint64 `json:"lost,omitempty"`
}

// Message is one message as a reader gets it: the fields of the signed
// payload, the fields of the server, and the payload bytes with their
// signature so that the reader can check them. Verified is the verdict
// of the server: a reader checks a signed message again by itself, with
// Keys, the thumbprints of the live sign-ins of the sender's user
// (sorted; none with no sign-in), and takes Verified only for a message
// with no signature.
type Message struct {
	Thread   string              `json:"thread"`
	Seq      uint64              `json:"seq"`
	AtMs     int64               `json:"at_ms"`
	Sender   name.SessionURI     `json:"sender"`
	Lead     bool                `json:"lead,omitempty"`
	Kind     record.MessageKind  `json:"kind"`
	To       []selector.Selector `json:"to,omitempty"`
	Body     string              `json:"body"`
	Verified bool                `json:"verified"`
	Payload  []byte              `json:"payload,omitempty"`
	Sig      string              `json:"sig,omitempty"`
	Keys     []string            `json:"keys,omitempty"`
}

// ThreadsReply lists the threads of the caller.
type ThreadsReply struct {
	Threads []ThreadInfo `json:"threads"`
}

// ThreadInfo is one thread of the caller: its name for the caller, its
// title, its last seq and the number of unread messages.
type ThreadInfo struct {
	Thread string `json:"thread"`
	Title  string `json:"title,omitempty"`
	Last   uint64 `json:"last"`
	Unread uint64 `json:"unread"`
}

// IdleReply lists the settings of the idle workers.
type IdleReply struct {
	Settings []record.IdleWorkers `json:"settings"`
}

// NotesReply holds the notes of the lead, and with history each old
// text, oldest first.
type NotesReply struct {
	User    string        `json:"user"`
	Thread  string        `json:"thread"`
	Text    string        `json:"text"`
	History []NoteVersion `json:"history,omitempty"`
}

// NoteVersion is one text of the notes, with who wrote it and when.
type NoteVersion struct {
	Text string `json:"text"`
	By   string `json:"by"`
	AtMs int64  `json:"at_ms"`
}

// Event is one line of a stream: a wake of the watch, a message of the
// tail, or a keep-alive. The first line of each stream comes at its
// open; a stream that the server ends for its sign-in or its token has
// a last line of type end.
type Event struct {
	// Type is hello (the open), keepalive, wake, message, lost or end.
	Type    string   `json:"type"`
	Message *Message `json:"message,omitempty"`
	Wake    *Wake    `json:"wake,omitempty"`
	// Lost counts the messages that the stream could not send.
	Lost uint64 `json:"lost,omitempty"`
	// Last is the newest seq of the thread at the open of a tail, on its
	// hello line: the point that a client reads after when it opens
	// again, also in a thread that it does not list.
	Last uint64 `json:"last,omitempty"`
	// End says why the server ended the stream, on its last line (type
	// end): EndSignIn or EndExpired. Reason says it for a person.
	End    string `json:"end,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Riff is the ID of the riff, on the hello line of a watch: behind
	// the same address a new riff (a memory store makes one at each
	// start) numbers its messages from 1 again, so the woke marks of a
	// watch hold for one riff only.
	Riff string `json:"riff,omitempty"`
}

// The types of an event.
const (
	EventHello     = "hello"
	EventKeepAlive = "keepalive"
	EventWake      = "wake"
	EventMessage   = "message"
	EventEnd       = "end"
)

// The ends of a stream (Event.End).
const (
	// EndSignIn: the sign-in that opened the stream ended (a remove, a
	// revoke, a reused refresh token). A client opens it again only
	// after riff login.
	EndSignIn = "signin_ended"
	// EndExpired: the token that opened the stream expired. A client
	// opens it again at once with its renewed token.
	EndExpired = "token_expired"
)

// Wake is a wake of a session: the message that woke it.
type Wake struct {
	Thread string             `json:"thread"`
	Seq    uint64             `json:"seq"`
	From   string             `json:"from"`
	Kind   record.MessageKind `json:"kind"`
}

// ServerFacts are the facts of the server (docs/operations.md,
// "Monitoring").
type ServerFacts struct {
	Build  string `json:"build"`
	Serves bool   `json:"serves"`
	// Why says why the server does not serve.
	Why       string `json:"why,omitempty"`
	LastError string `json:"last_error,omitempty"`

	Position        uint64 `json:"position"`
	LastWriteAgoMs  int64  `json:"last_write_ago_ms,omitempty"`
	LastWriteTookMs int64  `json:"last_write_took_ms,omitempty"`
	WriteErrors     uint64 `json:"write_errors"`
	// Warnings counts the records that the state could not take since
	// the start (the replay, then each chunk): each changed nothing, and
	// the server logged a warning with its position. Skipped counts the
	// records of a kind or a value that this build does not know.
	Warnings        uint64           `json:"warnings"`
	Skipped         uint64           `json:"skipped"`
	Checkpoint      *CheckpointFacts `json:"checkpoint,omitempty"`
	NoCheckpointWhy string           `json:"no_checkpoint_why,omitempty"`
	Chunks          uint64           `json:"chunks"`
	Sessions        int              `json:"sessions"`
	Cursors         int              `json:"cursors"`
	Threads         int              `json:"threads"`
	SignIns         int              `json:"sign_ins"`
	MemoryBytes     uint64           `json:"memory_bytes"`
	StartedAgoMs    int64            `json:"started_ago_ms"`
	ReplayMs        int64            `json:"replay_ms"`
	Store           string           `json:"store"`

	// UnreadCheckpoints names each checkpoint that the start passed over
	// because it did not read, and why.
	UnreadCheckpoints []string `json:"unread_checkpoints,omitempty"`
}

// CheckpointFacts describe the newest checkpoint.
type CheckpointFacts struct {
	Position uint64 `json:"position"`
	AgeMs    int64  `json:"age_ms"`
	Version  string `json:"version"`
}
