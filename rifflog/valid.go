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
	valid, _ := scanJSON(b)
	return valid
}

// canonicalJSON tells whether valid JSON is in the form that
// json.Marshal of it as a json.RawMessage gives, so that it would come
// back unchanged: no space, tab, CR or LF outside strings, and no <, >,
// & nor U+2028 or U+2029 anywhere (json.Marshal escapes them inside
// strings; outside strings valid JSON has none). FuzzCanonicalJSON
// holds it to json.Marshal.
func canonicalJSON(data []byte) bool {
	valid, canonical := scanJSON(data)
	return valid && canonical
}

// scanJSON gives validJSON and canonicalJSON of b in one pass: the
// check of a checkpoint of tens of megabytes, once at its write and
// once at its read, took two passes of a byte at a time, 150 ms at
// 80,000 sessions, half the time of its encode (docs/performance.md,
// "Issue 23, fourth pass"). canonical means something only when valid.
func scanJSON(b []byte) (valid, canonical bool) {
	var buf [32]byte
	open := buf[:0] // the arrays ('[') and objects ('{') open at i
	i := skipSpace(b, 0)
	canonical = i == 0
	for {
		// A value starts at i.
		if i >= len(b) {
			return false, canonical
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			open = append(open, c)
			if len(open) > maxJSONDepth {
				return false, canonical
			}
			j := i + 1
			i = skipSpace(b, j)
			canonical = canonical && i == j
			if i < len(b) && b[i] == c+2 { // '}' or ']'
				open = open[:len(open)-1]
				i++
				break
			}
			if c == '{' {
				if i = skipKey(b, i, &canonical); i < 0 {
					return false, canonical
				}
			}
			continue
		case c == '"':
			i = skipString(b, i, &canonical)
		case c == '-' || (c >= '0' && c <= '9'):
			i = skipNumber(b, i)
		case c == 't':
			i = skipLiteral(b, i, "true")
		case c == 'f':
			i = skipLiteral(b, i, "false")
		case c == 'n':
			i = skipLiteral(b, i, "null")
		default:
			return false, canonical
		}
		if i < 0 {
			return false, canonical
		}
		// A value ended before i: close what it ends, or go on after a comma.
		for {
			j := i
			i = skipSpace(b, j)
			canonical = canonical && i == j
			if len(open) == 0 {
				return i == len(b), canonical
			}
			if i >= len(b) {
				return false, canonical
			}
			top := open[len(open)-1]
			if b[i] == top+2 {
				open = open[:len(open)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return false, canonical
			}
			j = i + 1
			i = skipSpace(b, j)
			canonical = canonical && i == j
			if top == '{' {
				if i = skipKey(b, i, &canonical); i < 0 {
					return false, canonical
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
func skipKey(b []byte, i int, canonical *bool) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = skipString(b, i, canonical); i < 0 {
		return -1
	}
	j := i
	i = skipSpace(b, j)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	k := skipSpace(b, i+1)
	*canonical = *canonical && i == j && k == i+1
	return k
}

// The kinds of the bytes of a string, for skipString: a plain byte
// (most of them) is 0, so that the loop over it is one lookup.
const (
	plainByte = iota
	quoteByte
	escapeByte
	controlByte
	htmlByte // <, > or &: json.Marshal escapes it
	e2Byte   // the first byte of U+2028 and U+2029, which it escapes too
)

var stringBytes = func() (kinds [256]uint8) {
	for c := range 0x20 {
		kinds[c] = controlByte
	}
	kinds['"'], kinds['\\'] = quoteByte, escapeByte
	kinds['<'], kinds['>'], kinds['&'] = htmlByte, htmlByte, htmlByte
	kinds[0xE2] = e2Byte
	return kinds
}()

// skipString reads the string that starts at i (a quote); -1 when it
// does not read. It sets *canonical to false when the string holds a
// byte that json.Marshal writes otherwise.
func skipString(b []byte, i int, canonical *bool) int {
	for i++; i < len(b); i++ {
		c := b[i]
		kind := stringBytes[c]
		if kind == plainByte {
			continue
		}
		switch kind {
		case quoteByte:
			return i + 1
		case controlByte:
			return -1
		case htmlByte:
			*canonical = false
		case e2Byte:
			if i+2 < len(b) && b[i+1] == 0x80 && b[i+2]&^1 == 0xA8 {
				*canonical = false
			}
		case escapeByte:
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
