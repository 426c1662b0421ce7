package dpop

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/base64"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// TestAProofOfMakeVerifiesWithGoJoseAlone checks a proof of Make with a
// verifier made in the test from go-jose's jwt package, with no code of
// this package: the header, the signature by the key of the header, and
// each claim of RFC 9449 §4.2.
func TestAProofOfMakeVerifiesWithGoJoseAlone(t *testing.T) {
	key := newKey(t)
	proof, err := Make(key, "POST", "https://riff.example/v1/post?x=1#f", token, now, "jti-1")
	if err != nil {
		t.Fatalf("Make() = %v", err)
	}
	tok, err := jwt.ParseSigned(proof, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatalf("jwt.ParseSigned() = %v", err)
	}
	h := tok.Headers[0]
	if h.Algorithm != "ES256" || h.ExtraHeaders[jose.HeaderType] != "dpop+jwt" || h.JSONWebKey == nil || !h.JSONWebKey.IsPublic() {
		t.Fatalf("header = %+v; want alg ES256, typ dpop+jwt and a public jwk", h)
	}
	var c struct {
		jwt.Claims
		HTM string `json:"htm"`
		HTU string `json:"htu"`
		ATH string `json:"ath"`
	}
	if err := tok.Claims(h.JSONWebKey.Key, &c); err != nil {
		t.Fatalf("Claims() with the key of the header = %v", err)
	}
	if !h.JSONWebKey.Key.(*ecdsa.PublicKey).Equal(&key.PublicKey) {
		t.Errorf("jwk is not the public key of the device key")
	}
	sum := sha256.Sum256([]byte(token))
	if c.ID != "jti-1" || c.HTM != "POST" || c.HTU != "https://riff.example/v1/post" ||
		c.IssuedAt == nil || !c.IssuedAt.Time().Equal(now) || c.ATH != base64.RawURLEncoding.EncodeToString(sum[:]) {
		t.Errorf("claims = %+v; want the call, its time and the hash of its token", c)
	}
}

// TestAProofMadeWithGoJoseAloneVerifies checks the other way: a proof
// built in the test with go-jose's jwt builder verifies.
func TestAProofMadeWithGoJoseAloneVerifies(t *testing.T) {
	key := newKey(t)
	opts := (&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt")
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, opts)
	if err != nil {
		t.Fatalf("jose.NewSigner() = %v", err)
	}
	sum := sha256.Sum256([]byte(token))
	proof, err := jwt.Signed(signer).
		Claims(jwt.Claims{ID: "jti-2", IssuedAt: jwt.NewNumericDate(now)}).
		Claims(map[string]any{"htm": "GET", "htu": "https://riff.example/v1/server", "ath": base64.RawURLEncoding.EncodeToString(sum[:])}).
		Serialize()
	if err != nil {
		t.Fatalf("Serialize() = %v", err)
	}
	p := thenGood(t, proof, "GET", "https://riff.example/v1/server", token, now)
	jwk := jose.JSONWebKey{Key: &key.PublicKey}
	want, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	if p.JTI != "jti-2" || p.Thumbprint != base64.RawURLEncoding.EncodeToString(want) {
		t.Errorf("Verify() = %+v; want jti-2 and the thumbprint of the key", p)
	}
}
