package selector_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/selector"
)

// FuzzSelector checks that UnmarshalJSON never panics, that a selector
// other keeps its bytes and matches nothing, and that a known selector
// encodes to JSON that decodes to the same selector.
func FuzzSelector(f *testing.F) {
	for _, s := range []string{
		`{"claim":"issue-6"}`,
		`{"user":"mike","lead":true}`,
		`{"person":true}`,
		`{"user":"u","session":"s","host":"h","repo":"o/r","worktree":"w","claim":"c","lead":false,"person":false}`,
		`{}`,
		`{"team":"core"}`,
		`{"User":"brett"}`,
		`{"lead":null}`,
		`{"claim":"issue 6"}`,
		`["user"]`,
		`null`,
		`{"user":"a","user":"b"}`,
		`{`,
	} {
		f.Add([]byte(s))
	}
	brett := uri(f, brettIssue6)
	f.Fuzz(func(t *testing.T, b []byte) {
		var s selector.Selector
		if err := s.UnmarshalJSON(b); err != nil {
			if json.Valid(b) {
				t.Fatalf("UnmarshalJSON(%q) = %v; want no error for valid JSON", b, err)
			}
			return
		}
		if s.IsOther() {
			if string(s.Other) != string(b) {
				t.Fatalf("UnmarshalJSON(%q).Other = %q; want the bytes as they came", b, s.Other)
			}
			if s.Match(brett) {
				t.Fatalf("UnmarshalJSON(%q) is other and matches %q", b, brettIssue6)
			}
			out, err := s.MarshalJSON()
			if err != nil || string(out) != string(b) {
				t.Fatalf("MarshalJSON() of other = %q, %v; want %q", out, err, b)
			}
			return
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("Marshal(UnmarshalJSON(%q)) = %v", b, err)
		}
		var again selector.Selector
		if err := again.UnmarshalJSON(out); err != nil {
			t.Fatalf("UnmarshalJSON(%s) = %v", out, err)
		}
		if diff := cmp.Diff(s, again); diff != "" {
			t.Fatalf("UnmarshalJSON(Marshal(UnmarshalJSON(%q))) mismatch (-first +again):\n%s", b, diff)
		}
		if s.IsEmpty() && s.Match(brett) {
			t.Fatalf("the empty selector of %q matches %q", b, brettIssue6)
		}
	})
}
