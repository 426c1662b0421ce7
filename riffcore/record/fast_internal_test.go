package record

import (
	"bytes"
	"encoding"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/selector"
)

// fastKinds are the kinds that the fast path must read: the work records
// of a replay and the common kinds of the log.
var fastKinds = []Kind{
	KindClaimed, KindReleased, KindPosted, KindJoinedThread, KindLeftThread, KindSessionStarted,
	KindLeadSet, KindPauseSet, KindItemHeld, KindItemFreed,
}

// tagKeys gives the JSON keys of the fields of the struct t, as
// encoding/json names them: required, each field with no omitempty and
// no omitzero; optional, the others.
func tagKeys(t *testing.T, typ reflect.Type) (required, optional []string) {
	t.Helper()
	for f := range typ.Fields() {
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		key, opts, _ := strings.Cut(tag, ",")
		if key == "" {
			key = f.Name
		}
		omit := false
		for opt := range strings.SplitSeq(opts, ",") {
			switch opt {
			case "omitempty", "omitzero":
				omit = true
			case "":
			default:
				// checkFields counts a field with any option as one
				// that may be absent: the two rules would part.
				t.Errorf("%v: the field %s has the option %q; the fast path knows only omitempty and omitzero", typ, f.Name, opt)
			}
		}
		if omit {
			optional = append(optional, key)
		} else {
			required = append(required, key)
		}
	}
	return required, optional
}

// The table of the keys of the fast path equals what the struct tags
// say, and the fast path reads each kind of fastKinds.
func TestBodyKeysMatchTheTags(t *testing.T) {
	for _, k := range Kinds() {
		required, optional, ok := bodyKeys(k)
		if !ok {
			if slices.Contains(fastKinds, k) {
				t.Errorf("bodyKeys(%s): the fast path does not read the kind", k)
			}
			continue
		}
		c, known, _ := decodeKind(k, []byte("{}"))
		if !known {
			t.Fatalf("decodeKind(%s) does not know the kind", k)
		}
		typ := reflect.TypeOf(c)
		wantRequired, wantOptional := tagKeys(t, typ)
		if got := strings.Fields(required); !slices.Equal(got, wantRequired) {
			t.Errorf("bodyKeys(%s) required = %q; the tags of %v say %q", k, got, typ, wantRequired)
		}
		if got := strings.Fields(optional); !slices.Equal(got, wantOptional) {
			t.Errorf("bodyKeys(%s) optional = %q; the tags of %v say %q", k, got, typ, wantOptional)
		}
		// checkFields goes into a field of a struct type with no decoder
		// of its own; the fast path checks no such field.
		for f := range typ.Fields() {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			pt := reflect.PointerTo(ft)
			if ft.Kind() != reflect.Struct || pt.Implements(reflect.TypeFor[json.Unmarshaler]()) ||
				pt.Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
				continue
			}
			// checkFields checks such a field field by field: the fast
			// path reads only IdleWorkers, with idleWorkersKeys.
			if ft != reflect.TypeFor[IdleWorkers]() {
				t.Errorf("%v.%s is a struct that checkFields checks field by field; the fast path does not", typ, f.Name)
				continue
			}
			required, optional := tagKeys(t, ft)
			if got := strings.Fields(idleWorkersKeys); !slices.Equal(got, required) || len(optional) > 0 {
				t.Errorf("idleWorkersKeys = %q; the tags of %v say %q required and %q optional", got, ft, required, optional)
			}
		}
	}
}

