package riffengine_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/jsonlog"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/como-technologies/riff/riffstate"
)

// The start and the stop of a program: Open and Close, with the lease of
// a store (the steps apart are in handover_test.go).

// opened starts an engine on store with Open, as a program does, and
// gives it behind an HTTP server.
func opened(t *testing.T, store rifflog.Store, opts riffengine.Options) *riff {
	t.Helper()
	r := &riff{t: t, store: store, clock: newClock(), logs: &lines{}, calls: map[string]int{}}
	opts.Build, opts.StoreName = serverBuild(), "memory"
	opts.Logger = jsonlog.New(r.logs, slog.LevelDebug)
	e, err := riffengine.Open(context.Background(), store, opts)
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	r.e = e
	r.srv = riffengine.NewHandler(e, riffengine.NoSignIn{})
	r.http = httptest.NewServer(r.srv)
	t.Cleanup(func() {
		r.e.Halt(errors.New("the test ends"))
		r.http.Close()
	})
	return r
}

// leaseHolds says whether the lease of the store names a live instance.
func leaseHolds(t *testing.T, store rifflog.Store) bool {
	t.Helper()
	r, _, ok, err := rifflog.ReadLease(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	return ok && r.Holds(time.Now())
}

func TestGivenAServingEngineWhenItClosesThenTheNextOpenLoadsItsLastCheckpointAndNeedNotWaitForTheLease(t *testing.T) {
	store := mem.New()
	r := opened(t, store, riffengine.Options{})
	if ok, why := r.e.Serving(); !ok {
		t.Fatalf("after Open the engine does not serve: %s", why)
	}
	work(r)
	position := r.position()
	if err := r.e.Close(context.Background()); err != nil {
		t.Fatalf("Close = %v", err)
	}
	if leaseHolds(t, store) {
		t.Error("the lease still holds after Close; want it ended")
	}
	if got := r.post("/v1/post", wire.Post{Me: uri("mike/s2"), Thread: string(repoThread), Body: "after the stop"}); got.status != http.StatusServiceUnavailable {
		t.Errorf("a post after Close = %s; want 503", got)
	}
	wantMessages(t, r.logs, "riff-server stops: it writes what waits and a last checkpoint", "riff-server stopped")
	loaded, err := riffengine.Load(context.Background(), store, riffstate.Options{})
	if err != nil || loaded.Checkpoint == nil || loaded.Checkpoint.Position != position || loaded.Replayed.Records != 0 {
		t.Fatalf("Load after Close = checkpoint %v, %d records after it, %v; want a checkpoint at %d", loaded.Checkpoint != nil, loaded.Replayed.Records, err, position)
	}
	next := opened(t, store, riffengine.Options{})
	if got := next.position(); got != position {
		t.Errorf("the next Open serves at %d; want %d", got, position)
	}
}

func TestGivenTheLeaseOfANewInstanceWhenTheOldOneClosesThenItHandsOverWithALastCheckpoint(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  bool // the new instance ends its lease before the old one closes
	}{
		{name: "a new instance holds the lease"},
		{name: "the new lease ended", end: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := mem.New()
			old := opened(t, store, riffengine.Options{})
			work(old)
			position := old.position()
			ctx := context.Background()
			newLeaseStops(t, old, tc.end)
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			err := old.e.Close(cctx)
			newest, lerr := rifflog.NewestCheckpointName(ctx, store)
			if lerr != nil {
				t.Fatal(lerr)
			}
			if tc.end {
				if !errors.Is(err, rifflog.ErrLeaseLost) || newest != "" {
					t.Errorf("Close with the new lease ended = %v, checkpoint %q; want ErrLeaseLost and none", err, newest)
				}
				wantMessages(t, old.logs, "riff-server wrote no last checkpoint for the new instance")
				return
			}
			if err != nil {
				t.Fatalf("Close = %v; want the handover", err)
			}
			wantMessages(t, old.logs, "riff-server hands over: another instance took the lease; it closes its port and writes a last checkpoint",
				"riff-server stopped: it handed over to the new instance")
			if !leaseHolds(t, store) {
				t.Error("the lease of the new instance no longer holds after the handover; the old one must not end it")
			}
			loaded, err := riffengine.Load(ctx, store, riffstate.Options{})
			if err != nil || loaded.Checkpoint == nil || loaded.Checkpoint.Position != position {
				t.Fatalf("Load after the handover = checkpoint %v, %v; want a checkpoint at %d", loaded.Checkpoint != nil, err, position)
			}
		})
	}
}

func TestGivenAStartThatFailsWhenOpenStopsThenItEndsTheLeaseOnlyWhenItTookIt(t *testing.T) {
	failed := errors.New("the port does not open")
	t.Run("after the lease", func(t *testing.T) {
		store := mem.New()
		var served bool
		_, err := riffengine.Open(context.Background(), store, riffengine.Options{
			Listen: func(e *riffengine.Engine) error {
				served, _ = e.Serving()
				return nil
			},
			Leased: func(context.Context) error { return failed },
		})
		if !errors.Is(err, failed) {
			t.Fatalf("Open = %v; want the error of Leased", err)
		}
		if served {
			t.Error("the engine served in Listen; want 503 until the end of the start")
		}
		if _, _, ok, _ := rifflog.ReadLease(context.Background(), store); !ok || leaseHolds(t, store) {
			t.Errorf("after a start that failed after the lease: a lease %v that holds %v; want one, ended", ok, leaseHolds(t, store))
		}
	})
	t.Run("before the lease", func(t *testing.T) {
		store := mem.New()
		_, err := riffengine.Open(context.Background(), store, riffengine.Options{
			Listen: func(*riffengine.Engine) error { return failed },
		})
		if !errors.Is(err, failed) {
			t.Fatalf("Open = %v; want the error of Listen", err)
		}
		if _, _, ok, _ := rifflog.ReadLease(context.Background(), store); ok {
			t.Error("a start that failed before the lease wrote a lease")
		}
	})
}

func TestGivenAStopSignalInTheStartWhenOpenEndsThenItGivesErrStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := riffengine.Open(ctx, mem.New(), riffengine.Options{
		LeaseWait: time.Hour,
		Listen:    func(*riffengine.Engine) error { cancel(); return nil },
	})
	if !errors.Is(err, riffengine.ErrStopped) {
		t.Fatalf("Open with a stop signal before the lease = %v; want ErrStopped", err)
	}
}

// wantMessages fails unless the log has a line with each message.
func wantMessages(t *testing.T, logs *lines, messages ...string) {
	t.Helper()
	for _, m := range messages {
		if len(logs.with(t, m)) == 0 {
			t.Errorf("no line %q in\n%s", m, logs.String())
		}
	}
}
