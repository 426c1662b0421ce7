package record

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// objectFields gives the keys and the raw values of the top level of a
// JSON object, in order, with no allocation for the values. It is the
// fast path of the decoder: the record was already checked as JSON by
// encoding/json, and ok is false for each form that is not an object
// (then the slow path decides).
func objectFields(b []byte) (keys []string, values [][]byte, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, nil, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil, nil, skipSpace(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, nil, false
		}
		end, escaped := stringEnd(b, i)
		if end < 0 {
			return nil, nil, false
		}
		key := string(b[i+1 : end-1])
		if escaped || !utf8.ValidString(key) {
			if json.Unmarshal(b[i:end], &key) != nil {
				return nil, nil, false
			}
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, nil, false
		}
		i = skipSpace(b, i+1)
		vend := valueEnd(b, i)
		if vend < 0 {
			return nil, nil, false
		}
		keys = append(keys, key)
		values = append(values, b[i:vend])
		i = skipSpace(b, vend)
		if i >= len(b) {
			return nil, nil, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return keys, values, skipSpace(b, i+1) == len(b)
		default:
			return nil, nil, false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd gives the index after the closing quote of the string that
// starts at b[i], and whether it holds an escape; -1 when it does not end.
func stringEnd(b []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return -1, escaped
}

// valueEnd gives the index after the JSON value that starts at b[i], or
// -1. It trusts the value to be JSON: it only finds its end.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		end, _ := stringEnd(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _ := stringEnd(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && !strings.ContainsRune(" \t\r\n,}]", rune(b[j])) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}
