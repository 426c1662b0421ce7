// Package terminal holds the one rule of the client packages for a text
// that reaches a terminal or a line of the agent tool: no escape
// sequence and no control character of another party (the server, a
// message, a hook input) gets through, so that no text can change the
// terminal. It never writes a thing.
package terminal

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clean removes each escape sequence and each control character from s.
// A line break, a tab and each other control character become a space;
// invalid UTF-8 becomes �.
func Clean(s string) string { return clean(s, false) }

// CleanLines is Clean that keeps the line breaks (a \r is gone).
func CleanLines(s string) string { return clean(s, true) }

func clean(s string, keepNewlines bool) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "�")
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b: // ESC: skip the sequence
			i += size + escapeLen(s[i+size:])
			continue
		case r == 0x9b: // CSI in one rune
			i += size + csiLen(s[i+size:])
			continue
		case r == '\n' && keepNewlines:
			b.WriteByte('\n')
		case r == '\r' && keepNewlines:
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r), r == '\u2028', r == '\u2029', unicode.Is(unicode.Bidi_Control, r):
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// escapeLen gives the length of the rest of an escape sequence after
// ESC: CSI (ESC [ ... final), OSC, DCS, APC, PM and SOS (up to BEL or ESC
// \), or one character.
func escapeLen(s string) int {
	if s == "" {
		return 0
	}
	switch s[0] {
	case '[':
		return 1 + csiLen(s[1:])
	case ']', 'P', '_', '^', 'X':
		for i := 1; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	}
	_, size := utf8.DecodeRuneInString(s)
	return size
}

// csiLen gives the length of a CSI sequence after its start: parameter
// and intermediate bytes, then one final byte.
func csiLen(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x40 && s[i] <= 0x7e {
			return i + 1
		}
		if s[i] < 0x20 || s[i] > 0x3f && s[i] < 0x40 {
			return i
		}
	}
	return len(s)
}
