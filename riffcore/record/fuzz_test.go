package record_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/como-technologies/riff/riffcore/record"
)

// FuzzDecodeRecord checks that Decode never panics, and that a record
// that decodes encodes to a line that decodes to the same record, with
// the same skip, and that the line is then stable. The JSON that a value
// of a later build keeps compares by its meaning (see sameJSON), and an
// empty list is no list (omitempty drops it).
func FuzzDecodeRecord(f *testing.F) {
	for _, s := range []string{
		storeClaimed,
		engineClaimed,
		pauseRepo,
		pauseRiff,
		`{"position":7,"written_at_ms":1,"by":{"server":true},"command":"wave","change":{"wave_started":{"wave":"w1"}}}`,
		`{"position":8,"written_at_ms":1,"change":{"pause_set":{"scope":{"host":"thelio"},"state":"paused"}}}`,
		`{"position":9,"written_at_ms":1,"change":{"session_started":{"session":"riff://mike@pangolin/o/r?session=a6cf","reason":"migrate"}}}`,
		`{"position":10,"written_at_ms":1,"change":{"posted":{"thread":"o/r","seq":3,"sender":"riff://mike@pangolin","kind":"poll","to":[{"team":"core"}],"payload":"e30="}}}`,
		`{"position":11,"written_at_ms":1,"change":{"claimed":{"session":"riff://ann@host/o/repo?session=s1&zone=eu","thread":"o/repo","item":"issue-7"}}}`,
		`{"position":12,"written_at_ms":1,"by":{"robot":"r2"},"change":{"plan_ended":{"thread":"o/r"}}}`,
		`{"position":13,"written_at_ms":1,"change":{"setting_changed":{"idle_workers":{"user":"mike","host":"thelio","repo":"o/r","count":2}}}}`,
		`{"position":8,"written_at_ms":1,"change":{"pause_set":{"scope":"riff","state":"frozen"}}}`,
	} {
		f.Add([]byte(s))
	}
	for _, c := range oneOfEach(f) {
		line, err := record.Encode(record.Record{Position: 1, WrittenAtMs: 2, By: record.ByPerson("mike"), Command: "c", Change: c})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := record.Decode(line)
		if err != nil {
			return
		}
		out, err := record.Encode(r)
		if err != nil {
			t.Fatalf("Encode(Decode(%q)) = %v; want a line", line, err)
		}
		again, err := record.Decode(out)
		if err != nil {
			t.Fatalf("Decode(%s) = %v; want the record of %q", out, err, line)
		}
		if diff := cmp.Diff(r, again, sameJSON, emptyIsNone); diff != "" {
			t.Fatalf("Decode(Encode(Decode(%q))) mismatch (-first +again):\n%s", line, diff)
		}
		if r.Skipped() != again.Skipped() {
			t.Fatalf("Decode(%q).Skipped() = %v; after a trip %v", line, r.Skipped(), again.Skipped())
		}
		out2, err := record.Encode(again)
		if err != nil || string(out2) != string(out) {
			t.Fatalf("Encode is not stable for %q: %s then %s (%v)", line, out, out2, err)
		}
	})
}

// sameJSON compares the JSON that a value of a later build keeps (an
// Other, a by, a scope or a selector of other) by its meaning: the
// encoder writes such JSON compact, with <, > and & escaped.
// The payload of a post ([]byte) compares byte for byte.
var sameJSON = cmp.FilterPath(isRawJSON, cmp.Comparer(func(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var va, vb any
	return decodeJSON(a, &va) == nil && decodeJSON(b, &vb) == nil && cmp.Equal(va, vb)
}))

func isRawJSON(p cmp.Path) bool { return p.Last().Type() == reflect.TypeFor[json.RawMessage]() }

func decodeJSON(b []byte, v *any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// emptyIsNone equates an empty list with no list, except for kept JSON.
var emptyIsNone = cmp.FilterPath(func(p cmp.Path) bool { return !isRawJSON(p) }, cmpopts.EquateEmpty())
