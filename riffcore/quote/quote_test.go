package quote_test

import (
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/quote"
)

func TestInputQuotesAndCutsWhatATextRepeats(t *testing.T) {
	long := strings.Repeat("a", 60<<10)
	for _, tc := range []struct {
		name, in, want string
	}{
		{"a plain word", "issue-1", `"issue-1"`},
		{"a newline and a NUL", "a\nb\x00c", `"a\nb\x00c"`},
		{"an escape of a terminal", "\x1b[31mred", `"\x1b[31mred"`},
		{"bytes that are not UTF-8", "\xff\xfe", `"\xff\xfe"`},
		{"60 KB", long, `"` + strings.Repeat("a", quote.Max) + `"… (61440 bytes)`},
		{"a cut between runes", strings.Repeat("é", quote.Max+1), `"` + strings.Repeat("é", quote.Max) + `"… (130 bytes)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := quote.Input(tc.in); got != tc.want {
				t.Errorf("Input(%.20q) = %.100q; want %.100q", tc.in, got, tc.want)
			}
		})
	}
}
