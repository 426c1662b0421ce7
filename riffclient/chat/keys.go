package chat

import (
	"unicode/utf8"
)

// keyKind is a key of the line editor.
type keyKind int

const (
	keyText keyKind = iota
	keyEnter
	keyBackspace
	keyDelete
	keyLeft
	keyRight
	keyHome
	keyEnd
	keyUp
	keyDown
	keyInterrupt // Ctrl-C
	keyEOF       // Ctrl-D
	keyKillStart // Ctrl-U
	keyKillEnd   // Ctrl-K
	keyKillWord  // Ctrl-W
	keyRedraw    // Ctrl-L
)

// key is one key that the person pressed; text is the text of keyText.
type key struct {
	kind keyKind
	text string
}

// decoder turns the bytes of a terminal in raw mode into keys. It keeps
// a sequence or a character that a read cut in two until the next read.
// It never lets an escape sequence into the line: one that it does not
// know is dropped whole.
type decoder struct {
	pending []byte
	// paste is inside a bracketed paste: a line break is a space.
	paste bool
}

func (d *decoder) feed(p []byte) []key {
	buf := append(d.pending, p...)
	d.pending = nil
	var keys []key
	text := func(s string) {
		if n := len(keys); n > 0 && keys[n-1].kind == keyText {
			keys[n-1].text += s
			return
		}
		keys = append(keys, key{kind: keyText, text: s})
	}
	for i := 0; i < len(buf); {
		b := buf[i]
		if b == 0x1b {
			n, k, ok := escape(buf[i:])
			if !ok {
				d.pending = append([]byte(nil), buf[i:]...)
				return keys
			}
			switch k.kind {
			case keyText:
				// a paste starts or ends, or a sequence to drop: no text
				switch k.text {
				case "paste":
					d.paste = true
				case "pasted":
					d.paste = false
				}
			default:
				keys = append(keys, k)
			}
			i += n
			continue
		}
		if b < 0x20 || b == 0x7f {
			if d.paste && (b == '\r' || b == '\n' || b == '\t') {
				text(" ")
				i++
				continue
			}
			if k, ok := controlKey(b); ok {
				keys = append(keys, k)
			}
			i++
			continue
		}
		if !utf8.FullRune(buf[i:]) {
			d.pending = append([]byte(nil), buf[i:]...)
			return keys
		}
		r, size := utf8.DecodeRune(buf[i:])
		if r != utf8.RuneError || size > 1 {
			if r >= 0x80 && r < 0xa0 {
				// a C1 control: no text
				i += size
				continue
			}
			text(string(r))
		}
		i += size
	}
	return keys
}

func controlKey(b byte) (key, bool) {
	kinds := map[byte]keyKind{
		'\r': keyEnter, '\n': keyEnter, 0x7f: keyBackspace, 0x08: keyBackspace,
		0x03: keyInterrupt, 0x04: keyEOF, 0x01: keyHome, 0x05: keyEnd, 0x02: keyLeft, 0x06: keyRight,
		0x15: keyKillStart, 0x0b: keyKillEnd, 0x17: keyKillWord, 0x0c: keyRedraw, 0x10: keyUp, 0x0e: keyDown,
	}
	k, ok := kinds[b]
	return key{kind: k}, ok
}

// escape reads the escape sequence at the start of b (b[0] is ESC): its
// length and its key; a key of kind keyText with text "paste" or
// "pasted" starts or ends a bracketed paste, with another text it is a
// sequence to drop. ok is false when b holds only a part of it.
func escape(b []byte) (int, key, bool) {
	drop := key{kind: keyText, text: "drop"}
	if len(b) < 2 {
		return 0, key{}, false
	}
	switch b[1] {
	case 'O':
		if len(b) < 3 {
			return 0, key{}, false
		}
		if k, ok := map[byte]keyKind{'A': keyUp, 'B': keyDown, 'C': keyRight, 'D': keyLeft, 'H': keyHome, 'F': keyEnd}[b[2]]; ok {
			return 3, key{kind: k}, true
		}
		return 3, drop, true
	case '[':
		for i := 2; i < len(b); i++ {
			c := b[i]
			if c < 0x40 || c > 0x7e {
				continue
			}
			params := string(b[2:i])
			n := i + 1
			switch c {
			case 'A':
				return n, key{kind: keyUp}, true
			case 'B':
				return n, key{kind: keyDown}, true
			case 'C':
				return n, key{kind: keyRight}, true
			case 'D':
				return n, key{kind: keyLeft}, true
			case 'H':
				return n, key{kind: keyHome}, true
			case 'F':
				return n, key{kind: keyEnd}, true
			case '~':
				switch params {
				case "1", "7":
					return n, key{kind: keyHome}, true
				case "4", "8":
					return n, key{kind: keyEnd}, true
				case "3":
					return n, key{kind: keyDelete}, true
				case "200":
					return n, key{kind: keyText, text: "paste"}, true
				case "201":
					return n, key{kind: keyText, text: "pasted"}, true
				}
			}
			return n, drop, true
		}
		return 0, key{}, false
	case ']', 'P', '_', '^', 'X':
		// A string sequence (OSC, DCS, …): up to BEL or ESC \, dropped.
		for i := 2; i < len(b); i++ {
			if b[i] == 0x07 {
				return i + 1, drop, true
			}
			if b[i] == 0x1b && i+1 < len(b) && b[i+1] == '\\' {
				return i + 2, drop, true
			}
		}
		return 0, key{}, false
	}
	// ESC and one more key (Alt-x): dropped.
	_, size := utf8.DecodeRune(b[1:])
	if !utf8.FullRune(b[1:]) {
		return 0, key{}, false
	}
	return 1 + size, drop, true
}
