package tokens_test

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffengine/tokens"
)

var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// fixture is a store with a clock of its own and seeded randomness.
type fixture struct {
	t     *testing.T
	clock *clock
	s     *tokens.Store
	seed  uint64
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{t: t, clock: &clock{now: t0}}
	f.s = f.store()
	return f
}

// store makes a new store of the fixture: a second instance after a
// restart.
func (f *fixture) store() *tokens.Store {
	f.seed++
	var seed [32]byte
	seed[0] = byte(f.seed)
	return tokens.New(tokens.Options{Now: f.clock.Now, Rand: rand.NewChaCha8(seed)})
}

var (
	mike = tokens.Person{User: "mike", Email: "mike@example.com"}
	ann  = tokens.Person{User: "ann", Email: "ann@example.com"}
)

const (
	keyA = "thumbprint-a"
	keyB = "thumbprint-b"
)

func (f *fixture) start(p tokens.Person, key string, position uint64) tokens.Pair {
	f.t.Helper()
	pair, _, err := f.s.Start(p, key, position)
	if err != nil {
		f.t.Fatalf("Start(%s) = %v", p.User, err)
	}
	return pair
}

func (f *fixture) refresh(refresh, key string) tokens.Pair {
	f.t.Helper()
	pair, err := f.s.Refresh(refresh, key)
	if err != nil {
		f.t.Fatalf("Refresh(%s) = %v", generation(refresh), err)
	}
	return pair
}

// restart saves a snapshot, makes a new store and loads it there, with
// the log at position 100 and mike and ann known.
func (f *fixture) restart(data []byte) {
	f.t.Helper()
	f.s = f.store()
	if _, err := f.s.Load(data, 100, knows("mike", "ann")); err != nil {
		f.t.Fatalf("Load = %v", err)
	}
}

func knows(users ...string) tokens.People {
	return func(user string) (bool, uint64) {
		for _, u := range users {
			if u == user {
				return true, 0
			}
		}
		return false, 0
	}
}

func generation(refresh string) string {
	parts := strings.Split(refresh, ".")
	if len(parts) != 3 {
		return "?"
	}
	return parts[1]
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s = %v; want %v", what, err, want)
	}
}

func wantLive(t *testing.T, s *tokens.Store, access string) {
	t.Helper()
	if _, err := s.Lookup(access); err != nil {
		t.Fatalf("Lookup of a live token = %v; want it live", err)
	}
}

func wantGone(t *testing.T, s *tokens.Store, access string) {
	t.Helper()
	if _, err := s.Lookup(access); !errors.Is(err, tokens.ErrUnknown) {
		t.Fatalf("Lookup of an ended token = %v; want ErrUnknown", err)
	}
}

func TestGivenAStartWhenItSucceedsThenTheRefreshTokenIsChainGenerationSecretAtGenerationOne(t *testing.T) {
	f := newFixture(t)
	pair, version, err := f.s.Start(mike, keyA, 7)
	if err != nil {
		t.Fatal(err)
	}
	if g := generation(pair.Refresh); g != "1" {
		t.Errorf("generation of the first refresh token = %s; want 1", g)
	}
	if version == 0 {
		t.Errorf("Start gave version 0; want the version that holds the sign-in")
	}
	tok, err := f.s.Lookup(pair.Access)
	if err != nil {
		t.Fatal(err)
	}
	chain, _, _, err := tokens.ParseRefresh(pair.Refresh)
	if err != nil {
		t.Fatal(err)
	}
	want := tokens.Token{Person: mike, Key: keyA, Position: 7, Expires: t0.Add(tokens.DefaultAccessLife), SignIn: chain}
	if tok != want {
		t.Errorf("Lookup = %+v; want %+v", tok, want)
	}
	if pair.Token != want {
		t.Errorf("Pair.Token = %+v; want %+v", pair.Token, want)
	}
}

func TestGivenTheCurrentGenerationWhenItRefreshesThenItGetsTheNextPair(t *testing.T) {
	f := newFixture(t)
	p1 := f.start(mike, keyA, 1)
	p2 := f.refresh(p1.Refresh, keyA)
	if g := generation(p2.Refresh); g != "2" {
		t.Fatalf("generation after a refresh = %s; want 2", g)
	}
	p3 := f.refresh(p2.Refresh, keyA)
	if g := generation(p3.Refresh); g != "3" {
		t.Fatalf("generation after two refreshes = %s; want 3", g)
	}
	wantLive(t, f.s, p3.Access)
	if f.s.Live() != 1 {
		t.Errorf("Live = %d; want 1", f.s.Live())
	}
}

