package name_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/name"
)

// The session URI of the example of docs/README.md, "Words".
const guideURI = "riff://mike@pangolin/como-technologies/riff?session=a6cf&claim=issue-6#issue-6"

func TestParseURIFormsRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want name.SessionURI
	}{
		{
			name: "the session of the example",
			in:   guideURI,
			want: name.SessionURI{User: "mike", Host: "pangolin", Repo: "como-technologies/riff", Session: "a6cf",
				Claims: []name.Item{"issue-6"}, Worktree: "issue-6"},
		},
		{
			name: "session with no marks",
			in:   "riff://ann@host/o/repo?session=s1",
			want: name.SessionURI{User: "ann", Host: "host", Repo: "o/repo", Session: "s1"},
		},
		{
			name: "session with a UUID",
			in:   "riff://mike@pangolin/como-technologies/riff?session=a6cf2205-0b1c-4d2e-9f00-123456789abc",
			want: name.SessionURI{User: "mike", Host: "pangolin", Repo: "como-technologies/riff",
				Session: "a6cf2205-0b1c-4d2e-9f00-123456789abc"},
		},
		{
			name: "person",
			in:   "riff://mike@pangolin",
			want: name.SessionURI{User: "mike", Host: "pangolin"},
		},
		{
			name: "person with a repository",
			in:   "riff://mike@pangolin/como-technologies/riff",
			want: name.SessionURI{User: "mike", Host: "pangolin", Repo: "como-technologies/riff"},
		},
		{
			name: "person with a worktree",
			in:   "riff://mike@pangolin/como-technologies/riff#docs",
			want: name.SessionURI{User: "mike", Host: "pangolin", Repo: "como-technologies/riff", Worktree: "docs"},
		},
		{
			name: "repository with no origin",
			in:   "riff://mike@pangolin/local/scratch?session=a6cf",
			want: name.SessionURI{User: "mike", Host: "pangolin", Repo: "local/scratch", Session: "a6cf"},
		},
		{
			name: "outside git",
			in:   "riff://mike@pangolin/-?session=a6cf",
			want: name.SessionURI{User: "mike", Host: "pangolin", Repo: name.NoRepo, Session: "a6cf"},
		},
		{
			name: "several claims in order",
			in:   "riff://mike@pangolin/o/r?session=a6cf&claim=issue-6&claim=verify-issue-6&claim=task-iroh-listener",
			want: name.SessionURI{User: "mike", Host: "pangolin", Repo: "o/r", Session: "a6cf",
				Claims: []name.Item{"issue-6", "verify-issue-6", "task-iroh-listener"}},
		},
		{
			name: "lead",
			in:   "riff://mike@pangolin/o/r?session=a6cf&claim=issue-6&lead=true#issue-6",
			want: name.SessionURI{User: "mike", Host: "pangolin", Repo: "o/r", Session: "a6cf",
				Claims: []name.Item{"issue-6"}, Lead: true, Worktree: "issue-6"},
		},
		{
			name: "worktree",
			in:   "riff://brett@heron/o/r?session=77e0#feature.x_1",
			want: name.SessionURI{User: "brett", Host: "heron", Repo: "o/r", Session: "77e0", Worktree: "feature.x_1"},
		},
		{
			name: "unknown query parts kept in order after the known ones",
			in:   "riff://mike@pangolin/o/r?session=a6cf&claim=issue-6&lead=true&zone=eu&flag&color=red#wt",
			want: name.SessionURI{User: "mike", Host: "pangolin", Repo: "o/r", Session: "a6cf",
				Claims: []name.Item{"issue-6"}, Lead: true, Worktree: "wt", Unknown: []string{"zone=eu", "flag", "color=red"}},
		},
		{
			name: "unknown query part on a person",
			in:   "riff://mike@pangolin?zone=eu",
			want: name.SessionURI{User: "mike", Host: "pangolin", Unknown: []string{"zone=eu"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := name.ParseURI(tt.in)
			if err != nil {
				t.Fatalf("ParseURI(%q) = %v; want no error", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseURI(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if s := got.String(); s != tt.in {
				t.Errorf("ParseURI(%q).String() = %q; want %q", tt.in, s, tt.in)
			}
			if s := tt.want.String(); s != tt.in {
				t.Errorf("%#v.String() = %q; want %q", tt.want, s, tt.in)
			}
			if got.IsPerson() != (tt.want.Session == "") {
				t.Errorf("ParseURI(%q).IsPerson() = %v; want %v", tt.in, got.IsPerson(), tt.want.Session == "")
			}
		})
	}
}

// A URI with a query part that this build does not know is the same
// session, and the part gives no mark.
func TestParseURIUnknownPartGivesNoMark(t *testing.T) {
	u, err := name.ParseURI("riff://mike@pangolin/o/r?session=a6cf&claims=issue-6&leader=true")
	if err != nil {
		t.Fatalf("ParseURI = %v; want no error", err)
	}
	if len(u.Claims) != 0 || u.Lead {
		t.Errorf("ParseURI(...).Claims, Lead = %v, %v; want no claim and no lead", u.Claims, u.Lead)
	}
	if diff := cmp.Diff([]string{"claims=issue-6", "leader=true"}, u.Unknown); diff != "" {
		t.Errorf("Unknown mismatch (-want +got):\n%s", diff)
	}
	if got, want := u.Bare().String(), "riff://mike@pangolin/o/r?session=a6cf"; got != want {
		t.Errorf("Bare().String() = %q; want %q", got, want)
	}
}

// lead=false is the same URI as no lead part.
func TestParseURILeadFalseIsNoLead(t *testing.T) {
	u, err := name.ParseURI("riff://mike@pangolin/o/r?session=a6cf&lead=false")
	if err != nil {
		t.Fatalf("ParseURI = %v; want no error", err)
	}
	if u.Lead {
		t.Errorf("ParseURI(lead=false).Lead = true; want false")
	}
	if got, want := u.String(), "riff://mike@pangolin/o/r?session=a6cf"; got != want {
		t.Errorf("String() = %q; want %q", got, want)
	}
}

func TestParseURIErrorNamesThePart(t *testing.T) {
	tests := []struct {
		name string
		in   string
		part string // the Part of *name.Error
		says string // a piece of the message
	}{
		{"empty", "", "URI", "riff://"},
		{"scheme", "http://mike@pangolin", "URI", "does not start with riff://"},
		{"scheme in capitals", "RIFF://mike@pangolin", "URI", "does not start with riff://"},
		{"no user and host", "riff://pangolin", "URI", "USER@HOST"},
		{"empty user", "riff://@pangolin", "user", "empty"},
		{"user with a space", "riff://mi ke@pangolin", "user", "' '"},
		{"empty host", "riff://mike@", "host", "empty"},
		{"host with a colon", "riff://mike@pangolin:8080", "host", "':'"},
		{"user too long", "riff://" + strings.Repeat("u", name.MaxNameLen+1) + "@pangolin", "user", "more than 128"},
		{"repository with no owner", "riff://mike@pangolin/riff?session=a6cf", "repository", "OWNER/REPO"},
		{"repository with an empty name", "riff://mike@pangolin/o/?session=a6cf", "repository name", "empty"},
		{"repository with three parts", "riff://mike@pangolin/o/r/x?session=a6cf", "repository name", "'/'"},
		{"repository owner", "riff://mike@pangolin/o!/r?session=a6cf", "repository owner", "'!'"},
		{"session ID", "riff://mike@pangolin/o/r?session=a%6", "session ID", "'%'"},
		{"empty session ID", "riff://mike@pangolin/o/r?session=", "session ID", "empty"},
		{"two sessions", "riff://mike@pangolin/o/r?session=a6cf&session=b7d0", "query part session", "two sessions"},
		{"query part claim", "riff://mike@pangolin/o/r?session=a6cf&claim=issue 6", "query part claim", "' '"},
		{"empty claim", "riff://mike@pangolin/o/r?session=a6cf&claim=", "query part claim", "empty"},
		{"lead value", "riff://mike@pangolin/o/r?session=a6cf&lead=yes", "query part lead", "true or false"},
		{"lead with no value", "riff://mike@pangolin/o/r?session=a6cf&lead", "query part lead", "true or false"},
		{"query part with no name", "riff://mike@pangolin/o/r?session=a6cf&=x", "query part", "no name"},
		{"empty query part", "riff://mike@pangolin/o/r?session=a6cf&", "query part", "no name"},
		{"unknown query part with a space", "riff://mike@pangolin/o/r?session=a6cf&zone=e u", "query part zone", "space"},
		{"unknown query part not UTF-8", "riff://mike@pangolin/o/r?session=a6cf&zone=\xcd", "query part zone", "UTF-8"},
		{"a claim on a person", "riff://mike@pangolin/o/r?claim=issue-6", "URI", "only a session"},
		{"a lead on a person", "riff://mike@pangolin?lead=true", "URI", "only a session"},
		{"a session with no repository", "riff://mike@pangolin?session=a6cf", "URI", "names its repository"},
		{"empty worktree", "riff://mike@pangolin/o/r?session=a6cf#", "worktree", "empty"},
		{"worktree with a slash", "riff://mike@pangolin/o/r?session=a6cf#a/b", "worktree", "'/'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := name.ParseURI(tt.in)
			if err == nil {
				t.Fatalf("ParseURI(%q) = %v, nil; want an error naming %s", tt.in, got, tt.part)
			}
			var ne *name.Error
			if !errors.As(err, &ne) {
				t.Fatalf("ParseURI(%q) = %v; want a *name.Error", tt.in, err)
			}
			if ne.Part != tt.part {
				t.Errorf("ParseURI(%q) = %v; want the part %q, got %q", tt.in, err, tt.part, ne.Part)
			}
			if !strings.Contains(err.Error(), tt.part) || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("ParseURI(%q) = %v; want a message with %q and %q", tt.in, err, tt.part, tt.says)
			}
			if !errors.Is(err, name.ErrBadName) {
				t.Errorf("errors.Is(ParseURI(%q), ErrBadName) = false; want true", tt.in)
			}
			if !got.IsZero() {
				t.Errorf("ParseURI(%q) = %v with an error; want the zero URI", tt.in, got)
			}
		})
	}
}

func TestShortAndNamedForms(t *testing.T) {
	tests := []struct {
		in    string
		short string
		named string
		who   string
	}{
		{guideURI, "mike@pangolin:riff#issue-6", "mike@pangolin:riff#issue-6 (a6cf)", "mike/a6cf"},
		{"riff://mike@pangolin/como-technologies/riff?session=a6cf2205-0b1c#issue-6",
			"mike@pangolin:riff#issue-6", "mike@pangolin:riff#issue-6 (a6cf)", "mike/a6cf2205-0b1c"},
		{"riff://brett@heron/como-technologies/riff?session=77e0", "brett@heron:riff", "brett@heron:riff (77e0)", "brett/77e0"},
		{"riff://mike@pangolin/-?session=a6cf", "mike@pangolin", "mike@pangolin (a6cf)", "mike/a6cf"},
		{"riff://mike@pangolin/local/scratch?session=ab", "mike@pangolin:scratch", "mike@pangolin:scratch (ab)", "mike/ab"},
		{"riff://mike@pangolin", "mike@pangolin", "mike@pangolin", "mike"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			u, err := name.ParseURI(tt.in)
			if err != nil {
				t.Fatalf("ParseURI(%q) = %v; want no error", tt.in, err)
			}
			if got := u.Short(); got != tt.short {
				t.Errorf("ParseURI(%q).Short() = %q; want %q", tt.in, got, tt.short)
			}
			if got := u.Named(); got != tt.named {
				t.Errorf("ParseURI(%q).Named() = %q; want %q", tt.in, got, tt.named)
			}
			if got := u.Who().String(); got != tt.who {
				t.Errorf("ParseURI(%q).Who().String() = %q; want %q", tt.in, got, tt.who)
			}
			w, err := name.ParseWho(tt.who)
			if err != nil || w != u.Who() {
				t.Errorf("ParseWho(%q) = %v, %v; want %v", tt.who, w, err, u.Who())
			}
		})
	}
}

