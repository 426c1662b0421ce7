package idtoken_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffengine/idtoken"
	"github.com/como-technologies/riff/tools/oidcfake"
)

// clock is the fake clock of the reads of the keys.
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

// start gives a provider of the tests and a checker of its tokens, on
// the clock c (the expiry of the tokens keeps the real time).
func start(t *testing.T, c *clock) (*oidcfake.Provider, *idtoken.Checker) {
	t.Helper()
	p, err := oidcfake.New(oidcfake.Options{ClientID: "riff-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p, newChecker(t, p, c)
}

// newChecker gives a checker of the tokens of p on the clock c (nil: the
// real time).
func newChecker(t testing.TB, p *oidcfake.Provider, c *clock) *idtoken.Checker {
	t.Helper()
	now := time.Now
	if c != nil {
		c.now = time.Now()
		now = c.Now
	}
	ch, err := idtoken.New(idtoken.Options{Issuer: p.Issuer(), ClientID: "riff-test", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func sign(t *testing.T, p *oidcfake.Provider, c oidcfake.Claims) string {
	t.Helper()
	tok, err := p.Sign(c)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestGivenATokenOfTheProviderWhenItIsCheckedThenItGivesTheEmailAndTheDomain(t *testing.T) {
	p, ch := start(t, nil)
	who, err := ch.Check(context.Background(), sign(t, p, oidcfake.Claims{Email: "ada@example.com", EmailVerified: true, HD: "example.com"}))
	if err != nil {
		t.Fatal(err)
	}
	if who.Email != "ada@example.com" || who.Domain != "example.com" {
		t.Errorf("Check = %+v; want ada@example.com of example.com", who)
	}
}

func TestGivenATokenThatTheProviderWouldNotGiveWhenItIsCheckedThenItIsRefusedAndTheTextNamesNoEmail(t *testing.T) {
	p, ch := start(t, nil)
	now := time.Now()
	cases := map[string]oidcfake.Claims{
		"another audience": {Email: "ada@example.com", EmailVerified: true, Audience: "another-client"},
		"another issuer":   {Email: "ada@example.com", EmailVerified: true, Issuer: "https://issuer.example"},
		"expired":          {Email: "ada@example.com", EmailVerified: true, IssuedAt: now.Add(-2 * time.Hour), Expires: now.Add(-time.Hour)},
		"not verified":     {Email: "ada@example.com"},
		"no email":         {EmailVerified: true, Subject: "s-1"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ch.Check(context.Background(), sign(t, p, c))
			if err == nil {
				t.Fatal("Check took it")
			}
			if strings.Contains(err.Error(), "ada@") {
				t.Errorf("the error %q names the email", err)
			}
		})
	}
	if _, err := ch.Check(context.Background(), ""); err == nil {
		t.Error("Check took no token")
	}
}

func TestGivenTokensOfUnknownKeysWhenTheyComeThenTheKeysAreReadAgainAtMostOnceAMinute(t *testing.T) {
	c := &clock{}
	p, ch := start(t, c)
	ctx := context.Background()
	good := oidcfake.Claims{Email: "ada@example.com", EmailVerified: true}
	if _, err := ch.Check(ctx, sign(t, p, good)); err != nil {
		t.Fatal(err)
	}
	if n := p.KeyFetches(); n != 1 {
		t.Fatalf("%d reads of the keys at the first sign-in; want 1", n)
	}
	// 22 forged sign-ins in the minute after it: no read.
	for range 22 {
		forged, err := p.Forge(good)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ch.Check(ctx, forged); err == nil {
			t.Fatal("a forged token was taken")
		}
	}
	if n := p.KeyFetches(); n != 1 {
		t.Fatalf("%d reads of the keys after 22 forged tokens in a minute; want still 1", n)
	}
	// A minute later a forged token makes one read, and the next ones
	// none.
	c.Add(idtoken.KeysEvery)
	for range 5 {
		forged, _ := p.Forge(good)
		if _, err := ch.Check(ctx, forged); err == nil {
			t.Fatal("a forged token was taken")
		}
	}
	if n := p.KeyFetches(); n != 2 {
		t.Fatalf("%d reads after a minute and 5 forged tokens; want 2", n)
	}
	// The tokens of the known key need no read.
	for range 5 {
		if _, err := ch.Check(ctx, sign(t, p, good)); err != nil {
			t.Fatal(err)
		}
	}
	if n := p.KeyFetches(); n != 2 {
		t.Errorf("%d reads after tokens of the known key; want 2", n)
	}
}

func TestGivenAProviderThatRotatesItsKeyWhenATokenOfTheNewKeyComesThenItIsTakenOnceTheMinuteSinceTheLastReadIsOver(t *testing.T) {
	c := &clock{}
	p, ch := start(t, c)
	ctx := context.Background()
	good := oidcfake.Claims{Email: "ada@example.com", EmailVerified: true}
	if _, err := ch.Check(ctx, sign(t, p, good)); err != nil {
		t.Fatal(err)
	}
	if err := p.Rotate(); err != nil {
		t.Fatal(err)
	}
	fresh := sign(t, p, good)
	if _, err := ch.Check(ctx, fresh); err == nil {
		t.Fatal("a token of a key read less than a minute ago was taken")
	}
	c.Add(idtoken.KeysEvery)
	if _, err := ch.Check(ctx, fresh); err != nil {
		t.Fatalf("the token of the new key a minute after the last read = %v; want it taken", err)
	}
}

func TestGivenManySignInsAtOnceWhenTheKeysAreNotReadYetThenOneReadServesThemAll(t *testing.T) {
	p, ch := start(t, &clock{})
	tok := sign(t, p, oidcfake.Claims{Email: "ada@example.com", EmailVerified: true})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			if _, err := ch.Check(context.Background(), tok); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Check = %v", err)
	}
	if n := p.KeyFetches(); n != 1 {
		t.Errorf("%d reads of the keys for 16 sign-ins at once; want 1", n)
	}
}

func TestGivenAProviderThatCannotBeReachedWhenASignInComesThenItIsRefusedAndTheNextSignInReadsAgain(t *testing.T) {
	ch, err := idtoken.New(idtoken.Options{Issuer: "http://127.0.0.1:1", ClientID: "riff-test"})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := ch.Check(context.Background(), "a.b.c"); err == nil || !strings.Contains(err.Error(), "cannot read the provider") {
			t.Fatalf("Check with no provider = %v; want it cannot read the provider", err)
		}
	}
	if _, err := idtoken.New(idtoken.Options{ClientID: "riff-test"}); err == nil {
		t.Error("New with no issuer worked")
	}
}
