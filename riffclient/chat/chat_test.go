package chat

import (
	"errors"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/google/go-cmp/cmp"
)

func TestGivenATypedLineWhenTheChatReadsItThenOnlyMeAndQuitAreCommands(t *testing.T) {
	tests := []struct {
		typed string
		want  Line
	}{
		{"", Line{Kind: Empty}},
		{"   ", Line{Kind: Empty}},
		{"/quit", Line{Kind: Quit}},
		{"/me waves", Line{Kind: Say, Body: "/me waves"}},
		{"/me pings @brett", Line{Kind: Say, Body: "/me pings @brett", Names: []Name{{User: "brett", Word: "brett"}}}},
		{"/me", Line{Kind: Refused, Text: textEmptyAction}},
		{"/join #riff", Line{Kind: Refused, Text: "riff: the chat knows only /me and /quit, and sends no line /join. To send a line that starts with /, start it with //."}},
		{"//etc/hosts is wrong", Line{Kind: Say, Body: "/etc/hosts is wrong"}},
		{"//quit", Line{Kind: Say, Body: "/quit"}},
		{"is #12 done?", Line{Kind: Say, Body: "is #12 done?"}},
	}
	for _, tt := range tests {
		if got := Parse(tt.typed); !cmp.Equal(got, tt.want) {
			t.Errorf("Parse(%q) = %+v; want %+v", tt.typed, got, tt.want)
		}
	}
}

func TestGivenALineWhenItNamesLeadsOrUsersThenTheNamesAreItsAddresses(t *testing.T) {
	tests := []struct {
		body string
		want []Name
	}{
		{"not yet. @lead is #207 merged?", []Name{{Lead: true, Word: "lead"}}},
		{"@lead:strata is #12 done?", []Name{{Lead: true, Repo: "strata", Word: "lead:strata"}}},
		{"@brett:como-technologies/strata can I take #14?", []Name{{User: "brett", Repo: "como-technologies/strata", Word: "brett:como-technologies/strata"}}},
		{"@brett, can I take #14?", []Name{{User: "brett", Word: "brett"}}},
		{"ask @brett. and (@mike)", []Name{{User: "brett", Word: "brett"}, {User: "mike", Word: "mike"}}},
		{"@lead: is it done?", []Name{{Lead: true, Word: "lead"}}},
		{"mail mike@example.com", nil},
		{"see @types/node", nil},
		{"@ alone", nil},
	}
	for _, tt := range tests {
		if got := Parse(tt.body).Names; !cmp.Equal(got, tt.want) {
			t.Errorf("names of %q = %+v; want %+v", tt.body, got, tt.want)
		}
	}
}

func yes() *bool { b := true; return &b }

// theLeads: mike leads in acme/strata and como-technologies/strata, and
// in como-technologies/riff; brett leads in como-technologies/strata.
func theLeads() []Lead {
	return LeadsOf(wire.WhoReply{Rows: []wire.WhoRow{
		{URI: name.SessionURI{User: "mike", Host: "thelio", Repo: "acme/strata", Session: "a1", Lead: true}},
		{URI: name.SessionURI{User: "mike", Host: "thelio", Repo: "como-technologies/strata", Session: "a2", Lead: true}},
		{URI: name.SessionURI{User: "mike", Host: "thelio", Repo: "como-technologies/riff", Session: "a3", Lead: true}},
		{URI: name.SessionURI{User: "mike", Host: "thelio", Repo: "como-technologies/riff", Session: "w1"}},
		{URI: name.SessionURI{User: "brett", Host: "heron", Repo: "como-technologies/strata", Session: "b1", Lead: true}},
		{URI: name.SessionURI{User: "brett", Host: "heron", Repo: "como-technologies/docs", Session: "b2", Lead: true}, Gone: true},
	}})
}

