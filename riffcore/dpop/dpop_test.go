package dpop

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// The call of most tests: a post with a token, at a fixed time.
const (
	postURL = "https://riff.example/v1/post"
	token   = "access-token-of-mike"
)

var now = time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)

// newKey gives a new P-256 device key.
func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("ecdsa.GenerateKey() = %v", err)
	}
	return key
}

// given makes a proof with Make and fails the test on an error.
func given(t testing.TB, key *ecdsa.PrivateKey, method, url, accessToken string, at time.Time) string {
	t.Helper()
	proof, err := Make(key, method, url, accessToken, at, rand.Text())
	if err != nil {
		t.Fatalf("Make() = %v; want no error", err)
	}
	return proof
}

// thenGood checks that proof verifies for the call.
func thenGood(t *testing.T, proof, method, url, accessToken string, at time.Time) Proof {
	t.Helper()
	p, err := Verify(proof, method, url, accessToken, at)
	if err != nil {
		t.Fatalf("Verify() = %v; want a good proof", err)
	}
	return p
}

// thenRefused checks that proof is refused for the call with want.
func thenRefused(t *testing.T, proof, method, url, accessToken string, at time.Time, want error) {
	t.Helper()
	p, err := Verify(proof, method, url, accessToken, at)
	if !errors.Is(err, want) {
		t.Fatalf("Verify() = %v; want %v", err, want)
	}
	if p != (Proof{}) {
		t.Errorf("Verify() = %+v with an error; want the zero Proof", p)
	}
}

// forge signs claims with signing, and the header fields of extra, with
// go-jose: a proof that Make would never make.
func forge(t testing.TB, signing jose.SigningKey, extra map[jose.HeaderKey]any, claims any) string {
	t.Helper()
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatalf("json.Marshal() = %v", err)
	}
	signer, err := jose.NewSigner(signing, &jose.SignerOptions{ExtraHeaders: extra})
	if err != nil {
		t.Fatalf("jose.NewSigner() = %v", err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatalf("Sign() = %v", err)
	}
	proof, err := jws.CompactSerialize()
	if err != nil {
		t.Fatalf("CompactSerialize() = %v", err)
	}
	return proof
}

// goodClaims are the claims that Make gives for the post of the tests.
func goodClaims() map[string]any {
	return map[string]any{"jti": "j-1", "htm": "POST", "htu": postURL, "iat": now.Unix(), "ath": tokenHash(token)}
}

// publicHeader is the header of a proof of key, with a typ.
func publicHeader(key *ecdsa.PrivateKey) map[jose.HeaderKey]any {
	return map[jose.HeaderKey]any{"typ": Type, "jwk": jose.JSONWebKey{Key: &key.PublicKey}}
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func TestGivenAProofOfACallWhenTheServerChecksThatCallThenItIsGood(t *testing.T) {
	key := newKey(t)
	for _, tc := range []struct {
		name, method, url, token string
	}{
		{"with a token", "POST", postURL, token},
		{"with no token (a sign-in)", "POST", "https://riff.example/v1/login", ""},
		{"a GET", "GET", "https://riff.example/v1/server", token},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proof := given(t, key, tc.method, tc.url, tc.token, now)
			p := thenGood(t, proof, tc.method, tc.url, tc.token, now)
			jwk := jose.JSONWebKey{Key: &key.PublicKey}
			want, err := jwk.Thumbprint(crypto.SHA256)
			if err != nil {
				t.Fatal(err)
			}
			if p.Thumbprint != base64.RawURLEncoding.EncodeToString(want) {
				t.Errorf("Thumbprint = %q; want the RFC 7638 thumbprint of the key", p.Thumbprint)
			}
			if p.JTI == "" || !p.IssuedAt.Equal(now) {
				t.Errorf("Verify() = %+v; want the jti and the iat %v", p, now)
			}
		})
	}
}

func TestGivenAProofTakenByAnInstanceWhenItIsReplayedThenItIsRefused(t *testing.T) {
	key := newKey(t)
	proof := given(t, key, "POST", postURL, token, now)
	seen := NewSeen(0)
	p := thenGood(t, proof, "POST", postURL, token, now)
	if err := seen.Add(p, now); err != nil {
		t.Fatalf("Add() = %v; want the first proof taken", err)
	}
	again := thenGood(t, proof, "POST", postURL, token, now.Add(30*time.Second))
	if err := seen.Add(again, now.Add(30*time.Second)); !errors.Is(err, ErrReplayed) {
		t.Fatalf("Add() of the same proof = %v; want %v", err, ErrReplayed)
	}
	other := thenGood(t, given(t, key, "POST", postURL, token, now), "POST", postURL, token, now)
	if err := seen.Add(other, now); err != nil {
		t.Errorf("Add() of a new proof of the same key = %v; want it taken", err)
	}
}

