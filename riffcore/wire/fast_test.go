package wire_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// fastCases are bodies of claim and release: fast says whether the fast
// path reads them (it must, for the bodies that clients send).
var fastCases = []struct {
	name string
	body string
	fast bool
}{
	{"the body of the client", `{"me":"riff://u1@h/o/repo?session=s0001","item":"item-1"}`, true},
	{"a thread", `{"me":"riff://u1@h/o/repo?session=s0001","thread":"o/repo","item":"item-1"}`, true},
	{"another order", `{"item":"item-1","thread":"chat","me":"riff://u1@h/o/repo?session=s0001"}`, true},
	{"whitespace", " \n{ \"me\" :\t\"riff://mike@h/o/r?session=a6cf#wt\" , \"item\": \"x\" }\r\n", true},
	{"a person", `{"me":"riff://mike@h","item":"x"}`, true},
	{"an empty me", `{"me":"","item":"x"}`, true},
	{"an empty object", `{}`, true},
	{"empty strings", `{"me":"","thread":""}`, true},
	{"an empty item", `{"me":"riff://u1@h","item":""}`, false},
	{"only an empty item", `{"item":""}`, false},
	{"an item that does not read", `{"me":"riff://u1@h","item":"a b"}`, false},
	{"a URI with an escape", `{"me":"riff://u1@h/o/repo?session=s0001\u0026claim=a","item":"x"}`, false},
	{"an escape in the item", `{"me":"riff://u1@h","item":"it\"em"}`, false},
	{"an escape in the thread", `{"me":"riff://u1@h","thread":"a\u0062","item":"x"}`, false},
	{"a key twice", `{"me":"riff://u1@h","item":"a","item":"b"}`, false},
	{"a key of another case", `{"ME":"riff://u1@h","item":"a"}`, false},
	{"an unknown key", `{"me":"riff://u1@h","item":"a","more":"b"}`, false},
	{"null", `{"me":"riff://u1@h","item":null}`, false},
	{"a number", `{"me":"riff://u1@h","item":1}`, false},
	{"a URI that does not read", `{"me":"http://u1@h","item":"a"}`, false},
	{"a trailing comma", `{"me":"riff://u1@h","item":"a",}`, false},
	{"text after the object", `{"me":"riff://u1@h","item":"a"}x`, false},
	{"two objects", `{"item":"a"}{"item":"b"}`, false},
	{"no end", `{"me":"riff://u1@h","item":"a"`, false},
	{"no colon", `{"me" "riff://u1@h"}`, false},
	{"not UTF-8", "{\"me\":\"riff://u1@h\",\"item\":\"a\xff\"}", false},
	{"a control character", "{\"me\":\"riff://u1@h\",\"item\":\"a\tb\"}", false},
	{"empty", ``, false},
	{"an array", `[]`, false},
}

// decodeBoth decodes body into a zero value of T with the fast path
// and with json.Unmarshal: when the fast path reads it, json.Unmarshal
// must read it with no error, and to the same value.
func decodeBoth[T any, PT interface {
	*T
	DecodeFast([]byte) bool
}](t *testing.T, body []byte) bool {
	t.Helper()
	var fast, slow T
	ok := PT(&fast).DecodeFast(body)
	err := json.Unmarshal(body, &slow)
	if !ok {
		if !reflect.DeepEqual(fast, *new(T)) {
			t.Errorf("the fast path changed the value of a body that it does not read: %q gave %#v", body, fast)
		}
		return false
	}
	if err != nil {
		t.Errorf("the fast path reads %q, and json.Unmarshal gives %v", body, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Errorf("the fast path reads %q as\n%#v\nand json.Unmarshal as\n%#v", body, fast, slow)
	}
	return true
}

func TestGivenTheBodiesOfClaimAndReleaseWhenDecodedFastThenEachIsWhatEncodingJSONGives(t *testing.T) {
	for _, tt := range fastCases {
		t.Run(tt.name, func(t *testing.T) {
			claim := decodeBoth[wire.Claim](t, []byte(tt.body))
			release := decodeBoth[wire.Release](t, []byte(tt.body))
			if claim != tt.fast || release != tt.fast {
				t.Errorf("the fast path reads %s: claim %v, release %v; want %v", tt.body, claim, release, tt.fast)
			}
		})
	}
}

func TestGivenTheBodyThatAClientSendsWhenDecodedFastThenTheFastPathReadsIt(t *testing.T) {
	me := name.SessionURI{User: "mike", Host: "pangolin", Repo: "o/riff", Session: "a6cf0123", Worktree: "issue-6"}
	for _, call := range []any{
		wire.Claim{Me: me, Item: "issue-12"},
		wire.Claim{Me: me, Thread: "chat", Item: "issue-12"},
		wire.Release{Me: me, Item: "issue-12"},
		wire.Release{Me: me.Bare(), Thread: "o/riff", Item: "verify-issue-12"},
	} {
		body, err := json.Marshal(call)
		if err != nil {
			t.Fatal(err)
		}
		var fast bool
		switch call.(type) {
		case wire.Claim:
			fast = decodeBoth[wire.Claim](t, body)
		case wire.Release:
			fast = decodeBoth[wire.Release](t, body)
		}
		if !fast {
			t.Errorf("the fast path does not read the body of the client %s", body)
		}
	}
}

// The fast path knows the fields of Claim and Release: a new field must
// come to decodeWork too, or its value would be lost on the fast path.
func TestGivenClaimAndReleaseWhenTheirFieldsAreReadThenTheyAreTheFieldsOfTheFastPath(t *testing.T) {
	want := []string{"Me name.SessionURI me", "Thread string thread,omitempty", "Item name.Item item"}
	for _, typ := range []reflect.Type{reflect.TypeFor[wire.Claim](), reflect.TypeFor[wire.Release]()} {
		var got []string
		for f := range typ.Fields() {
			got = append(got, f.Name+" "+f.Type.String()+" "+f.Tag.Get("json"))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("the fields of %s are %q; the fast path reads %q", typ, got, want)
		}
	}
}

// FuzzFastDecodeIsTheDecodeOfEncodingJSON decodes any bytes as a claim
// and as a release with the fast path and with json.Unmarshal: what the
// fast path reads, json.Unmarshal reads with no error and to the same
// value.
func FuzzFastDecodeIsTheDecodeOfEncodingJSON(f *testing.F) {
	for _, tt := range fastCases {
		f.Add([]byte(tt.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		decodeBoth[wire.Claim](t, body)
		decodeBoth[wire.Release](t, body)
	})
}