func TestGivenThePreviousGenerationWhenItRefreshesThenTheCurrentPairEndsAndTheSignInStays(t *testing.T) {
	f := newFixture(t)
	p1 := f.start(mike, keyA, 1)
	lost := f.refresh(p1.Refresh, keyA) // its reply is lost
	again := f.refresh(p1.Refresh, keyA)
	wantGone(t, f.s, lost.Access)
	wantLive(t, f.s, again.Access)
	if f.s.Live() != 1 {
		t.Fatalf("Live = %d; want the sign-in to stay", f.s.Live())
	}
	// The token of the lost pair is a copy now: nobody got it.
	_, err := f.s.Refresh(lost.Refresh, keyA)
	wantErr(t, "Refresh with the token of the lost pair", err, tokens.ErrReused)
}

func TestGivenTwoLostRepliesWhenThePreviousGenerationComesAgainThenTheSignInStillStays(t *testing.T) {
	f := newFixture(t)
	p1 := f.start(mike, keyA, 1)
	f.refresh(p1.Refresh, keyA)
	f.refresh(p1.Refresh, keyA)
	p := f.refresh(p1.Refresh, keyA)
	next := f.refresh(p.Refresh, keyA)
	wantLive(t, f.s, next.Access)
}

func TestGivenAnOlderGenerationWhenItRefreshesThenItIsReuseAndTheSignInEnds(t *testing.T) {
	f := newFixture(t)
	p1 := f.start(mike, keyA, 1)
	p2 := f.refresh(p1.Refresh, keyA)
	p3 := f.refresh(p2.Refresh, keyA)
	_, err := f.s.Refresh(p1.Refresh, keyA)
	wantErr(t, "Refresh with generation 1 at generation 3", err, tokens.ErrReused)
	if f.s.Live() != 0 {
		t.Errorf("Live = %d; want 0: the sign-in ended", f.s.Live())
	}
	wantGone(t, f.s, p3.Access)
	wantGone(t, f.s, p2.Access)
	_, err = f.s.Refresh(p3.Refresh, keyA)
	wantErr(t, "Refresh with the current generation of an ended sign-in", err, tokens.ErrUnknown)
}

func TestGivenAnotherKeyWhenItRefreshesWithAnOlderGenerationThenTheKeyIsRefusedFirstAndTheSignInStays(t *testing.T) {
	f := newFixture(t)
	p1 := f.start(mike, keyA, 1)
	p2 := f.refresh(p1.Refresh, keyA)
	p3 := f.refresh(p2.Refresh, keyA)
	_, err := f.s.Refresh(p1.Refresh, keyB)
	wantErr(t, "Refresh with an older generation and another key", err, tokens.ErrWrongKey)
	_, err = f.s.Refresh(p3.Refresh, keyB)
	wantErr(t, "Refresh with the current generation and another key", err, tokens.ErrWrongKey)
	if f.s.Live() != 1 {
		t.Fatalf("Live = %d; want the sign-in to stay", f.s.Live())
	}
	f.refresh(p3.Refresh, keyA)
}

func TestGivenABadRefreshTokenWhenItRefreshesThenItIsUnknownAndNothingEnds(t *testing.T) {
	f := newFixture(t)
	p1 := f.start(mike, keyA, 1)
	chain, _, secret, err := tokens.ParseRefresh(p1.Refresh)
	if err != nil {
		t.Fatal(err)
	}
	other := strings.Repeat("A", len(secret))
	for _, bad := range []string{
		"", "a.b", "x.1.y", chain + ".0." + secret, chain + ".01." + secret, chain + ".1." + other,
		chain + ".2." + secret, chain + ".1." + secret + ".x", chain + ".-1." + secret,
	} {
		_, err := f.s.Refresh(bad, keyA)
		wantErr(t, "Refresh("+bad+")", err, tokens.ErrUnknown)
	}
	f.refresh(p1.Refresh, keyA)
}

func TestGivenALoadWhenTheFirstRefreshHasTheSavedGenerationThenItGetsTheNextPair(t *testing.T) {
	f := newFixture(t)
	p1 := f.start(mike, keyA, 1)
	p2 := f.refresh(p1.Refresh, keyA)
	data, _ := f.s.Snapshot()
	f.restart(data)
	p3 := f.refresh(p2.Refresh, keyA)
	if g := generation(p3.Refresh); g != "3" {
		t.Fatalf("generation = %s; want 3", g)
	}
}

