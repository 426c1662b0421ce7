package riffengine

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/dpop"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffengine/tokens"
)

// FuzzDeviceKey: the key of a sign-in is any bytes; it gives a
// thumbprint or a refusal, never a panic.
func FuzzDeviceKey(f *testing.F) {
	f.Add([]byte(`{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}`))
	f.Add([]byte(`{"kty":"RSA","n":"AQAB","e":"AQAB"}`))
	f.Add([]byte(`{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","d":"jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		thumb, refused := deviceKey(raw)
		if (thumb == "") == (refused == nil) {
			t.Fatalf("deviceKey(%q) = %q, %v: want a thumbprint or a refusal", raw, thumb, refused)
		}
	})
}

// FuzzProve: the headers Authorization and DPoP of a call are any text;
// the token layer gives a proof or a refusal of the token layer, never
// a panic, and never a proof with no caller.
func FuzzProve(f *testing.F) {
	f.Add("DPoP abc", "a.b.c")
	f.Add("", "")
	f.Add("Bearer x", "")
	f.Add("dpop  ", "eyJhbGciOiJFUzI1NiJ9.e30.sig")
	store := tokens.New(tokens.Options{})
	// A live token, so that the fuzzer reaches the check of the proof.
	pair, _, err := store.Start(tokens.Person{User: "ann", Email: "ann@example.com"}, "thumb", 1)
	if err != nil {
		f.Fatal(err)
	}
	f.Add("DPoP "+pair.Access, "eyJhbGciOiJFUzI1NiIsInR5cCI6ImRwb3Arand0In0.e30.c2ln")
	l := &SignedIn{tokens: store, seen: dpop.NewSeen(0), opts: SignInOptions{Now: time.Now}, start: time.Now()}
	f.Fuzz(func(t *testing.T, auth, proof string) {
		r := httptest.NewRequest(http.MethodPost, "http://riff.example/v1/whoami", nil)
		r.Header.Set("Authorization", auth)
		r.Header.Set("DPoP", proof)
		var p Proof
		tok, refused := l.Token(r)
		if refused == nil {
			p, refused = l.Prove(r, tok, name.SessionURI{User: "ann", Host: "pangolin"})
		}
		if refused == nil && p.caller.URI.User != "ann" {
			t.Fatalf("Prove(%q, %q) gave a proof of %v", auth, proof, p.caller)
		}
	})
}
