package main

import (
	"context"
	"crypto"
	"testing"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/como-technologies/riff/cmd/internal/oidcfake"
)

// FuzzIDTokenCheck: an ID token is any text; the check gives an identity
// with an email, or an error, never a panic. The seeds are tokens of the
// test provider, good and bad, checked with its key and no network.
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
	keys := &oidc.StaticKeySet{PublicKeys: []crypto.PublicKey{p.PublicKey()}}
	check := &idTokens{issuer: p.Issuer(), clientID: "riff-test",
		verifier: oidc.NewVerifier(p.Issuer(), keys, &oidc.Config{ClientID: "riff-test", SupportedSigningAlgs: []string{oidc.ES256}})}
	f.Fuzz(func(t *testing.T, raw string) {
		who, err := check.Check(context.Background(), raw)
		if err == nil && who.Email == "" {
			t.Fatalf("Check(%q) gave an identity with no email", raw)
		}
	})
}
