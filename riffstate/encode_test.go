package riffstate

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
)

// handEncoded checks that appendCheckpoint(cp) gives json.Marshal(cp).
func handEncoded(t *testing.T, what string, cp Checkpoint) {
	t.Helper()
	want, err := json.Marshal(cp)
	if err != nil {
		t.Fatal(err)
	}
	got, err := appendCheckpoint(nil, cp)
	if err != nil {
		t.Fatalf("%s: appendCheckpoint = %v", what, err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s: the hand encoder differs from json.Marshal at byte %d:\n got %s\nwant %s", what, i, got[max(0, i-80):min(len(got), i+80)], want[max(0, i-80):min(len(want), i+80)])
	}
}

// Given the states of many generated histories (sessions, threads with
// messages, claims, holds, pauses, people, signals of the presence,
// answered calls), when the checkpoint is written by hand, then its
// bytes are those of json.Marshal, at each position.
func TestGivenGeneratedStatesWhenTheCheckpointIsWrittenByHandThenItsBytesAreThoseOfMarshal(t *testing.T) {
	checked := 0
	for seed := range uint64(40) {
		calls := generate(seed, 200)
		s := New(Options{Build: "test"})
		twin := New(s.opts)
		for i := 0; i < len(calls); i += 1 + int(seed%5) {
			drive(t, s, calls[i:min(len(calls), i+1+int(seed%5))])
			handEncoded(t, "a generated state", s.Checkpoint())
			checked++
		}
		// The riff as a replay gives it, with no presence.
		_, made := drive(t, twin, calls)
		r := New(Options{Build: "test"})
		r.Replay(made...)
		handEncoded(t, "a replayed state", r.Checkpoint())
	}
	if checked < 1000 {
		t.Errorf("the property compared %d checkpoints; want at least 1,000", checked)
	}
}

// Given the rare forms of each part (strings that JSON escapes, bytes
// that are not UTF-8, nil maps and nil entries, each optional field set
// and unset), when the checkpoint is written by hand, then its bytes are
// those of json.Marshal.
func TestGivenTheRareFormsWhenTheCheckpointIsWrittenByHandThenItsBytesAreThoseOfMarshal(t *testing.T) {
	odd := []string{"", "plain", `a"b\c`, "<tag>&amp;", "tab\there\nline\r\b\f\x00\x1f\x7f", "\u2028\u2029", "é ü 中", "bad \xff\xfe utf8 \xc3", "\xe2\x80"}
	uri := name.SessionURI{User: "u", Host: "h", Repo: "o/r", Session: "s1", Claims: []name.Item{"a&b", "c"}, Lead: true, Worktree: "wt", Unknown: []string{"x=<y>"}}
	for i, text := range odd {
		r := NewRiff()
		r.ID, r.Position, r.Warnings, r.Skipped = text, uint64(i), 3, uint64(i)
		if i%2 == 0 {
			r.FirstSkipped, r.SignedSweptMs, r.Signed = 9, -5, map[string]int64{text: 1, "z": -2}
		}
		r.Sessions[text] = &Session{URI: uri, Worker: i%2 == 1, Life: Life(text), FreshMs: int64(i), LastMs: -1,
			Claims: []ClaimRef{{Thread: name.Thread(text), Item: name.Item(text)}, {Thread: "o/r", Item: "i"}}, ReleasedMs: int64(i % 2), Relays: []string{text, "r2"}}
		r.Sessions["b"] = &Session{Life: Ready}
		r.Sessions["nil"] = nil
		r.Threads[name.Thread(text)] = &Thread{Name: name.Thread(text), LastSeq: 7, Members: map[string]uint64{text: 1, "m": 2},
			Messages: []Message{{Posted: record.Posted{Sender: uri, Thread: "o/r", Seq: 1, Key: text, Payload: []byte(text)}, Position: 4, AtMs: 5}}}
		r.Threads["no members"] = &Thread{Name: "x"}
		r.Threads["nil"] = nil
		r.Claims[text] = &Holding{Holder: name.Who{User: text, Session: text}, URI: uri, Thread: "o/r", Item: name.Item(text), AtMs: 2}
		r.Claims["person"] = &Holding{Holder: name.Who{User: "p"}, Thread: "t", Item: "i"}
		r.Claims["nil"] = nil
		r.Leads[text] = name.Who{User: text, Session: "s"}
		r.Leads["person"] = name.Who{User: "p"}
		r.Holds[text] = &HoldInfo{Thread: "t", Item: "i", Reason: text}
		r.Plans[name.Thread(text)] = &Plan{Text: text}
		r.Notes[text] = &Notes{Text: text, History: []NoteVersion{{Text: text}}}
		cp := Checkpoint{Version: text, Position: uint64(i), Riff: r,
			Cursors: map[string]map[name.Thread]uint64{text: {name.Thread(text): 1, "b": 2}, "nil": nil, "empty": {}},
			Lives: map[string]*SavedLive{
				text:     {Status: &TextAt{Text: text, AtMs: 1}, Step: &Step{Name: text, StartMs: 2, Failed: text}, CalledMs: 3, Block: &Block{Text: text, AnsweredMs: 4}, Daemon: true},
				"called": {CalledMs: 9},
				"daemon": {Daemon: true},
				"block":  {Block: &Block{Text: "b"}, Daemon: true},
				"empty":  {},
				"nil":    nil,
			},
			Calls: []SavedCall{{Key: Key{Caller: text, Call: text}, AtMs: 1, Kind: text, Sum: "s"}}}
		handEncoded(t, "rare forms "+strings.ToValidUTF8(text, "?"), cp)
		// Nil maps and no riff encode as null; empty optional parts go.
		handEncoded(t, "nil maps", Checkpoint{Version: text, Riff: &Riff{Threads: map[name.Thread]*Thread{"t": {}}}})
		handEncoded(t, "no riff", Checkpoint{Version: text, Lives: map[string]*SavedLive{}, Cursors: map[string]map[name.Thread]uint64{}})
	}
}

// The hand encoder writes the fields of these types by name: a field
// that it does not know (one added later) would be left out of the
// checkpoint. This test lists the fields that it writes; a new field
// fails it until appendCheckpoint writes the field too (and this list
// names it).
func TestTheHandEncoderKnowsEachFieldOfTheCheckpoint(t *testing.T) {
	known := map[reflect.Type][]string{
		reflect.TypeFor[Checkpoint](): {"version", "position", "riff", "cursors,omitempty", "lives,omitempty", "calls,omitempty"},
		reflect.TypeFor[Riff](): {"id,omitempty", "position", "sessions", "threads", "claims", "leads", "pauses", "holds", "plans", "notes",
			"idle", "people", "warnings", "skipped", "first_skipped,omitempty", "signed,omitempty", "signed_swept_ms,omitempty"},
		reflect.TypeFor[Session]():   {"uri", "worker,omitempty", "life", "fresh_ms,omitempty", "last_ms", "claims,omitempty", "released_ms,omitempty", "relays,omitempty"},
		reflect.TypeFor[ClaimRef]():  {"thread", "item"},
		reflect.TypeFor[Holding]():   {"holder", "uri,omitzero", "thread", "item", "at_ms"},
		reflect.TypeFor[Thread]():    {"name", "last_seq", "members", "messages,omitempty"},
		reflect.TypeFor[SavedLive](): {"status,omitempty", "step,omitempty", "called_ms,omitempty", "block,omitempty", "daemon,omitempty"},
	}
	for typ, want := range known {
		var got []string
		for f := range typ.Fields() {
			if !f.IsExported() {
				continue // no part of the JSON
			}
			got = append(got, f.Tag.Get("json"))
		}
		if !slices.Equal(got, want) {
			t.Errorf("the fields of %s are %q; the hand encoder (encode.go) writes %q: write the new field there, then name it here", typ, got, want)
		}
	}
	// The types that it writes as plain values: a method of their own
	// would change their JSON.
	for _, typ := range []reflect.Type{reflect.TypeFor[Life](), reflect.TypeFor[name.Thread](), reflect.TypeFor[name.Item]()} {
		if _, ok := reflect.New(typ).Interface().(json.Marshaler); ok {
			t.Errorf("%s has a MarshalJSON: the hand encoder writes it as a plain string", typ)
		}
	}
}

// FuzzAppendJSONString: the strings of the hand encoder are those of
// json.Marshal, for any bytes.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "a", `"\`, "<>&", "\u2028\u2029", "\x00\x1f\x7f\b\f\n\r\t", "\xff", "\xe2\x80\xa8x", "é中\U0001F600", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString([]byte("x"), s); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Fatalf("appendJSONString(%q) = %s; json.Marshal gives %s", s, got[1:], want)
		}
	})
}

