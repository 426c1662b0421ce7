package record_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/selector"
)

var update = flag.Bool("update", false, "write the golden files of testdata/")

// The example records of the design of riff, byte for byte (docs/store.md
// and docs/state.md give their form).
const (
	// A claim, as docs/store.md shows a record.
	storeClaimed = `{"position":1234,"written_at_ms":1790000000000,"by":{"session":"ann/s1"},"command":"claim","change":{"claimed":{"session":"riff://ann@host/o/repo?session=s1","thread":"o/repo","item":"issue-7"}}}`
	// A claim of a session with its claim marks.
	engineClaimed = `{"position":1234,"written_at_ms":1790000000000,"by":{"session":"mike/a6cf"},"command":"claim","change":{"claimed":{"session":"riff://mike@pangolin/como-technologies/riff?session=a6cf","thread":"como-technologies/riff","item":"issue-355"}}}`
	// A pause of one repository.
	pauseRepo = `{"position":2001,"written_at_ms":1790000000000,"by":{"session":"brett/62b2"},"command":"pause","change":{"pause_set":{"scope":{"repository":"como-technologies/strata"},"state":"paused"}}}`
	pauseRiff = `{"position":2002,"written_at_ms":1790000100000,"by":{"person":"mike"},"command":"pause","change":{"pause_set":{"scope":"riff","state":"paused"}}}`
)

func mustURI(t testing.TB, s string) name.SessionURI {
	t.Helper()
	u, err := name.ParseURI(s)
	if err != nil {
		t.Fatalf("ParseURI(%q) = %v", s, err)
	}
	return u
}

func TestSeedRecordsRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		line string
		want record.Record
	}{
		{
			name: "claimed of a session",
			line: storeClaimed,
			want: record.Record{Position: 1234, WrittenAtMs: 1790000000000,
				By: record.BySession(name.Who{User: "ann", Session: "s1"}), Command: "claim",
				Change: record.Claimed{Session: mustURI(t, "riff://ann@host/o/repo?session=s1"), Thread: "o/repo", Item: "issue-7"}},
		},
		{
			name: "claimed with claim marks",
			line: engineClaimed,
			want: record.Record{Position: 1234, WrittenAtMs: 1790000000000,
				By: record.BySession(name.Who{User: "mike", Session: "a6cf"}), Command: "claim",
				Change: record.Claimed{Session: mustURI(t, "riff://mike@pangolin/como-technologies/riff?session=a6cf"),
					Thread: "como-technologies/riff", Item: "issue-355"}},
		},
		{
			name: "pause_set of a repository",
			line: pauseRepo,
			want: record.Record{Position: 2001, WrittenAtMs: 1790000000000,
				By: record.BySession(name.Who{User: "brett", Session: "62b2"}), Command: "pause",
				Change: record.PauseSet{Scope: record.RepoScope("como-technologies/strata"), State: record.Paused}},
		},
		{
			name: "pause_set of the riff",
			line: pauseRiff,
			want: record.Record{Position: 2002, WrittenAtMs: 1790000100000,
				By: record.ByPerson("mike"), Command: "pause",
				Change: record.PauseSet{Scope: record.RiffScope(), State: record.Paused}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := record.Decode([]byte(tt.line))
			if err != nil {
				t.Fatalf("Decode(%s) = %v", tt.line, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decode(%s) mismatch (-want +got):\n%s", tt.line, diff)
			}
			if got.Skipped() {
				t.Errorf("Decode(%s).Skipped() = true; want false", tt.line)
			}
			out, err := record.Encode(got)
			if err != nil || string(out) != tt.line {
				t.Errorf("Encode(Decode(%s)) =\n%s, %v; want the same bytes", tt.line, out, err)
			}
			out, err = record.Encode(tt.want)
			if err != nil || string(out) != tt.line {
				t.Errorf("Encode(%v) =\n%s, %v; want\n%s", tt.want, out, err, tt.line)
			}
		})
	}
}

