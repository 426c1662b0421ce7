package riffengine_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/jsonlog"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/riffengine/tokens"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/dir"
	"github.com/como-technologies/riff/rifflog/mem"
)

// The sign-ins of a riff with sign-in in the engine: the loads of
// signins.json, the schedule of its writes, and its last writes at a
// stop and a handover.

// fakeTimer is the timer of the schedule of signins.json: each wait
// that the saver asks for goes to asks, and lasts until the test fires
// it (or at once, in auto).
type fakeTimer struct {
	asks chan time.Duration

	mu      sync.Mutex
	pending []chan time.Time
	auto    bool
}

func newFakeTimer() *fakeTimer { return &fakeTimer{asks: make(chan time.Duration, 1000)} }

func (f *fakeTimer) after(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	f.mu.Lock()
	if f.auto {
		ch <- time.Time{}
	} else {
		f.pending = append(f.pending, ch)
	}
	f.mu.Unlock()
	select {
	case f.asks <- d:
	default: // a test in auto reads no asks
	}
	return ch
}

// ask gives the next wait that the saver asks for.
func (f *fakeTimer) ask(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-f.asks:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("the saver asked for no wait")
		return 0
	}
}

// fire ends the newest wait.
func (f *fakeTimer) fire() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n := len(f.pending); n > 0 {
		f.pending[n-1] <- time.Time{}
		f.pending = f.pending[:n-1]
	}
}

// setAuto makes each later wait end at once; the waits that were
// asked before stay.
func (f *fakeTimer) setAuto() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.auto = true
}

// signStore is a store that tells the order of the writes of
// signins.json and of the checkpoints, fails the writes of signins.json
// when told, and moves the clock by took during each of them (a slow
// write).
type signStore struct {
	rifflog.Store
	clock *clock

	mu    sync.Mutex
	ops   []string
	fail  error
	took  time.Duration
	swaps int
}

func (s *signStore) Swap(ctx context.Context, name string, data []byte, gen int64) (int64, error) {
	if name != rifflog.SignInsName {
		return s.Store.Swap(ctx, name, data, gen)
	}
	s.mu.Lock()
	fail, took := s.fail, s.took
	s.swaps++
	s.mu.Unlock()
	if s.clock != nil {
		s.clock.Add(took)
	}
	if fail != nil {
		s.op("signins failed")
		return 0, fail
	}
	g, err := s.Store.Swap(ctx, name, data, gen)
	if err == nil {
		s.op("signins")
	}
	return g, err
}

func (s *signStore) Put(ctx context.Context, name string, data []byte) error {
	err := s.Store.Put(ctx, name, data)
	if err == nil && strings.HasPrefix(name, rifflog.CheckpointPrefix) {
		s.op("checkpoint")
	}
	return err
}

func (s *signStore) op(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, what)
}

func (s *signStore) setFail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = err
}

func (s *signStore) written() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ops)
}