func TestGivenAProofTakenByAnInstanceWhenANewInstanceChecksItThenItIsTaken(t *testing.T) {
	// The replay IDs are in memory (the seeds): a new instance has a new
	// Seen, and the window keeps a proof of the old instance short-lived.
	p := thenGood(t, given(t, newKey(t), "POST", postURL, token, now), "POST", postURL, token, now)
	if err := NewSeen(0).Add(p, now); err != nil {
		t.Fatalf("Add() = %v", err)
	}
	if err := NewSeen(0).Add(p, now); err != nil {
		t.Errorf("Add() in a new instance = %v; want it taken", err)
	}
}

func TestGivenAProofWhenItComesWithAnotherURLThenItIsRefused(t *testing.T) {
	proof := given(t, newKey(t), "POST", postURL, token, now)
	for _, url := range []string{
		"https://riff.example/v1/claim",
		"https://riff.example/v1/post/",
		"https://other.example/v1/post",
		"http://riff.example/v1/post",
		"https://riff.example:8443/v1/post",
		"https://riff.example/v1/%70ost%2F",
		"riff.example/v1/post",
		"",
	} {
		t.Run(url, func(t *testing.T) { thenRefused(t, proof, "POST", url, token, now, ErrURL) })
	}
}

func TestGivenAProofWhenItComesWithTheSameURLInAnotherFormThenItIsGood(t *testing.T) {
	// RFC 9449 §4.3: the query and the fragment do not count, and both
	// sides are normalised (RFC 3986 §6.2.2 and §6.2.3).
	proof := given(t, newKey(t), "POST", postURL, token, now)
	for _, url := range []string{
		"https://riff.example/v1/post?me=riff://mike@pangolin",
		"https://riff.example/v1/post#top",
		"HTTPS://Riff.Example/v1/post",
		"https://riff.example:443/v1/post",
		"https://riff.example/v1/%70%6F%73%74",
		"https://riff.example/v1/./x/../post",
	} {
		t.Run(url, func(t *testing.T) { thenGood(t, proof, "POST", url, token, now) })
	}
}