// A record that a build of this release does not fully know reads, and
// counts as skipped.
func TestSkipped(t *testing.T) {
	tests := []struct {
		name string
		line string
		// same says that the record encodes back to the same bytes. A
		// named value that reads as other (reason, kind) encodes as
		// other.
		same bool
	}{
		{"unknown kind", `{"position":7,"written_at_ms":1790000000000,"by":{"server":true},"command":"wave","change":{"wave_started":{"wave":"w1","items":["issue-1"]}}}`, true},
		{"unknown kind with no by", `{"position":7,"written_at_ms":1,"change":{"wave_started":{}}}`, true},
		{"change with two kinds", `{"position":7,"written_at_ms":1,"change":{"claimed":{},"released":{}}}`, true},
		{"change not an object", `{"position":7,"written_at_ms":1,"change":"claimed"}`, true},
		{"pause_set with a scope of a later build", `{"position":8,"written_at_ms":1,"by":{"person":"mike"},"command":"pause","change":{"pause_set":{"scope":{"host":"thelio"},"state":"paused"}}}`, true},
		{"pause_set with a scope text of a later build", `{"position":8,"written_at_ms":1,"command":"pause","change":{"pause_set":{"scope":"world","state":"running"}}}`, true},
		{"pause_set with outside git as its repository", `{"position":8,"written_at_ms":1,"change":{"pause_set":{"scope":{"repository":"-"},"state":"paused"}}}`, true},
		{"session_started with a reason of a later build", `{"position":9,"written_at_ms":1,"by":{"session":"mike/a6cf"},"command":"start","change":{"session_started":{"session":"riff://mike@pangolin/o/r?session=a6cf","reason":"migrate"}}}`, false},
		{"session_started with a reason that is not text", `{"position":9,"written_at_ms":1,"change":{"session_started":{"session":"riff://mike@pangolin/o/r?session=a6cf","reason":{"x":1}}}}`, false},
		{"posted with a kind of a later build", `{"position":10,"written_at_ms":1,"command":"post","change":{"posted":{"thread":"o/r","seq":3,"sender":"riff://mike@pangolin","kind":"poll","payload":"e30="}}}`, false},
		{"posted with a selector of a later build", `{"position":10,"written_at_ms":1,"command":"post","change":{"posted":{"thread":"o/r","seq":3,"sender":"riff://mike@pangolin","kind":"message","to":[{"claim":"issue-6"},{"team":"core"}],"payload":"e30="}}}`, true},
		// encoding/json writes the & of the URI as \u0026.
		{"claimed by a session URI with a query part of a later build", `{"position":11,"written_at_ms":1,"command":"claim","change":{"claimed":{"session":"riff://ann@host/o/repo?session=s1&zone=eu","thread":"o/repo","item":"issue-7"}}}`, false},
		{"posted by a sender with a query part of a later build", `{"position":10,"written_at_ms":1,"change":{"posted":{"thread":"o/r","seq":3,"sender":"riff://mike@pangolin?zone=eu","kind":"note","payload":"e30="}}}`, true},
		{"by of a class of a later build", `{"position":12,"written_at_ms":1,"by":{"robot":"r2"},"command":"claim","change":{"claimed":{"session":"riff://ann@host/o/repo?session=s1","thread":"o/repo","item":"issue-7"}}}`, true},
		{"by with two classes", `{"position":12,"written_at_ms":1,"by":{"person":"mike","server":true},"change":{"plan_ended":{"thread":"o/r"}}}`, true},
		{"by not an object", `{"position":12,"written_at_ms":1,"by":"mike","change":{"plan_ended":{"thread":"o/r"}}}`, true},
		{"by session with no session ID", `{"position":12,"written_at_ms":1,"by":{"session":"mike"},"change":{"plan_ended":{"thread":"o/r"}}}`, true},
		{"by server false", `{"position":12,"written_at_ms":1,"by":{"server":false},"change":{"plan_ended":{"thread":"o/r"}}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := record.Decode([]byte(tt.line))
			if err != nil {
				t.Fatalf("Decode(%s) = %v; want a record", tt.line, err)
			}
			if !r.Skipped() {
				t.Errorf("Decode(%s).Skipped() = false; want true", tt.line)
			}
			out, err := record.Encode(r)
			if err != nil {
				t.Fatalf("Encode(Decode(%s)) = %v", tt.line, err)
			}
			if tt.same && string(out) != tt.line {
				t.Errorf("Encode(Decode(%s)) =\n%s; want the same bytes", tt.line, out)
			}
			again, err := record.Decode(out)
			if err != nil || !again.Skipped() {
				t.Fatalf("Decode(%s) = %v, skipped %v; want a skipped record", out, err, again.Skipped())
			}
			if diff := cmp.Diff(r, again); diff != "" {
				t.Errorf("Decode(Encode(Decode(%s))) mismatch (-first +again):\n%s", tt.line, diff)
			}
		})
	}
}

func TestUnknownKindReadsAsOther(t *testing.T) {
	line := `{"position":7,"written_at_ms":1,"change":{"wave_started":{"wave":"w1"}}}`
	r, err := record.Decode([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	o, ok := r.Change.(record.Other)
	if !ok {
		t.Fatalf("Decode(%s).Change = %T; want record.Other", line, r.Change)
	}
	if o.Kind() != "wave_started" || string(o.Raw) != `{"wave_started":{"wave":"w1"}}` {
		t.Errorf("Other = %q, %s; want wave_started and the change as it came", o.Kind(), o.Raw)
	}
}

func TestSkippedValuesReadAsOther(t *testing.T) {
	started, err := record.Decode([]byte(`{"position":9,"written_at_ms":1,"change":{"session_started":{"session":"riff://mike@pangolin/o/r?session=a6cf","reason":"migrate","worker":true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := started.Change.(record.SessionStarted).Reason; got != record.ReasonOther || got.Fresh() {
		t.Errorf("reason migrate = %q (fresh %v); want other, not fresh", got, got.Fresh())
	}
	posted, err := record.Decode([]byte(`{"position":10,"written_at_ms":1,"change":{"posted":{"thread":"o/r","seq":3,"sender":"riff://mike@pangolin","kind":"poll","to":[{"team":"core"}],"payload":"e30="}}}`))
	if err != nil {
		t.Fatal(err)
	}
	p := posted.Change.(record.Posted)
	if p.Type != record.MessageOther || !p.To[0].IsOther() || string(p.To[0].Other) != `{"team":"core"}` {
		t.Errorf("posted = kind %q, to %v; want other and the selector as it came", p.Type, p.To)
	}
	by, err := record.Decode([]byte(`{"position":12,"written_at_ms":1,"by":{"robot":"r2"},"change":{"plan_ended":{"thread":"o/r"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if by.By.Class != record.ClassOther || string(by.By.Raw) != `{"robot":"r2"}` {
		t.Errorf("by = %v %s; want other and its JSON", by.By.Class, by.By.Raw)
	}
}

func TestDoesNotRead(t *testing.T) {
	tests := []struct {
		name string
		line string
	}{
		{"pause_set with a state of a later build", `{"position":8,"written_at_ms":1,"change":{"pause_set":{"scope":"riff","state":"frozen"}}}`},
		{"pause_set with a state that is not text", `{"position":8,"written_at_ms":1,"change":{"pause_set":{"scope":"riff","state":true}}}`},
		{"pause_set with no state", `{"position":8,"written_at_ms":1,"change":{"pause_set":{"scope":"riff"}}}`},
		{"pause_set with no scope", `{"position":8,"written_at_ms":1,"change":{"pause_set":{"state":"paused"}}}`},
		{"claimed with a bad item", `{"position":1,"written_at_ms":1,"change":{"claimed":{"session":"riff://ann@host/o/repo?session=s1","thread":"o/repo","item":"issue 7"}}}`},
		{"claimed with a relative direct thread", `{"position":1,"written_at_ms":1,"change":{"claimed":{"session":"riff://ann@host/o/repo?session=s1","thread":"dm:s2","item":"issue-7"}}}`},
		{"claimed with a bad session", `{"position":1,"written_at_ms":1,"change":{"claimed":{"session":"riff://ann","thread":"o/repo","item":"issue-7"}}}`},
		{"claimed with no thread", `{"position":1,"written_at_ms":1,"change":{"claimed":{"session":"riff://ann@host/o/repo?session=s1","item":"issue-7"}}}`},
		{"no change", `{"position":1,"written_at_ms":1}`},
		{"position not a number", `{"position":"1","written_at_ms":1,"change":{"plan_ended":{"thread":"o/r"}}}`},
		{"not JSON", `{"position":1,`},
		{"not an object", `[1]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if r, err := record.Decode([]byte(tt.line)); err == nil {
				t.Errorf("Decode(%s) = %+v, nil; want an error", tt.line, r)
			}
		})
	}
}

// A field of a later build is ignored: its default means "as before".
func TestUnknownFieldIgnored(t *testing.T) {
	line := `{"position":3,"written_at_ms":1,"call":"c1","shard":2,"change":{"plan_ended":{"thread":"o/r","why":"done"}}}`
	r, err := record.Decode([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if r.Skipped() {
		t.Errorf("Decode(%s).Skipped() = true; want false", line)
	}
	want := record.Record{Position: 3, WrittenAtMs: 1, Call: "c1", Change: record.PlanEnded{Thread: "o/r"}}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("Decode(%s) mismatch (-want +got):\n%s", line, diff)
	}
}

func TestEncodeNoChange(t *testing.T) {
	if b, err := record.Encode(record.Record{Position: 1}); err == nil {
		t.Errorf("Encode(a record with no change) = %s, nil; want an error", b)
	}
}

// oneOfEach holds one change of each kind of Kinds, with each field set.
func oneOfEach(t testing.TB) map[record.Kind]record.Change {
	session := mustURI(t, "riff://mike@pangolin/como-technologies/riff?session=a6cf2205#issue-6")
	return map[record.Kind]record.Change{
		record.KindRiffMade:         record.RiffMade{Riff: "01M3XA87HE06Z6M32ZJPSYSYRZ"},
		record.KindSessionStarted:   record.SessionStarted{Session: session, Reason: record.ReasonClear, Worker: true},
		record.KindSessionForgotten: record.SessionForgotten{Session: session},
		record.KindJoinedThread:     record.JoinedThread{Session: session, Thread: name.Chat},
		record.KindLeftThread:       record.LeftThread{Session: session, Thread: "dm:25456ff6+a6cf2205"},
		record.KindPosted: record.Posted{
			Thread: "como-technologies/riff", Seq: 287, Sender: session, Type: record.MessageStatus,
			To:  []selector.Selector{{Claim: "issue-6"}, {User: "brett", Lead: func() *bool { b := true; return &b }()}},
			Key: "k1", Lead: true,
			Payload: []byte(`{"body":"API is ready","kind":"status"}`), Sig: "eyJ0eXAiOiJyaWZmLW1lc3NhZ2UifQ..c2ln",
			Woken: []name.Who{{User: "brett", Session: "77e0"}, {User: "mike"}},
		},
		record.KindClaimed:        record.Claimed{Session: session, Thread: "como-technologies/riff", Item: "issue-6"},
		record.KindReleased:       record.Released{Session: session, Thread: "como-technologies/riff", Item: "issue-6", MustClear: true},
		record.KindLeadSet:        record.LeadSet{Session: session, Thread: "como-technologies/riff", Old: &name.Who{User: "mike", Session: "77e0"}},
		record.KindPauseSet:       record.PauseSet{Scope: record.RepoScope("local/scratch"), State: record.Running},
		record.KindItemHeld:       record.ItemHeld{Thread: "como-technologies/riff", Item: "issue-9", Reason: "waits for the design"},
		record.KindItemFreed:      record.ItemFreed{Thread: "como-technologies/riff", Item: "issue-9"},
		record.KindPlanSet:        record.PlanSet{Thread: "como-technologies/riff", Plan: "wave 3: #6, #7\nthen #9"},
		record.KindPlanEnded:      record.PlanEnded{Thread: "como-technologies/riff"},
		record.KindNotesSet:       record.NotesSet{User: "mike", Thread: "como-technologies/riff", Text: "ask brett about \"#12\""},
		record.KindSettingChanged: record.SettingChanged{IdleWorkers: &record.IdleWorkers{User: "mike", Host: "thelio", Repo: "como-technologies/riff", Count: 2}},
		record.KindPersonJoined:   record.PersonJoined{User: "mike", Email: "mike@example.com"},
		record.KindMemberInvited:  record.MemberInvited{Email: "brett@example.com"},
		record.KindMemberRemoved:  record.MemberRemoved{Email: "brett@example.com"},
		record.KindAdminSet:       record.AdminSet{Email: "brett@example.com", Admin: true},
		record.KindOwnerSet:       record.OwnerSet{Email: "mike@example.com"},
		record.KindOwnerAsked:     record.OwnerAsked{Email: "brett@example.com"},
		record.KindOwnerDenied:    record.OwnerDenied{Email: "brett@example.com"},
		record.KindOwnerEnded:     record.OwnerEnded{Email: "mike@example.com"},
		record.KindSigninsEnded:   record.SigninsEnded{Email: "brett@example.com"},
		record.KindRelayStarted:   record.RelayStarted{Session: session, Relay: "3f9c1a7e0b2d4c68"},
		record.KindRelayEnded:     record.RelayEnded{Session: session, Relay: "3f9c1a7e0b2d4c68", Last: true},
	}
}

// One record of each kind of Kinds encodes and decodes to itself. The
// golden file pins the format of each kind: a change of it is a change
// of the log format (run go test -update to see it, then review).
func TestEachKindRoundTrips(t *testing.T) {
	changes := oneOfEach(t)
	bys := []*record.By{
		record.BySession(name.Who{User: "mike", Session: "a6cf2205"}), record.ByPerson("mike"),
		{Class: record.ClassSignIn, Who: name.Who{User: "mike"}}, record.ByServer(), nil,
	}
	var golden bytes.Buffer
	for i, kind := range record.Kinds() {
		t.Run(string(kind), func(t *testing.T) {
			change, ok := changes[kind]
			if !ok {
				t.Fatalf("the test has no change of the kind %s; add one to oneOfEach", kind)
			}
			if change.Kind() != kind {
				t.Fatalf("%T.Kind() = %q; want %q", change, change.Kind(), kind)
			}
			r := record.Record{Position: uint64(i + 1), WrittenAtMs: 1790000000000 + int64(i),
				By: bys[i%len(bys)], Command: "claim", Call: "01M3X4Z60G1FXQTDC5XDJ05BAX", Change: change}
			line, err := record.Encode(r)
			if err != nil {
				t.Fatalf("Encode(%v) = %v", r, err)
			}
			golden.Write(line)
			golden.WriteByte('\n')
			got, err := record.Decode(line)
			if err != nil {
				t.Fatalf("Decode(%s) = %v", line, err)
			}
			if diff := cmp.Diff(r, got); diff != "" {
				t.Errorf("Decode(Encode(%s)) mismatch (-want +got):\n%s", kind, diff)
			}
			if got.Skipped() {
				t.Errorf("Decode(%s).Skipped() = true; want false", line)
			}
			if !bytes.HasPrefix(line, []byte(`{"position":`)) || !bytes.Contains(line, []byte(`"change":{"`+string(kind)+`":{`)) {
				t.Errorf("Encode(%s) = %s; want the envelope and the change as {\"%s\":{...}}", kind, line, kind)
			}
		})
	}
	if len(changes) != len(record.Kinds()) {
		t.Errorf("oneOfEach has %d kinds; Kinds() has %d", len(changes), len(record.Kinds()))
	}
	path := filepath.Join("testdata", "each_kind.jsonl")
	if *update {
		if err := os.WriteFile(path, golden.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read the golden file (go test -update writes it): %v", err)
	}
	if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(golden.String(), "\n")); diff != "" {
		t.Errorf("the records differ from %s (-golden +now):\n%s", path, diff)
	}
}

// The golden file reads back: each line decodes and encodes to itself.
func TestGoldenLinesReadBack(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "each_kind.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		r, err := record.Decode(line)
		if err != nil {
			t.Errorf("Decode(%s) = %v", line, err)
			continue
		}
		out, err := record.Encode(r)
		if err != nil || !bytes.Equal(out, line) {
			t.Errorf("Encode(Decode(%s)) = %s, %v; want the same bytes", line, out, err)
		}
	}
}

func TestByString(t *testing.T) {
	tests := []struct {
		by   *record.By
		want string
	}{
		{record.BySession(name.Who{User: "mike", Session: "a6cf"}), "the session mike/a6cf"},
		{record.ByPerson("mike"), "the person mike"},
		{&record.By{Class: record.ClassSignIn, Who: name.Who{User: "mike"}}, "the sign-in of mike"},
		{record.ByServer(), "the server"},
		{&record.By{Class: record.ClassOther, Raw: json.RawMessage(`{"robot":1}`)}, "a caller of another build"},
		{nil, "a cause that is not known"},
	}
	for _, tt := range tests {
		if got := tt.by.String(); got != tt.want {
			t.Errorf("By(%v).String() = %q; want %q", tt.by, got, tt.want)
		}
	}
}

func TestParseReasonAndKind(t *testing.T) {
	for _, r := range []string{"process", "resume", "clear", "join"} {
		if got, err := record.ParseReason(r); err != nil || string(got) != r {
			t.Errorf("ParseReason(%q) = %q, %v; want %q", r, got, err, r)
		}
	}
	for _, r := range []string{"other", "", "Process"} {
		if got, err := record.ParseReason(r); err == nil {
			t.Errorf("ParseReason(%q) = %q, nil; want an error (only the log takes a value of a later build)", r, got)
		}
	}
	for _, k := range []string{"message", "note", "status"} {
		if got, err := record.ParseMessageKind(k); err != nil || string(got) != k {
			t.Errorf("ParseMessageKind(%q) = %q, %v; want %q", k, got, err, k)
		}
	}
	if got, err := record.ParseMessageKind("other"); err == nil {
		t.Errorf("ParseMessageKind(other) = %q, nil; want an error", got)
	}
	fresh := map[record.Reason]bool{record.ReasonProcess: true, record.ReasonClear: true, record.ReasonResume: false, record.ReasonJoin: false, record.ReasonOther: false}
	for r, want := range fresh {
		if r.Fresh() != want {
			t.Errorf("Reason(%q).Fresh() = %v; want %v", r, r.Fresh(), want)
		}
	}
}