// freshCheckpoint is the checkpoint of a riff of n sessions of the
// fresh-session load of issue 23: each one claim in its repository
// thread, a member of it, with the time of its last call.
func freshCheckpoint(n int) Checkpoint {
	r := NewRiff()
	t := &Thread{Name: "o/repo", Members: map[string]uint64{}}
	r.Threads["o/repo"] = t
	lives := map[string]*SavedLive{}
	for i := range n {
		uri := name.SessionURI{User: "f" + strconv.Itoa(i%64), Host: "h", Repo: "o/repo", Session: "f" + strconv.Itoa(i%64) + "x" + strconv.Itoa(i)}
		who := uri.Who().String()
		item := name.Item(uri.Session)
		r.Sessions[who] = &Session{URI: uri, Life: Working, LastMs: 1796198607416 + int64(i), Claims: []ClaimRef{{Thread: "o/repo", Item: item}}}
		r.Claims[claimKey("o/repo", item)] = &Holding{Holder: uri.Who(), URI: uri, Thread: "o/repo", Item: item, AtMs: 1796198607416 + int64(i)}
		t.Members[who] = 0
		lives[who] = &SavedLive{CalledMs: 1796198607416 + int64(i)}
	}
	return Checkpoint{Version: "0.1.0", Position: uint64(3 * n), Riff: r, Lives: lives}
}