func TestTargetURI(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://h", "http://h/"},
		{"http://h:80/a", "http://h/a"},
		{"http://h:443/a", "http://h:443/a"},
		{"https://[::1]:8080/a?b#c", "https://[::1]:8080/a"},
		{"https://[::1]:443/", "https://[::1]/"},
		{"https://h/a%2fb/%7e", "https://h/a%2Fb/~"},
		{"https://h/a/b/../../../c/./d/.", "https://h/c/d/"},
		{"https://h/%2E%2E/a", "https://h/a"},
	} {
		got, err := targetURI(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("targetURI(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"ftp://h/", "https://mike:secret@h/", "https:///a", "mailto:a@b", "%zz", "/v1/post"} {
		if got, err := targetURI(in); err == nil {
			t.Errorf("targetURI(%q) = %q; want an error", in, got)
		}
	}
}

func TestGivenAProofWhenItComesWithAnotherMethodThenItIsRefused(t *testing.T) {
	proof := given(t, newKey(t), "POST", postURL, token, now)
	for _, method := range []string{"GET", "post", "PUT", ""} {
		t.Run(method, func(t *testing.T) { thenRefused(t, proof, method, postURL, token, now, ErrMethod) })
	}
}

func TestGivenAnOldProofWhenTheServerChecksItThenItIsRefused(t *testing.T) {
	proof := given(t, newKey(t), "POST", postURL, token, now)
	thenGood(t, proof, "POST", postURL, token, now.Add(MaxAge))
	thenRefused(t, proof, "POST", postURL, token, now.Add(MaxAge+time.Second), ErrTooOld)
	thenRefused(t, proof, "POST", postURL, token, now.Add(24*time.Hour), ErrTooOld)
}

func TestGivenAProofFromTheFutureWhenTheServerChecksItThenItIsRefused(t *testing.T) {
	proof := given(t, newKey(t), "POST", postURL, token, now)
	thenGood(t, proof, "POST", postURL, token, now.Add(-MaxAhead))
	thenRefused(t, proof, "POST", postURL, token, now.Add(-MaxAhead-time.Second), ErrFuture)
	for _, iat := range []any{1e300, -1e300, now.Unix() + 6} {
		c := goodClaims()
		c["iat"] = iat
		key := newKey(t)
		forged := forge(t, jose.SigningKey{Algorithm: jose.ES256, Key: key}, publicHeader(key), c)
		p, err := Verify(forged, "POST", postURL, token, now)
		if !errors.Is(err, ErrFuture) && !errors.Is(err, ErrTooOld) {
			t.Errorf("Verify() of iat %v = %+v, %v; want out of the window", iat, p, err)
		}
	}
}

func TestGivenAProofSignedByAnotherKeyThanItsJWKWhenTheServerChecksItThenItIsRefused(t *testing.T) {
	signer, named := newKey(t), newKey(t)
	proof := forge(t, jose.SigningKey{Algorithm: jose.ES256, Key: signer}, publicHeader(named), goodClaims())
	thenRefused(t, proof, "POST", postURL, token, now, ErrSignature)

	// The same forge with the key of the header verifies: the test
	// fails for the key, not for the forge.
	thenGood(t, forge(t, jose.SigningKey{Algorithm: jose.ES256, Key: named}, publicHeader(named), goodClaims()), "POST", postURL, token, now)
}

func TestGivenAProofWithAnotherAlgorithmWhenTheServerChecksItThenItIsRefused(t *testing.T) {
	key := newKey(t)
	jwk, err := json.Marshal(jose.JSONWebKey{Key: &key.PublicKey})
	if err != nil {
		t.Fatal(err)
	}
	claims, err := json.Marshal(goodClaims())
	if err != nil {
		t.Fatal(err)
	}
	none := b64(`{"alg":"none","typ":"dpop+jwt","jwk":`+string(jwk)+`}`) + "." + b64(string(claims)) + "."
	thenRefused(t, none, "POST", postURL, token, now, ErrAlgorithm)

	// HS256 keyed with the public key: the classic confusion of keys.
	hs := forge(t, jose.SigningKey{Algorithm: jose.HS256, Key: jwk}, publicHeader(key), goodClaims())
	thenRefused(t, hs, "POST", postURL, token, now, ErrAlgorithm)

	es384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	thenRefused(t, forge(t, jose.SigningKey{Algorithm: jose.ES384, Key: es384}, map[jose.HeaderKey]any{"typ": Type, "jwk": jose.JSONWebKey{Key: &es384.PublicKey}}, goodClaims()),
		"POST", postURL, token, now, ErrAlgorithm)
}

func TestGivenACallWithATokenWhenTheProofHasNoAthThenItIsRefused(t *testing.T) {
	proof := given(t, newKey(t), "POST", postURL, "", now)
	thenRefused(t, proof, "POST", postURL, token, now, ErrNoTokenHash)
}

func TestGivenACallWithATokenWhenTheProofNamesAnotherTokenThenItIsRefused(t *testing.T) {
	key := newKey(t)
	thenRefused(t, given(t, key, "POST", postURL, "another-token", now), "POST", postURL, token, now, ErrTokenHash)
	// A proof of a call with a token, sent on a call with none.
	thenRefused(t, given(t, key, "POST", postURL, token, now), "POST", postURL, "", now, ErrTokenHash)
}

func TestGivenAProofWithAPrivateKeyInItsJWKWhenTheServerChecksItThenItIsRefused(t *testing.T) {
	key := newKey(t)
	header := map[jose.HeaderKey]any{"typ": Type, "jwk": jose.JSONWebKey{Key: key}}
	proof := forge(t, jose.SigningKey{Algorithm: jose.ES256, Key: key}, header, goodClaims())
	if !strings.Contains(decodeHeader(t, proof), `"d":`) {
		t.Fatalf("header %s; want the private member d, for the test", decodeHeader(t, proof))
	}
	thenRefused(t, proof, "POST", postURL, token, now, ErrPrivateKey)
}

func TestGivenAProofWithAnotherTypeWhenTheServerChecksItThenItIsRefused(t *testing.T) {
	key := newKey(t)
	for _, typ := range []any{"jwt", "riff-message", nil} {
		header := map[jose.HeaderKey]any{"jwk": jose.JSONWebKey{Key: &key.PublicKey}}
		if typ != nil {
			header["typ"] = typ
		}
		thenRefused(t, forge(t, jose.SigningKey{Algorithm: jose.ES256, Key: key}, header, goodClaims()), "POST", postURL, token, now, ErrType)
	}
}

func TestGivenAProofWithNoJTIOrALongOneWhenTheServerChecksItThenItIsRefused(t *testing.T) {
	key := newKey(t)
	for _, jti := range []any{nil, "", strings.Repeat("j", MaxJTILength+1), "a b", "\u00e9"} {
		c := goodClaims()
		if jti == nil {
			delete(c, "jti")
		} else {
			c["jti"] = jti
		}
		thenRefused(t, forge(t, jose.SigningKey{Algorithm: jose.ES256, Key: key}, publicHeader(key), c), "POST", postURL, token, now, ErrJTI)
	}
	c := goodClaims()
	c["jti"] = strings.Repeat("j", MaxJTILength)
	thenGood(t, forge(t, jose.SigningKey{Algorithm: jose.ES256, Key: key}, publicHeader(key), c), "POST", postURL, token, now)
	if _, err := Make(key, "POST", postURL, token, now, strings.Repeat("j", MaxJTILength+1)); !errors.Is(err, ErrJTI) {
		t.Errorf("Make() with a long jti = %v; want %v", err, ErrJTI)
	}
}

func TestGivenAProofThatDoesNotReadWhenTheServerChecksItThenItIsMalformed(t *testing.T) {
	key := newKey(t)
	good := given(t, key, "POST", postURL, token, now)
	parts := strings.Split(good, ".")
	extra := publicHeader(key)
	extra["kid"] = "k1"
	for name, proof := range map[string]string{
		"empty":          "",
		"two parts":      parts[0] + "." + parts[1],
		"JSON form":      `{"payload":"` + parts[1] + `"}`,
		"too long":       good + strings.Repeat("A", MaxLength),
		"claims no JSON": forgeRaw(t, key, "not json"),
		"iat a string":   forgeRaw(t, key, `{"jti":"j","htm":"POST","htu":"`+postURL+`","iat":"now"}`),
		"no iat":         forgeRaw(t, key, `{"jti":"j","htm":"POST","htu":"`+postURL+`"}`),
		"another field":  forge(t, jose.SigningKey{Algorithm: jose.ES256, Key: key}, extra, goodClaims()),
	} {
		t.Run(name, func(t *testing.T) { thenRefused(t, proof, "POST", postURL, "", now, ErrMalformed) })
	}
}

// forgeRaw signs payload as it is.
func forgeRaw(t *testing.T, key *ecdsa.PrivateKey, payload string) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{EmbedJWK: true}).WithType(Type))
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign([]byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	s, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func decodeHeader(t *testing.T, proof string) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(strings.Split(proof, ".")[0])
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func TestMakeRefusesWhatVerifyWouldRefuse(t *testing.T) {
	key := newKey(t)
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		key         *ecdsa.PrivateKey
		method, url string
		jti         string
	}{
		{"no key", nil, "POST", postURL, "j"},
		{"P-384", p384, "POST", postURL, "j"},
		{"no method", key, "", postURL, "j"},
		{"a user in the URL", key, "POST", "https://mike:secret@riff.example/v1/post", "j"},
		{"no URL", key, "POST", "", "j"},
		{"no jti", key, "POST", postURL, ""},
	} {
		if proof, err := Make(tc.key, tc.method, tc.url, token, now, tc.jti); err == nil {
			t.Errorf("%s: Make() = %q; want an error", tc.name, proof)
		}
	}
}