// peopleLog writes a log whose people know mike and ann, with ann
// removed at position 5: riff_made (1), person_joined mike (2) and ann
// (3), member_invited ann (4), member_removed ann (5).
func peopleLog(t *testing.T, store rifflog.Store) {
	t.Helper()
	changes := []record.Change{
		record.RiffMade{Riff: "r1"},
		record.PersonJoined{User: "mike", Email: "mike@example.com"},
		record.PersonJoined{User: "ann", Email: "ann@example.com"},
		record.MemberInvited{Email: "ann@example.com"},
		record.MemberRemoved{Email: "ann@example.com"},
	}
	var lines [][]byte
	for i, c := range changes {
		line, err := record.Encode(record.Record{Position: uint64(i + 1), WrittenAtMs: t0.UnixMilli(), Change: c})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	if _, err := rifflog.Write(context.Background(), store, rifflog.Replayed{}.Next(lines)); err != nil {
		t.Fatal(err)
	}
}

var mikeP = tokens.Person{User: "mike", Email: "mike@example.com"}

// signedEngine is an engine of a riff with sign-in on a store with the
// people of peopleLog, with the clock and the timer of the test.
type signedEngine struct {
	t     *testing.T
	e     *riffengine.Engine
	store *signStore
	clock *clock
	timer *fakeTimer
	logs  *lines
}

// openSigned opens an engine with sign-in on store (the people of
// peopleLog must be in it), with no lease.
func openSigned(t *testing.T, store *signStore, opts riffengine.Options) *signedEngine {
	t.Helper()
	s := &signedEngine{t: t, store: store, clock: store.clock, timer: newFakeTimer(), logs: &lines{}}
	opts.SignIn = true
	opts.Build, opts.StoreName = serverBuild(), "memory"
	opts.Now = s.clock.Now
	opts.Logger = jsonlog.New(s.logs, slog.LevelDebug)
	opts.TimerEvery = time.Hour
	opts.CheckpointInterval = 100 * 365 * 24 * time.Hour
	e, err := riffengine.Open(context.Background(), store, opts)
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	e.SetSignInsTimer(s.timer.after)
	s.e = e
	t.Cleanup(func() { e.Halt(errors.New("the test ends")) })
	return s
}

func newSignStore(t *testing.T) *signStore {
	store := &signStore{Store: mem.New(), clock: newClock()}
	peopleLog(t, store)
	return store
}

// start signs mike in and waits for the write of the sign-in.
func (s *signedEngine) start(key string) tokens.Pair {
	s.t.Helper()
	pair, version, err := s.e.SignIns().Start(mikeP, key, 2)
	if err != nil {
		s.t.Fatalf("Start = %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.e.WaitSaved(ctx, version); err != nil {
		s.t.Fatalf("WaitSaved = %v", err)
	}
	return pair
}

func TestGivenARiffWithNoSignInWhenItOpensThenItHasNoTokenStoreAndWritesNoSignIns(t *testing.T) {
	store := &signStore{Store: mem.New(), clock: newClock()}
	r := opened(t, store, riffengine.Options{})
	if r.e.SignIns() != nil {
		t.Fatal("SignIns of a riff with no sign-in is not nil")
	}
	if err := r.e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if store.swaps != 0 {
		t.Errorf("a riff with no sign-in wrote signins.json %d times", store.swaps)
	}
}

func TestGivenAWriteOfSignInsJsonWhenTheNextChangeComesThenItWaitsOneSecondFromTheEndOfThatWrite(t *testing.T) {
	store := newSignStore(t)
	s := openSigned(t, store, riffengine.Options{NoLease: true})
	store.took = 700 * time.Millisecond // each write takes 0.7 s of the clock
	s.start("k1")                       // the first write goes at once
	_, version, err := s.e.SignIns().Start(mikeP, "k2", 2)
	if err != nil {
		t.Fatal(err)
	}
	if d := s.timer.ask(t); d != time.Second {
		t.Fatalf("the next write waits %v; want 1s from the end of the last write", d)
	}
	if store.swaps != 1 {
		t.Fatalf("%d writes before the wait ended; want 1", store.swaps)
	}
	s.clock.Add(time.Second)
	s.timer.fire()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.e.WaitSaved(ctx, version); err != nil {
		t.Fatal(err)
	}
	if store.swaps != 2 {
		t.Errorf("%d writes; want 2", store.swaps)
	}
	// The wait counts from the end of the newest write.
	if _, _, err := s.e.SignIns().Start(mikeP, "k3", 2); err != nil {
		t.Fatal(err)
	}
	if d := s.timer.ask(t); d != time.Second {
		t.Fatalf("the wait after the second write = %v; want 1s from its end", d)
	}
}

func TestGivenASignInWhenItsWriteWaitsThenWaitSavedReturnsOnlyAfterTheWrite(t *testing.T) {
	store := newSignStore(t)
	s := openSigned(t, store, riffengine.Options{NoLease: true})
	s.start("k1")
	_, version, err := s.e.SignIns().Start(mikeP, "k2", 2)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.e.WaitSaved(context.Background(), version) }()
	s.timer.ask(t) // the saver waits: no write yet
	select {
	case err := <-done:
		t.Fatalf("WaitSaved returned %v before the write", err)
	default:
	}
	s.clock.Add(time.Second)
	s.timer.fire()
	if err := <-done; err != nil {
		t.Fatalf("WaitSaved = %v", err)
	}
}

func TestGivenFailedWritesWhenTheSaverTriesAgainThenTheWaitDoublesUpTo32SecondsAndAGoodWriteSetsItBackToOne(t *testing.T) {
	store := newSignStore(t)
	s := openSigned(t, store, riffengine.Options{NoLease: true})
	p := s.start("k1")
	store.setFail(errors.New("googleapi: Error 429: rate limit"))
	if _, err := s.e.SignIns().Refresh(p.Refresh, "k1"); err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	for range 8 {
		waits = append(waits, s.timer.ask(t))
		s.timer.fire()
	}
	want := []time.Duration{1, 2, 4, 8, 16, 32, 32, 32}
	for i := range want {
		want[i] *= time.Second
	}
	if !slices.Equal(waits, want) {
		t.Fatalf("the waits = %v; want %v", waits, want)
	}
	if d := s.timer.ask(t); d != riffengine.SignInsMaxWait { // the last failed write ended
		t.Fatalf("the wait after 8 failures = %v; want 32s", d)
	}
	store.setFail(nil)
	s.timer.fire() // a good write
	until(t, "a good write", func() bool { return !s.e.SignIns().Unsaved() })
	if _, _, err := s.e.SignIns().Start(mikeP, "k2", 2); err != nil {
		t.Fatal(err)
	}
	if d := s.timer.ask(t); d != time.Second {
		t.Errorf("the wait after a good write = %v; want 1s", d)
	}
}

func TestGivenAFailedWriteWhenARefreshAndASwapComeThenTheRefreshIsNotSavedAndTheSwapWorks(t *testing.T) {
	store := newSignStore(t)
	s := openSigned(t, store, riffengine.Options{NoLease: true})
	p := s.start("k1")
	store.setFail(errors.New("the bucket refuses"))
	p2, err := s.e.SignIns().Refresh(p.Refresh, "k1")
	if err != nil {
		t.Fatal(err)
	}
	s.timer.ask(t)
	s.timer.fire()
	s.timer.ask(t) // the failed write is done: the saver waits 2 s
	if _, err := s.e.SignIns().Refresh(p2.Refresh, "k1"); !errors.Is(err, tokens.ErrNotSaved) {
		t.Fatalf("Refresh while the write fails = %v; want ErrNotSaved", err)
	}
	if _, err := s.e.SignIns().Swap(p2.Access, "k1", "a6cf"); err != nil {
		t.Fatalf("Swap while the write fails = %v; want a session token", err)
	}
	if len(s.logs.with(t, "riff-server cannot write signins.json; a refresh gets 503 until a write works")) == 0 {
		t.Errorf("no line says that the write failed")
	}
	store.setFail(nil)
	s.timer.fire()
	until(t, "a good write", func() bool { return !s.e.SignIns().Unsaved() })
	if _, err := s.e.SignIns().Refresh(p2.Refresh, "k1"); err != nil {
		t.Fatalf("Refresh after a good write = %v", err)
	}
}

func TestGivenAStopWhenTheEngineClosesThenItWritesSignInsJsonAfterTheLastRecordAndBeforeTheLastCheckpoint(t *testing.T) {
	for _, tc := range []struct {
		name  string
		store func(t *testing.T) rifflog.Store
	}{
		{"memory", func(*testing.T) rifflog.Store { return mem.New() }},
		{"directory", func(t *testing.T) rifflog.Store {
			d, err := dir.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return d
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := &signStore{Store: tc.store(t), clock: newClock()}
			peopleLog(t, store)
			s := openSigned(t, store, riffengine.Options{})
			p := s.start("k1")
			p2, err := s.e.SignIns().Refresh(p.Refresh, "k1") // waits for the timer: not written
			if err != nil {
				t.Fatal(err)
			}
			s.timer.ask(t)
			s.timer.setAuto()
			before := len(store.written())
			if err := s.e.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := store.written()[before:]; !slices.Equal(got, []string{"signins", "checkpoint"}) {
				t.Fatalf("the writes of the stop = %v; want signins then checkpoint", got)
			}
			next := openSigned(t, store, riffengine.Options{})
			if _, err := next.e.SignIns().Lookup(p2.Access); err != nil {
				t.Errorf("the access token of the last refresh after the restart = %v; want it live", err)
			}
			if _, err := next.e.SignIns().Refresh(p2.Refresh, "k1"); err != nil {
				t.Errorf("the refresh token of the last refresh after the restart = %v", err)
			}
		})
	}
}

func TestGivenANewLeaseWhenTheOldInstanceHandsOverThenItWritesSignInsJsonBeforeTheLastCheckpoint(t *testing.T) {
	t.Parallel() // it waits for a read of the lease (rifflog.LeaseRead, 2 s)
	store := newSignStore(t)
	old := openSigned(t, store, riffengine.Options{})
	p := old.start("k1")
	p2, err := old.e.SignIns().Refresh(p.Refresh, "k1")
	if err != nil {
		t.Fatal(err)
	}
	old.timer.ask(t) // the write of the refresh waits
	ctx := context.Background()
	if _, err := rifflog.TakeLeaseAs(ctx, store, "new", 0, old.clock.Now()); err != nil {
		t.Fatal(err)
	}
	// The lease loop of the old instance reads the new lease (each 2 s).
	select {
	case <-old.e.Stopping():
	case <-time.After(10 * time.Second):
		t.Fatal("the old instance did not stop at the new lease")
	}
	old.timer.setAuto()
	before := len(store.written())
	if err := old.e.Close(ctx); err != nil {
		t.Fatalf("Close = %v; want the handover", err)
	}
	if got := store.written()[before:]; !slices.Equal(got, []string{"signins", "checkpoint"}) {
		t.Fatalf("the writes of the handover = %v; want signins then checkpoint", got)
	}
	next := openSigned(t, store, riffengine.Options{})
	if _, err := next.e.SignIns().Lookup(p2.Access); err != nil {
		t.Errorf("a token from the last second of the old instance on the new one = %v; want it live", err)
	}
}

func TestGivenAWriteOfTheOldInstanceInTheLeaseWaitWhenTheNewOneEndsItsWaitThenItLoadsTheSignInsAgain(t *testing.T) {
	store := newSignStore(t)
	old := openSigned(t, store, riffengine.Options{NoLease: true})
	var late tokens.Pair
	// The new instance loads, then the old one signs a person in (and
	// writes signins.json) before the new one takes the lease.
	next := openSigned(t, store, riffengine.Options{Listen: func(*riffengine.Engine) error {
		late = old.start("k-late")
		return nil
	}})
	if _, err := next.e.SignIns().Lookup(late.Access); err != nil {
		t.Fatalf("the sign-in that the old instance wrote in the wait = %v; want it live on the new one", err)
	}
}

func TestGivenAKillAfterARefreshBeforeItsWriteWhenTheNextInstanceStartsThenTheNextRefreshWorks(t *testing.T) {
	store := newSignStore(t)
	s := openSigned(t, store, riffengine.Options{NoLease: true})
	p := s.start("k1")
	p2, err := s.e.SignIns().Refresh(p.Refresh, "k1")
	if err != nil {
		t.Fatal(err)
	}
	s.timer.ask(t) // the write waits; the instance dies
	s.e.Halt(errors.New("killed"))
	next := openSigned(t, store, riffengine.Options{NoLease: true})
	if _, err := next.e.SignIns().Lookup(p2.Access); !errors.Is(err, tokens.ErrUnknown) {
		t.Fatalf("the access token of the lost write = %v; want ErrUnknown (riff refreshes once)", err)
	}
	p3, err := next.e.SignIns().Refresh(p2.Refresh, "k1")
	if err != nil {
		t.Fatalf("the refresh with the generation of the lost write = %v; want the next pair", err)
	}
	if _, err := next.e.SignIns().Lookup(p3.Access); err != nil {
		t.Fatal(err)
	}
}

func TestGivenSignInsTheLogDoesNotHoldWhenTheEngineOpensThenItDropsThemAndCountsTheLiveOnes(t *testing.T) {
	store := newSignStore(t)
	ts := tokens.New(tokens.Options{})
	kept, _, _ := ts.Start(mikeP, "k1", 2)
	ts.Start(tokens.Person{User: "ann"}, "k2", 3) // before her removal at 5
	ts.Start(tokens.Person{User: "bob"}, "k3", 4) // unknown to the log
	ts.Start(mikeP, "k4", 50)                     // after the log
	data, _ := ts.Snapshot()
	if _, err := store.Store.Swap(context.Background(), rifflog.SignInsName, data, 0); err != nil {
		t.Fatal(err)
	}
	s := openSigned(t, store, riffengine.Options{NoLease: true})
	if n := s.e.SignIns().Live(); n != 1 {
		t.Fatalf("Live = %d; want 1", n)
	}
	if _, err := s.e.SignIns().Lookup(kept.Access); err != nil {
		t.Fatal(err)
	}
	if f := s.e.Facts(); f.SignIns != 1 {
		t.Errorf("the facts count %d live sign-ins; want 1", f.SignIns)
	}
	l := s.logs.with(t, "riff-server loaded the sign-ins")
	if len(l) == 0 {
		t.Fatal("no line of the load")
	}
	for k, want := range map[string]float64{"live": 1, "dropped_after_log": 1, "dropped_unknown_user": 1, "dropped_ended": 1} {
		if l[0][k] != want {
			t.Errorf("the line of the load has %s = %v; want %v", k, l[0][k], want)
		}
	}
}

func TestGivenSignInsJsonThatDoesNotReadWhenTheEngineOpensThenTheStartFails(t *testing.T) {
	store := newSignStore(t)
	if _, err := store.Store.Swap(context.Background(), rifflog.SignInsName, []byte(`{"version":1,"sign_ins":[{}]}`), 0); err != nil {
		t.Fatal(err)
	}
	_, err := riffengine.Open(context.Background(), store, riffengine.Options{SignIn: true, NoLease: true, Now: store.clock.Now})
	if !errors.Is(err, tokens.ErrBadSnapshot) {
		t.Fatalf("Open with a signins.json that does not read = %v; want ErrBadSnapshot", err)
	}
}

func TestGivenSignInsAndRefreshesFromManyGoroutinesWhenTheEngineStopsAndStartsThenEachNewestTokenWorks(t *testing.T) {
	store := newSignStore(t)
	s := openSigned(t, store, riffengine.Options{})
	s.timer.setAuto() // the saver writes as soon as it may
	newest := make([]tokens.Pair, 8)
	var wg sync.WaitGroup
	for i := range newest {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := "k" + string(rune('a'+i))
			p := s.start(key)
			for range 30 {
				next, err := s.e.SignIns().Refresh(p.Refresh, key)
				if errors.Is(err, tokens.ErrNotSaved) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				p = next
				if _, err := s.e.SignIns().Swap(p.Access, key, "a6cf"); err != nil {
					t.Error(err)
				}
				_ = s.e.Facts()
			}
			newest[i] = p
		}()
	}
	wg.Wait()
	if err := s.e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	next := openSigned(t, store, riffengine.Options{})
	for i, p := range newest {
		key := "k" + string(rune('a'+i))
		if _, err := next.e.SignIns().Lookup(p.Access); err != nil {
			t.Errorf("the newest access token of %s after the restart = %v", key, err)
		}
		if _, err := next.e.SignIns().Refresh(p.Refresh, key); err != nil {
			t.Errorf("the newest refresh token of %s after the restart = %v", key, err)
		}
	}
}

