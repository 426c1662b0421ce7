package riffstate

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// byCompare is the order that sortEntries must give: that of
// slices.SortFunc with strings.Compare, the order of encoding/json.
func byCompare(keys []string) []string {
	want := slices.Clone(keys)
	slices.SortFunc(want, strings.Compare)
	return want
}

func sortedKeys(keys []string) []string {
	entries := make([]entry[string, int], len(keys))
	for i, k := range keys {
		entries[i] = entry[string, int]{k, i}
	}
	sortEntries(entries)
	got := make([]string, len(entries))
	for i, e := range entries {
		if keys[e.value] != e.key {
			panic("an entry lost its value")
		}
		got[i] = e.key
	}
	return got
}

// Given the keys of the maps of a checkpoint (long common prefixes,
// keys that are prefixes of others, bytes over 0x7f, the empty key),
// when sortEntries sorts them, then they are in the order of
// strings.Compare, each with its value.
func TestGivenMapKeysWhenTheyAreSortedByTheirBytesThenTheOrderIsThatOfStringsCompare(t *testing.T) {
	alphabets := []string{"ab", "f0123456789x/", "\x00\x01\x7f\x80\xff", "abcdefghijklmnopqrstuvwxyz/ @:?=._-"}
	rng := rand.New(rand.NewPCG(1, 23))
	for c := range 3000 {
		alphabet := alphabets[c%len(alphabets)]
		n := rng.IntN(400)
		if c%50 == 0 {
			n = 5000 + rng.IntN(5000)
		}
		prefix := strings.Repeat("riff://u@h/o/repo?session=", rng.IntN(3))
		seen := map[string]bool{}
		keys := make([]string, 0, n)
		for range n {
			b := []byte(prefix)
			for range rng.IntN(12) {
				b = append(b, alphabet[rng.IntN(len(alphabet))])
			}
			if k := string(b); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
		if got, want := sortedKeys(keys), byCompare(keys); !slices.Equal(got, want) {
			t.Fatalf("case %d (%d keys): sortEntries gives\n%q\nstrings.Compare gives\n%q", c, len(keys), got, want)
		}
	}
}

// Given the keys of 80,000 fresh sessions (the load of issue 23), when
// they are sorted, then the order is that of strings.Compare.
func TestGivenTheKeysOfFreshSessionsWhenTheyAreSortedThenTheOrderIsThatOfStringsCompare(t *testing.T) {
	keys := make([]string, 0, 80000)
	for i := range 80000 {
		c := strconv.Itoa(i % 64)
		keys = append(keys, "f"+c+"/f"+c+"x"+strconv.Itoa(i))
	}
	if got, want := sortedKeys(keys), byCompare(keys); !slices.Equal(got, want) {
		t.Fatal("the keys of fresh sessions are out of order")
	}
}

// FuzzSortEntriesIsTheOrderOfStringsCompare: any keys, split from the
// input at each newline.
func FuzzSortEntriesIsTheOrderOfStringsCompare(f *testing.F) {
	f.Add("b\na\nab\n\nabc\nf1/f1x1\nf1/f1x10\nf10/f10x1")
	f.Add(strings.Repeat("x\nxx\nxxx\n", 20) + "\xff\n\x00")
	f.Fuzz(func(t *testing.T, in string) {
		seen := map[string]bool{}
		var keys []string
		for _, k := range strings.Split(in, "\n") {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
		if got, want := sortedKeys(keys), byCompare(keys); !slices.Equal(got, want) {
			t.Fatalf("sortEntries gives %q, strings.Compare %q", got, want)
		}
	})
}

// BenchmarkSortEntriesFresh: the keys of the sessions and of the claims
// of 80,000 fresh sessions, in the order of a map's iteration, sorted as
// the checkpoint sorts them.
//
//	cd riffstate && go test -run '^$' -bench SortEntriesFresh -count 5 .
func BenchmarkSortEntriesFresh(b *testing.B) {
	cp := freshCheckpoint(80000)
	b.Run("sessions", func(b *testing.B) {
		for b.Loop() {
			sorted(cp.Riff.Sessions)
		}
	})
	b.Run("claims", func(b *testing.B) {
		for b.Loop() {
			sorted(cp.Riff.Claims)
		}
	})
}
