package tokens_test

import (
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/como-technologies/riff/riffengine/tokens"
)

// endedStore is a store whose Ended hook keeps each sign-in that it
// hears of, in order.
type endedStore struct {
	s     *tokens.Store
	mu    sync.Mutex
	ended []string
}

func newEndedStore(t *testing.T) *endedStore {
	t.Helper()
	e := &endedStore{}
	c := &clock{now: t0}
	e.s = tokens.New(tokens.Options{Now: c.Now, Rand: rand.NewChaCha8([32]byte{7}), Ended: func(signIn string) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.ended = append(e.ended, signIn)
	}})
	return e
}

func (e *endedStore) heard() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.ended...)
}

func chainOf(t *testing.T, p tokens.Pair) string {
	t.Helper()
	chain, _, _, err := tokens.ParseRefresh(p.Refresh)
	if err != nil {
		t.Fatal(err)
	}
	if p.Token.SignIn != chain {
		t.Fatalf("the token names the sign-in %q; want its chain %q", p.Token.SignIn, chain)
	}
	return chain
}

func TestGivenSignInsWhenTheSignInsOfAUserEndThenTheHookHearsEachAndNoOther(t *testing.T) {
	e := newEndedStore(t)
	a, _, _ := e.s.Start(mike, keyA, 3)
	b, _, _ := e.s.Start(mike, keyB, 4)
	later, _, _ := e.s.Start(mike, keyA, 9)
	other, _, _ := e.s.Start(ann, keyB, 4)
	if n := e.s.End("mike", 8); n != 2 {
		t.Fatalf("End = %d; want 2", n)
	}
	got := e.heard()
	want := map[string]bool{chainOf(t, a): true, chainOf(t, b): true}
	if len(got) != 2 || !want[got[0]] || !want[got[1]] || got[0] == got[1] {
		t.Errorf("the hook heard %v; want the two sign-ins of mike from before 8", got)
	}
	for _, live := range []tokens.Pair{later, other} {
		if !e.s.Holds(chainOf(t, live)) {
			t.Errorf("the store does not hold the sign-in %s, which the end does not name", live.Token.SignIn)
		}
	}
	if e.s.Holds(chainOf(t, a)) {
		t.Errorf("the store still holds an ended sign-in")
	}
}

func TestGivenASignInWhenAnOldRefreshTokenComesBackThenTheHookHearsItsEndBeforeTheRefusal(t *testing.T) {
	e := newEndedStore(t)
	first, _, _ := e.s.Start(mike, keyA, 3)
	next := first
	for range 2 {
		p, err := e.s.Refresh(next.Refresh, keyA)
		if err != nil {
			t.Fatal(err)
		}
		next = p
	}
	// A lost reply (the generation before the current one) ends no
	// sign-in: the hook hears nothing.
	if _, err := e.s.Refresh(next.Refresh, keyA); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.Refresh(next.Refresh, keyA); err != nil {
		t.Fatalf("the refresh of a lost reply = %v", err)
	}
	if len(e.heard()) != 0 {
		t.Fatalf("the hook heard %v after refreshes; want nothing", e.heard())
	}
	if _, err := e.s.Refresh(first.Refresh, keyA); !errors.Is(err, tokens.ErrReused) {
		t.Fatalf("Refresh of generation 1 = %v; want ErrReused", err)
	}
	if got := e.heard(); len(got) != 1 || got[0] != chainOf(t, first) {
		t.Errorf("the hook heard %v; want the sign-in %s", got, chainOf(t, first))
	}
}
