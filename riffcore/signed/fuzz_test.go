package signed

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		samplePayload,
		`{"user":"mike","reply_to":{"seq":417},"kind":"question"}`,
		`{"to": [ {"user": "<b>"} ], "body":"a < b"}`,
		`{"to":null,"user":null}`,
		`{"to":{}}`,
		`{"lead":"true"}`,
		`{"time":1.5}`,
		`{"user":"\ud800"}`,
		"{\"user\":\"\xff\"}",
		`{}`,
		`null`,
		`[]`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		c, err := Decode(payload)
		if err != nil {
			return
		}
		again, err := Encode(c)
		if err != nil {
			t.Fatalf("Encode(Decode(%q)) = %v; want no error", payload, err)
		}
		back, err := Decode(again)
		if err != nil {
			t.Fatalf("Decode(%q) = %v; want no error for the Encode of Decode(%q)", again, err, payload)
		}
		if diff := cmp.Diff(c, back); diff != "" {
			t.Fatalf("Decode(Encode(Decode(%q))) (-first +second):\n%s", payload, diff)
		}
	})
}

// fuzzKey is a fixed P-256 key for the seeds of FuzzVerify, so that the
// seed corpus is the same on each run.
func fuzzKey(f *testing.F) *ecdsa.PrivateKey {
	d, err := hex.DecodeString("c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721")
	if err != nil {
		f.Fatalf("hex.DecodeString() = %v", err)
	}
	key, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d)
	if err != nil {
		f.Fatalf("ecdsa.ParseRawPrivateKey() = %v", err)
	}
	return key
}

func FuzzVerify(f *testing.F) {
	key := fuzzKey(f)
	payload := []byte(samplePayload)
	sig, err := Sign(key, payload)
	if err != nil {
		f.Fatalf("Sign() = %v", err)
	}
	f.Add(sig, payload)
	f.Add(sig, []byte(samplePayload+" "))
	f.Add(withHeader(sig, `{"alg":"ES256","typ":"other"}`), payload)
	f.Add(withHeader(sig, `{"alg":"none","typ":"riff-message","jwk":{"kty":"EC"}}`), payload)
	f.Add(withHeader(sig, `{"alg":"ES256","typ":"riff-message","jwk":{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}}`), payload)
	f.Add("..", []byte{})
	f.Add("", []byte(nil))
	f.Add("a.b.c", []byte("x"))
	f.Fuzz(func(t *testing.T, sig string, payload []byte) {
		v, err := Verify(sig, payload)
		if err != nil {
			if v != (Verified{}) {
				t.Fatalf("Verify() = %v with the error %v; want the zero Verified", v, err)
			}
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrScheme) && !errors.Is(err, ErrSignature) {
				t.Fatalf("Verify() = %v; want one of the errors of Verify", err)
			}
			return
		}
		if v.Key == nil || v.Thumbprint == "" {
			t.Fatalf("Verify() = %v, nil; want a key and its thumbprint", v)
		}
	})
}

// FuzzCheck: the reader's check never panics; a message that passes has a
// valid signature, a key among the live ones, and bytes that decode to
// the content that it gives.
func FuzzCheck(f *testing.F) {
	key := fuzzKey(f)
	payload := []byte(samplePayload)
	sig, err := Sign(key, payload)
	if err != nil {
		f.Fatalf("Sign() = %v", err)
	}
	tp, _ := Thumbprint(&key.PublicKey)
	f.Add(sig, payload, tp)
	f.Add(sig, payload, "")
	f.Add(sig, []byte(`{"user":7}`), tp)
	f.Add("..", []byte{}, tp)
	f.Fuzz(func(t *testing.T, sig string, payload []byte, live string) {
		c, err := Check(sig, payload, []string{live})
		if err != nil {
			if c.User != "" || c.Body != "" || c.Lead {
				t.Fatalf("Check() = %+v with the error %v; want the zero Content", c, err)
			}
			return
		}
		v, err := Verify(sig, payload)
		if err != nil || v.Thumbprint != live {
			t.Fatalf("Check() passed, and Verify() = %v, %v with the live key %q", v, err, live)
		}
		want, err := Decode(payload)
		if err != nil || want.User != c.User || want.Lead != c.Lead || want.Body != c.Body {
			t.Fatalf("Check() = %+v; want the content of the bytes %+v (%v)", c, want, err)
		}
	})
}
