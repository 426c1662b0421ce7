package riffengine_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/jsonlog"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/como-technologies/riff/riffstate"
)

// The handover of a deploy inside one process: two engines on one
// store, as two instances (cmd/riff-server has the same with two real
// processes).

// instance loads the store as an instance does at its start, and gives
// its engine behind an HTTP server. It does not serve until the test
// takes the lease and says so.
func instance(t *testing.T, store rifflog.Store) *riff {
	t.Helper()
	r := &riff{t: t, store: store, clock: newClock(), logs: &lines{}, calls: map[string]int{}}
	opts := riffstate.Options{Build: serverBuild().String()}
	loaded, err := riffengine.Load(context.Background(), store, opts)
	if err != nil {
		t.Fatalf("Load = %v", err)
	}
	r.e = riffengine.New(loaded.State, loaded.Replayed, riffengine.Options{
		Store: store, StoreName: "memory", Build: serverBuild(), Logger: jsonlog.New(r.logs, slog.LevelDebug),
		Now: r.clock.Now, TimerEvery: time.Hour, CheckpointInterval: 100 * 365 * 24 * time.Hour,
		StateOptions: opts, LoadedCheckpoint: loaded.CheckpointName,
	})
	r.srv = riffengine.NewHandler(r.e, riffengine.NoSignIn{})
	r.http = httptest.NewServer(r.srv)
	t.Cleanup(func() {
		r.e.Halt(errors.New("the test ends"))
		r.http.Close()
	})
	return r
}

// serve takes the lease with no wait, and serves.
func (r *riff) serve(id string) {
	r.t.Helper()
	if err := r.e.TakeLease(context.Background(), id, 0); err != nil {
		r.t.Fatalf("TakeLease(%s) = %v", id, err)
	}
	r.e.SetServing(true, "")
}

// work is the work of the old instance: ann joins the thread, mike posts
// three messages, ann reads them (her cursor moves) and sets a status.
func work(r *riff) {
	r.ok("/v1/resume", wire.Resume{Me: uri("mike"), Riff: true}, nil)
	r.ok("/v1/join", wire.Join{Me: uri("ann/s1"), Thread: string(repoThread)}, nil)
	for _, body := range []string{"one", "two", "three"} {
		r.ok("/v1/post", wire.Post{Me: uri("mike/s2"), Thread: string(repoThread), Body: body}, nil)
	}
	r.ok("/v1/read", wire.Read{Me: uri("ann/s1"), Thread: string(repoThread)}, nil)
	r.ok("/v1/status", wire.Status{Me: uri("ann/s1"), Text: "reviews the parser"}, nil)
}

// annSees gives the unread count of ann in the thread and her row of who.
func annSees(r *riff) (unread uint64, detail string) {
	var threads wire.ThreadsReply
	r.ok("/v1/threads", wire.Threads{Me: uri("ann/s1")}, &threads)
	for _, th := range threads.Threads {
		if th.Thread == string(repoThread) {
			unread = th.Unread
		}
	}
	var who wire.WhoReply
	r.ok("/v1/who", wire.Who{Me: uri("ann/s1"), All: true}, &who)
	for _, row := range who.Rows {
		if row.URI.Who() == whoOf("ann/s1") {
			detail = row.Detail
		}
	}
	return unread, detail
}

// TestGivenTheLastCheckpointOfTheOldInstanceWhenTheNewOneEndsItsWaitThenItLoadsAgainFromIt
// is the rule "the new instance lists the checkpoints again after the
// wait" (docs/operations.md, "A deploy: the handover"): the new instance loaded before the old one wrote its
// last checkpoint, and after its wait it loads again from that one, so
// it has ann's cursor and status, which only the memory of the old
// instance and the checkpoint hold.
func TestGivenTheLastCheckpointOfTheOldInstanceWhenTheNewOneEndsItsWaitThenItLoadsAgainFromIt(t *testing.T) {
	store := mem.New()
	old := instance(t, store)
	old.serve("old")
	work(old)
	position := old.position()

	next := instance(t, store) // loads now: no checkpoint yet
	// The old instance writes its last checkpoint in the wait of the new
	// one (its stop writes it through the same path as a handover).
	if err := old.e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	next.serve("new")
	if got := next.position(); got != position {
		t.Errorf("the new instance serves at %d; want %d", got, position)
	}
	unread, detail := annSees(next)
	if unread != 0 {
		t.Errorf("ann has %d unread after the handover; want 0 (her cursor from the last checkpoint)", unread)
	}
	if !strings.Contains(detail, "reviews the parser") {
		t.Errorf("ann's row after the handover says %q; want her status", detail)
	}
	// The copy that the checkpoints encode follows the second load: a
	// checkpoint by the copy after more calls is the state's own.
	next.ok("/v1/post", wire.Post{Me: uri("mike/s2"), Thread: string(repoThread), Body: "four"}, nil)
	next.ok("/v1/status", wire.Status{Me: uri("ann/s1"), Text: "writes the tests"}, nil)
	copied, locked, err := next.e.CheckpointCopies()
	if err != nil {
		t.Fatalf("a checkpoint after the second load: %v", err)
	}
	if string(copied) != string(locked) {
		t.Errorf("after the second load the copy encodes\n%s\nand the state\n%s", copied, locked)
	}
}