func TestGivenTheOptionSignInsEveryWhenWritesFailThenTheSaverWaitsThatTimeAndDoublesUpTo32TimesIt(t *testing.T) {
	store := newSignStore(t)
	s := openSigned(t, store, riffengine.Options{NoLease: true, SignInsEvery: 250 * time.Millisecond})
	p := s.start("k1")
	store.setFail(errors.New("googleapi: Error 429: rate limit"))
	if _, err := s.e.SignIns().Refresh(p.Refresh, "k1"); err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	for range 7 {
		waits = append(waits, s.timer.ask(t))
		s.timer.fire()
	}
	want := []time.Duration{250, 500, 1000, 2000, 4000, 8000, 8000}
	for i := range want {
		want[i] *= time.Millisecond
	}
	if !slices.Equal(waits, want) {
		t.Fatalf("the waits = %v; want %v", waits, want)
	}
	if d := s.timer.ask(t); d != 8*time.Second { // the last failed write ended
		t.Fatalf("the wait after 7 failures = %v; want 8s", d)
	}
	store.setFail(nil)
	s.timer.fire() // a good write
	until(t, "a good write", func() bool { return !s.e.SignIns().Unsaved() })
	if _, _, err := s.e.SignIns().Start(mikeP, "k2", 2); err != nil {
		t.Fatal(err)
	}
	if d := s.timer.ask(t); d != 250*time.Millisecond {
		t.Errorf("the wait after a good write = %v; want 250ms", d)
	}
}
