package dpop

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"encoding/hex"
	"errors"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
)

// errs are the errors of Verify: each refusal wraps one of them.
var errs = []error{ErrMalformed, ErrType, ErrAlgorithm, ErrKey, ErrPrivateKey, ErrSignature, ErrMethod,
	ErrURL, ErrTooOld, ErrFuture, ErrNoTokenHash, ErrTokenHash, ErrJTI}

// fuzzKey is a fixed P-256 key, so that the seed corpus is the same on
// each run.
func fuzzKey(f *testing.F) *ecdsa.PrivateKey {
	d, err := hex.DecodeString("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721")
	if err != nil {
		f.Fatal(err)
	}
	key, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d)
	if err != nil {
		f.Fatal(err)
	}
	return key
}

func FuzzVerify(f *testing.F) {
	key := fuzzKey(f)
	good, err := Make(key, "POST", postURL, token, now, "j-1")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good, "POST", postURL, token)
	f.Add(good, "POST", postURL+"?a#b", token)
	f.Add(good, "GET", postURL, token)
	f.Add(good, "POST", postURL, "")
	f.Add(forge(f, jose.SigningKey{Algorithm: jose.ES256, Key: key}, map[jose.HeaderKey]any{"typ": Type, "jwk": jose.JSONWebKey{Key: key}}, goodClaims()), "POST", postURL, token)
	f.Add(b64(`{"alg":"none","typ":"dpop+jwt","jwk":{"kty":"EC"}}`)+"."+b64(`{"jti":"j"}`)+".", "POST", postURL, "")
	f.Add(b64(`{"alg":"ES256","typ":"dpop+jwt","jwk":{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}}`)+".e30.AA", "POST", postURL, "")
	f.Add("..", "", "", "")
	f.Add("", "POST", "http://[::1", "t")
	f.Fuzz(func(t *testing.T, proof, method, url, accessToken string) {
		p, err := Verify(proof, method, url, accessToken, now)
		if err != nil {
			if p != (Proof{}) {
				t.Fatalf("Verify() = %+v with the error %v; want the zero Proof", p, err)
			}
			for _, e := range errs {
				if errors.Is(err, e) {
					return
				}
			}
			t.Fatalf("Verify() = %v; want one of the errors of Verify", err)
		}
		if p.JTI == "" || len(p.JTI) > MaxJTILength || p.Thumbprint == "" {
			t.Fatalf("Verify() = %+v, nil; want a jti and a thumbprint", p)
		}
		if d := now.Sub(p.IssuedAt); d > MaxAge || -d > MaxAhead {
			t.Fatalf("Verify() = %+v, nil; want an iat in the window", p)
		}
	})
}
