package riffengine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/jsonlog"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/como-technologies/riff/riffstate"
)

// settled runs calls on an engine over the store and settles it, which
// writes a last checkpoint.
func settled(t *testing.T, st rifflog.Store, clk *clock, who ...string) {
	t.Helper()
	r := start(t, setup{store: st, clock: clk})
	r.register(who...)
	if err := r.e.Close(context.Background()); err != nil {
		t.Fatalf("Close = %v", err)
	}
}

// checkpointNames lists the checkpoint objects of the store, oldest first.
func checkpointNames(t *testing.T, st rifflog.Store) []string {
	t.Helper()
	names, err := st.List(context.Background(), "checkpoint/")
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// The rule: "When the newest checkpoint does not read, the
// server uses the one before it." It does so with an ERROR line that
// names the object and why, and the facts (riff server) show it.
func TestGivenADamagedNewestCheckpointWhenTheServerStartsThenItUsesTheOneBeforeItAndSaysSo(t *testing.T) {
	ctx := context.Background()
	st := mem.New()
	clk := newClock()
	settled(t, st, clk, "ann/s1")
	clk.Add(1000)
	settled(t, st, clk, "bob/s2")
	names := checkpointNames(t, st)
	if len(names) != 2 {
		t.Fatalf("checkpoints = %v; want 2", names)
	}
	newest := names[1]
	data, err := st.Get(ctx, newest)
	if err != nil {
		t.Fatal(err)
	}
	damaged := bytes.Clone(data)
	damaged[bytes.Index(damaged, []byte(`"state":`))+20] ^= 0x01
	_ = st.Delete(ctx, newest)
	if err := st.Put(ctx, newest, damaged); err != nil {
		t.Fatal(err)
	}

	loaded, err := riffengine.Load(ctx, st, riffstate.Options{Build: serverBuild().String()})
	if err != nil {
		t.Fatalf("Load = %v", err)
	}
	if loaded.Checkpoint == nil || rifflog.CheckpointName(loaded.Checkpoint.Position, loaded.Checkpoint.WrittenAtMs) != names[0] {
		t.Fatalf("Load used %+v; want %s", loaded.Checkpoint, names[0])
	}
	logs := &lines{}
	e := riffengine.New(loaded.State, loaded.Replayed, riffengine.Options{Store: st, StoreName: "memory", Build: serverBuild(),
		Logger: jsonlog.New(logs, slog.LevelInfo), Now: clk.Now})
	defer e.Halt(context.Canceled)
	e.SetUnread(loaded.Unread)

	errorsLogged := logs.with(t, "a checkpoint does not read; the start used the one before it")
	if len(errorsLogged) != 1 {
		t.Fatalf("log lines:\n%s\nwant one ERROR line for %s", logs, newest)
	}
	line := errorsLogged[0]
	if line["severity"] != "ERROR" || line["object"] != newest || !strings.Contains(line["error"].(string), "does not match its checksum") {
		t.Errorf("the line = %v; want ERROR, the object %s and why", line, newest)
	}
	facts := e.Facts()
	if len(facts.UnreadCheckpoints) != 1 || !strings.Contains(facts.UnreadCheckpoints[0], newest) {
		t.Errorf("facts.UnreadCheckpoints = %q; want one that names %s", facts.UnreadCheckpoints, newest)
	}
	var sessions int
	e.View(func(v riffstate.View, _ riffstate.Now) { sessions = len(v.Riff().Sessions) })
	if sessions != 2 {
		t.Errorf("the state after the load holds %d sessions; want both (the older checkpoint and the records after it)", sessions)
	}
}

// exercise runs a mix of calls of a few sessions through HTTP: claims,
// releases, posts, tells, reads, statuses, steps, blocks, with call IDs.
func exercise(r *riff, round, n int) {
	sessions := []string{"ann/s1", "ann/s2", "bob/s3", "carl/s4"}
	for i := range n {
		me := uri(sessions[i%len(sessions)])
		peer := uri(sessions[(i+1)%len(sessions)])
		call := fmt.Sprintf("c%d-%d", round, i)
		item := name.Item(fmt.Sprintf("issue-%d", i%7))
		switch i % 9 {
		case 0:
			r.post(wire.Claim{}.Path(), wire.Claim{Me: me, Item: item}, wire.HeaderCall, call)
		case 1:
			r.post(wire.Release{}.Path(), wire.Release{Me: me, Item: item}, wire.HeaderCall, call)
		case 2:
			r.post(wire.Post{}.Path(), wire.Post{Me: me, Body: "a word " + call}, wire.HeaderCall, call)
		case 3:
			r.post(wire.Post{}.Path(), wire.Post{Me: me, Tell: peer.Session, Body: "to you " + call}, wire.HeaderCall, call)
		case 4:
			r.post(wire.Read{}.Path(), wire.Read{Me: peer, All: i%2 == 0})
		case 5:
			r.post(wire.Status{}.Path(), wire.Status{Me: me, Text: "works on " + call})
		case 6:
			r.post(wire.Step{}.Path(), wire.Step{Me: me, Start: "verify"})
		case 7:
			r.post(wire.Step{}.Path(), wire.Step{Me: me, Fail: "the tests fail"})
		default:
			r.post(wire.Read{}.Path(), wire.Read{Me: me, Thread: "dm:" + peer.Who().String()})
		}
	}
}

// The rule (docs/store.md, "The checkpoint outside the lock"): "The
// server encodes a copy of the state outside the lock." The checkpoint that the engine makes from its copy (moved on by
// the written chunks and the changes of the presence) is byte for byte
// the encode of the written state under the lock, after each round of
// calls, on a start from an empty log, on a start from a checkpoint
// and the records after it (the copy is built from them at its first
// checkpoint), and on a start from the whole log with no checkpoint (the
// copy is a clone of the written state, riffstate's cloneCheaper).
func TestGivenCallsOfEveryKindWhenTheEngineMakesACheckpointFromItsCopyThenItIsTheStateUnderTheLock(t *testing.T) {
	st := keepChunks{mem.New()}
	clk := newClock()
	for start := range 3 {
		if start == 2 {
			for _, n := range checkpointNames(t, st) {
				if err := st.Delete(context.Background(), n); err != nil {
					t.Fatal(err)
				}
			}
		}
		r := start2(t, st, clk)
		if f := r.e.Facts(); start == 2 && (f.Checkpoint != nil || f.Position == 0) {
			t.Fatalf("the start with no checkpoint: checkpoint %+v, position %d; want none, and a replay of the log", f.Checkpoint, f.Position)
		}
		r.register("ann/s1", "ann/s2", "bob/s3", "carl/s4")
		for round := range 5 {
			exercise(r, start*10+round, 40)
			clk.Add(time.Second)
			copied, locked, err := r.e.CheckpointCopies()
			if err != nil {
				t.Fatalf("start %d round %d: %v", start, round, err)
			}
			if !bytes.Equal(copied, locked) {
				t.Fatalf("start %d round %d: the copy encodes\n%s\nthe state under the lock\n%s", start, round, copied, locked)
			}
		}
		// Leave records after the newest checkpoint for the next start.
		exercise(r, 90+start, 20)
		if err := r.e.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// start2 starts an engine on the store as start does, with a checkpoint
// each 25 records, so that checkpoints of the copy run between the
// rounds too.
func start2(t *testing.T, st rifflog.Store, clk *clock) *riff {
	t.Helper()
	return start(t, setup{store: st, clock: clk, checkpointEvery: 25})
}

// Checkpoints of the copy run on a goroutine of their own while calls
// change the state (run it with -race): each one that a start loads,
// with the records after it, gives the riff of a replay of the whole log,
// and the copy stays byte for byte the state under the lock.
func TestGivenCallsThatRunWhileCheckpointsAreEncodedWhenTheServerStartsAgainThenItHasTheStateOfTheWholeLog(t *testing.T) {
	st := keepChunks{mem.New()}
	clk := newClock()
	r := start2(t, st, clk)
	r.register("ann/s1", "ann/s2", "bob/s3", "carl/s4")
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			exercise(r, 100+w, 60)
		}()
	}
	wg.Wait()
	// The checkpoints run on a goroutine of their own, the first at the
	// lowest priority: on a machine whose cores are busy it may end after
	// the last call.
	until(t, fmt.Sprintf("a checkpoint of the copy each 25 records, at position %d", r.position()),
		func() bool { return len(checkpointNames(t, st)) >= 1 })
	copied, locked, err := r.e.CheckpointCopies()
	if err != nil || !bytes.Equal(copied, locked) {
		t.Fatalf("after the concurrent calls the copy encodes\n%s\nthe state under the lock\n%s\n(%v)", copied, locked, err)
	}
	if err := r.e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	names := checkpointNames(t, st)
	for _, n := range names {
		cp, err := rifflog.ReadCheckpoint(context.Background(), st, n)
		if err != nil {
			t.Fatalf("checkpoint %s: %v", n, err)
		}
		from, err := riffstate.LoadCheckpoint(cp.State, riffstate.Options{Build: serverBuild().String()})
		if err != nil {
			t.Fatal(err)
		}
		whole := riffstate.New(riffstate.Options{Build: serverBuild().String()})
		for _, rec := range records(t, st) {
			if rec.Position <= cp.Position {
				whole.Replay(rec)
			} else {
				from.Replay(rec)
			}
		}
		for _, rec := range records(t, st) {
			if rec.Position > cp.Position {
				whole.Replay(rec)
			}
		}
		got, _ := json.Marshal(from.Written().Riff())
		want, _ := json.Marshal(whole.Written().Riff())
		if !bytes.Equal(got, want) {
			t.Errorf("the start from %s gives\n%s\nthe replay of the whole log\n%s", n, got, want)
		}
	}
}

// keepChunks is a store whose prune deletes no chunk, so that a test can
// replay the whole log.
type keepChunks struct{ rifflog.Store }

func (s keepChunks) Delete(ctx context.Context, name string) error {
	if strings.HasPrefix(name, rifflog.ChunkPrefix) {
		return nil
	}
	return s.Store.Delete(ctx, name)
}

// The rule (docs/store.md, "The checkpoint outside the lock"): "The
// server encodes a copy of the state outside the lock." While a checkpoint is held right before its encode, calls of
// every kind get their replies: none waits for the checkpoint.
func TestGivenACheckpointThatIsEncodingWhenCallsComeThenTheyGetTheirRepliesWithNoWait(t *testing.T) {
	st := mem.New()
	r := start2(t, st, newClock())
	entered, release := r.e.PauseEncodes()
	defer release()
	r.register("ann/s1", "ann/s2", "bob/s3", "carl/s4")
	// More than 25 records: a checkpoint comes to its encode in the
	// middle of these calls, and waits there.
	done := make(chan struct{})
	go func() {
		defer close(done)
		exercise(r, 0, 90)
		exercise(r, 1, 18)
		r.ok(wire.Who{}.Path(), wire.Who{Me: uri("ann/s1")}, nil)
	}()
	select {
	case <-entered:
	case <-time.After(time.Minute):
		t.Fatalf("no checkpoint came to its encode in a minute: position %d", r.position())
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the calls waited a minute for a checkpoint that encodes")
	}
	release()
	until(t, "a checkpoint", func() bool { return len(checkpointNames(t, st)) > 0 })
}

// The rule: "A build writes no checkpoint while the newest
// checkpoint comes from a later version." With its copy of the state, the
// engine still writes none, in the run or at its stop, and says why.
func TestGivenANewestCheckpointOfALaterBuildWhenRecordsComeThenTheEngineWritesNoCheckpointAndSaysWhy(t *testing.T) {
	ctx := context.Background()
	st := mem.New()
	clk := newClock()
	settled(t, st, clk, "ann/s1")
	names := checkpointNames(t, st)
	if len(names) != 1 {
		t.Fatalf("checkpoints = %v", names)
	}
	cp, err := rifflog.ReadCheckpoint(ctx, st, names[0])
	if err != nil {
		t.Fatal(err)
	}
	cp.Build = "9.0.0" // as a later build wrote it
	_ = st.Delete(ctx, names[0])
	if _, err := rifflog.WriteCheckpoint(ctx, st, cp); err != nil {
		t.Fatal(err)
	}
	loaded, err := riffengine.Load(ctx, st, riffstate.Options{Build: serverBuild().String()})
	if err != nil {
		t.Fatal(err)
	}
	e := riffengine.New(loaded.State, loaded.Replayed, riffengine.Options{Store: st, StoreName: "memory", Build: serverBuild(),
		Now: clk.Now, CheckpointEvery: 3, TimerEvery: time.Hour})
	defer e.Halt(context.Canceled)
	e.SetReplay(loaded.Took, cp.Position, time.UnixMilli(cp.WrittenAtMs), cp.Build)
	e.SetServing(true, "")
	me := uri("ann/s1")
	for i := range 12 {
		item := name.Item(fmt.Sprintf("issue-%d", i))
		if _, err := riffengine.Dispatch[riffstate.Claim, wire.ClaimReply](ctx, e, riffengine.Authenticate(prove(t, me), riffstate.Claim{Claim: wire.Claim{Me: me, Item: item}})); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got := checkpointNames(t, st); len(got) != 1 || got[0] != names[0] {
		t.Errorf("checkpoints after 12 records and a stop = %v; want only the one of the later build", got)
	}
	if why := e.Facts().NoCheckpointWhy; !strings.Contains(why, "later build 9.0.0") {
		t.Errorf("NoCheckpointWhy = %q; want the later build", why)
	}
}

// The old instance can write a checkpoint until it reads the new lease
// (docs/operations.md, "A deploy: the handover"). The new instance counts toward its next checkpoint
// from the newest one that it reads after its wait, not from the one that
// it loaded.
func TestGivenACheckpointOfTheOldInstanceInTheWaitWhenTheNewOneServesThenItCountsFromThatCheckpoint(t *testing.T) {
	ctx := context.Background()
	st := mem.New()
	clk := newClock()
	claims := func(e *riffengine.Engine, who string, from, n int) {
		t.Helper()
		me := uri(who)
		for i := from; i < from+n; i++ {
			item := name.Item(fmt.Sprintf("issue-%d", i))
			if _, err := riffengine.Dispatch[riffstate.Claim, wire.ClaimReply](ctx, e, riffengine.Authenticate(prove(t, me), riffstate.Claim{Claim: wire.Claim{Me: me, Item: item}})); err != nil {
				t.Fatal(err)
			}
		}
	}
	settled(t, st, clk, "ann/s1") // a checkpoint, then 6 records after it
	old := start(t, setup{store: st, clock: clk})
	claims(old.e, "ann/s1", 0, 6)
	old.e.Halt(context.Canceled)

	loaded, err := riffengine.Load(ctx, st, riffstate.Options{Build: serverBuild().String()})
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Replayed.Records < 6 {
		t.Fatalf("the new instance replayed %d records after its checkpoint; want 6", loaded.Replayed.Records)
	}
	e := riffengine.New(loaded.State, loaded.Replayed, riffengine.Options{Store: st, StoreName: "memory", Build: serverBuild(),
		Now: clk.Now, CheckpointEvery: 10, TimerEvery: time.Hour})
	defer e.Halt(context.Canceled)

	// In the wait of the new instance the old one writes 4 more records
	// and a checkpoint after them.
	old = start(t, setup{store: st, clock: clk})
	claims(old.e, "ann/s1", 6, 4)
	if err := old.e.Close(ctx); err != nil {
		t.Fatal(err)
	}
	newest := checkpointNames(t, st)
	if err := e.TakeLease(ctx, "new", 0); err != nil {
		t.Fatal(err)
	}
	e.SetServing(true, "")
	// 6 records after the loaded checkpoint, 4 in the wait: counted from
	// the loaded one, that is a checkpoint's worth at once; from the
	// newest, 9 more make none before the one of the stop.
	claims(e, "ann/s1", 10, 9)
	if err := e.Close(ctx); err != nil { // the last checkpoint of the stop comes after
		t.Fatal(err)
	}
	last := e.Facts().Position
	for _, n := range checkpointNames(t, st) {
		p, _, _ := rifflog.ParseCheckpointName(n)
		if !slices.Contains(newest, n) && p != last {
			t.Errorf("a checkpoint at %d, before the one of the stop at %d: the count did not start at the newest checkpoint %v", p, last, newest)
		}
	}
}
