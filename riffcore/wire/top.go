package wire

import "github.com/como-technologies/riff/riffcore/name"

// Top gives what one look of riff top shows from the server: the facts
// of the riff, each live session with the facts of its state one by one,
// each person, and the part of each board that the riff knows (the
// claims, the holds, the pause). The items of the forge (free, verify,
// stuck) and their titles come from gh on the machine of the reader.
type Top struct {
	Me name.SessionURI `json:"me"`
}

func (Top) Path() string              { return "/v1/top" }
func (Top) reply() (r TopReply)       { return }
func (c Top) Caller() name.SessionURI { return c.Me }

// TopReply is one look of riff top. Each time in it is an age that the
// server gave as text (4m, 1h), so that the reader needs no clock.
type TopReply struct {
	Pauses Pauses `json:"pauses"`
	Owner  string `json:"owner,omitempty"`
	Build  string `json:"build"`
	// Rows are the live sessions (no gone one), in the order of who.
	Rows []TopRow `json:"rows"`
	// People are the people of the riff in the order of user: each
	// member, and each user with a session.
	People []TopPerson `json:"people"`
	// Boards are the boards of each repository with a live session and
	// of the repository of the caller, in the order of OWNER/REPO.
	Boards []TopBoard `json:"boards"`
}

// TopRow is one session of riff top: its row of who, then the facts of
// its state apart, in the order of the DETAIL of who.
type TopRow struct {
	WhoRow
	// First is the fact of the state (which of two designs? (32m ago),
	// seen 4m ago), "" when the state has none.
	First string `json:"first,omitempty"`
	// Claims are the items that the session holds, each with its thread.
	Claims []TopClaim `json:"claims,omitempty"`
	// Facts are the facts of its presence, one a line: the work of the
	// hooks, the step, the status.
	Facts []string `json:"facts,omitempty"`
	// Block is the block of a blocked session (not of a lead that waits).
	Block *TopBlock `json:"block,omitempty"`
}

// TopClaim is an item that a session holds.
type TopClaim struct {
	Thread string    `json:"thread"`
	Item   name.Item `json:"item"`
}

// TopBlock is the block of a session: its reason and how long it waits.
type TopBlock struct {
	Reason string `json:"reason"`
	// Waits is the time since the block, as text (32m).
	Waits string `json:"waits"`
}

// TopPerson is a person of riff top.
type TopPerson struct {
	User string `json:"user"`
	// Tag is owner, admin or "".
	Tag string `json:"tag,omitempty"`
	// Online says that a session of the person is online.
	Online bool `json:"online,omitempty"`
	// Seen is the time since the last call of the person or of one of
	// its sessions, as text (1h); "" when the riff knows no call.
	Seen string `json:"seen,omitempty"`
}

// TopBoard is what the riff knows of the board of a repository.
type TopBoard struct {
	Repo   name.Repo `json:"repo"`
	Paused bool      `json:"paused,omitempty"`
	// Claimed are the items that live sessions hold, sorted.
	Claimed []name.Item `json:"claimed,omitempty"`
	// Held are the items on hold that no session holds, sorted.
	Held []TopHeld `json:"held,omitempty"`
}

// TopHeld is an item on hold, with the reason of the hold.
type TopHeld struct {
	Item   name.Item `json:"item"`
	Reason string    `json:"reason"`
}
