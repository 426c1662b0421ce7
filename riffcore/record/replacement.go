package record

import (
	"bytes"
	"unicode/utf8"
)

// rawReplacement writes each escape \ufffd of the JSON text b as the
// character U+FFFD, raw, so that a line of the log is the same bytes
// under encoding/json and under its next version (GOEXPERIMENT=jsonv2):
// encoding/json writes a byte that is not UTF-8 as the escape \ufffd,
// the next version as the raw character, and both write a U+FFFD of
// valid UTF-8 raw. One form for one string: a line that decodes and
// encodes again gives its own bytes (docs/store.md, "Text that is not
// UTF-8"). b is valid JSON; a text with no such escape is b itself.
func rawReplacement(b []byte) []byte {
	if !hasReplacementEscape(b) {
		return b
	}
	out := make([]byte, 0, len(b))
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\' && i+1 < len(b):
			if b[i+1] == 'u' && i+5 < len(b) && isReplacementHex(b[i+2:i+6]) {
				out = append(out, string(utf8.RuneError)...)
				i += 5
				continue
			}
			// Any other escape is copied whole: its second byte is never
			// the end of the string.
			out = append(out, c, b[i+1])
			i++
			continue
		}
		out = append(out, c)
	}
	return out
}

// hasReplacementEscape says whether b may hold the escape \ufffd (in
// any case): \u with fffd, which can also be an escaped backslash
// before the text ufffd.
func hasReplacementEscape(b []byte) bool {
	for i := bytes.Index(b, []byte(`\u`)); i >= 0 && i+6 <= len(b); {
		if isReplacementHex(b[i+2 : i+6]) {
			return true
		}
		next := bytes.Index(b[i+2:], []byte(`\u`))
		if next < 0 {
			return false
		}
		i += 2 + next
	}
	return false
}

// isReplacementHex says whether h is the four hex digits fffd, in any
// case.
func isReplacementHex(h []byte) bool {
	return len(h) == 4 && h[0]|0x20 == 'f' && h[1]|0x20 == 'f' && h[2]|0x20 == 'f' && h[3]|0x20 == 'd'
}