// BenchmarkCheckpointEncodeFresh: the checkpoint of 80,000 fresh
// sessions (about 28 MB), by json.Marshal and by the hand encoder.
//
//	cd riffstate && go test -run '^$' -bench CheckpointEncodeFresh -benchtime 5x .
func BenchmarkCheckpointEncodeFresh(b *testing.B) {
	cp := freshCheckpoint(80000)
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(cp); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hand", func(b *testing.B) {
		// The engine gives a buffer of the size of the last checkpoint.
		size := len(jsonOf(b, cp)) + 1<<16
		b.ReportAllocs()
		for b.Loop() {
			if _, err := appendCheckpoint(make([]byte, 0, size), cp); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// FuzzAppendWhoIsTheMarshalOfItsString: the holder of a claim and a lead
// are written as json.Marshal writes Who.String(), for any user and
// session (a byte that is not UTF-8 at the end of the user too).
func FuzzAppendWhoIsTheMarshalOfItsString(f *testing.F) {
	for _, s := range [][2]string{{"mike", "a6cf"}, {"mike", ""}, {"\xe2\x80", "x"}, {"<&>", "\u2028"}, {"\xff", "\xff"}, {"", ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, user, session string) {
		w := name.Who{User: user, Session: session}
		want, err := json.Marshal(w.String())
		if err != nil {
			t.Fatal(err)
		}
		if got := appendWho([]byte("x"), w); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Fatalf("appendWho(%q) = %s; json.Marshal gives %s", w, got[1:], want)
		}
	})
}
