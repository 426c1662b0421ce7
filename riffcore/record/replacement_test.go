package record_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
)

// TestGivenTextThatIsNotUTF8WhenARecordIsEncodedThenEachBadByteIsTheRawReplacementCharacter:
// the log keeps one form of U+FFFD, the raw character (docs/store.md,
// "Text that is not UTF-8"), on the hand path of Encode, on the path of
// encoding/json (a kind that Encode does not write by hand, a cause of
// another build), and in json.Marshal of a record; a line that decodes
// and encodes again gives its own bytes; a line of the other form (the
// escape \ufffd, which encoding/json wrote before) reads as the same
// record and encodes in the raw form.
func TestGivenTextThatIsNotUTF8WhenARecordIsEncodedThenEachBadByteIsTheRawReplacementCharacter(t *testing.T) {
	const bad, fffd = "\xff", "\uFFFD"
	for _, tc := range []struct {
		name string
		r    record.Record
		want string
	}{
		{
			name: "by hand",
			r: record.Record{Position: 1, WrittenAtMs: 2, By: record.ByPerson("a" + bad), Command: "claim" + bad, Call: bad + "c",
				Change: record.Claimed{Session: name.SessionURI{User: "u", Host: "h", Repo: "o/r", Session: "s"}, Thread: "o/r", Item: "issue-1"}},
			want: `{"position":1,"written_at_ms":2,"by":{"person":"a` + fffd + `"},"command":"claim` + fffd + `","call":"` + fffd + `c","change":{"claimed":{"session":"riff://u@h/o/r?session=s","thread":"o/r","item":"issue-1"}}}`,
		},
		{
			name: "by encoding/json",
			r:    record.Record{Position: 3, WrittenAtMs: 4, By: record.ByServer(), Change: record.RiffMade{Riff: `x\` + bad + "\xfe" + `"\ufffd`}},
			want: `{"position":3,"written_at_ms":4,"by":{"server":true},"change":{"riff_made":{"riff":"x\\` + fffd + fffd + `\"\\ufffd"}}}`,
		},
		{
			name: "a cause of another build",
			r:    record.Record{Position: 5, WrittenAtMs: 6, By: &record.By{Class: record.ClassOther, Raw: json.RawMessage(`{"robot":"\ufffd\\ufffd"}`)}, Command: bad, Change: record.RiffMade{Riff: "r"}},
			want: `{"position":5,"written_at_ms":6,"by":{"robot":"` + fffd + `\\ufffd"},"command":"` + fffd + `","change":{"riff_made":{"riff":"r"}}}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := record.Encode(tc.r)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("Encode =\n%s\nwant\n%s", got, tc.want)
			}
			marshaled, err := json.Marshal(tc.r)
			if err != nil || !bytes.Equal(marshaled, got) {
				t.Errorf("json.Marshal = %s, %v; want the bytes of Encode", marshaled, err)
			}
			back, err := record.Decode(got)
			if err != nil {
				t.Fatalf("Decode(%s) = %v", got, err)
			}
			again, err := record.Encode(back)
			if err != nil || !bytes.Equal(again, got) {
				t.Errorf("Encode(Decode(line)) = %s, %v; want the line", again, err)
			}
			// The form that encoding/json wrote before reads the same.
			escaped := bytes.ReplaceAll(got, []byte(fffd), []byte(`\ufffd`))
			old, err := record.Decode(escaped)
			if err != nil {
				t.Fatalf("Decode(%s) = %v", escaped, err)
			}
			if again, err := record.Encode(old); err != nil || !bytes.Equal(again, got) {
				t.Errorf("Encode of the escaped form = %s, %v; want the raw form %s", again, err, got)
			}
		})
	}
}
