package riffengine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"

	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine/tokens"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/mem"
)

// The reply of a refresh waits for the write of signins.json that it
// needs (docs/tokens.md, "The saver"): the end of a sign-in by a reused
// refresh token is written before its reply, and a new pair of
// generation G+1 goes out only once the object holds generation G. A
// write that a test holds stands for the second in which a kill -9 can
// come.

// heldSwaps is a memory store whose writes of signins.json wait while
// the test holds them.
type heldSwaps struct {
	rifflog.Store

	mu      sync.Mutex
	release chan struct{} // nil: the writes go at once
	fail    error         // the error of each write from the release on
}

func (h *heldSwaps) hold() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.release = make(chan struct{})
}

func (h *heldSwaps) let() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.release != nil {
		close(h.release)
		h.release = nil
	}
}

// held says whether the writes wait now.
func (h *heldSwaps) held() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.release != nil
}

func (h *heldSwaps) Swap(ctx context.Context, name string, data []byte, gen int64) (int64, error) {
	h.mu.Lock()
	release := h.release
	h.mu.Unlock()
	if release != nil && name == rifflog.SignInsName {
		select {
		case <-release:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	h.mu.Lock()
	fail := h.fail
	h.mu.Unlock()
	if fail != nil && name == rifflog.SignInsName {
		return 0, fail
	}
	return h.Store.Swap(ctx, name, data, gen)
}

// savedGenerations gives the generation of each sign-in that the object
// signins.json holds now.
func savedGenerations(t testing.TB, store rifflog.Store) []uint64 {
	t.Helper()
	data, _, err := store.Load(context.Background(), rifflog.SignInsName)
	if err != nil {
		t.Fatalf("load signins.json: %v", err)
	}
	var f struct {
		SignIns []struct {
			Generation uint64 `json:"generation"`
		} `json:"sign_ins"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	var gens []uint64
	for _, s := range f.SignIns {
		gens = append(gens, s.Generation)
	}
	return gens
}

// arrival is a reply, with what the object held when it came.
type arrival struct {
	rep       reply
	whileHeld bool
	saved     []uint64
}

// refreshAsync sends a refresh; the arrival of its reply notes whether
// the writes were held then and what the object held.
func (r *signedRiff) refreshAsync(store *heldSwaps, d device, token string) <-chan arrival {
	out := make(chan arrival, 1)
	go func() {
		rep, _ := r.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: token}, proofKey: d.key})
		a := arrival{rep: rep, whileHeld: store.held()}
		a.saved = savedGenerations(r.t, store.Store)
		out <- a
	}()
	return out
}

// waitOrArrive gives the arrival when the reply came before the refresh
// waited for a write (the hole), or lets the writes go once it waits and
// gives the arrival after them.
func waitOrArrive(t *testing.T, store *heldSwaps, waiting <-chan struct{}, replies <-chan arrival) arrival {
	t.Helper()
	select {
	case a := <-replies:
		return a
	case <-waiting:
	}
	store.let()
	return <-replies
}

func TestGivenAReusedRefreshTokenWhenTheSignInEndsThenItsReplyComesOnlyAfterSignInsJsonHoldsTheEnd(t *testing.T) {
	store := &heldSwaps{Store: mem.New()}
	r := startSignedInOn(t, store, adaOpts)
	t.Cleanup(store.let) // before the stop of the engine
	waiting := make(chan struct{}, 10)
	r.e.SetBeforeRefreshWait(func() { waiting <- struct{}{} })
	d := newDevice(t)
	first := r.signIn(d, "ada@example.com")
	var next wire.TokenReply
	rep, _ := r.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: first.RefreshToken}, proofKey: d.key})
	rep.decode(t, &next)
	rep, _ = r.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: next.RefreshToken}, proofKey: d.key})
	rep.decode(t, &next)
	until(t, "the write of generation 3", func() bool {
		g := savedGenerations(t, store.Store)
		return len(g) == 1 && g[0] == 3
	})

	store.hold() // the second before a kill -9
	a := waitOrArrive(t, store, waiting, r.refreshAsync(store, d, first.RefreshToken))
	wantRefused(t, a.rep, wire.BadToken, http.StatusUnauthorized)
	if a.whileHeld || len(a.saved) != 0 {
		t.Fatalf("the reply of the reuse came while the write was held (%v), and the object held the sign-ins %v: a kill -9 then brings the sign-in back", a.whileHeld, a.saved)
	}
	// A kill -9 and a restart on the store: the sign-in stays ended.
	r.e.Halt(errors.New("kill -9"))
	again := startSignedInOn(t, store, adaOpts)
	rep, _ = again.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: next.AccessToken, proofKey: d.key})
	wantRefused(t, rep, wire.BadToken, http.StatusUnauthorized)
	rep, _ = again.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: next.RefreshToken}, proofKey: d.key})
	wantRefused(t, rep, wire.BadToken, http.StatusUnauthorized)
}

func TestGivenTwoRefreshesInOneSecondWhenTheSecondRepliesThenSignInsJsonHoldsTheGenerationBeforeItAndARestartTakesItsToken(t *testing.T) {
	store := &heldSwaps{Store: mem.New()}
	r := startSignedInOn(t, store, adaOpts)
	t.Cleanup(store.let) // before the stop of the engine
	waiting := make(chan struct{}, 10)
	r.e.SetBeforeRefreshWait(func() { waiting <- struct{}{} })
	d := newDevice(t)
	first := r.signIn(d, "ada@example.com")
	store.hold() // no write of signins.json from here: a kill -9 can come at any time

	// The first refresh needs generation 1, which the sign-in wrote.
	var second wire.TokenReply
	rep, _ := r.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: first.RefreshToken}, proofKey: d.key})
	rep.decode(t, &second)
	// The second needs generation 2, whose write is held.
	a := waitOrArrive(t, store, waiting, r.refreshAsync(store, d, second.RefreshToken))
	var third wire.TokenReply
	a.rep.decode(t, &third)
	if a.whileHeld || len(a.saved) != 1 || a.saved[0] < 2 {
		t.Fatalf("the reply of generation 3 came while the write was held (%v) and the object held the generations %v; want at least 2", a.whileHeld, a.saved)
	}
	// A kill -9 and a restart: the newest token of the client works.
	r.e.Halt(errors.New("kill -9"))
	again := startSignedInOn(t, store, adaOpts)
	rep, _ = again.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: third.RefreshToken}, proofKey: d.key})
	if rep.status != http.StatusOK {
		t.Fatalf("the refresh of the newest token after a restart = %s; want 200: the sign-in is lost", rep)
	}
}

func TestGivenARefreshThatWaitsForAWriteWhenTheWriteFailsThenItGets503AndTheSameTokenWorksOnceAWriteWorks(t *testing.T) {
	store := &heldSwaps{Store: mem.New()}
	r := startSignedInOn(t, store, adaOpts)
	t.Cleanup(store.let)
	waiting := make(chan struct{}, 10)
	r.e.SetBeforeRefreshWait(func() { waiting <- struct{}{} })
	d := newDevice(t)
	first := r.signIn(d, "ada@example.com")
	store.hold()
	var second wire.TokenReply
	rep, _ := r.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: first.RefreshToken}, proofKey: d.key})
	rep.decode(t, &second)
	replies := r.refreshAsync(store, d, second.RefreshToken)
	select {
	case a := <-replies:
		t.Fatalf("the refresh of generation 2 replied %s before the write of generation 2", a.rep)
	case <-waiting:
	}
	store.mu.Lock()
	store.fail = errors.New("the bucket answers 500")
	store.mu.Unlock()
	store.let()
	a := <-replies
	if a.rep.status != http.StatusServiceUnavailable {
		t.Fatalf("the refresh whose write failed = %s; want 503, and riff tries again", a.rep)
	}
	// The writes work again: the same token is the lost reply, and gets a pair.
	store.mu.Lock()
	store.fail = nil
	store.mu.Unlock()
	until(t, "a refresh after the writes work", func() bool {
		rep, _ := r.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: second.RefreshToken}, proofKey: d.key})
		return rep.status == http.StatusOK
	})
}

// TestGivenRandomRefreshesHeldWritesAndLostRepliesOnTheEngineWhenARestartLoadsSignInsJsonAtAnyMomentThenItTakesTheNewestToken
// runs random sequences on a real engine over HTTP: refreshes, writes of
// signins.json held and let go, replies lost on the way. At any moment
// (a kill -9), a store loaded from the object as it is then takes the
// newest refresh token that the machine got.
func TestGivenRandomRefreshesHeldWritesAndLostRepliesOnTheEngineWhenARestartLoadsSignInsJsonAtAnyMomentThenItTakesTheNewestToken(t *testing.T) {
	for seed := range uint64(12) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { runEngineRefreshes(t, seed) })
	}
}

func runEngineRefreshes(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 23))
	store := &heldSwaps{Store: mem.New()}
	r := startSignedInOn(t, store, adaOpts)
	t.Cleanup(store.let)
	waiting := make(chan struct{}, 100)
	r.e.SetBeforeRefreshWait(func() { waiting <- struct{}{} })
	d := newDevice(t)
	key := thumbprint(t, d)
	newest := r.signIn(d, "ada@example.com").RefreshToken
	var pending <-chan arrival
	var log []string
	take := func(a arrival, lost bool) {
		if a.rep.status == http.StatusOK && !lost {
			var tr wire.TokenReply
			a.rep.decode(t, &tr)
			newest = tr.RefreshToken
		}
	}
	for range 14 {
		switch op := rng.IntN(6); {
		case op < 2 && pending == nil:
			log = append(log, "refresh")
			replies := r.refreshAsync(store, d, newest)
			select {
			case a := <-replies:
				take(a, false)
			case <-waiting:
				pending = replies // it waits for a held write
			}
		case op < 3:
			if store.held() {
				log = append(log, "let")
				store.let()
				if pending != nil {
					lost := rng.IntN(3) == 0
					if lost {
						log = append(log, "lost")
					}
					take(<-pending, lost)
					pending = nil
				}
			} else {
				log = append(log, "hold")
				store.hold()
			}
		default:
			log = append(log, "crash")
			data, _, err := store.Store.Load(context.Background(), rifflog.SignInsName)
			if err != nil {
				t.Fatal(err)
			}
			check := tokens.New(tokens.Options{})
			if _, err := check.Load(data, 1<<40, func(string) (bool, uint64) { return true, 0 }); err != nil {
				t.Fatal(err)
			}
			if _, err := check.Refresh(newest, key); err != nil {
				t.Fatalf("seed %d after %v: a start on signins.json now refuses the newest token of the machine: %v", seed, log, err)
			}
		}
	}
	store.let()
	if pending != nil {
		<-pending
	}
}
