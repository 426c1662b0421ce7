package main

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/riffengine/tokens"
	"github.com/como-technologies/riff/rifflog"
)

// signInsOrder is a store that tells the order of the writes of
// signins.json and of the checkpoints.
type signInsOrder struct {
	rifflog.Store
	mu  sync.Mutex
	ops []string
}

func (s *signInsOrder) Swap(ctx context.Context, name string, data []byte, gen int64) (int64, error) {
	g, err := s.Store.Swap(ctx, name, data, gen)
	if err == nil && name == rifflog.SignInsName {
		s.op("signins")
	}
	return g, err
}

func (s *signInsOrder) Put(ctx context.Context, name string, data []byte) error {
	err := s.Store.Put(ctx, name, data)
	if err == nil && strings.HasPrefix(name, rifflog.CheckpointPrefix) {
		s.op("checkpoint")
	}
	return err
}

func (s *signInsOrder) op(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, what)
}

func TestGivenABucketWhenARiffWithSignInStopsThenSignInsJsonIsWrittenBeforeTheLastCheckpointAndTheNextStartKeepsTheSignIn(t *testing.T) {
	ctx := context.Background()
	bucket := fakeBucket(t)
	store := &signInsOrder{Store: bucket.open(t)}
	var lines [][]byte
	for i, c := range []record.Change{record.RiffMade{Riff: "r1"}, record.PersonJoined{User: "mike", Email: "mike@example.com"}} {
		line, err := record.Encode(record.Record{Position: uint64(i + 1), WrittenAtMs: time.Now().UnixMilli(), Change: c})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	if _, err := rifflog.Write(ctx, store, rifflog.Replayed{}.Next(lines)); err != nil {
		t.Fatal(err)
	}
	e, err := riffengine.Open(ctx, store, riffengine.Options{SignIn: true})
	if err != nil {
		t.Fatal(err)
	}
	mike := tokens.Person{User: "mike", Email: "mike@example.com"}
	p, version, err := e.SignIns().Start(mike, "k1", 2)
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := e.WaitSaved(wctx, version); err != nil {
		t.Fatalf("WaitSaved = %v", err)
	}
	p2, err := e.SignIns().Refresh(p.Refresh, "k1")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(wctx); err != nil {
		t.Fatalf("Close = %v", err)
	}
	store.mu.Lock()
	ops := slices.Clone(store.ops)
	store.mu.Unlock()
	last := slices.Index(ops, "checkpoint")
	if last < 1 || ops[last-1] != "signins" || last != len(ops)-1 {
		t.Fatalf("the writes = %v; want signins.json written before the last checkpoint", ops)
	}
	next, err := riffengine.Open(ctx, bucket.open(t), riffengine.Options{SignIn: true})
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close(ctx)
	if _, err := next.SignIns().Lookup(p2.Access); err != nil {
		t.Errorf("the access token of the last refresh after the restart = %v; want it live", err)
	}
}