// TestGivenAProofWhoseIatIsAStringWhenTheServerChecksItThenItIsRefused:
// a NumericDate is a JSON number (RFC 7519 §2), so an iat that holds the
// right seconds as a JSON string is refused, as are the other JSON values
// that are no number; the same seconds as a number verify.
func TestGivenAProofWhoseIatIsAStringWhenTheServerChecksItThenItIsRefused(t *testing.T) {
	key := newKey(t)
	secs := strconv.FormatInt(now.Unix(), 10)
	claims := func(iat string) string {
		return `{"jti":"j","htm":"POST","htu":"` + postURL + `","iat":` + iat + `}`
	}
	thenGood(t, forgeRaw(t, key, claims(secs)), "POST", postURL, "", now)
	thenGood(t, forgeRaw(t, key, claims(secs+".5")), "POST", postURL, "", now)
	for _, iat := range []string{`"` + secs + `"`, `"` + secs + `.5"`, `true`, `[` + secs + `]`, `{"s":` + secs + `}`, `null`} {
		t.Run(iat, func(t *testing.T) {
			thenRefused(t, forgeRaw(t, key, claims(iat)), "POST", postURL, "", now, ErrMalformed)
		})
	}
	_, err := Verify(forgeRaw(t, key, claims(`"`+secs+`"`)), "POST", postURL, "", now)
	if !strings.Contains(fmt.Sprint(err), "not a JSON number") {
		t.Errorf("Verify() of iat as a string = %v; want a text that says iat is not a JSON number", err)
	}
}
