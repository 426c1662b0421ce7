package name

import (
	"strings"
	"testing"
	"unicode"
)

// TestWordMasksAreTheWordBytes: the masks of plainWord let through each
// byte that the rule of checkWord lets through (ASCII letters, digits and
// wordPunct), and no other of the 256.
func TestWordMasksAreTheWordBytes(t *testing.T) {
	for c := range 256 {
		r := rune(c)
		want := r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) || strings.ContainsRune(wordPunct, r)
		if got := plainWord(string([]byte{byte(c)})); got != want {
			t.Errorf("plainWord(%q) = %v; want %v", byte(c), got, want)
		}
	}
	if !plainWord("") || !plainWord("como-technologies_riff.v2") || plainWord("como/riff") {
		t.Error("plainWord of whole words is wrong")
	}
}

// TestWordBytes8IsTheRuleOfEachByte: the test of 8 bytes at once lets
// through 8 bytes only when the rule of checkWord lets through each, for
// each byte at each place beside any other byte.
func TestWordBytes8IsTheRuleOfEachByte(t *testing.T) {
	isWord := func(c byte) bool {
		r := rune(c)
		return r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) || strings.ContainsRune(wordPunct, r)
	}
	for c := range 256 {
		for other := range 256 {
			for place := range 8 {
				var b [8]byte
				for i := range b {
					b[i] = byte(other)
				}
				b[place] = byte(c)
				want := isWord(byte(c)) && isWord(byte(other))
				if got := plainWord(string(b[:])); got != want {
					t.Fatalf("plainWord(%q) = %v; want %v", b, got, want)
				}
			}
		}
	}
}
