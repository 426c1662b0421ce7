package rifflog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// The times of the lease.
const (
	// LeaseRead is how often a serving instance reads the lease.
	LeaseRead = 2 * time.Second
	// LeaseAge is how long a lease holds after its last write.
	LeaseAge = 90 * time.Second
	// LeaseRenew is how often a serving instance writes its lease again,
	// well inside LeaseAge.
	LeaseRenew = 30 * time.Second
)

// The errors of the lease.
var (
	// ErrLeaseLost: the lease names another instance, or was written by
	// one. The instance stops for good.
	ErrLeaseLost = errors.New("lease lost")
	// ErrLeaseHeld: a server holds the lease (a tool refuses to run).
	ErrLeaseHeld = errors.New("lease held")
	// ErrLeaseNewer: an instance of a later revision holds the lease, so
	// an instance of an older revision does not take it (it waits until
	// that lease ends).
	ErrLeaseNewer = errors.New("a later revision holds the lease")
)

// LeaseRecord is the content of the lease object.
type LeaseRecord struct {
	Instance string `json:"instance"`
	// Revision is the number of the revision of the instance (on Cloud
	// Run, 42 of K_REVISION riff-server-00042-abc); 0 when it has none.
	// A lease of a build before the revision rule reads as 0.
	Revision    uint64 `json:"revision,omitempty"`
	WrittenAtMs int64  `json:"written_at_ms"`
	Ended       bool   `json:"ended,omitempty"`
}

// Holds says whether the record names a server that holds the lease at
// now: it is not ended, and its last write is less than LeaseAge ago.
func (r LeaseRecord) Holds(now time.Time) bool {
	return !r.Ended && now.Sub(time.UnixMilli(r.WrittenAtMs)) < LeaseAge
}

