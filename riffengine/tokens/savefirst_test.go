package tokens_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/como-technologies/riff/riffengine/tokens"
)

// The reply of a refresh waits for the save of Pair.SaveFirst: the end
// by a reused refresh token is saved before its reply, and the saved
// snapshot is never more than one generation behind the newest refresh
// token that a client got (docs/tokens.md, "The rules").

func TestGivenARefreshWhenTheGenerationBeforeItIsNotSavedThenItsReplyWaitsForThatSave(t *testing.T) {
	f := newFixture(t)
	p1, v1, err := f.s.Start(mike, keyA, 1)
	if err != nil {
		t.Fatal(err)
	}
	// The sign-in waits for its own save (WaitSaved of Start's version).
	p2, err := f.s.Refresh(p1.Refresh, keyA)
	if err != nil {
		t.Fatal(err)
	}
	if p2.SaveFirst != v1 {
		t.Fatalf("the first refresh waits for version %d; want %d, the version of the sign-in (generation 1)", p2.SaveFirst, v1)
	}
	v2 := f.s.Version()
	p3, err := f.s.Refresh(p2.Refresh, keyA)
	if err != nil {
		t.Fatal(err)
	}
	if p3.SaveFirst != v2 {
		t.Fatalf("the refresh of generation 2 waits for version %d; want %d, the change that made generation 2", p3.SaveFirst, v2)
	}
	// A lost reply: generation 2 comes back while 3 is current; the
	// client then holds 4, so the save must hold 3.
	v3 := f.s.Version()
	p4, err := f.s.Refresh(p2.Refresh, keyA)
	if err != nil {
		t.Fatal(err)
	}
	if p4.SaveFirst != v3 {
		t.Fatalf("the refresh of a lost reply waits for version %d; want %d, the change that made generation 3", p4.SaveFirst, v3)
	}
}

func TestGivenAReusedRefreshTokenWhenTheStoreEndsTheSignInThenTheReplyWaitsForTheSaveOfTheEnd(t *testing.T) {
	f := newFixture(t)
	p1 := f.start(mike, keyA, 1)
	p2 := f.refresh(p1.Refresh, keyA)
	f.refresh(p2.Refresh, keyA)
	pair, err := f.s.Refresh(p1.Refresh, keyA) // generation 1: older than the one before the current
	if !errors.Is(err, tokens.ErrReused) {
		t.Fatalf("Refresh of generation 1 = %v; want ErrReused", err)
	}
	if pair.SaveFirst != f.s.Version() || pair.Access != "" || pair.Refresh != "" {
		t.Fatalf("the pair of a reuse = %+v; want only SaveFirst = %d, the version of the end", pair, f.s.Version())
	}
}

func TestGivenTheFirstRefreshAfterALoadWhenItTakesTheGenerationAfterTheSavedOneThenItsReplyWaitsForItsOwnSave(t *testing.T) {
	f := newFixture(t)
	p1 := f.start(mike, keyA, 1)
	data, _ := f.s.Snapshot()
	p2 := f.refresh(p1.Refresh, keyA) // lost by the crash
	next := f.store()
	if _, err := next.Load(data, 10, func(string) (bool, uint64) { return true, 0 }); err != nil {
		t.Fatal(err)
	}
	p3, err := next.Refresh(p2.Refresh, keyA)
	if err != nil {
		t.Fatalf("the first refresh after the load with the generation after the saved one = %v", err)
	}
	if p3.SaveFirst != next.Version() {
		t.Fatalf("it waits for version %d; want %d, its own change (the snapshot never held generation 2)", p3.SaveFirst, next.Version())
	}
}

// client is a machine of the property test below: the refresh tokens
// that it got, and the reply that waits for its save.
type client struct {
	key      string
	got      []string     // each refresh token it got, the newest last
	pending  *tokens.Pair // a reply that waits for its save
	reusing  bool         // pending is the reply of a reuse
	endedAck bool         // it got the reply of the end by a reuse
	gone     bool         // no more calls of it
}

func (c *client) newest() string { return c.got[len(c.got)-1] }

