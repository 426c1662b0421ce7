// Package quote gives an input of a caller as a text of riff repeats it:
// a refusal, a 404, an error that a caller reads.
//
// A value that a caller sent can hold control characters, NUL, bytes
// that are not UTF-8, or 60 KB. A text that repeats it as it came breaks
// the line of a terminal, a log or a reply. Each such text goes through
// [Input], the one helper.
package quote

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Max is the most characters of an input that a text repeats.
const Max = 64

// Input gives s in double quotes, with control characters, NUL and bytes
// that are not UTF-8 escaped as Go escapes them, cut to Max characters
// with the number of bytes that it had.
func Input(s string) string {
	if utf8.RuneCountInString(s) <= Max {
		return strconv.Quote(s)
	}
	n := 0
	for i := range s {
		if n == Max {
			return strconv.Quote(s[:i]) + fmt.Sprintf("… (%d bytes)", len(s))
		}
		n++
	}
	return strconv.Quote(s)
}
