package selector_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/selector"
)

func uri(t testing.TB, s string) name.SessionURI {
	t.Helper()
	u, err := name.ParseURI(s)
	if err != nil {
		t.Fatalf("ParseURI(%q) = %v", s, err)
	}
	return u
}

func ptr(b bool) *bool { return &b }

// The sessions of an example of messages: brett works on issue-6, mike
// has a session on the api and one on the docs, and mike is a person.
const (
	brettIssue6 = "riff://brett@heron/como-technologies/riff?session=77e0&claim=issue-6#issue-6"
	mikeLead    = "riff://mike@pangolin/como-technologies/riff?session=a6cf&lead=true#api"
	mikeDocs    = "riff://mike@thelio/como-technologies/docs?session=5b1e"
	mikePerson  = "riff://mike@pangolin"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		name string
		sel  selector.Selector
		uri  string
		want bool
	}{
		{"user", selector.Selector{User: "brett"}, brettIssue6, true},
		{"user other", selector.Selector{User: "mike"}, brettIssue6, false},
		{"session", selector.Selector{Session: "77e0"}, brettIssue6, true},
		{"session is exact, not a start", selector.Selector{Session: "77e"}, brettIssue6, false},
		{"host", selector.Selector{Host: "heron"}, brettIssue6, true},
		{"host other", selector.Selector{Host: "pangolin"}, brettIssue6, false},
		{"repo", selector.Selector{Repo: "como-technologies/riff"}, brettIssue6, true},
		{"repo other", selector.Selector{Repo: "como-technologies/riff"}, mikeDocs, false},
		{"worktree", selector.Selector{Worktree: "issue-6"}, brettIssue6, true},
		{"worktree other", selector.Selector{Worktree: "api"}, brettIssue6, false},
		{"worktree of a session with none", selector.Selector{Worktree: "api"}, mikeDocs, false},
		{"claim", selector.Selector{Claim: "issue-6"}, brettIssue6, true},
		{"claim is exact", selector.Selector{Claim: "verify-issue-6"}, brettIssue6, false},
		{"claim of a session with none", selector.Selector{Claim: "issue-6"}, mikeLead, false},
		{"lead true on a lead", selector.Selector{Lead: ptr(true)}, mikeLead, true},
		{"lead true on no lead", selector.Selector{Lead: ptr(true)}, brettIssue6, false},
		{"lead false on no lead", selector.Selector{Lead: ptr(false)}, brettIssue6, true},
		{"lead false on a lead", selector.Selector{Lead: ptr(false)}, mikeLead, false},
		{"person true on a person", selector.Selector{Person: ptr(true)}, mikePerson, true},
		{"person true on a session", selector.Selector{Person: ptr(true)}, mikeLead, false},
		{"person false on a session", selector.Selector{Person: ptr(false)}, mikeLead, true},
		{"person false on a person", selector.Selector{Person: ptr(false)}, mikePerson, false},
		{"user and lead", selector.Selector{User: "mike", Lead: ptr(true)}, mikeLead, true},
		{"user and lead, no lead", selector.Selector{User: "mike", Lead: ptr(true)}, mikeDocs, false},
		{"user and person", selector.Selector{User: "mike", Person: ptr(true)}, mikePerson, true},
		{"user and person, a session", selector.Selector{User: "mike", Person: ptr(true)}, mikeDocs, false},
		{"repo and claim", selector.Selector{Repo: "como-technologies/riff", Claim: "issue-6"}, brettIssue6, true},
		{"repo and claim, one field fails", selector.Selector{Repo: "como-technologies/docs", Claim: "issue-6"}, brettIssue6, false},
		{"each field", selector.Selector{User: "brett", Session: "77e0", Host: "heron", Repo: "como-technologies/riff",
			Worktree: "issue-6", Claim: "issue-6", Lead: ptr(false), Person: ptr(false)}, brettIssue6, true},
		{"each field, the last fails", selector.Selector{User: "brett", Session: "77e0", Host: "heron", Repo: "como-technologies/riff",
			Worktree: "issue-6", Claim: "issue-6", Lead: ptr(false), Person: ptr(true)}, brettIssue6, false},
		{"an empty selector matches nothing", selector.Selector{}, brettIssue6, false},
		{"an empty selector matches no person", selector.Selector{}, mikePerson, false},
		{"other matches nothing", selector.Selector{Other: json.RawMessage(`{"user":"brett","team":"x"}`)}, brettIssue6, false},
		{"other with known fields set matches nothing", selector.Selector{User: "brett", Other: json.RawMessage(`{}`)}, brettIssue6, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := uri(t, tt.uri)
			if got := tt.sel.Match(u); got != tt.want {
				t.Errorf("Selector(%v).Match(%q) = %v; want %v", tt.sel, tt.uri, got, tt.want)
			}
		})
	}
}