// TestGivenRandomRefreshesSavesLostRepliesReusesAndCrashesWhenEachReplyWaitsForItsSaveThenALoadTakesTheNewestTokenOfEachClient
// runs random sequences of refreshes, writes of the snapshot, lost
// replies, reuses and crashes. A reply reaches its client only once the
// written snapshot holds its SaveFirst, as the engine does. At each crash
// the store loaded from the written snapshot takes the newest refresh
// token of each client, and no sign-in whose end by reuse got its reply
// comes back.
func TestGivenRandomRefreshesSavesLostRepliesReusesAndCrashesWhenEachReplyWaitsForItsSaveThenALoadTakesTheNewestTokenOfEachClient(t *testing.T) {
	for seed := range uint64(300) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { runSaveFirst(t, seed) })
	}
}

func runSaveFirst(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 19))
	f := newFixture(t)
	everyone := func(string) (bool, uint64) { return true, 0 }
	var saved []byte
	var savedVersion uint64
	save := func(s *tokens.Store) {
		data, v := s.Snapshot()
		s.Saved(v, nil)
		saved, savedVersion = data, v
	}
	var log []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d after %v: %s", seed, log, fmt.Sprintf(format, args...))
	}
	s := f.s
	var clients []*client
	for i := range 2 {
		c := &client{key: fmt.Sprintf("key-%d", i)}
		pair, _, err := s.Start(tokens.Person{User: fmt.Sprintf("user%d", i)}, c.key, 1)
		if err != nil {
			fail("Start: %v", err)
		}
		c.got = []string{pair.Refresh}
		clients = append(clients, c)
	}
	save(s) // each sign-in waits for its save
	deliver := func() {
		for _, c := range clients {
			if c.pending == nil || c.pending.SaveFirst > savedVersion {
				continue
			}
			if c.reusing {
				c.endedAck, c.gone = true, true
			} else {
				c.got = append(c.got, c.pending.Refresh)
			}
			c.pending, c.reusing = nil, false
		}
	}
	for range 60 {
		c := clients[rng.IntN(len(clients))]
		switch op := rng.IntN(10); {
		case op < 4 && !c.gone && c.pending == nil:
			pair, err := s.Refresh(c.newest(), c.key)
			if err != nil {
				fail("Refresh of the newest token = %v", err)
			}
			c.pending = &pair
			log = append(log, "refresh")
			deliver()
		case op < 6:
			save(s)
			log = append(log, "save")
			deliver()
		case op < 7 && c.pending != nil && !c.reusing:
			c.pending = nil // the reply was lost: the client keeps its newest token
			log = append(log, "lost")
		case op < 8 && !c.gone && c.pending == nil && len(c.got) >= 4 && rng.IntN(4) == 0:
			pair, err := s.Refresh(c.got[len(c.got)-4], c.key) // older than the one before the current, also after a load one behind
			if !errors.Is(err, tokens.ErrReused) {
				fail("Refresh of an old token = %v; want ErrReused", err)
			}
			c.pending, c.reusing = &pair, true
			log = append(log, "reuse")
			deliver()
		case op < 10:
			log = append(log, "crash")
			check := f.store()
			if _, err := check.Load(saved, 10, everyone); err != nil {
				fail("Load: %v", err)
			}
			for i, c := range clients {
				_, err := check.Refresh(c.newest(), c.key)
				switch {
				case c.endedAck && err == nil:
					fail("client %d: a sign-in whose end got its reply came back after the crash", i)
				case !c.gone && err != nil:
					fail("client %d: its newest refresh token after the crash = %v; the sign-in is lost", i, err)
				}
			}
			// The next instance: the replies that waited are lost.
			s = f.store()
			if _, err := s.Load(saved, 10, everyone); err != nil {
				fail("Load: %v", err)
			}
			_, savedVersion = s.Snapshot()
			for _, c := range clients {
				if c.reusing {
					c.gone = true // the end got no reply; the client stops
				}
				c.pending, c.reusing = nil, false
			}
		}
	}
}
