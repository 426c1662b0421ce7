package signed

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"
)

// newKey gives a new P-256 device key.
func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("ecdsa.GenerateKey() = %v", err)
	}
	return key
}

// samplePayload is the payload of a message of mike, the lead.
const samplePayload = `{"user":"mike","session":"a6cf","lead":true,"thread":"como-technologies/riff","to":[{"claim":"issue-6"}],"body":"the API is ready","kind":"note","time":1790539844000}`

// sign signs payload and fails the test on an error.
func sign(t testing.TB, key *ecdsa.PrivateKey, payload []byte) string {
	t.Helper()
	sig, err := Sign(key, payload)
	if err != nil {
		t.Fatalf("Sign() = %v; want no error", err)
	}
	return sig
}

// b64 is base64url with no padding, as JWS uses it.
func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// coordinate gives a coordinate of a P-256 key as JWK writes it.
func coordinate(n *big.Int) string {
	return b64(n.FillBytes(make([]byte, 32)))
}

// TestSignVerifiesWithGoJose checks a signature of this package with
// go-jose alone: the form <header>..<signature>, the header, and the
// signature over the detached payload with the key of the header.
func TestSignVerifiesWithGoJose(t *testing.T) {
	key := newKey(t)
	payload := []byte(samplePayload)
	sig := sign(t, key, payload)

	parts := strings.Split(sig, ".")
	if len(parts) != 3 || parts[0] == "" || parts[1] != "" || parts[2] == "" {
		t.Fatalf("Sign() = %q; want <header>..<signature>", sig)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		t.Fatalf("decode header %q: %v", parts[0], err)
	}
	want := fmt.Sprintf(`{"alg":"ES256","jwk":{"kty":"EC","crv":"P-256","x":%q,"y":%q},"typ":"riff-message"}`,
		coordinate(key.X), coordinate(key.Y))
	if string(raw) != want {
		t.Errorf("header = %s; want %s", raw, want)
	}

	jws, err := jose.ParseDetached(sig, payload, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatalf("jose.ParseDetached() = %v", err)
	}
	prot := jws.Signatures[0].Protected
	if got := prot.ExtraHeaders[jose.HeaderType]; got != "riff-message" {
		t.Errorf("protected typ = %v; want riff-message", got)
	}
	if prot.JSONWebKey == nil {
		t.Fatalf("protected jwk = nil; want the public key")
	}
	if !prot.JSONWebKey.Key.(*ecdsa.PublicKey).Equal(&key.PublicKey) {
		t.Errorf("protected jwk = %v; want the public key of the signer", prot.JSONWebKey.Key)
	}
	if err := jws.DetachedVerify(payload, prot.JSONWebKey); err != nil {
		t.Errorf("DetachedVerify(payload, key of the header) = %v; want no error", err)
	}
	if err := jws.DetachedVerify(payload, &key.PublicKey); err != nil {
		t.Errorf("DetachedVerify(payload, key) = %v; want no error", err)
	}
	if err := jws.DetachedVerify(payload, &newKey(t).PublicKey); err == nil {
		t.Errorf("DetachedVerify(payload, another key) = nil; want an error")
	}
}

func TestVerify(t *testing.T) {
	key := newKey(t)
	payload := []byte(samplePayload)
	v, err := Verify(sign(t, key, payload), payload)
	if err != nil {
		t.Fatalf("Verify() = %v; want no error", err)
	}
	if !v.Key.Equal(&key.PublicKey) {
		t.Errorf("Verify().Key = %v; want the key of the signer", v.Key)
	}
	// RFC 7638: the SHA-256 of the required members in sorted order,
	// with no white space.
	jwk := fmt.Sprintf(`{"crv":"P-256","kty":"EC","x":%q,"y":%q}`, coordinate(key.X), coordinate(key.Y))
	sum := sha256.Sum256([]byte(jwk))
	if want := b64(sum[:]); v.Thumbprint != want {
		t.Errorf("Verify().Thumbprint = %q; want %q", v.Thumbprint, want)
	}
}

// TestVerifyEachChangedByte flips each byte of a payload in turn: no
// changed payload verifies, with this package or with go-jose alone.
func TestVerifyEachChangedByte(t *testing.T) {
	key := newKey(t)
	payload := []byte(samplePayload)
	sig := sign(t, key, payload)
	for i := range payload {
		changed := []byte(samplePayload)
		changed[i] ^= 0x01
		if _, err := Verify(sig, changed); !errors.Is(err, ErrSignature) {
			t.Errorf("Verify(sig, payload with byte %d flipped) = %v; want %v", i, err, ErrSignature)
		}
		jws, err := jose.ParseDetached(sig, changed, []jose.SignatureAlgorithm{jose.ES256})
		if err != nil {
			t.Fatalf("jose.ParseDetached() = %v", err)
		}
		if err := jws.DetachedVerify(changed, &key.PublicKey); err == nil {
			t.Errorf("go-jose DetachedVerify(payload with byte %d flipped) = nil; want an error", i)
		}
	}
	for _, changed := range []string{samplePayload + " ", " " + samplePayload, samplePayload[:len(samplePayload)-1], ""} {
		if _, err := Verify(sig, []byte(changed)); !errors.Is(err, ErrSignature) {
			t.Errorf("Verify(sig, %q) = %v; want %v", changed, err, ErrSignature)
		}
	}
}

