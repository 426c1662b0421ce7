package record_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
)

// encodeAgrees checks that Encode writes r as json.Marshal does (the
// reference), or fails as it does.
func encodeAgrees(t *testing.T, r record.Record) {
	t.Helper()
	want, wantErr := json.Marshal(r)
	got, err := record.Encode(r)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("Encode(%+v) error %v; json.Marshal error %v", r, err, wantErr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Encode writes\n%s\njson.Marshal writes\n%s", got, want)
	}
}

// Each record of the fixture log and of the golden file encodes to the
// same bytes as json.Marshal, with each cause and with strings that need
// each kind of escape.
func TestEncodeAgreesWithMarshal(t *testing.T) {
	lines := append(fixtureLines(t), goldenLines(t)...)
	bys := []*record.By{nil, record.ByServer(), record.ByPerson(`a<b>&"c"`),
		record.BySession(name.Who{User: "mike", Session: "a6cf"}),
		{Class: record.ClassSignIn, Who: name.Who{User: "x\u2028y\u2029z\x01\x1f\b\f\n\r\t\\"}},
		{Class: record.ClassOther, Raw: json.RawMessage(`{"robot":1}`)}, {}}
	texts := []string{"", "claim", "a<b>&c", "\xff\xfe bad utf-8 \xc3", "é ü \u2028 \u2029 \U0001F600", "\x00\x7f"}
	for _, line := range lines {
		r, err := record.Decode(line)
		if err != nil {
			t.Fatalf("Decode(%s) = %v", line, err)
		}
		encodeAgrees(t, r)
		for i, by := range bys {
			r.By = by
			r.Command = texts[i%len(texts)]
			r.Call = texts[(i+3)%len(texts)]
			encodeAgrees(t, r)
		}
	}
	encodeAgrees(t, record.Record{Position: 1})
	// The kinds that Encode writes by hand, with each optional field and
	// with texts that need escapes.
	uri := name.SessionURI{User: "a<b", Host: "h&i", Repo: "o/r", Session: "s\u2028\xff", Claims: []name.Item{"x>y"}}
	for _, text := range texts {
		thread, item := name.Thread("o/r"+text), name.Item("issue-"+text)
		for _, c := range []record.Change{
			record.Claimed{Session: uri, Thread: thread, Item: item},
			record.Released{Session: uri, Thread: thread, Item: item},
			record.Released{Session: uri, Thread: thread, Item: item, MustClear: true},
			record.JoinedThread{Session: uri, Thread: thread},
			record.LeftThread{Session: uri, Thread: thread},
		} {
			encodeAgrees(t, record.Record{Position: 9, WrittenAtMs: 7, By: record.ByServer(), Command: text, Change: c})
		}
	}
}

// FuzzEncodeAgrees encodes each line that decodes, with the command and
// the call of the input, on both paths: the same bytes.
func FuzzEncodeAgrees(f *testing.F) {
	for _, line := range fixtureLines(f) {
		f.Add(line, "claim", "01M3X4Z60G1FXQTDC5XDJ05BAX")
	}
	f.Add([]byte(`{"position":1,"written_at_ms":2,"change":{"claimed":{"session":"riff://a@h/o/r?session=s1","thread":"o/r","item":"i<1>"}}}`), "a&b", "\xff\u2028")
	f.Fuzz(func(t *testing.T, line []byte, command, call string) {
		r, err := record.Decode(line)
		if err != nil {
			return
		}
		encodeAgrees(t, r)
		r.Command, r.Call = command, call
		encodeAgrees(t, r)
	})
}

// BenchmarkEncode encodes the records of the fixture log, one an op.
func BenchmarkEncode(b *testing.B) {
	var records []record.Record
	for _, line := range fixtureLines(b) {
		r, err := record.Decode(line)
		if err != nil {
			b.Fatal(err)
		}
		records = append(records, r)
	}
	for _, enc := range []struct {
		name string
		fn   func(record.Record) ([]byte, error)
	}{
		{"Encode", record.Encode},
		{"Marshal", func(r record.Record) ([]byte, error) { return json.Marshal(r) }},
	} {
		b.Run(enc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := enc.fn(records[i%len(records)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
