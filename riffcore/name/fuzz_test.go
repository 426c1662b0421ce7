package name_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/name"
)

// FuzzParseURI checks that ParseURI never panics, that a URI that
// parses formats to a string that parses to the same value, and that
// MarshalJSON and AppendText write that string as json.Marshal and
// String do.
func FuzzParseURI(f *testing.F) {
	for _, s := range []string{
		guideURI,
		"riff://ann@host/o/repo?session=s1",
		"riff://mike@pangolin/como-technologies/riff?session=a6cf",
		"riff://mike@pangolin",
		"riff://mike@pangolin/como-technologies/riff",
		"riff://mike@pangolin/local/scratch?session=a6cf",
		"riff://mike@pangolin/-?session=a6cf",
		"riff://mike@pangolin/o/r?session=a6cf&claim=issue-6&claim=verify-issue-6&lead=true#wt",
		"riff://mike@pangolin/o/r?session=a6cf&zone=eu&flag#wt",
		"riff://mike@pangolin/o/r?session=a6cf&zone=\u00e9<x>\"y\\#w",
		"riff://mike@pangolin/o/r?session=a6cf&lead=false",
		"riff://mike@pangolin/o/r?session=a6cf&session=b",
		"riff://mike@pangolin?claim=x",
		"http://x",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := name.ParseURI(s)
		if err != nil {
			if !u.IsZero() {
				t.Fatalf("ParseURI(%q) = %#v, %v; want the zero URI with an error", s, u, err)
			}
			return
		}
		formatted := u.String()
		again, err := name.ParseURI(formatted)
		if err != nil {
			t.Fatalf("ParseURI(%q) = %v; want no error (it is the String of ParseURI(%q))", formatted, err, s)
		}
		if diff := cmp.Diff(u, again); diff != "" {
			t.Fatalf("ParseURI(ParseURI(%q).String()) mismatch (-first +again):\n%s", s, diff)
		}
		if again.String() != formatted {
			t.Fatalf("String() is not stable: %q then %q", formatted, again.String())
		}
		b, err := u.MarshalJSON()
		if err != nil {
			t.Fatalf("MarshalJSON(%q) = %v", s, err)
		}
		want, _ := json.Marshal(formatted)
		if !bytes.Equal(b, want) {
			t.Fatalf("MarshalJSON(%q) = %s; want %s, as json.Marshal writes the String", s, b, want)
		}
		if got := u.AppendJSON([]byte("x")); !bytes.Equal(got, append([]byte("x"), want...)) {
			t.Fatalf("AppendJSON(x) of %q = %s; want x%s", s, got, want)
		}
		// The marks apart (the JSON of the claims, as a reply writes the
		// URI of a session): the same bytes, and taken whenever JSON
		// escapes no part but the & of the separators.
		var claims []byte
		plainClaims := true
		for _, item := range u.Claims {
			var ok bool
			if claims, ok = name.AppendClaimJSON(claims, item); !ok {
				plainClaims = false
			}
		}
		other := u.With([]name.Item{"other"}, !u.Lead)
		got, ok := other.AppendJSONWith([]byte("x"), claims, u.Lead)
		switch {
		case ok && !bytes.Equal(got, append([]byte("x"), want...)):
			t.Fatalf("AppendJSONWith of %q = %s; want x%s", s, got, want)
		case !ok && string(got) != "x":
			t.Fatalf("AppendJSONWith of %q = %s, false; want x as it came", s, got)
		case !ok && plainClaims && plainButSeparators(formatted):
			t.Fatalf("AppendJSONWith of %q = false; want the marks apart taken (JSON escapes only the separators)", s)
		}
		if text, _ := u.AppendText([]byte("x")); string(text) != "x"+formatted {
			t.Fatalf("AppendText(x) = %q; want x and the String %q", text, formatted)
		}
		var decoded name.SessionURI
		if err := decoded.UnmarshalJSON(b); err != nil {
			t.Fatalf("UnmarshalJSON(%s) = %v; want no error", b, err)
		}
		if !decoded.Equal(u) {
			t.Fatalf("UnmarshalJSON(MarshalJSON(%q)) = %q; want %q", s, decoded, u)
		}
	})
}

// plainButSeparators says whether json.Marshal writes s as it is but
// for its & (as \u0026).
func plainButSeparators(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' {
			return false
		}
	}
	return true
}

// FuzzParseThread checks that ParseThread and ParseThreadFor never
// panic, that each name they give parses again to itself, and that a
// direct thread of the caller names the caller as a side.
func FuzzParseThread(f *testing.F) {
	for _, seed := range []struct{ thread, me string }{
		{"como-technologies/riff", "mike/a6cf2205"},
		{"local/scratch", "mike"},
		{"chat", "mike"},
		{"denials", "mike/a6cf2205"},
		{"dm:25456ff6+a6cf2205", "mike/a6cf2205"},
		{"dm:a6cf2205+~mike", "mike"},
		{"dm:25456ff6", "mike/a6cf2205"},
		{"dm:~ann", "mike/a6cf2205"},
		{"dm:a6cf2205", "brett"},
		{"dm:~brett", "brett"},
		{"dm:a6cf2205+25456ff6", "ann"},
		{"-", "ann"},
	} {
		f.Add(seed.thread, seed.me)
	}
	f.Fuzz(func(t *testing.T, s, meText string) {
		if th, err := name.ParseThread(s); err == nil {
			if string(th) != s {
				t.Fatalf("ParseThread(%q) = %q; want the name unchanged", s, th)
			}
		}
		me, err := name.ParseWho(meText)
		if err != nil {
			return
		}
		th, err := name.ParseThreadFor(s, me)
		if err != nil {
			return
		}
		if again, err := name.ParseThread(string(th)); err != nil || again != th {
			t.Fatalf("ParseThread(ParseThreadFor(%q, %v)) = %q, %v; want %q", s, me, again, err, th)
		}
		if !th.IsDirect() || !th.Has(me) {
			return
		}
		forMe := th.For(me)
		if back, err := name.ParseThreadFor(forMe, me); err != nil || back != th {
			t.Fatalf("ParseThreadFor(%q, %v) = %q, %v; want %q (from For)", forMe, me, back, err, th)
		}
	})
}