// TestVerifyUnknownField is Appendix B: a payload of a later release, with
// a field that this build does not know, verifies and decodes.
func TestVerifyUnknownField(t *testing.T) {
	key := newKey(t)
	payload := []byte(`{"user":"mike","session":"a6cf","lead":true,"thread":"como-technologies/riff","to":[{"claim":"issue-6"}],"body":"7878","kind":"note","time":1790539844000,"reply_to":{"thread":"como-technologies/riff","seq":417}}`)
	sig := sign(t, key, payload)
	if _, err := Verify(sig, payload); err != nil {
		t.Fatalf("Verify(payload with reply_to) = %v; want no error", err)
	}
	got, err := Decode(payload)
	if err != nil {
		t.Fatalf("Decode(payload with reply_to) = %v; want no error", err)
	}
	want := Content{User: "mike", Session: "a6cf", Lead: true, Thread: "como-technologies/riff", To: json.RawMessage(`[{"claim":"issue-6"}]`), Body: "7878", Kind: "note", TimeMS: 1790539844000}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Decode(payload with reply_to) (-want +got):\n%s", diff)
	}
	// The bytes verify after the decode: nothing changed them.
	if _, err := Verify(sig, payload); err != nil {
		t.Errorf("Verify() after Decode() = %v; want no error", err)
	}
}

// TestSecondSignature: ECDSA gives a second valid signature for the same
// bytes, so the copy check compares the hash of the payload.
func TestSecondSignature(t *testing.T) {
	key := newKey(t)
	payload := []byte(samplePayload)
	first, second := sign(t, key, payload), sign(t, key, payload)
	if first == second {
		t.Fatalf("Sign() twice gave the same signature %q; want two", first)
	}
	for _, sig := range []string{first, second} {
		if _, err := Verify(sig, payload); err != nil {
			t.Errorf("Verify(%q) = %v; want no error", sig, err)
		}
	}
	if Hash(payload) != Hash([]byte(samplePayload)) {
		t.Errorf("Hash() of the same payload differs")
	}
}

func TestHash(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		want    string
	}{
		{"empty", "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Hash([]byte(tt.payload)); got != tt.want {
				t.Errorf("Hash(%q) = %q; want %q", tt.payload, got, tt.want)
			}
		})
	}
}

// signWith signs payload with go-jose and the given options, to make the
// signatures of schemes that this package does not make.
func signWith(t *testing.T, alg jose.SignatureAlgorithm, key any, opts *jose.SignerOptions, payload []byte) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		t.Fatalf("jose.NewSigner() = %v", err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatalf("Sign() = %v", err)
	}
	sig, err := jws.DetachedCompactSerialize()
	if err != nil {
		t.Fatalf("DetachedCompactSerialize() = %v", err)
	}
	return sig
}

// withHeader gives sig with its header replaced by the JSON h, and the
// signature kept.
func withHeader(sig, h string) string {
	_, rest, _ := strings.Cut(sig, ".")
	return b64([]byte(h)) + "." + rest
}

