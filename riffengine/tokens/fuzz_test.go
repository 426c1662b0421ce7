package tokens_test

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/como-technologies/riff/riffengine/tokens"
)

// FuzzParseRefresh: any text either parses into the parts that make it
// again, or gives an error; it never panics.
func FuzzParseRefresh(f *testing.F) {
	pair, _, err := tokens.New(tokens.Options{}).Start(mike, keyA, 1)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(pair.Refresh)
	f.Add("a.1.b")
	f.Add("..")
	f.Add("AAAAAAAAAAAAAAAAAAAAAA.18446744073709551616.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	f.Fuzz(func(t *testing.T, token string) {
		chain, gen, secret, err := tokens.ParseRefresh(token)
		if err != nil {
			return
		}
		if again := chain + "." + strconv.FormatUint(gen, 10) + "." + secret; again != token {
			t.Fatalf("ParseRefresh(%q) gives parts of %q", token, again)
		}
	})
}

// FuzzLoad: any bytes either load, and then a snapshot of the store
// loads again into the same bytes, or give an error and change nothing;
// a load never panics.
func FuzzLoad(f *testing.F) {
	s := tokens.New(tokens.Options{})
	p, _, err := s.Start(mike, keyA, 1)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := s.Refresh(p.Refresh, keyA); err != nil {
		f.Fatal(err)
	}
	if _, _, err := s.Start(ann, keyB, 2); err != nil {
		f.Fatal(err)
	}
	good, _ := s.Snapshot()
	f.Add(good)
	f.Add([]byte(`{"version":1,"sign_ins":[]}`))
	f.Add([]byte(`{"version":2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fx := newFixture(t)
		before, _ := fx.s.Snapshot()
		if _, err := fx.s.Load(data, 100, knows("mike", "ann")); err != nil {
			if after, _ := fx.s.Snapshot(); !bytes.Equal(before, after) {
				t.Fatalf("a failed load changed the store")
			}
			return
		}
		snap, _ := fx.s.Snapshot()
		second := fx.store()
		if _, err := second.Load(snap, 100, knows("mike", "ann")); err != nil {
			t.Fatalf("the snapshot of a loaded store does not load: %v\n%s", err, snap)
		}
		if again, _ := second.Snapshot(); !bytes.Equal(snap, again) {
			t.Fatalf("a snapshot does not load into the same bytes:\n%s\n%s", snap, again)
		}
	})
}
