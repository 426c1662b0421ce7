package rifflog

// maxJSONDepth is the deepest nesting of arrays and objects that
// encoding/json reads (its scanner's maxNestingDepth).
const maxJSONDepth = 10000

// validJSON says what json.Valid says of b, in one pass with no
// scanner: the check of each record of a chunk that Write makes costs
// about a microsecond a record through json.Valid. The grammar is the
// scanner's: the four white space bytes, strings whose bytes are any
// but a control byte (no check of UTF-8), its escapes, its numbers and
// literals, and at most maxJSONDepth levels. FuzzValidJSONIsJSONValid
// holds it to json.Valid.
func validJSON(b []byte) bool {
	var buf [32]byte
	open := buf[:0] // the arrays ('[') and objects ('{') open at i
	i := skipSpace(b, 0)
	for {
		// A value starts at i.
		if i >= len(b) {
			return false
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			open = append(open, c)
			if len(open) > maxJSONDepth {
				return false
			}
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == c+2 { // '}' or ']'
				open = open[:len(open)-1]
				i++
				break
			}
			if c == '{' {
				if i = skipKey(b, i); i < 0 {
					return false
				}
			}
			continue
		case c == '"':
			i = skipString(b, i)
		case c == '-' || (c >= '0' && c <= '9'):
			i = skipNumber(b, i)
		case c == 't':
			i = skipLiteral(b, i, "true")
		case c == 'f':
			i = skipLiteral(b, i, "false")
		case c == 'n':
			i = skipLiteral(b, i, "null")
		default:
			return false
		}
		if i < 0 {
			return false
		}
		// A value ended before i: close what it ends, or go on after a comma.
		for {
			i = skipSpace(b, i)
			if len(open) == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			top := open[len(open)-1]
			if b[i] == top+2 {
				open = open[:len(open)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return false
			}
			i = skipSpace(b, i+1)
			if top == '{' {
				if i = skipKey(b, i); i < 0 {
					return false
				}
			}
			break
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipKey reads a key, white space and the colon at i, and the white
// space after it; -1 when they do not read.
func skipKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = skipString(b, i); i < 0 {
		return -1
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return skipSpace(b, i+1)
}

// skipString reads the string that starts at i (a quote); -1 when it
// does not read.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return -1
				}
				for _, h := range b[i+1 : i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return -1
					}
				}
				i += 4
			default:
				return -1
			}
		}
	}
	return -1
}

// skipNumber reads the number that starts at i; -1 when it does not read.
func skipNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

func skipLiteral(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}