func TestGivenALoadOfASnapshotOneGenerationBehindWhenTheFirstRefreshHasTheNextGenerationThenItGetsTheNextPair(t *testing.T) {
	f := newFixture(t)
	p1 := f.start(mike, keyA, 1)
	p2 := f.refresh(p1.Refresh, keyA)
	data, _ := f.s.Snapshot()         // holds generation 2
	p3 := f.refresh(p2.Refresh, keyA) // a crash before the write of generation 3
	f.restart(data)
	p4 := f.refresh(p3.Refresh, keyA)
	if g := generation(p4.Refresh); g != "4" {
		t.Fatalf("generation = %s; want 4", g)
	}
	wantLive(t, f.s, p4.Access)
	// The chain goes on, with the previous generation of the lost write.
	p5 := f.refresh(p4.Refresh, keyA)
	if _, err := f.s.Refresh(p3.Refresh, keyA); !errors.Is(err, tokens.ErrReused) {
		t.Fatalf("Refresh with generation 3 at generation 5 = %v; want ErrReused", err)
	}
	_ = p5
}

func TestGivenALoadWhenTheSecondRefreshHasAGenerationAfterTheCurrentOneThenItIsUnknown(t *testing.T) {
	f := newFixture(t)
	p1 := f.start(mike, keyA, 1)
	data, _ := f.s.Snapshot() // generation 1
	p2 := f.refresh(p1.Refresh, keyA)
	p3 := f.refresh(p2.Refresh, keyA) // generation 3; the snapshot is two behind
	f.restart(data)
	_, err := f.s.Refresh(p3.Refresh, keyA)
	wantErr(t, "Refresh two generations after the saved one", err, tokens.ErrUnknown)
	// The saved generation still works once: then the next one is no
	// longer taken on trust.
	q := f.refresh(p1.Refresh, keyA)
	chain, _, secret, _ := tokens.ParseRefresh(q.Refresh)
	_, err = f.s.Refresh(chain+".3."+secret, keyA)
	wantErr(t, "Refresh with a next generation after the first refresh", err, tokens.ErrUnknown)
}

func TestGivenALoadWhenTheNextGenerationComesWithAnotherKeyThenItIsRefused(t *testing.T) {
	f := newFixture(t)
	p1 := f.start(mike, keyA, 1)
	data, _ := f.s.Snapshot()
	p2 := f.refresh(p1.Refresh, keyA)
	f.restart(data)
	_, err := f.s.Refresh(p2.Refresh, keyB)
	wantErr(t, "Refresh with the next generation and another key", err, tokens.ErrWrongKey)
	f.refresh(p2.Refresh, keyA)
}

func TestGivenAPersonTokenWhenItSwapsThenItGetsASessionTokenAndNoTokenEndsAndTheSnapshotStays(t *testing.T) {
	f := newFixture(t)
	p1 := f.start(mike, keyA, 1)
	before, v := f.s.Snapshot()
	unsaved := f.s.Unsaved()
	s1, err := f.s.Swap(p1.Access, keyA, "a6cf")
	if err != nil {
		t.Fatal(err)
	}
	s2, err := f.s.Swap(p1.Access, keyA, "a6cf")
	if err != nil {
		t.Fatal(err)
	}
	if s1.Refresh != "" {
		t.Errorf("a session token came with a refresh token")
	}
	wantLive(t, f.s, p1.Access)
	wantLive(t, f.s, s1.Access)
	wantLive(t, f.s, s2.Access)
	tok, _ := f.s.Lookup(s1.Access)
	if tok.Session != "a6cf" || tok.User != "mike" || tok.Key != keyA {
		t.Errorf("Lookup of the session token = %+v", tok)
	}
	after, v2 := f.s.Snapshot()
	if string(before) != string(after) || v != v2 {
		t.Errorf("a swap changed the snapshot:\n%s\n%s", before, after)
	}
	if f.s.Unsaved() != unsaved {
		t.Errorf("a swap left a change to write")
	}
}

func TestGivenASwapWhenTheKeyIsAnotherOrTheTokenIsASessionTokenThenItIsRefused(t *testing.T) {
	f := newFixture(t)
	p1 := f.start(mike, keyA, 1)
	_, err := f.s.Swap(p1.Access, keyB, "a6cf")
	wantErr(t, "Swap with another key", err, tokens.ErrWrongKey)
	s1, err := f.s.Swap(p1.Access, keyA, "a6cf")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.s.Swap(s1.Access, keyA, "b7d0")
	wantErr(t, "Swap of a session token", err, tokens.ErrSessionSwap)
	_, err = f.s.Swap("nothing", keyA, "b7d0")
	wantErr(t, "Swap of an unknown token", err, tokens.ErrUnknown)
}

