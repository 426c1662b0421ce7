package rifflog

import (
	"context"
	"errors"
)

// The errors of a [Store]. Backends translate their native errors into
// these; callers test them with errors.Is.
var (
	// ErrExists: a create-only Put met a name that is taken. For a
	// chunk it means that another instance writes the log.
	ErrExists = errors.New("object exists")
	// ErrNotExist: Get, or Load, found no object with the name.
	ErrNotExist = errors.New("object does not exist")
	// ErrChanged: Swap found another generation than the one it was given.
	ErrChanged = errors.New("object changed")
	// ErrStoreStopped: the store gave up for good (another instance writes,
	// or the retries ran out); it writes nothing more. It is the store's,
	// not riffengine.ErrStopped, which a call gets once the server has
	// stopped (one cause of which is this one).
	ErrStoreStopped = errors.New("store stopped")
)

// Store keeps named objects. Names are slash-separated paths such as
// log/00000000000000001234.jsonl; List gives them in byte order, which is
// log order for chunk and checkpoint names.
//
// An object is written either by Put (create-only, never replaced) or by
// Swap (with a generation, for the lease); a name is never used by both.
type Store interface {
	// Put creates the object name with data. It never replaces an
	// object: when the name is taken it returns an error that wraps
	// ErrExists and changes nothing. A nil error means the object is
	// durable.
	Put(ctx context.Context, name string, data []byte) error
	// Get returns the bytes of the object name, or an error that wraps
	// ErrNotExist.
	Get(ctx context.Context, name string) ([]byte, error)
	// List returns the names of the objects that start with prefix, in
	// byte order. It never lists temporary files of a backend.
	List(ctx context.Context, prefix string) ([]string, error)
	// Delete removes the object name. A name that is not there is no
	// error. A nil error means the removal is durable.
	Delete(ctx context.Context, name string) error

	// Load returns the bytes and the generation (at least 1) of a
	// swapped object, or an error that wraps ErrNotExist.
	Load(ctx context.Context, name string) ([]byte, int64, error)
	// Swap writes data as the object name only when its generation is
	// gen now (0: only when there is no object). It returns the new
	// generation, or an error that wraps ErrChanged and changes nothing.
	Swap(ctx context.Context, name string, data []byte, gen int64) (int64, error)
}

// Appender is a store that reads an object into the end of a buffer of
// the caller (the directory store), so that a replay reads each chunk
// into the buffer of a chunk before it, not into a new one.
type Appender interface {
	// GetAppend appends the bytes of the object name to buf and gives
	// the result, as Get gives the bytes; on an error it gives buf back
	// as it came, with an error that wraps ErrNotExist when the object
	// is not there.
	GetAppend(ctx context.Context, name string, buf []byte) ([]byte, error)
}

// LeftoverRemover is a store where a write that a killed process did not
// finish leaves a file (the directory store: its temporary files). A
// start removes them once it holds the lease and no other instance
// writes. The other stores need none: the memory store dies with its
// process, and a GCS object appears only when its one upload request
// ends, so a killed write leaves no object.
type LeftoverRemover interface {
	// RemoveLeftovers removes what writes of other processes left,
	// never a file of a write of this process, and gives how many.
	RemoveLeftovers(ctx context.Context) (int, error)
}

// BatchDeleter is a store that deletes many objects with one flush of
// their directories (the directory store), in place of a flush for each.
// Prune uses it for the chunks behind every kept checkpoint.
type BatchDeleter interface {
	// DeleteAll removes the objects names, in their order; a name that
	// is not there is no error. A nil error means the removals are
	// durable. After a crash before it returns, any of them can be back:
	// a later DeleteAll removes them again.
	DeleteAll(ctx context.Context, names []string) error
}

// Preparer is a store that can make, ahead of time, what the next Put of
// an object needs (the directory store: the temporary file of the next
// chunk), so that the Put does not wait for it. The writer of the engine
// calls it after each chunk with the name of the next chunk.
type Preparer interface {
	// Prepare readies the next Put of the object name. It writes no
	// object: a Prepare that no Put follows leaves nothing that List
	// gives, and a Put that finds nothing ready does its own.
	Prepare(name string) error
}
