package rifflog

import (
	"bytes"
	"encoding/json"
	"testing"
)

// validSeeds are lines on both sides of each rule of the grammar.
var validSeeds = []string{
	`{"position":4,"written_at_ms":1790000000000,"by":{"session":"ann/s1"},"command":"post","change":{"posted":{"thread":"o/repo","seq":4,"body":"hi \u00e9 \"q\" \\ \/ \b\f\n\r\t"}}}`,
	``, ` `, `{}`, `[]`, `[ ]`, `{ }`, `{"a":[1,2,{"b":null}],"c":true,"d":false}`, ` {"a" : 1 } `,
	`{"a":1,}`, `[1,]`, `[,1]`, `{,}`, `{"a"}`, `{"a":}`, `{1:2}`, `{"a":1 "b":2}`, `[1 2]`, `]`, `}`, `[}`, `{]`, `[[]]]`,
	`0`, `-0`, `01`, `-`, `-a`, `1.`, `1.5`, `.5`, `1e`, `1e+`, `1e+5`, `1E-05`, `1.5e3`, `-1.0E+2`, `1ee`, `+1`, `0x1`, `00`, `1.2.3`,
	`true`, `tru`, `truex`, `false`, `fals`, `null`, `nul`, `nulll`, `"`, `"a`, `"\`, `"\x"`, `"\u12"`, `"\u12g4"`, `"\u00E9"`, "\"\x01\"", "\"\x7f\xff\xfe\"", "\"\t\"",
	"{\"a\":1}\n", "\r\n\t[1]\t", `"a" "b"`, `1 1`, `[1]x`, `{}{}`, "\x00", `nul` + "l",
}

func FuzzValidJSONIsJSONValid(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v; json.Valid says %v", b, got, want)
		}
	})
}

// Given arrays and objects nested to the depth that encoding/json reads,
// and one deeper, when validJSON reads them, then it says what
// json.Valid says: the first is valid, the second is not.
func TestGivenTheDeepestNestingWhenValidJSONReadsItThenItAgreesWithJSONValid(t *testing.T) {
	for _, open := range []string{"[", `{"a":`} {
		for _, depth := range []int{maxJSONDepth, maxJSONDepth + 1} {
			end := "]"
			if open != "[" {
				end = "}"
			}
			b := append(bytes.Repeat([]byte(open), depth), bytes.Repeat([]byte(end), depth)...)
			if open != "[" {
				b = append(bytes.Repeat([]byte(open), depth), append([]byte("1"), bytes.Repeat([]byte(end), depth)...)...)
			}
			if got, want := validJSON(b), json.Valid(b); got != want {
				t.Errorf("depth %d of %q: validJSON = %v; json.Valid = %v", depth, open, got, want)
			}
		}
	}
}

func BenchmarkValidRecord(b *testing.B) {
	line := []byte(validSeeds[0])
	b.Run("json.Valid", func(b *testing.B) {
		for b.Loop() {
			json.Valid(line)
		}
	})
	b.Run("validJSON", func(b *testing.B) {
		for b.Loop() {
			validJSON(line)
		}
	})
}