// TestVerifyRefused: a scheme that this build does not know, or a header
// that changed, never verifies, and the error names what it refused.
func TestVerifyRefused(t *testing.T) {
	key := newKey(t)
	payload := []byte(samplePayload)
	good := sign(t, key, payload)
	jwk, err := json.Marshal(jose.JSONWebKey{Key: &key.PublicKey})
	if err != nil {
		t.Fatalf("marshal jwk: %v", err)
	}
	privateJWK, err := json.Marshal(jose.JSONWebKey{Key: key})
	if err != nil {
		t.Fatalf("marshal jwk: %v", err)
	}
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatalf("ecdsa.GenerateKey(P384) = %v", err)
	}

	tests := []struct {
		name    string
		sig     string
		wantIs  error
		wantErr string
	}{
		{
			name:   "another typ, signed",
			sig:    signWith(t, jose.ES256, key, (&jose.SignerOptions{EmbedJWK: true}).WithType("riff-message-2"), payload),
			wantIs: ErrScheme, wantErr: `typ "riff-message-2"`,
		},
		{
			name:   "no typ, signed",
			sig:    signWith(t, jose.ES256, key, &jose.SignerOptions{EmbedJWK: true}, payload),
			wantIs: ErrScheme, wantErr: `typ ""`,
		},
		{
			name:   "another alg, signed",
			sig:    signWith(t, jose.ES384, p384, (&jose.SignerOptions{EmbedJWK: true}).WithType("riff-message"), payload),
			wantIs: ErrScheme, wantErr: `alg "ES384"`,
		},
		{
			name:   "another header field, signed",
			sig:    signWith(t, jose.ES256, key, (&jose.SignerOptions{EmbedJWK: true}).WithType("riff-message").WithHeader("kid", "k1"), payload),
			wantIs: ErrScheme, wantErr: `header field "kid"`,
		},
		{
			name:   "typ changed after the signature",
			sig:    withHeader(good, fmt.Sprintf(`{"alg":"ES256","jwk":%s,"typ":"other"}`, jwk)),
			wantIs: ErrScheme, wantErr: `typ "other"`,
		},
		{
			name:   "alg none",
			sig:    withHeader(good, fmt.Sprintf(`{"alg":"none","jwk":%s,"typ":"riff-message"}`, jwk)),
			wantIs: ErrScheme, wantErr: `alg "none"`,
		},
		{
			name:   "b64 false",
			sig:    withHeader(good, fmt.Sprintf(`{"alg":"ES256","b64":false,"crit":["b64"],"jwk":%s,"typ":"riff-message"}`, jwk)),
			wantIs: ErrScheme, wantErr: `header field "b64"`,
		},
		{
			name:   "header in another order, same fields",
			sig:    withHeader(good, fmt.Sprintf(`{"typ":"riff-message","alg":"ES256","jwk":%s}`, jwk)),
			wantIs: ErrSignature,
		},
		{
			name:   "another key in the header",
			sig:    withHeader(good, fmt.Sprintf(`{"alg":"ES256","jwk":%s,"typ":"riff-message"}`, mustJSON(t, jose.JSONWebKey{Key: &newKey(t).PublicKey}))),
			wantIs: ErrSignature,
		},
		{
			name:   "a private key in the header",
			sig:    withHeader(good, fmt.Sprintf(`{"alg":"ES256","jwk":%s,"typ":"riff-message"}`, privateJWK)),
			wantIs: ErrMalformed,
		},
		{name: "no jwk", sig: withHeader(good, `{"alg":"ES256","typ":"riff-message"}`), wantIs: ErrMalformed, wantErr: "no jwk"},
		{name: "header not JSON", sig: withHeader(good, `not json`), wantIs: ErrMalformed},
		{name: "header null", sig: withHeader(good, `null`), wantIs: ErrMalformed},
		{name: "payload not detached", sig: strings.Replace(good, "..", "."+b64(payload)+".", 1), wantIs: ErrMalformed, wantErr: "not detached"},
		{name: "two parts", sig: strings.Replace(good, "..", ".", 1), wantIs: ErrMalformed, wantErr: "2 parts"},
		{name: "empty", sig: "", wantIs: ErrMalformed},
		{name: "header not base64", sig: "!!.." + strings.Split(good, ".")[2], wantIs: ErrMalformed},
		{name: "signature not base64", sig: strings.Split(good, ".")[0] + "..!!", wantIs: ErrMalformed},
		{name: "signature cut", sig: good[:len(good)-4], wantIs: ErrSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Verify(tt.sig, payload)
			if !errors.Is(err, tt.wantIs) || !strings.Contains(fmt.Sprint(err), tt.wantErr) {
				t.Fatalf("Verify(%q) = %v, %v; want an error %v with %q", tt.sig, v, err, tt.wantIs, tt.wantErr)
			}
			if !strings.HasPrefix(err.Error(), "verify message: ") {
				t.Errorf("Verify() error = %q; want the prefix %q", err, "verify message: ")
			}
			if v != (Verified{}) {
				t.Errorf("Verify() = %v with an error; want the zero Verified", v)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal(%T) = %v", v, err)
	}
	return b
}

func TestSignRefused(t *testing.T) {
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatalf("ecdsa.GenerateKey(P384) = %v", err)
	}
	tests := []struct {
		name    string
		key     *ecdsa.PrivateKey
		wantErr string
	}{
		{"no key", nil, "sign message: no key"},
		{"P-384 key", p384, "sign message: key is not on the curve P-256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sig, err := Sign(tt.key, []byte(samplePayload))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Sign() = %q, %v; want an error with %q", sig, err, tt.wantErr)
			}
		})
	}
}

func TestThumbprintNoKey(t *testing.T) {
	if tp, err := Thumbprint(nil); err == nil {
		t.Errorf("Thumbprint(nil) = %q; want an error", tp)
	}
}
