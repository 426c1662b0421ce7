package riffstate

import "strings"

// The keys of the large maps of a checkpoint (sessions, claims, the
// members of a thread, the presence of each caller) share long prefixes:
// the user, the repository, the start of a session's name. A comparison
// sort compares those prefixes again at each of its n log n steps, and
// was about a third of the encode of a large checkpoint
// (docs/performance.md, "Issue 23, fourth pass"). sortEntries reads each
// byte of a key about once: a most-significant-byte radix sort, which
// gives the order of strings.Compare (the order of encoding/json's keys).

// insertionLimit is the size under which a part is sorted by insertion,
// by the bytes of its keys after the common depth.
const insertionLimit = 24

// sortEntries sorts entries by the bytes of their keys, as
// slices.SortFunc with strings.Compare does. The keys of a map are
// distinct, so no order of equal keys matters.
func sortEntries[K ~string, V any](entries []entry[K, V]) {
	if len(entries) < 2 {
		return
	}
	radixSort(entries, make([]entry[K, V], len(entries)), 0)
}

// radixSort sorts a, whose keys agree on their first depth bytes, with
// tmp (as long as a) as the room of each scatter.
func radixSort[K ~string, V any](a, tmp []entry[K, V], depth int) {
	for len(a) > insertionLimit {
		// count[0] counts the keys that end at depth; count[1+c], those
		// whose byte at depth is c.
		var count [257]int
		for i := range a {
			count[bucket(string(a[i].key), depth)]++
		}
		if count[bucket(string(a[0].key), depth)] == len(a) {
			// One byte for all (or all end here, which distinct keys
			// cannot do but once): the next byte decides.
			if count[0] == len(a) {
				return
			}
			depth++
			continue
		}
		var start [257]int
		for c, sum := 0, 0; c < len(count); c++ {
			start[c], sum = sum, sum+count[c]
		}
		next := start
		for i := range a {
			c := bucket(string(a[i].key), depth)
			tmp[next[c]] = a[i]
			next[c]++
		}
		copy(a, tmp[:len(a)])
		// The keys that end at depth come first and are sorted (one at
		// most). Each other part agrees on one byte more.
		for c := 1; c < len(count); c++ {
			if n := count[c]; n > 1 {
				lo := start[c]
				radixSort(a[lo:lo+n], tmp[lo:lo+n], depth+1)
			}
		}
		return
	}
	insertionSort(a, depth)
}

// bucket gives the bucket of key at depth: 0 when the key ends before
// it, 1 + its byte there otherwise.
func bucket(key string, depth int) int {
	if depth >= len(key) {
		return 0
	}
	return 1 + int(key[depth])
}

// insertionSort sorts a, whose keys agree on their first depth bytes, by
// the rest of their bytes.
func insertionSort[K ~string, V any](a []entry[K, V], depth int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && strings.Compare(string(a[j].key)[depth:], string(a[j-1].key)[depth:]) < 0; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
