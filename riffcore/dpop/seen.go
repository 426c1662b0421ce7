package dpop

import (
	"container/heap"
	"fmt"
	"sync"
	"time"
)

// SeenLimit is the bound of a replay cache made with [NewSeen] of 0: at
// most this many proofs in one window of [MaxAge] + [MaxAhead], about
// 1000 calls a second, far above a riff of a team. An entry has at most
// [MaxJTILength] bytes of ID and a thumbprint of 43, so the cache holds
// at most about 20 MiB.
const SeenLimit = 1 << 16

// Seen is the replay cache of one instance: the IDs of the proofs that it
// took, by the device key of each proof (its thumbprint), each until its
// proof is too old to verify. A jti is the client's word, so it is one
// only among the proofs of its key: a proof of another key with the same
// jti is no replay of it. It is in memory only, so a new Seen refuses no
// proof from before it. It has no goroutine: each Add drops the entries
// that are past the window first. It is safe for concurrent use; one lock
// guards the whole cache.
//
// The caller adds only the proofs of a key that a token, an ID token or
// a refresh token proved (docs/tokens.md, "The replay cache"), so only
// the live keys of the riff fill it.
type Seen struct {
	limit int

	mu      sync.Mutex
	jtis    map[seenID]struct{}
	expires expiries
}

// seenID is one proof in the cache: its key and its jti.
type seenID struct {
	key string
	jti string
}

// NewSeen gives an empty replay cache that holds at most limit proofs (0
// or less: [SeenLimit]).
func NewSeen(limit int) *Seen {
	if limit <= 0 {
		limit = SeenLimit
	}
	return &Seen{limit: limit, jtis: make(map[seenID]struct{})}
}

// Add takes a proof that [Verify] gave, after the token layer checked its
// key against the token, and remembers its ID with its key until the
// proof is too old to verify. It refuses an ID of the key that it holds
// ([ErrReplayed]), a proof with no key ([ErrKey]), a proof out
// of the window at now ([ErrTooOld], [ErrFuture]), a proof with no valid
// ID ([ErrJTI]), and a new ID when the cache is at its bound ([ErrFull]):
// a full cache refuses rather than forget a proof that could come again.
// A refused proof changes nothing.
func (s *Seen) Add(p Proof, now time.Time) error {
	if err := checkJTI(p.JTI); err != nil {
		return fmt.Errorf("remember proof: %w", err)
	}
	if p.Thumbprint == "" {
		return fmt.Errorf("remember proof: %w: no thumbprint of the key", ErrKey)
	}
	// The same window as Verify: an entry kept as long as its proof can
	// verify is enough, and a proof out of the window would not be kept.
	if now.Sub(p.IssuedAt) > MaxAge {
		return fmt.Errorf("remember proof: %w: issued %s ago, at most %s", ErrTooOld, now.Sub(p.IssuedAt).Round(time.Second), MaxAge)
	}
	if p.IssuedAt.Sub(now) > MaxAhead {
		return fmt.Errorf("remember proof: %w: issued %s ahead, at most %s", ErrFuture, p.IssuedAt.Sub(now).Round(time.Second), MaxAhead)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.expires) > 0 && s.expires[0].at.Before(now) {
		old := heap.Pop(&s.expires).(entry)
		delete(s.jtis, old.id)
	}
	id := seenID{key: p.Thumbprint, jti: p.JTI}
	if _, ok := s.jtis[id]; ok {
		return fmt.Errorf("remember proof: %w: this instance took a proof of this key with this jti in the last %s", ErrReplayed, MaxAge)
	}
	if len(s.jtis) >= s.limit {
		return fmt.Errorf("remember proof: %w: %d proofs in the window", ErrFull, len(s.jtis))
	}
	s.jtis[id] = struct{}{}
	heap.Push(&s.expires, entry{at: p.IssuedAt.Add(MaxAge), id: id})
	return nil
}

// Len gives the number of proofs that the cache holds, for the facts of
// the server.
func (s *Seen) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.jtis)
}

// entry is one ID of the cache and the time after which its proof is too
// old to verify.
type entry struct {
	at time.Time
	id seenID
}

// expiries is a min-heap of entries by their time: the first one is the
// first to drop.
type expiries []entry

func (h expiries) Len() int           { return len(h) }
func (h expiries) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h expiries) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiries) Push(x any)        { *h = append(*h, x.(entry)) }
func (h *expiries) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}
