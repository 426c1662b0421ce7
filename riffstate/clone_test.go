package riffstate

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
)

// clonedRiffs gives riffs whose maps, slices and pointers hold values:
// those of long generated logs (the work of sessions, and the people of a
// riff with sign-in), and one with each field set by hand that the
// generators leave empty.
func clonedRiffs(t *testing.T) []*Riff {
	t.Helper()
	_, work := longLog(t, 11, 600)
	_, people, _ := drivePeople(t, generatePeople(3, 400))
	by := record.BySession(whoOf("ann/a001"))
	hand := NewRiff()
	hand.Sessions["x"] = &Session{URI: uri("ann/a001"), Claims: []ClaimRef{{Thread: "o/repo", Item: "issue-1"}}, Relays: []string{"relay-1"}}
	hand.Sessions["nil"] = nil
	hand.Threads["o/repo"] = &Thread{Name: "o/repo", Members: map[string]uint64{"ann/a001": 1},
		Messages: []Message{{Posted: record.Posted{Thread: "o/repo", Payload: []byte(`{}`), Woken: []name.Who{whoOf("bob/b001")}}}}}
	// A thread past KeptMessages, whose messages move in its array.
	busy := &Thread{Name: "o/busy", Members: map[string]uint64{}}
	for seq := range uint64(KeptMessages + 1) {
		busy.keepMessage(Message{Posted: record.Posted{Thread: "o/busy", Seq: seq + 1}})
	}
	hand.Threads["o/busy"] = busy
	hand.Claims["k"] = &Holding{Holder: whoOf("ann/a001"), Item: "issue-1"}
	hand.Leads["ann o/repo"] = whoOf("ann/a001")
	hand.Pauses.Riff = &PauseInfo{By: by, AtMs: 1}
	hand.Pauses.Repos["o/repo"] = &PauseInfo{By: by, AtMs: 2}
	hand.Holds["k"] = &HoldInfo{Item: "issue-1", By: by}
	hand.Plans["o/repo"] = &Plan{Text: "plan", By: by}
	hand.Notes["ann o/repo"] = &Notes{Text: "b", History: []NoteVersion{{Text: "a", By: by}}}
	hand.Idle["ann host o/repo"] = record.IdleWorkers{User: "ann", Count: 2}
	hand.People = People{Emails: map[string]string{"ann": "ann@example.com"}, Members: []string{"ann"}, Admins: []string{"ann"},
		Ended: map[string]uint64{"bob@example.com": 3}, EndedUsers: map[string]uint64{"bob": 3}, Removed: []string{"bob@example.com"}}
	hand.Signed = map[string]int64{"hash": 4}
	return []*Riff{work.written, people.written, hand}
}

// shared tells whether a value of the riff may be shared with the
// clone: what comes from a record and that nothing changes in place (the
// cause of a record, a kept message, a session URI with its marks).
func shared(_ string, typ reflect.Type) bool {
	switch typ {
	case reflect.TypeFor[*record.By](), reflect.TypeFor[record.Posted](), reflect.TypeFor[name.SessionURI]():
		return true
	}
	return false
}

// walk calls fn with the address of each map, each slice with an array
// and each pointer reachable from v, with its path, except below what
// may be shared.
func walk(path string, v reflect.Value, fn func(path string, addr uintptr)) {
	if shared(path, v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		fn(path, v.Pointer())
		walk(path+".*", v.Elem(), fn)
	case reflect.Map:
		if v.IsNil() {
			return
		}
		fn(path, v.Pointer())
		iter := v.MapRange()
		for iter.Next() {
			walk(fmt.Sprintf("%s[%v]", path, iter.Key()), iter.Value(), fn)
		}
	case reflect.Slice:
		if v.Cap() > 0 {
			fn(path, v.Pointer())
		}
		for i := range v.Len() {
			walk(fmt.Sprintf("%s[%d]", path, i), v.Index(i), fn)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			walk(path+"."+v.Type().Field(i).Name, v.Field(i), fn)
		}
	case reflect.Interface:
		if !v.IsNil() {
			walk(path, v.Elem(), fn)
		}
	}
}

// fieldsWithValues gives the fields of the type of the riff (by the path
// of their types, with no keys and no indexes) that hold a map, a slice
// or a pointer with a value in riff.
func fieldsWithValues(riff *Riff, seen map[string]bool) {
	var fields func(path string, v reflect.Value)
	fields = func(path string, v reflect.Value) {
		if shared(path, v.Type()) {
			return
		}
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				seen[path] = true
				fields(path, v.Elem())
			}
		case reflect.Map:
			if v.Len() > 0 {
				seen[path] = true
			}
			iter := v.MapRange()
			for iter.Next() {
				fields(path+"[]", iter.Value())
			}
		case reflect.Slice:
			if v.Len() > 0 {
				seen[path] = true
			}
			for i := range v.Len() {
				fields(path+"[]", v.Index(i))
			}
		case reflect.Struct:
			for i := range v.NumField() {
				fields(path+"."+v.Type().Field(i).Name, v.Field(i))
			}
		}
	}
	fields("riff", reflect.ValueOf(riff))
}