func TestGivenAFailedWriteWhenItRefreshesThenItIsNotSavedAndASwapStillWorks(t *testing.T) {
	f := newFixture(t)
	p1 := f.start(mike, keyA, 1)
	_, v := f.s.Snapshot()
	f.s.Saved(v, errors.New("429"))
	_, err := f.s.Refresh(p1.Refresh, keyA)
	wantErr(t, "Refresh while the write fails", err, tokens.ErrNotSaved)
	if _, err := f.s.Swap(p1.Access, keyA, "a6cf"); err != nil {
		t.Fatalf("Swap while the write fails = %v; want a session token", err)
	}
	f.s.Saved(v, nil)
	f.refresh(p1.Refresh, keyA)
}

func TestGivenAnExpiredTokenWhenItIsLookedUpThenItIsUnknown(t *testing.T) {
	f := newFixture(t)
	p1 := f.start(mike, keyA, 1)
	s1, _ := f.s.Swap(p1.Access, keyA, "a6cf")
	f.clock.Add(tokens.DefaultAccessLife)
	wantGone(t, f.s, p1.Access)
	wantGone(t, f.s, s1.Access)
	// The refresh token outlives the access token.
	p2 := f.refresh(p1.Refresh, keyA)
	wantLive(t, f.s, p2.Access)
}

func TestGivenAnEndWhenItRunsThenItEndsTheSignInsBeforeThePositionAndKeepsTheFloor(t *testing.T) {
	f := newFixture(t)
	old := f.start(mike, keyA, 3)
	session, _ := f.s.Swap(old.Access, keyA, "a6cf")
	later := f.start(mike, keyB, 9)
	annPair := f.start(ann, keyA, 2)
	if n := f.s.End("mike", 8); n != 1 {
		t.Fatalf("End(mike, 8) = %d; want 1", n)
	}
	wantGone(t, f.s, old.Access)
	wantGone(t, f.s, session.Access)
	wantLive(t, f.s, later.Access)
	wantLive(t, f.s, annPair.Access)
	_, err := f.s.Refresh(old.Refresh, keyA)
	wantErr(t, "Refresh of an ended sign-in", err, tokens.ErrUnknown)
	_, _, err = f.s.Start(mike, keyA, 7)
	wantErr(t, "Start below the floor", err, tokens.ErrEnded)
	f.start(mike, keyA, 8)
	// A lower end keeps the higher floor.
	f.s.End("mike", 2)
	_, _, err = f.s.Start(mike, keyA, 7)
	wantErr(t, "Start below the kept floor", err, tokens.ErrEnded)
}

func TestGivenSignInsWhenLiveKeysIsAskedThenItGivesTheSortedKeysOfTheUser(t *testing.T) {
	f := newFixture(t)
	f.start(mike, "k3", 1)
	f.start(mike, "k1", 1)
	f.start(mike, "k3", 1)
	f.start(ann, "k2", 1)
	got := strings.Join(f.s.LiveKeys("mike"), ",")
	if got != "k1,k3" {
		t.Errorf("LiveKeys(mike) = %s; want k1,k3", got)
	}
	if n := len(f.s.LiveKeys("bob")); n != 0 {
		t.Errorf("LiveKeys(bob) has %d keys", n)
	}
	if f.s.Live() != 4 {
		t.Errorf("Live = %d; want 4", f.s.Live())
	}
}

func TestGivenASnapshotWhenANewStoreLoadsItThenTheAccessTokensOfThePersonWorkAndTheSessionTokensDoNot(t *testing.T) {
	f := newFixture(t)
	p1 := f.start(mike, keyA, 1)
	s1, _ := f.s.Swap(p1.Access, keyA, "a6cf")
	data, _ := f.s.Snapshot()
	if strings.Contains(string(data), p1.Access) || strings.Contains(string(data), p1.Refresh) || strings.Contains(string(data), s1.Access) {
		t.Fatalf("the snapshot holds a token: %s", data)
	}
	f.restart(data)
	wantLive(t, f.s, p1.Access)
	wantGone(t, f.s, s1.Access)
	if _, err := f.s.Swap(p1.Access, keyA, "a6cf"); err != nil {
		t.Fatalf("Swap after the load = %v", err)
	}
}