// The keys of the envelope and of a selector are the keys of their tags.
func TestEnvelopeAndSelectorKeys(t *testing.T) {
	required, optional := tagKeys(t, reflect.TypeFor[envelope]())
	if got, want := strings.Fields(envelopeKeys), append(required, optional...); !sameSet(got, want) {
		t.Errorf("envelopeKeys = %q; the tags of envelope say %q", got, want)
	}
	required, optional = tagKeys(t, reflect.TypeFor[selector.Selector]())
	if got, want := strings.Fields(selectorKeys), append(required, optional...); !sameSet(got, want) {
		t.Errorf("selectorKeys = %q; the tags of selector.Selector say %q", got, want)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(a, b)
}

// specials finds the first byte that text reads one by one, at each
// place of the 8, beside any other byte: its lowest bit is that byte's.
func TestSpecials(t *testing.T) {
	isSpecial := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }
	for c := range 256 {
		for other := range 256 {
			for place := range 8 {
				var b [8]byte
				for i := range b {
					b[i] = byte(other)
				}
				b[place] = byte(c)
				first := slices.IndexFunc(b[:], isSpecial)
				m := specials(binary.LittleEndian.Uint64(b[:]))
				if got := bits.TrailingZeros64(m) / 8; first < 0 && m != 0 || first >= 0 && got != first {
					t.Fatalf("specials(%q) = %#x, first at %d; want it at %d", b, m, got, first)
				}
			}
		}
	}
}

// Given each key of the envelope, and keys that are not of it, when
// envelopeIndex reads them, then it gives what wordIndex gives in
// envelopeKeys: the switch and the list name the same keys.
func TestEnvelopeIndexIsWordIndex(t *testing.T) {
	keys := append(strings.Fields(envelopeKeys), "", "Position", "positio", "positions", "change ", "by by", "kind")
	for _, key := range keys {
		if got, want := envelopeIndex([]byte(key)), wordIndex(envelopeKeys, []byte(key)); got != want {
			t.Errorf("envelopeIndex(%q) = %d, wordIndex = %d", key, got, want)
		}
	}
}

// TestGivenALineAsEncodeWritesItWhenItIsReadThenTheReadersOfThatFormReadItWhole:
// each record of the fixtures and of the golden file that Encode writes
// as it is there, with no escape, and whose kind the fast path reads, is
// read by the readers of the form of Encode (the envelope, and the body
// of its kind), not by those of the keys, and reads as the slow path
// reads it.
func TestGivenALineAsEncodeWritesItWhenItIsReadThenTheReadersOfThatFormReadItWhole(t *testing.T) {
	var lines [][]byte
	for _, path := range []string{"../../fixtures/1.0.0/log.jsonl", "testdata/each_kind.jsonl"} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for line := range bytes.Lines(data) {
			if line = bytes.TrimRight(line, "\r\n"); len(line) > 0 {
				lines = append(lines, line)
			}
		}
	}
	bodies := 0
	for _, line := range lines {
		want, err := decodeSlow(line)
		if err != nil {
			t.Fatalf("decodeSlow(%s) = %v", line, err)
		}
		encoded, err := Encode(want)
		if err != nil || !bytes.Equal(encoded, line) || bytes.IndexByte(line, '\\') >= 0 {
			continue
		}
		if _, _, fast := bodyKeys(want.Change.Kind()); !fast {
			continue
		}
		if _, ok := decodeEncoded(line, nil); !ok {
			t.Errorf("decodeEncoded does not read %s", line)
		}
		kind := string(want.Change.Kind())
		head := `,"change":{"` + kind + `":`
		at := bytes.Index(line, []byte(head))
		if at < 0 || !bytes.HasSuffix(line, []byte("}}")) {
			t.Fatalf("%s has no change of kind %s", line, kind)
		}
		r := reader{b: line[:len(line)-2], i: at + len(head)}
		got, ok := r.changeBodyEncoded(want.Change.Kind())
		if !ok || r.i != len(r.b) {
			t.Errorf("changeBodyEncoded does not read the body of %s (read to %d of %d)", line, r.i, len(r.b))
			continue
		}
		if !reflect.DeepEqual(got, want.Change) {
			t.Errorf("changeBodyEncoded reads %s as %#v; the slow path %#v", line, got, want.Change)
		}
		bodies++
	}
	if bodies < 20 {
		t.Errorf("only %d bodies read in the form of Encode", bodies)
	}
	t.Logf("%d bodies read in the form of Encode", bodies)
}