// fieldsOfType gives each path, as fieldsWithValues names them, of a
// map, slice or pointer that the type Riff holds.
func fieldsOfType() []string {
	var out []string
	var fields func(path string, t reflect.Type)
	fields = func(path string, t reflect.Type) {
		if shared(path, t) {
			return
		}
		switch t.Kind() {
		case reflect.Pointer:
			out = append(out, path)
			fields(path, t.Elem())
		case reflect.Map, reflect.Slice:
			out = append(out, path)
			fields(path+"[]", t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				fields(path+"."+t.Field(i).Name, t.Field(i).Type)
			}
		}
	}
	fields("riff", reflect.TypeFor[*Riff]())
	return out
}

func TestGivenARiffWhenItIsClonedThenItSharesNothingThatChanges(t *testing.T) {
	riffs := clonedRiffs(t)
	// Each map, slice and pointer that the type holds has a value in one
	// of the riffs: a field added to the riff has a value here too, or
	// this test says which.
	seen := map[string]bool{}
	for _, r := range riffs {
		fieldsWithValues(r, seen)
	}
	for _, path := range fieldsOfType() {
		if !seen[path] {
			t.Errorf("no riff of the test holds a value at %s: give it one in clonedRiffs", path)
		}
	}
	for i, r := range riffs {
		c := r.clone()
		if diff := cmp.Diff(r, c, ignoreKept); diff != "" {
			t.Fatalf("riff %d: the clone differs (-riff +clone):\n%s", i, diff)
		}
		addrs := map[uintptr]string{}
		walk("riff", reflect.ValueOf(r), func(path string, addr uintptr) { addrs[addr] = path })
		walk("riff", reflect.ValueOf(c), func(path string, addr uintptr) {
			if of, ok := addrs[addr]; ok {
				t.Errorf("riff %d: the clone's %s is the riff's %s", i, path, of)
			}
		})
	}
}

func TestGivenAStateThatOnlyReplayedWhenCallsComeThenItsCopiesAreThoseOfAReplayIntoTwoCopies(t *testing.T) {
	cases := 0
	for seed := range uint64(60) {
		calls := generate(seed, 80)
		rng := rand.New(rand.NewPCG(seed, 17))
		// The records of the first calls make the log that a start
		// replays; the calls after it come to the started state.
		cut := rng.IntN(len(calls) + 1)
		_, log := drive(t, New(Options{Build: "test"}), calls[:cut])
		one, two := New(Options{Build: "test"}), New(Options{Build: "test"})
		two.Split()
		if one.pending != one.written || two.pending == two.written {
			t.Fatalf("seed %d: New gives one riff for both copies, Split two", seed)
		}
		one.Replay(log...)
		two.Replay(log...)
		if rng.IntN(2) == 0 {
			one.Split() // as a start does; else the first call splits it
		}
		for i, c := range calls[cut:] {
			id := fmt.Sprintf("after-%d", i)
			if c.signal != nil {
				c.signal.Set(one.presence, c.caller.Who(), c.now)
				c.signal.Set(two.presence, c.caller.Who(), c.now)
				continue
			}
			madeOne, madeTwo := stepOf(one, c, id), stepOf(two, c, id)
			if !bytes.Equal(jsonOf(t, madeOne), jsonOf(t, madeTwo)) {
				t.Fatalf("seed %d, call %d after the replay of %d records: the records differ (-two copies +one riff):\n%s",
					seed, i, len(log), cmp.Diff(madeTwo, madeOne))
			}
		}
		for _, c := range []struct {
			what     string
			got, two *Riff
		}{{"pending", one.pending, two.pending}, {"written", one.written, two.written}} {
			if !bytes.Equal(jsonOf(t, c.got), jsonOf(t, c.two)) {
				t.Fatalf("seed %d: the %s copy differs (-two copies +one riff):\n%s", seed, c.what, cmp.Diff(c.two, c.got, riffOpts()))
			}
		}
		if cut < len(calls) && one.pending == one.written {
			t.Fatalf("seed %d: the copies are one riff after the calls", seed)
		}
		cases++
	}
	t.Logf("%d cases", cases)
}
