package dpop

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// proofAt is a verified proof with an ID and an iat, for the cache.
func proofAt(jti string, iat time.Time) Proof {
	return Proof{JTI: jti, Thumbprint: "tp", IssuedAt: iat}
}

func TestGivenAProofInTheCacheWhenItsWindowIsOverThenItDrops(t *testing.T) {
	seen := NewSeen(0)
	if err := seen.Add(proofAt("a", now), now); err != nil {
		t.Fatalf("Add(a) = %v", err)
	}
	if err := seen.Add(proofAt("b", now.Add(time.Second)), now.Add(time.Second)); err != nil {
		t.Fatalf("Add(b) = %v", err)
	}
	// At the end of the window of a, a is still held.
	if err := seen.Add(proofAt("c", now.Add(MaxAge)), now.Add(MaxAge)); err != nil {
		t.Fatalf("Add(c) = %v", err)
	}
	if got := seen.Len(); got != 3 {
		t.Fatalf("Len() at the end of the window of a = %d; want 3", got)
	}
	// Past it, the next Add drops a and keeps b and c.
	if err := seen.Add(proofAt("d", now.Add(MaxAge+time.Millisecond)), now.Add(MaxAge+time.Millisecond)); err != nil {
		t.Fatalf("Add(d) = %v", err)
	}
	if got := seen.Len(); got != 3 {
		t.Errorf("Len() past the window of a = %d; want 3 (b, c and d)", got)
	}
	if err := seen.Add(proofAt("b", now.Add(time.Second)), now.Add(MaxAge+time.Millisecond)); !errors.Is(err, ErrReplayed) {
		t.Errorf("Add(b) again = %v; want %v", err, ErrReplayed)
	}
}

func TestGivenAProofOutOfTheWindowWhenTheCacheTakesItThenItIsRefused(t *testing.T) {
	seen := NewSeen(0)
	if err := seen.Add(proofAt("old", now.Add(-MaxAge-time.Millisecond)), now); !errors.Is(err, ErrTooOld) {
		t.Errorf("Add(old) = %v; want %v", err, ErrTooOld)
	}
	if err := seen.Add(proofAt("ahead", now.Add(MaxAhead+time.Millisecond)), now); !errors.Is(err, ErrFuture) {
		t.Errorf("Add(ahead) = %v; want %v", err, ErrFuture)
	}
	if err := seen.Add(proofAt("", now), now); !errors.Is(err, ErrJTI) {
		t.Errorf("Add() with no jti = %v; want %v", err, ErrJTI)
	}
	if got := seen.Len(); got != 0 {
		t.Errorf("Len() = %d; want 0: a refused proof changes nothing", got)
	}
}

func TestGivenAFullCacheWhenANewProofComesThenItIsRefusedUntilTheOldestDrops(t *testing.T) {
	seen := NewSeen(2)
	for i, jti := range []string{"a", "b"} {
		at := now.Add(time.Duration(i) * time.Second)
		if err := seen.Add(proofAt(jti, at), at); err != nil {
			t.Fatalf("Add(%s) = %v", jti, err)
		}
	}
	if err := seen.Add(proofAt("c", now.Add(2*time.Second)), now.Add(2*time.Second)); !errors.Is(err, ErrFull) {
		t.Fatalf("Add(c) to a full cache = %v; want %v", err, ErrFull)
	}
	// A full cache still refuses a replay as a replay.
	if err := seen.Add(proofAt("a", now), now.Add(2*time.Second)); !errors.Is(err, ErrReplayed) {
		t.Errorf("Add(a) again = %v; want %v", err, ErrReplayed)
	}
	later := now.Add(MaxAge + 500*time.Millisecond)
	if err := seen.Add(proofAt("c", later), later); err != nil {
		t.Errorf("Add(c) when a dropped = %v; want it taken", err)
	}
}

func TestGivenOneProofWhenManyCallsBringItAtOnceThenOneIsTaken(t *testing.T) {
	seen := NewSeen(0)
	const calls = 16
	var wg sync.WaitGroup
	errs := make([]error, calls)
	for i := range calls {
		wg.Go(func() {
			// Other proofs too, so that the calls share the lock.
			_ = seen.Add(proofAt(fmt.Sprintf("other-%d", i), now), now)
			errs[i] = seen.Add(proofAt("same", now), now)
		})
	}
	wg.Wait()
	taken := 0
	for _, err := range errs {
		switch {
		case err == nil:
			taken++
		case !errors.Is(err, ErrReplayed):
			t.Errorf("Add() = %v; want nil or %v", err, ErrReplayed)
		}
	}
	if taken != 1 {
		t.Errorf("%d calls took the same proof; want 1", taken)
	}
}

// TestGivenAProofOfOneKeyWhenAProofOfAnotherKeyHasTheSameJTIThenBothAreTaken:
// the cache keys its memory by the device key, so a jti that another
// key sent first (a jti is the client's word) refuses no proof of this
// key; the same key with the same jti is a replay.
func TestGivenAProofOfOneKeyWhenAProofOfAnotherKeyHasTheSameJTIThenBothAreTaken(t *testing.T) {
	seen := NewSeen(0)
	theirs := Proof{JTI: "j-1", Thumbprint: "key-of-eve", IssuedAt: now}
	mine := Proof{JTI: "j-1", Thumbprint: "key-of-mike", IssuedAt: now}
	if err := seen.Add(theirs, now); err != nil {
		t.Fatalf("Add(theirs) = %v", err)
	}
	if err := seen.Add(mine, now); err != nil {
		t.Errorf("Add(mine) with the jti of another key = %v; want it taken", err)
	}
	if err := seen.Add(mine, now); !errors.Is(err, ErrReplayed) {
		t.Errorf("Add(mine) again = %v; want %v", err, ErrReplayed)
	}
	if err := seen.Add(Proof{JTI: "j-2", IssuedAt: now}, now); !errors.Is(err, ErrKey) {
		t.Errorf("Add() with no key = %v; want %v", err, ErrKey)
	}
}
