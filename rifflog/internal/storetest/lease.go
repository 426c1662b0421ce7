package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/como-technologies/riff/rifflog"
)

// Handover runs a handover of the lease from instance a to instance b on s.
func Handover(t *testing.T, s rifflog.Store) {
	t.Helper()
	ctx := context.Background()
	now := time.UnixMilli(1790000000000)
	a, err := rifflog.TakeLease(ctx, s, "a", now)
	if err != nil {
		t.Fatalf("TakeLease(a) = %v", err)
	}
	if err := a.Check(ctx); err != nil {
		t.Errorf("a.Check = %v; want nil", err)
	}
	w, err := a.WriteHeld(ctx, rifflog.Chunk{First: 1, Records: [][]byte{[]byte(`{"position":1}`)}})
	if err != nil {
		t.Fatalf("a.WriteHeld = %v", err)
	}
	r, _, ok, err := rifflog.ReadLease(ctx, s)
	if err != nil || !ok || !r.Holds(now.Add(time.Minute)) || r.Holds(now.Add(rifflog.LeaseAge)) {
		t.Errorf("ReadLease = %+v, %v, %v; want a lease that holds for 90 s", r, ok, err)
	}
	b, err := rifflog.TakeLease(ctx, s, "b", now.Add(time.Second))
	if err != nil {
		t.Fatalf("TakeLease(b) = %v", err)
	}
	if err := a.Check(ctx); !errors.Is(err, rifflog.ErrLeaseLost) {
		t.Errorf("a.Check after b took the lease = %v; want ErrLeaseLost", err)
	}
	if err := a.Renew(ctx, now.Add(2*time.Second)); !errors.Is(err, rifflog.ErrLeaseLost) {
		t.Errorf("a.Renew after b took the lease = %v; want ErrLeaseLost", err)
	}
	if _, err := a.WriteHeld(ctx, rifflog.Chunk{Prev: w.Chain(), First: 2, Records: [][]byte{[]byte(`{"position":2}`)}}); !errors.Is(err, rifflog.ErrLeaseLost) {
		t.Errorf("a.WriteHeld after b took the lease = %v; want ErrLeaseLost", err)
	}
	if err := b.Check(ctx); err != nil {
		t.Errorf("b.Check = %v; want nil", err)
	}
	if err := b.Renew(ctx, now.Add(3*time.Second)); err != nil {
		t.Errorf("b.Renew = %v; want nil", err)
	}
	if err := b.End(ctx, now.Add(4*time.Second)); err != nil {
		t.Errorf("b.End = %v; want nil", err)
	}
	r, _, _, _ = rifflog.ReadLease(ctx, s)
	if r.Holds(now.Add(5*time.Second)) || r.Instance != "b" {
		t.Errorf("ReadLease after End = %+v; want b's ended lease", r)
	}
}