func TestGivenASnapshotWhenALoadFindsSignInsTheLogDoesNotHoldThenItDropsAndCountsThem(t *testing.T) {
	f := newFixture(t)
	kept := f.start(mike, keyA, 10)
	removed := f.start(ann, keyA, 5)
	f.start(tokens.Person{User: "bob"}, keyA, 6)
	f.start(mike, keyB, 30)
	data, _ := f.s.Snapshot()

	f.s = f.store()
	people := func(user string) (bool, uint64) {
		switch user {
		case "mike":
			return true, 0
		case "ann":
			return true, 8 // member_removed at 8
		}
		return false, 0
	}
	d, err := f.s.Load(data, 20, people)
	if err != nil {
		t.Fatal(err)
	}
	want := tokens.Dropped{AfterLog: 1, UnknownUser: 1, Ended: 1}
	if d != want {
		t.Errorf("Load dropped %+v; want %+v", d, want)
	}
	if f.s.Live() != 1 {
		t.Errorf("Live = %d; want 1", f.s.Live())
	}
	wantLive(t, f.s, kept.Access)
	wantGone(t, f.s, removed.Access)
	if !f.s.Unsaved() {
		t.Errorf("a load that dropped sign-ins left nothing to write")
	}
}

func TestGivenASnapshotWhenALoadDropsNothingThenNothingWaitsForAWrite(t *testing.T) {
	f := newFixture(t)
	f.start(mike, keyA, 1)
	data, _ := f.s.Snapshot()
	f.restart(data)
	if f.s.Unsaved() {
		t.Errorf("a load that changed nothing left a change to write")
	}
}

func TestGivenBadBytesWhenTheyLoadThenTheLoadFailsAndChangesNothing(t *testing.T) {
	f := newFixture(t)
	p1 := f.start(mike, keyA, 1)
	good, _ := f.s.Snapshot()
	for name, data := range map[string]string{
		"not json":      "{",
		"no version":    `{"sign_ins":[]}`,
		"later version": `{"version":` + strconv.Itoa(tokens.FormatVersion+1) + `,"sign_ins":[]}`,
		"two values":    `{"version":1,"sign_ins":[]} {}`,
		"bad chain":     `{"version":1,"sign_ins":[{"chain":"x","user":"mike","key":"k","generation":1,"current":"` + strings.Repeat("0", 64) + `"}]}`,
		"bad hash":      strings.Replace(string(good), `"current":"`, `"current":"zz`, 1),
		"generation 0":  strings.Replace(string(good), `"generation":1`, `"generation":0`, 1),
	} {
		_, err := f.s.Load([]byte(data), 100, knows("mike"))
		if !errors.Is(err, tokens.ErrBadSnapshot) {
			t.Errorf("Load(%s) = %v; want ErrBadSnapshot", name, err)
		}
	}
	wantLive(t, f.s, p1.Access)
	if f.s.Live() != 1 {
		t.Errorf("a failed load changed the store")
	}
}

func TestGivenTheSameSignInsWhenTheSnapshotIsTakenTwiceThenTheBytesAreTheSame(t *testing.T) {
	f := newFixture(t)
	for i := range 5 {
		p := f.start(mike, "k"+strconv.Itoa(i), uint64(i))
		f.refresh(p.Refresh, "k"+strconv.Itoa(i))
	}
	a, _ := f.s.Snapshot()
	f.restart(a)
	b, _ := f.s.Snapshot()
	if string(a) != string(b) {
		t.Errorf("Snapshot after Load differs:\n%s\n%s", a, b)
	}
}

func TestGivenManyGoroutinesWhenTheyUseTheStoreThenTheRaceDetectorAgrees(t *testing.T) {
	f := newFixture(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := "k" + strconv.Itoa(i)
			p, _, err := f.s.Start(mike, key, 1)
			if err != nil {
				t.Error(err)
				return
			}
			for range 20 {
				if p, err = f.s.Refresh(p.Refresh, key); err != nil {
					t.Error(err)
					return
				}
				if _, err := f.s.Swap(p.Access, key, "s"); err != nil {
					t.Error(err)
				}
				f.s.Snapshot()
				f.s.LiveKeys("mike")
			}
		}()
	}
	wg.Wait()
}

