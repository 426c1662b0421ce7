package record_test

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/record"
)

// goldenLines gives the lines of testdata/each_kind.jsonl.
func goldenLines(tb testing.TB) [][]byte {
	tb.Helper()
	data, err := os.ReadFile("testdata/each_kind.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	var lines [][]byte
	for line := range bytes.Lines(data) {
		if line = bytes.TrimRight(line, "\n"); len(line) > 0 {
			lines = append(lines, line)
		}
	}
	return lines
}

// fastKinds are the kinds that the fast path reads in each record of
// the fixtures, when the record holds no escape.
var fastKinds = []record.Kind{
	record.KindClaimed, record.KindReleased, record.KindPosted, record.KindJoinedThread, record.KindLeftThread,
	record.KindSessionStarted, record.KindLeadSet, record.KindPauseSet, record.KindItemHeld, record.KindItemFreed,
	record.KindRiffMade, record.KindSessionForgotten, record.KindPlanSet, record.KindPlanEnded, record.KindNotesSet,
	record.KindPersonJoined, record.KindMemberInvited, record.KindMemberRemoved, record.KindAdminSet,
	record.KindOwnerSet, record.KindOwnerAsked, record.KindOwnerDenied, record.KindOwnerEnded, record.KindSigninsEnded,
	record.KindSettingChanged, record.KindRelayStarted, record.KindRelayEnded,
}

// agree checks that Decode and the fast path give what the slow path
// gives: the same error or none, the same record and the same skip. It
// reports whether the fast path read the line. The fast path reads the
// line with no decoder, then three times with a new one (whose tables
// hold each text and name of the line from its third read on: its
// second miss puts it in), and then with the shared decoder, whose
// tables hold those of the lines before.
func agree(t *testing.T, line []byte) (fast bool) {
	t.Helper()
	return agreeWith(t, record.NewDecoder(), line)
}

func agreeWith(t *testing.T, shared *record.Decoder, line []byte) (fast bool) {
	t.Helper()
	want, wantErr := record.DecodeSlow(line)
	got, err := record.Decode(line)
	if (err != nil) != (wantErr != nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("Decode(%q) = %v; the slow path %v", line, err, wantErr)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Decode(%q) mismatch (-slow +Decode):\n%s", line, diff)
	}
	r, ok := record.DecodeFast(line)
	if !ok {
		return false
	}
	if wantErr != nil {
		t.Fatalf("the fast path reads %q as %+v; the slow path: %v", line, r, wantErr)
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Fatalf("the fast path reads %q differently (-slow +fast):\n%s", line, diff)
	}
	if r.Skipped() != want.Skipped() {
		t.Fatalf("the fast path reads %q with Skipped() %v; the slow path %v", line, r.Skipped(), want.Skipped())
	}
	d := record.NewDecoder()
	for _, dec := range []*record.Decoder{d, d, d, shared} {
		got, ok := record.DecodeFastWith(dec, line)
		if !ok {
			t.Fatalf("the fast path reads %q with no decoder, not with one", line)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("the fast path reads %q with a decoder differently (-slow +fast):\n%s", line, diff)
		}
	}
	return true
}

// Each record of the fixture log and of the golden file reads the same
// on both paths, and the fast path reads each one of its kinds that
// holds no escape.
func TestFastDecodeAgreesOnFixtures(t *testing.T) {
	for _, set := range []struct {
		name  string
		lines [][]byte
	}{{"log.jsonl", fixtureLines(t)}, {"each_kind.jsonl", goldenLines(t)}} {
		t.Run(set.name, func(t *testing.T) {
			read, shared := 0, record.NewDecoder()
			for _, line := range set.lines {
				r, err := record.DecodeSlow(line)
				if err != nil {
					t.Fatalf("the slow path does not read %s: %v", line, err)
				}
				fast := agreeWith(t, shared, line)
				if fast {
					read++
				}
				if !fast && slices.Contains(fastKinds, r.Change.Kind()) && !bytes.Contains(line, []byte(`\`)) {
					t.Errorf("the fast path does not read %s", line)
				}
				// A line as Encode writes it takes the path of that form;
				// the same line with white space, the path of the keys.
				if encoded, err := record.Encode(r); fast && err == nil && bytes.Equal(encoded, line) {
					if _, ok := record.DecodeEncoded(line); !ok {
						t.Errorf("the path of the form of Encode does not read %s", line)
					}
				}
				var spaced bytes.Buffer
				if err := json.Indent(&spaced, line, "", " "); err != nil {
					t.Fatal(err)
				}
				if _, ok := record.DecodeEncoded(spaced.Bytes()); ok {
					t.Errorf("the path of the form of Encode reads %s", spaced.Bytes())
				}
				if spacedFast := agreeWith(t, shared, spaced.Bytes()); spacedFast != fast {
					t.Errorf("the fast path reads %s: %v; with no white space: %v", spaced.Bytes(), spacedFast, fast)
				}
			}
			t.Logf("the fast path reads %d of %d records", read, len(set.lines))
		})
	}
}

// fastCases are lines that the fast path reads (fast) or leaves to the
// slow path, each of which must read the same on both paths.
var fastCases = []struct {
	name string
	line string
	fast bool
}{
	{"claimed", storeClaimed, true},
	{"pause of a repository", pauseRepo, true},
	{"pause of the riff", pauseRiff, true},
	{"white space", " {\t\"position\" : 1 ,\n\"written_at_ms\":-2,\"change\": {\"plan_ended\" :{ \"thread\":\"o/r\" } } }\r\n", true},
	{"unknown field", `{"position":3,"written_at_ms":1,"call":"c1","shard":[2,{"a":null}],"change":{"plan_ended":{"thread":"o/r","why":"done"}}}`, true},
	{"unknown kind", `{"position":7,"written_at_ms":1,"change":{"wave_started":{"wave":"w1","n":[1.5e3]}}}`, true},
	{"known kind in another case", `{"position":7,"written_at_ms":1,"change":{"Plan_ended":{"thread":"o/r"}}}`, true},
	{"no by, no command", `{"position":7,"written_at_ms":1,"change":{"item_freed":{"thread":"o/r","item":"i"}}}`, true},
	{"empty to and woken", `{"position":1,"written_at_ms":1,"change":{"posted":{"thread":"o/r","seq":0,"sender":"","kind":"note","to":[],"payload":"","woken":[]}}}`, true},
	{"selectors", `{"position":1,"written_at_ms":1,"change":{"posted":{"thread":"o/r","seq":18446744073709551615,"sender":"riff://a@b","kind":"x","to":[{},{"repo":"-","lead":false,"person":true,"user":"u","session":"s","host":"h","worktree":"w","claim":"c"}],"payload":"e30="}}}`, true},
	{"session with an unknown part", `{"position":11,"written_at_ms":1,"change":{"claimed":{"session":"riff://ann@host/o/repo?session=s1&zone=é","thread":"o/repo","item":"issue-7"}}}`, true},
	{"lead_set with old", `{"position":1,"written_at_ms":1,"change":{"lead_set":{"session":"riff://a@h/o/r?session=s","thread":"o/r","old":"a/t"}}}`, true},
	{"reason of a later build", `{"position":1,"written_at_ms":1,"change":{"session_started":{"session":"riff://a@h/o/r?session=s","reason":"migrate","worker":false}}}`, true},
	{"text in UTF-8", `{"position":1,"written_at_ms":1,"command":"café","change":{"item_held":{"thread":"o/r","item":"i","reason":"wait 🙂"}}}`, true},

	{"an escape", `{"position":1,"written_at_ms":1,"command":"\u0063laim","change":{"item_freed":{"thread":"o/r","item":"i"}}}`, false},
	{"an escape in a key", `{"position":1,"written_at_ms":1,"change":{"item_freed":{"t\u0068read":"o/r","item":"i"}}}`, false},
	{"a key in another case", `{"Position":1,"written_at_ms":1,"change":{"item_freed":{"thread":"o/r","item":"i"}}}`, false},
	{"a body key in another case", `{"position":1,"written_at_ms":1,"change":{"item_freed":{"Thread":"o/r","item":"i"}}}`, false},
	{"a key twice", `{"position":1,"position":2,"written_at_ms":1,"change":{"item_freed":{"thread":"o/r","item":"i"}}}`, false},
	{"a body key twice", `{"position":1,"written_at_ms":1,"change":{"item_freed":{"thread":"o/r","item":"i","item":"j"}}}`, false},
	{"null", `{"position":null,"written_at_ms":1,"change":{"item_freed":{"thread":"o/r","item":"i"}}}`, false},
	{"null by", `{"position":1,"written_at_ms":1,"by":null,"change":{"item_freed":{"thread":"o/r","item":"i"}}}`, false},
	{"a fraction", `{"position":1.0,"written_at_ms":1,"change":{"item_freed":{"thread":"o/r","item":"i"}}}`, false},
	{"an exponent", `{"position":1,"written_at_ms":1e3,"change":{"item_freed":{"thread":"o/r","item":"i"}}}`, false},
	{"a position too big", `{"position":18446744073709551616,"written_at_ms":1,"change":{"item_freed":{"thread":"o/r","item":"i"}}}`, false},
	{"a leading zero", `{"position":01,"written_at_ms":1,"change":{"item_freed":{"thread":"o/r","item":"i"}}}`, false},
	{"no change", `{"position":1,"written_at_ms":1}`, false},
	{"no required field", `{"position":1,"written_at_ms":1,"change":{"item_freed":{"item":"i"}}}`, false},
	{"a bad item", `{"position":1,"written_at_ms":1,"change":{"item_freed":{"thread":"o/r","item":"i j"}}}`, false},
	{"by of a later build", `{"position":12,"written_at_ms":1,"by":{"robot":"r2"},"change":{"plan_ended":{"thread":"o/r"}}}`, false},
	{"scope of a later build", `{"position":8,"written_at_ms":1,"change":{"pause_set":{"scope":{"repository":"-"},"state":"paused"}}}`, false},
	{"selector of a later build", `{"position":10,"written_at_ms":1,"change":{"posted":{"thread":"o/r","seq":3,"sender":"riff://mike@pangolin","kind":"message","to":[{"team":"core"}],"payload":"e30="}}}`, false},
	{"payload with an escape", `{"position":10,"written_at_ms":1,"change":{"posted":{"thread":"o/r","seq":3,"sender":"riff://mike@pangolin","kind":"message","payload":"\u005AG9uZQ=="}}}`, false},
	{"payload with a carriage return", "{\"position\":10,\"written_at_ms\":1,\"change\":{\"posted\":{\"thread\":\"o/r\",\"seq\":3,\"sender\":\"riff://mike@pangolin\",\"kind\":\"message\",\"payload\":\"ZG9u\rZQ==\"}}}", false},
	{"payload with a new line", "{\"position\":10,\"written_at_ms\":1,\"change\":{\"posted\":{\"thread\":\"o/r\",\"seq\":3,\"sender\":\"riff://mike@pangolin\",\"kind\":\"message\",\"payload\":\"ZG9u\nZQ==\"}}}", false},
	{"payload not UTF-8", "{\"position\":10,\"written_at_ms\":1,\"change\":{\"posted\":{\"thread\":\"o/r\",\"seq\":3,\"sender\":\"riff://mike@pangolin\",\"kind\":\"message\",\"payload\":\"ZG9\xffuZQ==\"}}}", false},
	{"a cause with a brace in its text", `{"position":1,"written_at_ms":1,"by":{"session":"a}/s"},"change":{"item_freed":{"thread":"o/r","item":"i"}}}`, false},
	{"a cause with a key after its text", `{"position":1,"written_at_ms":1,"by":{"session":"a/s","x":{}},"change":{"item_freed":{"thread":"o/r","item":"i"}}}`, false},
	{"a position of 20 digits", `{"position":10000000000000000000,"written_at_ms":1,"change":{"item_freed":{"thread":"o/r","item":"i"}}}`, true},
	{"a position of 21 digits", `{"position":100000000000000000000,"written_at_ms":1,"change":{"item_freed":{"thread":"o/r","item":"i"}}}`, false},
	{"the smallest time", `{"position":1,"written_at_ms":-9223372036854775808,"change":{"item_freed":{"thread":"o/r","item":"i"}}}`, true},
	{"a session with a claim", `{"position":11,"written_at_ms":1,"change":{"claimed":{"session":"riff://ann@host/o/repo?session=s1&claim=issue-6&lead=true#wt","thread":"o/repo","item":"issue-7"}}}`, true},
	{"payload not base64", `{"position":10,"written_at_ms":1,"change":{"posted":{"thread":"o/r","seq":3,"sender":"riff://mike@pangolin","kind":"message","payload":"e30"}}}`, false},
	{"setting_changed", `{"position":16,"written_at_ms":1,"change":{"setting_changed":{"idle_workers":{"user":"mike","host":"thelio","repo":"o/r","count":-2}}}}`, true},
	{"setting_changed with no change", `{"position":16,"written_at_ms":1,"change":{"setting_changed":{}}}`, true},
	{"idle_workers with no count", `{"position":16,"written_at_ms":1,"change":{"setting_changed":{"idle_workers":{"user":"mike","host":"thelio","repo":"o/r"}}}}`, false},
	{"idle_workers null", `{"position":16,"written_at_ms":1,"change":{"setting_changed":{"idle_workers":null}}}`, false},
	{"a count too big", `{"position":16,"written_at_ms":1,"change":{"setting_changed":{"idle_workers":{"user":"mike","host":"thelio","repo":"o/r","count":9223372036854775808}}}}`, false},
	{"not UTF-8", "{\"position\":1,\"written_at_ms\":1,\"command\":\"\xff\",\"change\":{\"item_freed\":{\"thread\":\"o/r\",\"item\":\"i\"}}}", false},
	{"not JSON after the record", `{"position":1,"written_at_ms":1,"change":{"item_freed":{"thread":"o/r","item":"i"}}}x`, false},
	{"not JSON in an unknown field", `{"position":1,"written_at_ms":1,"x":[1,],"change":{"item_freed":{"thread":"o/r","item":"i"}}}`, false},
	{"a control character", "{\"position\":1,\"written_at_ms\":1,\"command\":\"a\tb\",\"change\":{\"item_freed\":{\"thread\":\"o/r\",\"item\":\"i\"}}}", false},
}

func TestFastDecodeCases(t *testing.T) {
	shared := record.NewDecoder()
	for _, tt := range fastCases {
		t.Run(tt.name, func(t *testing.T) {
			if fast := agreeWith(t, shared, []byte(tt.line)); fast != tt.fast {
				t.Errorf("the fast path reads %s: %v; want %v", tt.line, fast, tt.fast)
			}
		})
	}
}

// FuzzFastDecodeAgrees decodes any bytes with Decode, the fast path and
// the slow path: the same error or none, and the same record and skip.
func FuzzFastDecodeAgrees(f *testing.F) {
	for _, line := range fixtureLines(f) {
		f.Add(line)
	}
	for _, line := range goldenLines(f) {
		f.Add(line)
	}
	for _, tt := range fastCases {
		f.Add([]byte(tt.line))
	}
	shared := record.NewDecoder()
	f.Fuzz(func(t *testing.T, line []byte) {
		agreeWith(t, shared, line)
	})
}

// TestGivenADecodedRecordWhenItsLineIsWrittenOverThenTheRecordStays: a
// decode keeps none of the bytes of its line (a replay reads each chunk
// into a buffer that a later chunk takes): a record decoded from a line
// that is written over afterwards equals the record of a copy of the
// line. Each record of the fixtures, of the golden file and of the fast
// cases (unknown kinds, fields and classes among them), on each path.
func TestGivenADecodedRecordWhenItsLineIsWrittenOverThenTheRecordStays(t *testing.T) {
	lines := append(fixtureLines(t), goldenLines(t)...)
	for _, c := range fastCases {
		lines = append(lines, []byte(c.line))
	}
	decoders := []struct {
		name   string
		decode func([]byte) (record.Record, error)
	}{
		{"Decode", record.Decode},
		{"DecodeSlow", record.DecodeSlow},
		{"a Decoder", record.NewDecoder().Decode},
	}
	read := 0
	for _, line := range lines {
		for _, d := range decoders {
			want, wantErr := d.decode(slices.Clone(line))
			buf := slices.Clone(line)
			got, err := d.decode(buf)
			for i := range buf {
				buf[i] = '#'
			}
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("%s(%s) = %v; of a copy %v", d.name, line, err, wantErr)
			}
			if err != nil {
				continue
			}
			read++
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s(%s) changed when its line was written over (-copy +written over):\n%s", d.name, line, diff)
			}
		}
	}
	t.Logf("%d decodes of %d lines", read, len(lines))
}
