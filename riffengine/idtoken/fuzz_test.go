package idtoken_test

import (
	"context"
	"testing"

	"github.com/como-technologies/riff/tools/oidcfake"
)

// FuzzIDTokenCheck: an ID token is any text; the check gives an identity
// with an email, or an error, never a panic. The seeds are tokens of the
// test provider, good and bad. The clock of the checker stands still, so
// the keys are read once (at the first input) and never again.
func FuzzIDTokenCheck(f *testing.F) {
	p, err := oidcfake.New(oidcfake.Options{ClientID: "riff-test"})
	if err != nil {
		f.Fatal(err)
	}
	defer p.Close()
	for _, c := range []oidcfake.Claims{
		{Email: "ada@example.com", EmailVerified: true},
		{Email: "ada@example.com"},
		{Email: "", EmailVerified: true},
		{Email: "ada@example.com", EmailVerified: true, Audience: "other"},
	} {
		raw, err := p.Sign(c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add("a.b.c")
	c := &clock{}
	check := newChecker(f, p, c)
	f.Fuzz(func(t *testing.T, raw string) {
		who, err := check.Check(context.Background(), raw)
		if err == nil && who.Email == "" {
			t.Fatalf("Check(%q) gave an identity with no email", raw)
		}
	})
}
