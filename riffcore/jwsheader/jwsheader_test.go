package jwsheader_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/como-technologies/riff/riffcore/dpop"
	"github.com/como-technologies/riff/riffcore/jwsheader"
	"github.com/como-technologies/riff/riffcore/signed"
)

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// headers are the headers that each test puts on a proof and on a signed
// message, with the fault that they are: the same for both kinds.
func headers(t *testing.T, typ string) map[string]struct {
	header string
	fault  jwsheader.Fault
} {
	key := newKey(t)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &key.PublicKey})
	private, _ := json.Marshal(jose.JSONWebKey{Key: key})
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := json.Marshal(jose.JSONWebKey{Key: &p384.PublicKey})
	return map[string]struct {
		header string
		fault  jwsheader.Fault
	}{
		"a private key":      {fmt.Sprintf(`{"alg":"ES256","jwk":%s,"typ":%q}`, private, typ), jwsheader.PrivateKey},
		"a private member k": {fmt.Sprintf(`{"alg":"ES256","jwk":{"kty":"oct","k":"c2VjcmV0"},"typ":%q}`, typ), jwsheader.PrivateKey},
		"another typ":        {fmt.Sprintf(`{"alg":"ES256","jwk":%s,"typ":"jwt"}`, pub), jwsheader.Type},
		"alg none":           {fmt.Sprintf(`{"alg":"none","jwk":%s,"typ":%q}`, pub, typ), jwsheader.Alg},
		"another field":      {fmt.Sprintf(`{"alg":"ES256","jwk":%s,"kid":"k1","typ":%q}`, pub, typ), jwsheader.Field},
		"a P-384 key":        {fmt.Sprintf(`{"alg":"ES256","jwk":%s,"typ":%q}`, other, typ), jwsheader.Key},
		"no jwk":             {fmt.Sprintf(`{"alg":"ES256","typ":%q}`, typ), jwsheader.Malformed},
		"not an object":      {`[1]`, jwsheader.Malformed},
	}
}

// TestGivenAHeaderWhenAProofOrASignedMessageHasItThenBothAreRefusedForTheSameFault:
// the DPoP proofs and the signed messages read their header with the one
// check of this package, so that a header refused for one kind is refused
// for the other (before it, only dpop refused a private key).
func TestGivenAHeaderWhenAProofOrASignedMessageHasItThenBothAreRefusedForTheSameFault(t *testing.T) {
	now := time.Now()
	claims := b64(fmt.Sprintf(`{"jti":"j","htm":"POST","htu":"https://riff.example/v1/post","iat":%d}`, now.Unix()))
	sig := b64("not a signature")
	proofs := headers(t, dpop.Type)
	messages := headers(t, signed.Type)
	for name, h := range proofs {
		t.Run(name, func(t *testing.T) {
			proof := b64(h.header) + "." + claims + "." + sig
			if got := jwsheader.FaultOf((jwsheader.Scheme{Type: dpop.Type}).Check(proof)); got != h.fault {
				t.Errorf("Check(proof) fault = %d; want %d", got, h.fault)
			}
			if _, err := dpop.Verify(proof, "POST", "https://riff.example/v1/post", "", now); err == nil {
				t.Errorf("dpop.Verify() of %s = nil; want a refusal", name)
			}
			m := messages[name]
			message := b64(m.header) + ".." + sig
			if got := jwsheader.FaultOf((jwsheader.Scheme{Type: signed.Type, Detached: true}).Check(message)); got != m.fault {
				t.Errorf("Check(message) fault = %d; want %d", got, m.fault)
			}
			_, err := signed.Verify(message, []byte(`{}`))
			if err == nil {
				t.Fatalf("signed.Verify() of %s = nil; want a refusal", name)
			}
			if m.fault == jwsheader.PrivateKey && !strings.Contains(err.Error(), "private") {
				t.Errorf("signed.Verify() = %v; want a text that names the private key", err)
			}
		})
	}
}

func TestGivenADetachedSchemeWhenThePayloadIsInsideThenMalformed(t *testing.T) {
	key := newKey(t)
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &key.PublicKey})
	h := b64(fmt.Sprintf(`{"alg":"ES256","jwk":%s,"typ":"riff-message"}`, pub))
	s := jwsheader.Scheme{Type: "riff-message", Detached: true}
	if err := s.Check(h + ".." + b64("x")); err != nil {
		t.Fatalf("Check(detached) = %v; want nil", err)
	}
	for _, in := range []string{h + "." + b64("{}") + "." + b64("x"), h + "." + b64("x"), ""} {
		if got := jwsheader.FaultOf(s.Check(in)); got != jwsheader.Malformed {
			t.Errorf("Check(%q) fault = %d; want Malformed", in, got)
		}
	}
}
