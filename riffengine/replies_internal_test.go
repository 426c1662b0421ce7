package riffengine

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// encoderBytes is what writeJSON wrote before the replies by hand.
func encoderBytes(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Given replies of claims and releases with texts and URIs of each kind
// of character, when they are written by hand, then the bytes are those
// of json.Encoder (the wire does not change).
func TestTheRepliesByHandAreTheBytesOfTheEncoder(t *testing.T) {
	texts := []string{"", "You hold issue-7 in o/repo.", `a "quote" and a \ back`, `only a \ back`, "tab\tnew\nline\r\x01", "<b>&amp;</b>",
		"é ü 漢字", "line\u2028sep\u2029", "bad \xff\xfe utf-8", "\x7f del"}
	uris := []name.SessionURI{
		{User: "ann", Host: "h", Repo: "o/repo", Session: "s1"},
		{User: "ann", Host: "h", Repo: "o/repo", Session: "s1", Claims: []name.Item{"issue-7", "issue-8"}},
		{User: "ann", Host: "h"},
		{},
	}
	var many []name.Item
	for i := range 1000 {
		many = append(many, name.Item("p1x"+string(rune('a'+i%26))))
	}
	uris = append(uris, name.SessionURI{User: "p1", Host: "h", Repo: "o/repo", Session: "p1", Claims: many})
	for _, raw := range []string{"riff://ann@h/o/repo?session=s1&extra=%C3%A9&claim=x", "riff://ann@h/o/repo?session=s1&x=<y>"} {
		var u name.SessionURI
		if err := u.UnmarshalJSON([]byte(`"` + raw + `"`)); err == nil {
			uris = append(uris, u)
		}
	}
	n := 0
	for _, u := range uris {
		for _, text := range texts {
			for _, v := range []any{
				wire.ClaimReply{Holder: u, Text: text},
				wire.ClaimReply{Holder: u, Warning: text, Text: "t"},
				wire.ReleaseReply{URI: u, Text: text},
				wire.ReleaseReply{URI: u, MustClear: true, Text: text},
			} {
				got, ok := appendReply(nil, v)
				if !ok {
					t.Fatalf("appendReply(%#v) has no form by hand", v)
				}
				if want := encoderBytes(t, v); !bytes.Equal(got, want) {
					t.Errorf("appendReply(%#v)\n = %s\nwant %s", v, got, want)
				}
				n++
			}
		}
	}
	if _, ok := appendReply(nil, wire.WhoReply{}); ok {
		t.Error("appendReply of a who reply has a form by hand; want the encoder")
	}
	t.Logf("%d replies compared", n)
}