func TestGivenManySwapsWhoseTokensExpireWhenMoreComeThenTheStoreKeepsNoPileOfExpiredTokens(t *testing.T) {
	f := newFixture(t)
	p := f.start(mike, keyA, 1)
	for range 20 {
		for range 500 {
			if _, err := f.s.Swap(p.Access, keyA, "a6cf"); err != nil {
				t.Fatal(err)
			}
		}
		// Every token so far expires, and the person refreshes.
		f.clock.Add(tokens.DefaultSessionLife + tokens.DefaultAccessLife)
		p = f.refresh(p.Refresh, keyA)
	}
	if n := f.s.TokenCount(); n > 3000 {
		t.Errorf("the store keeps %d tokens after 10,000 swaps that expired; want the expired ones gone", n)
	}
}

// brokenRand fails while broken is set.
type brokenRand struct {
	mu     sync.Mutex
	broken bool
	r      *rand.ChaCha8
}

func (b *brokenRand) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.broken {
		return 0, errors.New("no randomness")
	}
	return b.r.Read(p)
}

func (b *brokenRand) set(broken bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.broken = broken
}

func TestGivenRandomnessThatFailsWhenARefreshRunsThenItFailsAndChangesNothing(t *testing.T) {
	r := &brokenRand{r: rand.NewChaCha8([32]byte{1})}
	s := tokens.New(tokens.Options{Rand: r})
	p1, _, err := s.Start(mike, keyA, 1)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := s.Refresh(p1.Refresh, keyA)
	if err != nil {
		t.Fatal(err)
	}
	before, v := s.Snapshot()
	r.set(true)
	for _, token := range []string{p2.Refresh, p1.Refresh} { // the current and the lost-reply path
		if _, err := s.Refresh(token, keyA); err == nil {
			t.Fatal("Refresh with no randomness worked")
		}
	}
	if _, _, err := s.Start(mike, keyB, 1); err == nil {
		t.Fatal("Start with no randomness worked")
	}
	if after, v2 := s.Snapshot(); string(after) != string(before) || v2 != v {
		t.Fatalf("a refresh that failed changed the store")
	}
	wantLive(t, s, p2.Access)
	r.set(false)
	if _, err := s.Refresh(p1.Refresh, keyA); err != nil {
		t.Fatalf("the lost-reply refresh after the randomness came back = %v", err)
	}
}

func TestGivenRandomnessThatFailsWhenTheFirstRefreshAfterALoadHasTheNextGenerationThenItFailsAndTheNextGenerationStillWorks(t *testing.T) {
	first := tokens.New(tokens.Options{})
	p1, _, _ := first.Start(mike, keyA, 1)
	saved, _ := first.Snapshot()
	p2, _ := first.Refresh(p1.Refresh, keyA) // lost by a crash
	r := &brokenRand{r: rand.NewChaCha8([32]byte{2})}
	s := tokens.New(tokens.Options{Rand: r})
	if _, err := s.Load(saved, 10, knows("mike")); err != nil {
		t.Fatal(err)
	}
	r.set(true)
	if _, err := s.Refresh(p2.Refresh, keyA); err == nil {
		t.Fatal("Refresh with no randomness worked")
	}
	r.set(false)
	if _, err := s.Refresh(p2.Refresh, keyA); err != nil {
		t.Fatalf("the next generation after the randomness came back = %v", err)
	}
}

func TestGivenARefreshTokenWhenItsChainIsHeldThenChainKeyGivesTheKeyOfTheSignIn(t *testing.T) {
	f := newFixture(t)
	p1 := f.start(mike, keyA, 1)
	if key, ok := f.s.ChainKey(p1.Refresh); !ok || key != keyA {
		t.Errorf("ChainKey(the token) = %q, %v; want %q", key, ok, keyA)
	}
	// Another secret or generation of the same chain: still its key, and
	// nothing changes (the refresh of the token still works).
	chain, _, _, _ := tokens.ParseRefresh(p1.Refresh)
	other := chain + ".7." + strings.Repeat("A", 43)
	if key, ok := f.s.ChainKey(other); !ok || key != keyA {
		t.Errorf("ChainKey(another generation of the chain) = %q, %v; want %q", key, ok, keyA)
	}
	for _, garbage := range []string{"", "garbage", strings.Repeat("B", 22) + ".1." + strings.Repeat("A", 43)} {
		if key, ok := f.s.ChainKey(garbage); ok {
			t.Errorf("ChainKey(%q) = %q; want no chain", garbage, key)
		}
	}
	if _, err := f.s.Refresh(p1.Refresh, keyA); err != nil {
		t.Errorf("Refresh after ChainKey = %v; want the next pair", err)
	}
}