func TestParseWho(t *testing.T) {
	tests := []struct {
		in      string
		want    name.Who
		wantErr bool
	}{
		{in: "mike/a6cf", want: name.Who{User: "mike", Session: "a6cf"}},
		{in: "ann/s1", want: name.Who{User: "ann", Session: "s1"}},
		{in: "mike", want: name.Who{User: "mike"}},
		{in: "", wantErr: true},
		{in: "mike/", wantErr: true},
		{in: "/a6cf", wantErr: true},
		{in: "mike/a6cf/x", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := name.ParseWho(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("ParseWho(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestURIMarksAndPlace(t *testing.T) {
	u, err := name.ParseURI(guideURI)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := u.Place(), (name.Place{Host: "pangolin", Repo: "como-technologies/riff", Worktree: "issue-6"}); got != want {
		t.Errorf("Place() = %v; want %v", got, want)
	}
	if th, ok := u.DefaultThread(); !ok || th != "como-technologies/riff" {
		t.Errorf("DefaultThread() = %q, %v; want como-technologies/riff, true", th, ok)
	}
	moved := u.At(name.Place{Host: "thelio", Repo: name.NoRepo})
	if got, want := moved.String(), "riff://mike@thelio/-?session=a6cf&claim=issue-6"; got != want {
		t.Errorf("At(thelio, -).String() = %q; want %q", got, want)
	}
	if _, ok := moved.DefaultThread(); ok {
		t.Errorf("DefaultThread() outside git = _, true; want false")
	}
	claims := []name.Item{"issue-7"}
	marked := u.Bare().With(claims, true)
	claims[0] = "changed"
	if got, want := marked.String(), "riff://mike@pangolin/como-technologies/riff?session=a6cf&claim=issue-7&lead=true#issue-6"; got != want {
		t.Errorf("With(issue-7, lead).String() = %q; want %q (With keeps its own copy of the claims)", got, want)
	}
	if !u.Equal(u.Bare().With([]name.Item{"issue-6"}, false)) {
		t.Errorf("Equal of the same URI = false; want true")
	}
	if u.Equal(marked) {
		t.Errorf("Equal of URIs with other marks = true; want false")
	}
	if (name.SessionURI{}).String() != "" || !(name.SessionURI{}).IsZero() {
		t.Errorf("the zero URI formats as %q; want empty and IsZero", name.SessionURI{}.String())
	}
}

func TestURIJSON(t *testing.T) {
	u, err := name.ParseURI(guideURI)
	if err != nil {
		t.Fatal(err)
	}
	b, err := u.MarshalJSON()
	if err != nil {
		t.Fatalf("MarshalJSON() = %s, %v", b, err)
	}
	// encoding/json escapes the & of the query as \u0026; the value is
	// the URI as a JSON string.
	var s string
	if err := json.Unmarshal(b, &s); err != nil || s != guideURI {
		t.Fatalf("MarshalJSON() = %s (%q, %v); want the URI %q as a string", b, s, err, guideURI)
	}
	var got name.SessionURI
	if err := got.UnmarshalJSON(b); err != nil {
		t.Fatalf("UnmarshalJSON(%s) = %v", b, err)
	}
	if diff := cmp.Diff(u, got); diff != "" {
		t.Errorf("UnmarshalJSON(%s) mismatch (-want +got):\n%s", b, diff)
	}
	for _, bad := range []string{`42`, `"riff://mike"`, `{"user":"mike"}`} {
		var v name.SessionURI
		if err := v.UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("UnmarshalJSON(%s) = nil; want an error", bad)
		}
	}
	var zero name.SessionURI
	if err := zero.UnmarshalJSON([]byte(`""`)); err != nil || !zero.IsZero() {
		t.Errorf(`UnmarshalJSON("") = %v, %v; want the zero URI`, zero, err)
	}
}

func TestParseItem(t *testing.T) {
	for _, ok := range []string{"issue-12", "verify-issue-12", "task-iroh-listener", "v1.2_x"} {
		if got, err := name.ParseItem(ok); err != nil || string(got) != ok {
			t.Errorf("ParseItem(%q) = %q, %v; want %q", ok, got, err, ok)
		}
	}
	for _, bad := range []string{"", "issue 12", "#12", "a/b", strings.Repeat("x", name.MaxNameLen+1), "issue-é"} {
		if got, err := name.ParseItem(bad); err == nil {
			t.Errorf("ParseItem(%q) = %q, nil; want an error", bad, got)
		}
	}
	if got := name.Item("issue-12").Verify(); got != "verify-issue-12" {
		t.Errorf("Item(issue-12).Verify() = %q; want verify-issue-12", got)
	}
}

func TestParseRepo(t *testing.T) {
	tests := []struct {
		in          string
		owner, name string
		inGit       bool
		wantErr     bool
	}{
		{in: "como-technologies/riff", owner: "como-technologies", name: "riff", inGit: true},
		{in: "local/scratch", owner: "local", name: "scratch", inGit: true},
		{in: "-", owner: "-", name: "-", inGit: false},
		{in: "", wantErr: true},
		{in: "riff", wantErr: true},
		{in: "/riff", wantErr: true},
		{in: "o/r/x", wantErr: true},
		{in: "o r/x", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r, err := name.ParseRepo(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseRepo(%q) = %q, %v; want error %v", tt.in, r, err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if r.Owner() != tt.owner || r.Name() != tt.name || r.InGit() != tt.inGit {
				t.Errorf("ParseRepo(%q) = owner %q name %q in git %v; want %q %q %v", tt.in, r.Owner(), r.Name(), r.InGit(), tt.owner, tt.name, tt.inGit)
			}
		})
	}
	if name.Repo("").InGit() {
		t.Errorf(`Repo("").InGit() = true; want false`)
	}
}

// Given URIs of each form, with parts that JSON escapes and parts that
// it does not, when each is written with its marks apart (the JSON of
// its claims, AppendJSONWith) and whole (AppendJSON, MarshalJSON), then
// the bytes are those of json.Marshal of the String of the marked URI,
// and the marks apart are taken whenever each part is plain.
func TestGivenMarksApartWhenTheURIIsWrittenThenItIsTheJSONOfItsString(t *testing.T) {
	many := make([]name.Item, 300)
	for i := range many {
		many[i] = name.Item("p1x" + strings.Repeat("a", i%7))
	}
	tests := []struct {
		name  string
		uri   name.SessionURI
		items []name.Item
		lead  bool
		plain bool
	}{
		{name: "zero", uri: name.SessionURI{}, plain: true},
		{name: "person", uri: name.SessionURI{User: "ann", Host: "h"}, plain: true},
		{name: "session", uri: name.SessionURI{User: "ann", Host: "h", Repo: "o/repo", Session: "s1"}, plain: true},
		{name: "claims", uri: name.SessionURI{User: "ann", Host: "h", Repo: "o/repo", Session: "s1", Worktree: "wt"}, items: []name.Item{"issue-7", "issue-8"}, plain: true},
		{name: "many claims and the lead", uri: name.SessionURI{User: "p1", Host: "h", Repo: "o/repo", Session: "p1"}, items: many, lead: true, plain: true},
		{name: "lead alone", uri: name.SessionURI{User: "ann", Host: "h", Repo: "-", Session: "s1"}, lead: true, plain: true},
		{name: "claims with no session", uri: name.SessionURI{User: "ann", Host: "h"}, items: []name.Item{"x", "y"}, lead: true, plain: true},
		{name: "lead with no session", uri: name.SessionURI{User: "ann", Host: "h"}, lead: true, plain: true},
		{name: "unknown parts", uri: name.SessionURI{User: "ann", Host: "h", Repo: "o/r", Session: "s1", Unknown: []string{"zone=eu", "flag"}}, items: []name.Item{"x"}, plain: true},
		{name: "own marks are not written", uri: name.SessionURI{User: "ann", Host: "h", Repo: "o/r", Session: "s1", Claims: []name.Item{"old"}, Lead: true}, items: []name.Item{"new"}, plain: true},
		{name: "unknown part to escape", uri: name.SessionURI{User: "ann", Host: "h", Repo: "o/r", Session: "s1", Unknown: []string{"x=<y>", "q=\"é\\"}}, items: []name.Item{"x"}},
		{name: "item to escape", uri: name.SessionURI{User: "ann", Host: "h", Repo: "o/r", Session: "s1"}, items: []name.Item{"ok", "a&b", "<c>"}},
		{name: "item not UTF-8", uri: name.SessionURI{User: "ann", Host: "h", Repo: "o/r", Session: "s1"}, items: []name.Item{"\xff"}},
		{name: "user to escape", uri: name.SessionURI{User: "a\"nn", Host: "h\u2028", Repo: "o/r", Session: "s\x01"}, items: []name.Item{"x"}},
		{name: "worktree to escape", uri: name.SessionURI{User: "ann", Host: "h", Repo: "o/r", Session: "s1", Worktree: "w\tt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			marked := tt.uri.With(tt.items, tt.lead)
			want, err := json.Marshal(marked.String())
			if err != nil {
				t.Fatal(err)
			}
			var claims []byte
			plainClaims := true
			for _, item := range tt.items {
				var ok bool
				if claims, ok = name.AppendClaimJSON(claims, item); !ok {
					plainClaims = false
				}
			}
			// A claim that JSON escapes leaves the marks apart: the
			// caller writes the marked URI whole.
			if plainClaims {
				got, ok := tt.uri.AppendJSONWith([]byte("x"), claims, tt.lead)
				if ok != tt.plain {
					t.Errorf("AppendJSONWith(%q) ok = %v; want %v", marked, ok, tt.plain)
				}
				if ok && string(got) != "x"+string(want) {
					t.Errorf("AppendJSONWith(%q)\n = %s\nwant x%s", marked, got, want)
				}
				if !ok && string(got) != "x" {
					t.Errorf("AppendJSONWith(%q) = %s, false; want x as it came", marked, got)
				}
			}
			if got := marked.AppendJSON([]byte("x")); string(got) != "x"+string(want) {
				t.Errorf("AppendJSON(%q)\n = %s\nwant x%s", marked, got, want)
			}
			if got, err := marked.MarshalJSON(); err != nil || string(got) != string(want) {
				t.Errorf("MarshalJSON(%q) = %s, %v\nwant %s", marked, got, err, want)
			}
		})
	}
}
