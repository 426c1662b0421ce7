package signin

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParseTokens: tokens.json of any bytes reads as sign-ins or as an
// error with no sign-in, never a panic; what reads, writes and reads
// back the same.
func FuzzParseTokens(f *testing.F) {
	f.Add([]byte(`{"servers":{"http://127.0.0.1:7878":{"riff":"r1","user":"mike","key":"k","access_token":"a","refresh_token":"c.1.s","access_expires_ms":1,"ended":true}}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"servers":null}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := parseTokens(data)
		if got.Servers == nil {
			t.Fatal("no map of servers")
		}
		if err != nil {
			if len(got.Servers) != 0 {
				t.Fatalf("an error with %d sign-ins", len(got.Servers))
			}
			return
		}
		again, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		back, err := parseTokens(again)
		if err != nil {
			t.Fatalf("what reads does not read back: %v", err)
		}
		if diff := cmp.Diff(got, back); diff != "" {
			t.Fatalf("read back (-want +got):\n%s", diff)
		}
	})
}

// FuzzParseKey: a key file of any bytes reads as a P-256 key or as an
// error, never a panic.
func FuzzParseKey(f *testing.F) {
	f.Add([]byte("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		key, err := parseKey(data)
		if err == nil && (key == nil || key.Curve.Params().Name != "P-256") {
			t.Fatalf("parseKey gave %v with no error", key)
		}
	})
}