// ReadLease reads the lease object; ok is false when there is none.
func ReadLease(ctx context.Context, s Store) (r LeaseRecord, gen int64, ok bool, err error) {
	data, gen, err := s.Load(ctx, LeaseName)
	if errors.Is(err, ErrNotExist) {
		return LeaseRecord{}, 0, false, nil
	}
	if err != nil {
		return LeaseRecord{}, 0, false, fmt.Errorf("read lease: %w", err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return LeaseRecord{}, 0, false, fmt.Errorf("read lease: %w", err)
	}
	return r, gen, true, nil
}

// Lease is the lease of one instance. It is safe for use by many
// goroutines: the writer checks it around each chunk while the lease
// loop of the server reads and renews it. A check holds the read side of
// one lock for its whole read, and a write (renew, end) the write side,
// so a check never compares the lease with a generation that a renew is
// replacing (which would read as a lost lease), and the checks of the
// writer and of the lease loop do not wait for each other.
type Lease struct {
	store    Store
	id       string
	revision uint64

	mu  sync.RWMutex
	gen int64 // the generation of our last write; guarded by mu
}

// NewerLeaseError is the error of a take that met the live lease of a
// later revision. It wraps ErrLeaseNewer.
type NewerLeaseError struct {
	Holder LeaseRecord
}

func (e *NewerLeaseError) Error() string {
	return fmt.Sprintf("instance %s of revision %d holds the lease", e.Holder.Instance, e.Holder.Revision)
}

func (e *NewerLeaseError) Unwrap() error { return ErrLeaseNewer }

// TakeLease is TakeLeaseAs with revision 0: an instance with no
// revision number (a tool, a test, a machine with no revision set).
func TakeLease(ctx context.Context, s Store, id string, now time.Time) (*Lease, error) {
	return TakeLeaseAs(ctx, s, id, 0, now)
}

// TakeLeaseAs writes the lease with the ID and the revision of this
// instance, in place of any other, unless the lease holds at now (not
// ended, written less than LeaseAge ago) for a later revision: then it
// returns a *NewerLeaseError and writes nothing. So a second instance of
// an older revision, started during a deploy, does not take the lease
// of the newer one. After a take, the instance waits (Wait) before it
// serves, so that the old instance reads the new ID and stops.
func TakeLeaseAs(ctx context.Context, s Store, id string, revision uint64, now time.Time) (*Lease, error) {
	if id == "" {
		return nil, fmt.Errorf("take lease: empty instance ID: %w", ErrInvalid)
	}
	for {
		r, gen, ok, err := ReadLease(ctx, s)
		if err != nil {
			return nil, fmt.Errorf("take lease: %w", err)
		}
		if ok && r.Holds(now) && r.Revision > revision {
			return nil, fmt.Errorf("take lease: %w", &NewerLeaseError{Holder: r})
		}
		l := &Lease{store: s, id: id, revision: revision, gen: gen}
		err = l.write(ctx, now, false)
		if errors.Is(err, ErrChanged) {
			// Another instance wrote the lease since the read: read it
			// again, so that the revision rule sees that write.
			if ctx.Err() != nil {
				return nil, fmt.Errorf("take lease: %w", ctx.Err())
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("take lease: %w", err)
		}
		return l, nil
	}
}

// ID is the instance ID that the lease names.
func (l *Lease) ID() string { return l.id }

// Revision is the revision number that the lease names.
func (l *Lease) Revision() uint64 { return l.revision }

// write swaps the lease. The caller holds the write side of mu, or is
// the only one that knows l (TakeLeaseAs).
func (l *Lease) write(ctx context.Context, now time.Time, ended bool) error {
	data, _ := json.Marshal(LeaseRecord{Instance: l.id, Revision: l.revision, WrittenAtMs: now.UnixMilli(), Ended: ended})
	gen, err := l.store.Swap(ctx, LeaseName, data, l.gen)
	if errors.Is(err, ErrChanged) {
		return fmt.Errorf("%w: %w", ErrLeaseLost, err)
	}
	if err != nil {
		return err
	}
	l.gen = gen
	return nil
}

// newestLooker is a store that tells, cheaper than a Load, whether a
// generation of a swapped object is still the newest (the directory
// store).
type newestLooker interface {
	Newest(ctx context.Context, name string, gen int64) (bool, error)
}

// Check reads the lease: ErrLeaseLost when another instance wrote it
// since this instance's last write.
func (l *Lease) Check(ctx context.Context) error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if s, ok := l.store.(newestLooker); ok {
		// The generation of this instance's last write is the newest:
		// nobody wrote the lease since. Otherwise the read below names
		// who did.
		newest, err := s.Newest(ctx, LeaseName, l.gen)
		if err != nil {
			return fmt.Errorf("check lease: %w", err)
		}
		if newest {
			return nil
		}
	}
	r, gen, ok, err := ReadLease(ctx, l.store)
	if err != nil {
		return fmt.Errorf("check lease: %w", err)
	}
	if !ok || gen != l.gen || r.Instance != l.id || r.Ended {
		return fmt.Errorf("check lease: the lease names %q: %w", r.Instance, ErrLeaseLost)
	}
	return nil
}

// Renew writes the lease again, so that it does not end by age.
func (l *Lease) Renew(ctx context.Context, now time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.write(ctx, now, false); err != nil {
		return fmt.Errorf("renew lease: %w", err)
	}
	return nil
}

// End ends the lease when it is still this instance's.
func (l *Lease) End(ctx context.Context, now time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.write(ctx, now, true); err != nil {
		return fmt.Errorf("end lease: %w", err)
	}
	return nil
}

// Wait waits d after TakeLease and reads the lease every LeaseRead.
// When ctx ends during the wait (the instance exits), it ends the lease
// and returns the context's error; when another instance takes the lease
// it returns ErrLeaseLost.
func (l *Lease) Wait(ctx context.Context, d time.Duration) error {
	done := time.NewTimer(d)
	defer done.Stop()
	tick := time.NewTicker(LeaseRead)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			// The context is gone: end the lease with a short context of its own.
			ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			if err := l.End(ectx, time.Now()); err != nil {
				return fmt.Errorf("lease wait: %w (and %w)", ctx.Err(), err)
			}
			return fmt.Errorf("lease wait: %w", ctx.Err())
		case <-tick.C:
			if err := l.Check(ctx); err != nil {
				return fmt.Errorf("lease wait: %w", err)
			}
		case <-done.C:
			return l.Check(ctx)
		}
	}
}

// Hold reads the lease every LeaseRead and writes it again every
// LeaseRenew until ctx ends or the lease is lost. It returns nil when
// ctx ends, ErrLeaseLost when another instance took the lease, or the
// store's error. The caller runs it in a goroutine it owns and stops the
// server when it returns an error.
func (l *Lease) Hold(ctx context.Context) error {
	read := time.NewTicker(LeaseRead)
	defer read.Stop()
	renew := time.NewTicker(LeaseRenew)
	defer renew.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-read.C:
			if err := l.Check(ctx); err != nil && ctx.Err() == nil {
				return fmt.Errorf("hold lease: %w", err)
			}
		case now := <-renew.C:
			if err := l.Renew(ctx, now); err != nil && ctx.Err() == nil {
				return fmt.Errorf("hold lease: %w", err)
			}
		}
	}
}

// WriteHeld writes a chunk only while this instance holds the lease: it
// checks the lease before the write and again after it, and gives the
// proof only when both reads name this instance. So an instance that
// wakes after another took the lease acknowledges nothing; its create
// fails as soon as the new instance wrote the same position, and the
// log never forks.
func (l *Lease) WriteHeld(ctx context.Context, c Chunk) (Written, error) {
	if err := l.Check(ctx); err != nil {
		return Written{}, fmt.Errorf("write chunk: %w", err)
	}
	w, err := Write(ctx, l.store, c)
	if err != nil {
		return Written{}, err
	}
	if err := l.Check(ctx); err != nil {
		return Written{}, fmt.Errorf("write %s: written, but %w", w.Object(), err)
	}
	return w, nil
}
