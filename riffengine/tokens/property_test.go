package tokens_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffengine/tokens"
)

// modelSignIn is what a client holds of one sign-in, and what the test
// knows of it.
type modelSignIn struct {
	user     string
	key      string
	position uint64
	refresh  string   // the newest refresh token of the client
	previous string   // the one before it (a lost reply brings it back)
	access   []string // the access tokens of the person that are live
	ended    bool
	dead     []string // its tokens that ended
}

// TestGivenRandomSequencesWhenTheStoreIsSnapshottedAndLoadedThenNoLiveTokenIsRefusedAndNoEndedSignInComesBack
// runs random sequences of start, refresh, lost reply, reuse, swap,
// end, and snapshot+load. After each load, every access token of a
// person that the store gave and did not end works, the newest refresh
// token of every live sign-in works, and no token of an ended sign-in
// works.
func TestGivenRandomSequencesWhenTheStoreIsSnapshottedAndLoadedThenNoLiveTokenIsRefusedAndNoEndedSignInComesBack(t *testing.T) {
	for seed := range uint64(300) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { runSequence(t, seed) })
	}
}

func runSequence(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	f := newFixture(t)
	users := []string{"mike", "ann", "bob"}
	var signIns []*modelSignIn
	position := uint64(1)
	floors := map[string]uint64{}
	live := func() []*modelSignIn {
		var l []*modelSignIn
		for _, m := range signIns {
			if !m.ended {
				l = append(l, m)
			}
		}
		return l
	}
	endModel := func(m *modelSignIn) {
		m.ended = true
		m.dead = append(m.dead, m.access...)
		m.dead = append(m.dead, m.refresh)
		m.access = nil
	}
	var log []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d after %v: %s", seed, log, fmt.Sprintf(format, args...))
	}
	for step := range 80 {
		position += uint64(rng.IntN(3))
		l := live()
		switch op := rng.IntN(10); {
		case op < 2 || len(l) == 0:
			user := users[rng.IntN(len(users))]
			key := fmt.Sprintf("key-%d", step)
			pair, _, err := f.s.Start(tokens.Person{User: user}, key, position)
			if err != nil {
				fail("Start: %v", err)
			}
			signIns = append(signIns, &modelSignIn{user: user, key: key, position: position, refresh: pair.Refresh, access: []string{pair.Access}})
			log = append(log, "start")
		case op < 5:
			m := l[rng.IntN(len(l))]
			pair, err := f.s.Refresh(m.refresh, m.key)
			if err != nil {
				fail("Refresh: %v", err)
			}
			m.previous, m.refresh = m.refresh, pair.Refresh
			m.access = append(m.access, pair.Access)
			log = append(log, "refresh")
		case op < 6:
			// The reply of the last refresh was lost: the client sends
			// the token before it again, and the lost pair ends.
			m := l[rng.IntN(len(l))]
			if m.previous == "" {
				continue
			}
			pair, err := f.s.Refresh(m.previous, m.key)
			if err != nil {
				fail("Refresh after a lost reply: %v", err)
			}
			lostAccess := m.access[len(m.access)-1]
			m.access = append(m.access[:len(m.access)-1], pair.Access)
			m.dead = append(m.dead, lostAccess, m.refresh)
			m.refresh = pair.Refresh
			log = append(log, "lost reply")
		case op < 7:
			m := l[rng.IntN(len(l))]
			if len(m.access) == 0 {
				continue
			}
			if _, err := f.s.Swap(m.access[rng.IntN(len(m.access))], m.key, "s1"); err != nil {
				fail("Swap: %v", err)
			}
			log = append(log, "swap")
		case op < 8:
			user := users[rng.IntN(len(users))]
			at := position - min(uint64(rng.IntN(3)), position-1)
			want := 0
			for _, m := range l {
				if m.user == user && m.position < at {
					endModel(m)
					want++
				}
			}
			floors[user] = max(floors[user], at)
			if n := f.s.End(user, at); n != want {
				fail("End(%s, %d) = %d; want %d", user, at, n, want)
			}
			log = append(log, "end")
		case op < 9:
			// A copy: the client's token before the previous one.
			m := l[rng.IntN(len(l))]
			if m.previous == "" {
				continue
			}
			older := m.previous
			if _, err := f.s.Refresh(m.refresh, m.key); err != nil {
				fail("Refresh: %v", err)
			}
			// The store moved on twice: older is two generations back.
			if _, err := f.s.Refresh(older, m.key); !errors.Is(err, tokens.ErrReused) {
				fail("Refresh with an older generation = %v; want ErrReused", err)
			}
			endModel(m)
			log = append(log, "reuse")
		default:
			data, _ := f.s.Snapshot()
			f.s = f.store()
			if _, err := f.s.Load(data, position, knows(users...)); err != nil {
				fail("Load: %v", err)
			}
			log = append(log, "load")
			checkModel(t, f.s, signIns, fail)
		}
		f.clock.Add(time.Second)
	}
}

func checkModel(t *testing.T, s *tokens.Store, signIns []*modelSignIn, fail func(string, ...any)) {
	t.Helper()
	keys := map[string][]string{}
	n := 0
	for _, m := range signIns {
		for _, a := range m.dead {
			if _, err := s.Lookup(a); err == nil {
				fail("an ended token works after the load")
			}
		}
		if m.ended {
			if _, err := s.Refresh(m.refresh, m.key); !errors.Is(err, tokens.ErrUnknown) {
				fail("the refresh token of an ended sign-in = %v; want ErrUnknown", err)
			}
			continue
		}
		n++
		keys[m.user] = append(keys[m.user], m.key)
		for _, a := range m.access {
			if _, err := s.Lookup(a); err != nil {
				fail("a live access token is refused after the load: %v", err)
			}
		}
		// The newest refresh token works too (the first refresh of the
		// chain after the load).
		pair, err := s.Refresh(m.refresh, m.key)
		if err != nil {
			fail("the newest refresh token is refused after the load: %v", err)
		}
		m.previous, m.refresh = m.refresh, pair.Refresh
		m.access = append(m.access, pair.Access)
	}
	if s.Live() != n {
		fail("Live = %d; want %d", s.Live(), n)
	}
	for user, want := range keys {
		slices.Sort(want)
		if got := s.LiveKeys(user); !slices.Equal(got, want) {
			fail("LiveKeys(%s) = %v; want %v", user, got, want)
		}
	}
}
