package record_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/como-technologies/riff/riffcore/record"
)

// kindsFile is the fixture that lists the kinds of each release.
const kindsFile = "../../fixtures/kinds.json"

type kindsFixture struct {
	Releases []struct {
		Release  string   `json:"release"`
		Commands []string `json:"commands"`
		Changes  []string `json:"changes"`
	} `json:"releases"`
}

func readKinds(t *testing.T) kindsFixture {
	t.Helper()
	data, err := os.ReadFile(kindsFile)
	if err != nil {
		t.Fatalf("read %s: %v", kindsFile, err)
	}
	var f kindsFixture
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("read %s: %v", kindsFile, err)
	}
	if len(f.Releases) == 0 {
		t.Fatalf("%s lists no release", kindsFile)
	}
	return f
}

// missing gives each name of want that is not in have.
func missing(want, have []string) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(have, w) {
			out = append(out, w)
		}
	}
	return out
}

// names gives the kinds as text, as the fixture lists them.
func names[K ~string](kinds []K) []string {
	var out []string
	for _, k := range kinds {
		out = append(out, string(k))
	}
	return out
}

func codeCommands() []string { return names(record.Commands()) }

func codeChanges() []string { return names(record.Kinds()) }

// The current release of kinds.json (its last) lists exactly the change
// kinds and the command kinds of the code. A kind is never renamed and a
// name is never used again, so each name of each release is in the code.
func TestKindsFixtureMatchesTheCode(t *testing.T) {
	f := readKinds(t)
	current := f.Releases[len(f.Releases)-1]
	lists := []struct {
		what       string
		file, code []string
	}{
		{"change kind", current.Changes, codeChanges()},
		{"command kind", current.Commands, codeCommands()},
	}
	for _, l := range lists {
		for _, name := range missing(l.code, l.file) {
			t.Errorf("the %s %q is in the code and not in release %s of %s", l.what, name, current.Release, kindsFile)
		}
		for _, name := range missing(l.file, l.code) {
			t.Errorf("the %s %q of release %s of %s is gone from the code", l.what, name, current.Release, kindsFile)
		}
	}
	for _, r := range f.Releases {
		for _, name := range missing(r.Changes, codeChanges()) {
			t.Errorf("the change kind %q of release %s of %s is gone from the code (a kind is never removed from the registry)", name, r.Release, kindsFile)
		}
		for _, name := range missing(r.Commands, codeCommands()) {
			t.Errorf("the command kind %q of release %s of %s is gone from the code", name, r.Release, kindsFile)
		}
	}
}

// Each name is listed once, in the code and in each release.
func TestKindsHaveNoRepeat(t *testing.T) {
	check := func(where string, names []string) {
		seen := map[string]bool{}
		for _, n := range names {
			if seen[n] {
				t.Errorf("%s lists %q twice", where, n)
			}
			seen[n] = true
		}
	}
	check("record.Kinds()", codeChanges())
	check("record.Commands()", codeCommands())
	for _, r := range readKinds(t).Releases {
		check("the changes of release "+r.Release, r.Changes)
		check("the commands of release "+r.Release, r.Commands)
	}
}

// Each kind of the registry decodes as itself, not as Other.
func TestEachKindOfTheRegistryDecodes(t *testing.T) {
	changes := oneOfEach(t)
	for _, k := range record.Kinds() {
		c, ok := changes[k]
		if !ok {
			t.Errorf("no sample change of the kind %s", k)
			continue
		}
		b, err := record.MarshalChange(c)
		if err != nil {
			t.Errorf("MarshalChange(%s) = %v", k, err)
			continue
		}
		got, err := record.UnmarshalChange(b)
		if err != nil {
			t.Errorf("UnmarshalChange(%s) = %v", b, err)
			continue
		}
		if _, other := got.(record.Other); other || got.Kind() != k {
			t.Errorf("UnmarshalChange(%s) = %T of kind %q; want the kind %s", b, got, got.Kind(), k)
		}
	}
}
