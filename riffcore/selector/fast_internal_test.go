package selector

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzUnmarshalIsTheReadOfAnyForm: over arbitrary bytes, UnmarshalJSON
// (with its read of the form that MarshalJSON writes) gives the selector
// and the error of the full read of any form.
func FuzzUnmarshalIsTheReadOfAnyForm(f *testing.F) {
	for _, s := range []string{
		`{"claim":"issue-6"}`, `{"user":"mike","lead":true}`, `{"person":true}`, `{"lead":false}`,
		`{"user":"u","session":"s","host":"h","repo":"o/r","worktree":"w","claim":"c","lead":false,"person":false}`,
		`{"session":"s","user":"u"}`, `{}`, `{"team":"core"}`, `{"User":"brett"}`, `{"lead":null}`, `{"claim":"issue 6"}`,
		`["user"]`, `null`, `{"user":"a","user":"b"}`, `{`, `{"user":""}`, `{"user":"\u0061"}`, `{"user":"<"}`,
		`{"user":"\u003c"}`, `{"repo":"not a repo"}`, ` {"user":"u"}`, `{"user":"u"} `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var got, want Selector
		gerr, werr := got.UnmarshalJSON(b), want.unmarshalAnyForm(b)
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("UnmarshalJSON(%q) = %v; the read of any form: %v", b, gerr, werr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("UnmarshalJSON(%q) differs from the read of any form (-want +got):\n%s", b, diff)
		}
	})
}