// Without drops the lead field: the fallback of a lead selector.
func TestWithoutDropsLead(t *testing.T) {
	s := selector.Selector{User: "mike", Lead: ptr(true)}
	u := uri(t, mikeDocs)
	if s.Match(u) {
		t.Fatalf("Selector(%v).Match(%q) = true; want false", s, mikeDocs)
	}
	if got := s.Without(); !got.Match(u) || got.Lead != nil || got.User != "mike" {
		t.Errorf("Selector(%v).Without() = %v (matches %q: %v); want user=mike that matches", s, got, mikeDocs, got.Match(u))
	}
	if s.Lead == nil {
		t.Errorf("Without changed its receiver")
	}
}

// A known selector decodes to its fields and encodes back to the same
// JSON, with its fields in a fixed order.
func TestUnmarshalKnown(t *testing.T) {
	tests := []struct {
		in   string
		want selector.Selector
		out  string // the encoding, when not the same as in
	}{
		{in: `{"claim":"issue-6"}`, want: selector.Selector{Claim: "issue-6"}},
		{in: `{"user":"mike","lead":true}`, want: selector.Selector{User: "mike", Lead: ptr(true)}},
		{in: `{"lead":true,"user":"mike"}`, want: selector.Selector{User: "mike", Lead: ptr(true)}, out: `{"user":"mike","lead":true}`},
		{in: `{"person":false}`, want: selector.Selector{Person: ptr(false)}},
		{in: `{"repo":"local/x","worktree":"wt"}`, want: selector.Selector{Repo: "local/x", Worktree: "wt"}},
		{in: `{"user":"u","session":"s","host":"h","repo":"o/r","worktree":"w","claim":"c","lead":false,"person":false}`,
			want: selector.Selector{User: "u", Session: "s", Host: "h", Repo: "o/r", Worktree: "w", Claim: "c", Lead: ptr(false), Person: ptr(false)}},
		{in: `{}`, want: selector.Selector{}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var got selector.Selector
			if err := json.Unmarshal([]byte(tt.in), &got); err != nil {
				t.Fatalf("Unmarshal(%s) = %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Unmarshal(%s) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if got.IsOther() {
				t.Errorf("Unmarshal(%s).IsOther() = true; want false", tt.in)
			}
			out, err := json.Marshal(got)
			want := tt.out
			if want == "" {
				want = tt.in
			}
			if err != nil || string(out) != want {
				t.Errorf("Marshal(Unmarshal(%s)) = %s, %v; want %s", tt.in, out, err, want)
			}
		})
	}
}

// A selector of a later build reads as other: it keeps its JSON byte for
// byte, and matches no session, even one that its known fields name.
func TestUnmarshalOther(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"unknown field", `{"team":"core"}`},
		{"unknown field next to a known one", `{"user":"brett","team":"core"}`},
		{"field in capitals", `{"User":"brett"}`},
		{"string field with a bool", `{"user":true}`},
		{"string field with a number", `{"claim":6}`},
		{"bool field with a string", `{"lead":"true"}`},
		{"bool field with null", `{"lead":null}`},
		{"string field with null", `{"user":null}`},
		{"empty string", `{"user":""}`},
		{"bad claim value", `{"claim":"issue 6"}`},
		{"bad repo value", `{"repo":"riff"}`},
		{"an array", `["user","brett"]`},
		{"a string", `"claim=issue-6"`},
		{"a number", `7`},
		{"null", `null`},
		{"spaces kept", `{ "user" : "brett" , "team" : [ 1, 2 ] }`},
	}
	brett := uri(t, brettIssue6)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got selector.Selector
			if err := got.UnmarshalJSON([]byte(tt.in)); err != nil {
				t.Fatalf("UnmarshalJSON(%s) = %v; want other and no error", tt.in, err)
			}
			if !got.IsOther() {
				t.Fatalf("UnmarshalJSON(%s) = %v; want other", tt.in, got)
			}
			if string(got.Other) != tt.in {
				t.Errorf("UnmarshalJSON(%s).Other = %s; want the JSON byte for byte", tt.in, got.Other)
			}
			if diff := cmp.Diff(selector.Selector{Other: json.RawMessage(tt.in)}, got); diff != "" {
				t.Errorf("UnmarshalJSON(%s): other with known fields set (-want +got):\n%s", tt.in, diff)
			}
			if got.Match(brett) {
				t.Errorf("UnmarshalJSON(%s).Match(%q) = true; want false", tt.in, brettIssue6)
			}
			out, err := got.MarshalJSON()
			if err != nil || string(out) != tt.in {
				t.Errorf("MarshalJSON() = %s, %v; want %s", out, err, tt.in)
			}
			if got.String() != tt.in {
				t.Errorf("String() = %q; want the JSON %q", got.String(), tt.in)
			}
		})
	}
}