// TestGivenNoNewCheckpointWhenTheNewInstanceEndsItsWaitThenItReadsTheChunksThatCameSince
// is the other branch: the old instance wrote chunks after the load of
// the new one and no checkpoint (it crashed), and the new one reads
// those chunks.
func TestGivenNoNewCheckpointWhenTheNewInstanceEndsItsWaitThenItReadsTheChunksThatCameSince(t *testing.T) {
	store := mem.New()
	old := instance(t, store)
	old.serve("old")
	next := instance(t, store)
	work(old)
	position := old.position()
	old.e.Halt(errors.New("a crash: no last checkpoint"))
	next.serve("new")
	if got := next.position(); got != position {
		t.Errorf("the new instance serves at %d; want %d (the chunks that came in its wait)", got, position)
	}
	if unread, _ := annSees(next); unread != 3 {
		t.Errorf("ann has %d unread after a crash of the old instance; want 3 (no checkpoint kept her cursor)", unread)
	}
}

// TestGivenANewLeaseWhenTheOldInstanceReadsItThenItWritesALastCheckpoint
// is the old side: a new instance takes the lease, the old one reads it
// at its next chunk and stops (503), and HandOver writes a checkpoint of
// what it wrote, naming the new instance. When no other instance holds
// the lease (it ended), it writes none.
func TestGivenANewLeaseWhenTheOldInstanceReadsItThenItWritesALastCheckpoint(t *testing.T) {
	for _, tc := range []struct {
		name       string
		end        bool // the new instance ends its lease before the old one hands over
		checkpoint bool
	}{
		{name: "a new instance holds the lease", checkpoint: true},
		{name: "the new lease ended", end: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := mem.New()
			old := instance(t, store)
			old.serve("old")
			work(old)
			position := old.position()
			ctx := context.Background()
			newLeaseStops(t, old, tc.end)
			holder, err := old.e.HandOver(ctx)
			newest, lerr := rifflog.NewestCheckpointName(ctx, store)
			if lerr != nil {
				t.Fatal(lerr)
			}
			if !tc.checkpoint {
				if !errors.Is(err, rifflog.ErrLeaseLost) || newest != "" {
					t.Errorf("HandOver with an ended lease = %v, checkpoint %q; want ErrLeaseLost and none", err, newest)
				}
				return
			}
			if err != nil || holder.Instance != "new" || holder.Revision != 7 {
				t.Fatalf("HandOver = %+v, %v; want the lease of new, revision 7", holder, err)
			}
			loaded, err := riffengine.Load(ctx, store, riffstate.Options{})
			if err != nil || loaded.Checkpoint == nil || loaded.Checkpoint.Position != position || loaded.Replayed.Records != 0 {
				t.Fatalf("Load after the handover = checkpoint %v, %d records after it, %v; want a checkpoint at %d", loaded.Checkpoint != nil, loaded.Replayed.Records, err, position)
			}
		})
	}
}

// newLeaseStops is a deploy as the old instance sees it: a new instance
// takes the lease (revision 7), the next chunk of the old one meets it
// (503), and the old one stops. With end, the new instance then ends its
// lease (a failed deploy).
func newLeaseStops(t *testing.T, old *riff, end bool) {
	t.Helper()
	ctx := context.Background()
	lease, err := rifflog.TakeLeaseAs(ctx, old.store, "new", 7, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if r := old.post("/v1/post", wire.Post{Me: uri("mike/s2"), Thread: string(repoThread), Body: "after the new lease"}); r.status != http.StatusServiceUnavailable {
		t.Errorf("a post after the new lease = %s; want 503", r)
	}
	select {
	case <-old.e.Stopping():
	default:
		t.Fatal("the old instance did not stop when its chunk met the new lease")
	}
	if end {
		if err := lease.End(ctx, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
}