// TestGivenTheLeadsOfTheRiffWhenALineNamesALeadThenTheChatSendsOnlyWhenOneFits:
// the three cases of the guide's "Ask a lead in the chat": no lead fits
// (nothing is sent, the text says so), one fits (the to list names it),
// two fit a repository name (nothing is sent, the guide's text names
// both).
func TestGivenTheLeadsOfTheRiffWhenALineNamesALeadThenTheChatSendsOnlyWhenOneFits(t *testing.T) {
	tests := []struct {
		name    string
		me      string
		line    string
		want    []selector.Selector
		wantErr string
	}{
		{name: "no name: each lead of mine", me: "mike", line: "is #12 done?", want: []selector.Selector{{User: "mike", Lead: yes()}}},
		{name: "no name and no lead: to all, waking nobody", me: "ann", line: "hello", want: nil},
		{name: "@lead: each lead of mine", me: "mike", line: "@lead is #12 done?", want: []selector.Selector{{User: "mike", Lead: yes()}}},
		{name: "@USER: each lead of USER", me: "mike", line: "@brett can I take #14?", want: []selector.Selector{{User: "brett", Lead: yes()}}},
		{name: "one fits a name", me: "mike", line: "@brett:strata can I take #14?",
			want: []selector.Selector{{User: "brett", Lead: yes(), Repo: "como-technologies/strata"}}},
		{name: "one fits OWNER/REPO", me: "mike", line: "@lead:acme/strata is #12 done?",
			want: []selector.Selector{{User: "mike", Lead: yes(), Repo: "acme/strata"}}},
		{name: "two fit a name", me: "mike", line: "@lead:strata is #12 done?",
			wantErr: "riff: cannot send the line: mike has 2 leads in a repository with the name strata: acme/strata, como-technologies/strata. Use OWNER/REPO."},
		{name: "none fits a name", me: "mike", line: "@brett:riff is #12 done?",
			wantErr: "riff: cannot send the line: brett has no lead in a repository with the name riff. The leads of brett are in como-technologies/strata."},
		{name: "none fits OWNER/REPO", me: "mike", line: "@brett:acme/strata hi",
			wantErr: "riff: cannot send the line: brett has no lead in acme/strata. The leads of brett are in como-technologies/strata."},
		{name: "a user with no lead (a gone lead is none)", me: "brett", line: "@ann hi",
			wantErr: "riff: cannot send the line: ann has no lead. Type the line again with another name, or with no name."},
		{name: "@lead and no lead of mine", me: "ann", line: "@lead hi",
			wantErr: "riff: cannot send the line: ann has no lead. Type the line again with another name, or with no name."},
		{name: "one name that does not fit stops the line", me: "mike", line: "@brett @ann hi",
			wantErr: "riff: cannot send the line: ann has no lead. Type the line again with another name, or with no name."},
		{name: "two names, each once", me: "mike", line: "@brett @lead @brett hi",
			want: []selector.Selector{{User: "brett", Lead: yes()}, {User: "mike", Lead: yes()}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.me, Parse(tt.line).Names, theLeads())
			var cannot *CannotSend
			if tt.wantErr != "" {
				if !errors.As(err, &cannot) || cannot.Text != tt.wantErr || got != nil {
					t.Fatalf("Resolve(%q) = %v, %v; want nothing and %q", tt.line, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q) = %v", tt.line, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Resolve(%q) (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}

// TestGivenWideAndCombiningCharactersWhenThePersonTypesThenTheCursorCountsCells:
// a wide character takes two cells, a base and its combining mark one
// cluster of one cell; a line wider than its room scrolls so that the
// cursor shows, and no wide character shows in half.
func TestGivenWideAndCombiningCharactersWhenThePersonTypesThenTheCursorCountsCells(t *testing.T) {
	var e editor
	e.insert("日本")
	e.insert("e")
	e.insert("\u0301") // a combining acute: it joins the e
	if got, want := len(e.clusters), 3; got != want {
		t.Fatalf("clusters of %q = %d; want %d", e.text(), got, want)
	}
	shown, at := e.view(40)
	if shown != "日本e\u0301" || at != 5 {
		t.Errorf("view = %q, cursor at %d; want %q at 5", shown, at, "日本e\u0301")
	}
	e.backspace()
	if e.text() != "日本" {
		t.Errorf("backspace after é = %q; want the whole cluster gone", e.text())
	}
	e.left()
	e.insert("x")
	if e.text() != "日x本" {
		t.Errorf("a key after left = %q; want 日x本", e.text())
	}
	// Scroll: room of 6 cells, the cursor at the end of 8 cells of text.
	e.set("日本語ab")
	shown, at = e.view(6)
	if shown != "語ab" || at != 4 {
		t.Errorf("view(6) of 日本語ab = %q, %d; want 語ab at 4", shown, at)
	}
	e.home()
	shown, at = e.view(6)
	if shown != "日本語" || at != 0 {
		t.Errorf("view(6) at home = %q, %d; want 日本語 at 0", shown, at)
	}
	e.set("ab日")
	shown, _ = e.view(3)
	if shown != "日" && shown != "b" {
		t.Errorf("view(3) of ab日 at the end = %q; want no half of a wide character", shown)
	}
}

func TestGivenTheBytesOfATerminalWhenTheyComeInPiecesThenEachKeyComesOnce(t *testing.T) {
	var d decoder
	var got []key
	for _, piece := range [][]byte{[]byte("a\xe6"), []byte("\x97\xa5\x1b"), []byte("[D\x1b[3~\x1b[1;5C"), []byte("\x1b]0;title\x07"), []byte("\x1b[200~x\ny\x1b[201~\r\x03")} {
		got = append(got, d.feed(piece)...)
	}
	// A character cut by a read comes whole with the next one; the
	// title sequence (OSC) is dropped whole.
	want := []key{{kind: keyText, text: "a"}, {kind: keyText, text: "日"}, {kind: keyLeft}, {kind: keyDelete}, {kind: keyRight}, {kind: keyText, text: "x y"}, {kind: keyEnter}, {kind: keyInterrupt}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(key{})); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
}

// TestGivenAMessageWhenItsToListNamesThePersonThenItWakesThePersonsTerminalsOnly:
// person=true and user/host with no person field wake the terminals of
// the person; lead=true, another user or host, and person=false do not;
// a session is never woken so.
func TestGivenAMessageWhenItsToListNamesThePersonThenItWakesThePersonsTerminalsOnly(t *testing.T) {
	mike := name.SessionURI{User: "mike", Host: "thelio", Repo: "acme/app"}
	for _, tt := range []struct {
		to   string
		want bool
	}{
		{"user=mike,host=thelio,person=true", true},
		{"user=mike,host=thelio", true},
		{"user=mike", true},
		{"user=mike,lead=true", false},
		{"user=mike,host=pangolin,person=true", false},
		{"user=mike,person=false", false},
		{"user=brett,person=true", false},
	} {
		sels, err := selector.ParseList([]string{tt.to})
		if err != nil {
			t.Fatal(err)
		}
		m := wire.Message{Thread: "chat", To: sels}
		if got := ToPerson(mike, m); got != tt.want {
			t.Errorf("ToPerson(mike@thelio, to %s) = %v; want %v", tt.to, got, tt.want)
		}
		session := mike
		session.Session = "a6cf2205"
		if ToPerson(session, m) {
			t.Errorf("ToPerson(a session, to %s) = true; want a session never woken as a person", tt.to)
		}
	}
}