// The input must not alias the kept JSON: the decoder reuses its buffer.
func TestUnmarshalOtherCopiesBytes(t *testing.T) {
	in := []byte(`{"team":"core"}`)
	var s selector.Selector
	if err := s.UnmarshalJSON(in); err != nil {
		t.Fatal(err)
	}
	copy(in, `XXXXXXXXXXXXXXX`)
	if string(s.Other) != `{"team":"core"}` {
		t.Errorf("Other = %s after a change of the input; want a copy", s.Other)
	}
}

func TestUnmarshalNotJSON(t *testing.T) {
	for _, in := range []string{``, `{`, `{"user":}`, `nul`} {
		var s selector.Selector
		if err := s.UnmarshalJSON([]byte(in)); err == nil {
			t.Errorf("UnmarshalJSON(%q) = nil (%v); want an error", in, s)
		}
	}
}

// A to list with one selector of a later build keeps the others.
func TestListWithOther(t *testing.T) {
	in := `[{"claim":"issue-6"},{"team":"core"},{"lead":true}]`
	var list []selector.Selector
	if err := json.Unmarshal([]byte(in), &list); err != nil {
		t.Fatalf("Unmarshal(%s) = %v", in, err)
	}
	if !selector.AnyOther(list) {
		t.Errorf("AnyOther(%v) = false; want true", list)
	}
	if selector.AnyOther(list[:1]) {
		t.Errorf("AnyOther(%v) = true; want false", list[:1])
	}
	out, err := json.Marshal(list)
	if err != nil || string(out) != in {
		t.Errorf("Marshal(%v) = %s, %v; want %s", list, out, err, in)
	}
	if got, want := selector.Describe(list), `claim=issue-6 {"team":"core"} lead=true`; got != want {
		t.Errorf("Describe(%s) = %q; want %q", in, got, want)
	}
	if got := selector.Describe(nil); got != "all" {
		t.Errorf("Describe(nil) = %q; want all", got)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want selector.Selector
	}{
		{"claim=issue-6", selector.Selector{Claim: "issue-6"}},
		{"user=mike,lead=true", selector.Selector{User: "mike", Lead: ptr(true)}},
		{"person=true", selector.Selector{Person: ptr(true)}},
		{"lead=false", selector.Selector{Lead: ptr(false)}},
		{"host=heron, repo=como-technologies/riff", selector.Selector{Host: "heron", Repo: "como-technologies/riff"}},
		{"session=77e0,worktree=issue-6", selector.Selector{Session: "77e0", Worktree: "issue-6"}},
		{"repo=-", selector.Selector{Repo: name.NoRepo}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := selector.Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q) = %v; want %v", tt.in, err, tt.want)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			again, err := selector.Parse(got.String())
			if err != nil || !cmp.Equal(got, again) {
				t.Errorf("Parse(%q) = %v, %v; want %v (String gives the command line form)", got.String(), again, err, got)
			}
		})
	}
}

func TestParseErrorNamesTheField(t *testing.T) {
	tests := []struct {
		in   string
		says string
	}{
		{"", "empty"},
		{"  ", "empty"},
		{"team=core", `"team"`},
		{"claim", `"claim"`},
		{"claim=", `"claim="`},
		{"user=mike,team=core", `"team"`},
		{"lead=yes", "lead is true or false"},
		{"person=1", "person is true or false"},
		{"claim=issue 6", "item"},
		{"user=mi ke", "user"},
		{"host=a:b", "host"},
		{"session=a/b", "session ID"},
		{"repo=riff", "repository"},
		{"worktree=a/b", "worktree"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := selector.Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, nil; want an error naming %s", tt.in, got, tt.says)
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("Parse(%q) = %v; want an error with %q", tt.in, err, tt.says)
			}
		})
	}
}

func TestParseList(t *testing.T) {
	got, err := selector.ParseList([]string{"claim=issue-6", "user=mike,lead=true"})
	want := []selector.Selector{{Claim: "issue-6"}, {User: "mike", Lead: ptr(true)}}
	if err != nil || !cmp.Equal(want, got) {
		t.Errorf("ParseList = %v, %v; want %v", got, err, want)
	}
	if got, err := selector.ParseList([]string{"claim=issue-6", "team=x"}); err == nil {
		t.Errorf("ParseList(claim=issue-6, team=x) = %v, nil; want an error", got)
	}
}
