package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestGivenTheVariablesWhenRiffFindsItsLocalFolderThenItTakesTheFirstThatIsSet(t *testing.T) {
	root := t.TempDir()
	all := map[string]string{
		"RIFF_HOME":       filepath.Join(root, "rh"),
		"XDG_RUNTIME_DIR": filepath.Join(root, "run"),
		"XDG_STATE_HOME":  filepath.Join(root, "state"),
		"HOME":            filepath.Join(root, "home"),
	}
	for _, tc := range []struct {
		unset []string
		want  string
	}{
		{nil, filepath.Join(root, "rh", "state")},
		{[]string{"RIFF_HOME"}, filepath.Join(root, "run", "riff")},
		{[]string{"RIFF_HOME", "XDG_RUNTIME_DIR"}, filepath.Join(root, "state", "riff")},
		{[]string{"RIFF_HOME", "XDG_RUNTIME_DIR", "XDG_STATE_HOME"}, filepath.Join(root, "home", ".local", "state", "riff")},
	} {
		m := map[string]string{}
		for k, v := range all {
			m[k] = v
		}
		for _, k := range tc.unset {
			delete(m, k)
		}
		got, err := Dir(env(m))
		if err != nil || got != tc.want {
			t.Errorf("Dir without %v = %q, %v; want %q", tc.unset, got, err, tc.want)
			continue
		}
		if info, err := os.Stat(got); err != nil || info.Mode().Perm() != DirMode {
			t.Errorf("mode of %s = %v, %v; want %v", got, info.Mode().Perm(), err, DirMode)
		}
	}
}

func TestGivenAWiderModeWhenRiffStartsThenItMakesTheFolderPrivate(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "state")
	if err := os.MkdirAll(filepath.Join(dir, "sessions", "s1"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "sessions", "s1", "fact")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Dir(env(map[string]string{"RIFF_HOME": home})); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{dir: DirMode, filepath.Join(dir, "sessions", "s1"): DirMode, file: FileMode} {
		if info, err := os.Stat(path); err != nil || info.Mode().Perm() != want {
			t.Errorf("mode of %s = %v, %v; want %v", path, info.Mode().Perm(), err, want)
		}
	}
}

func TestGivenAFolderThatCannotBeMadeWhenRiffStartsThenItSaysWhy(t *testing.T) {
	home := t.TempDir()
	// A file where the folder must be.
	if err := os.WriteFile(filepath.Join(home, "state"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Dir(env(map[string]string{"RIFF_HOME": home}))
	want := "riff cannot make " + filepath.Join(home, "state") + " private (mode 0700, each file 0600): "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), ". Other users can maybe read it") {
		t.Fatalf("Dir = %v; want the line %q…", err, want)
	}
	if got := strings.TrimPrefix(err.Error(), want); got[0] < 'A' || got[0] > 'Z' {
		t.Errorf("the reason %q starts with no capital, as Operation not permitted", got)
	}
}

func TestGivenNoFactWhenReadThenItIsTheZeroFact(t *testing.T) {
	f, err := ReadFact(t.TempDir(), "s1")
	if err != nil || f != (Fact{}) {
		t.Errorf("ReadFact = %+v, %v; want the zero fact", f, err)
	}
}

func TestGivenAFactWhenWrittenThenItReadsBackInAPrivateFile(t *testing.T) {
	dir := t.TempDir()
	want := Fact{Activity: "runs Bash: run the tests", ActivityAtMs: 5, PromptAtMs: 3, Tool: "Bash"}
	if err := WriteFact(dir, "s1", want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFact(dir, "s1")
	if err != nil || got != want {
		t.Errorf("ReadFact = %+v, %v; want %+v", got, err, want)
	}
	info, err := os.Stat(filepath.Join(dir, "sessions", "s1", "fact"))
	if err != nil || info.Mode().Perm() != FileMode {
		t.Errorf("mode of the fact = %v, %v; want %v", info.Mode().Perm(), err, FileMode)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "sessions", "s1"))
	if len(entries) != 1 {
		t.Errorf("the folder of the session holds %d files; want only the fact (no temp file)", len(entries))
	}
}

func TestGivenASessionIDThatNamesAnotherPathWhenAFactIsWrittenThenItIsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{"../x", "a/b", ""} {
		if err := WriteFact(dir, id, Fact{}); err == nil {
			t.Errorf("WriteFact(%q) = nil; want an error", id)
		}
	}
}

func TestGivenAFactWhenAKeepAliveCarriesItThenItHasTheAgesOfTheFactAndOfThePrompt(t *testing.T) {
	me := name.SessionURI{User: "ann", Host: "h", Session: "s1"}
	f := Fact{Activity: "runs Bash: run just ci", ActivityAtMs: 1_000, PromptAtMs: 500}
	a := f.Alive(me, 241_000)
	if a.Me.String() != me.String() || a.Activity != "runs Bash: run just ci" || a.ActivitySecs == nil || *a.ActivitySecs != 240 || a.PromptSecs == nil || *a.PromptSecs != 240 {
		t.Errorf("Alive = %+v; want the activity 240 s old and the prompt 240 s old", a)
	}
	if a := (Fact{}).Alive(me, 5); a.Activity != "" || a.ActivitySecs != nil || a.PromptSecs != nil {
		t.Errorf("Alive of no fact = %+v; want only me", a)
	}
}

func TestGivenAnAskToClearWhenItIsKeptAndRemovedThenClearSaysSo(t *testing.T) {
	dir := t.TempDir()
	for _, ask := range []bool{true, false, false} {
		if err := SetClear(dir, "s1", ask); err != nil {
			t.Fatal(err)
		}
		if got, err := Clear(dir, "s1"); err != nil || got != ask {
			t.Errorf("Clear after SetClear(%v) = %v, %v", ask, got, err)
		}
	}
}

func TestGivenPrintedWakesWhenWrittenThenTheyReadBack(t *testing.T) {
	dir := t.TempDir()
	if w, err := ReadWoke(dir, "s1"); err != nil || len(w) != 0 {
		t.Fatalf("ReadWoke of none = %v, %v", w, err)
	}
	if err := WriteWoke(dir, "s1", Woke{"chat": 3, "dm:ann": 7}); err != nil {
		t.Fatal(err)
	}
	if w, err := ReadWoke(dir, "s1"); err != nil || w["chat"] != 3 || w["dm:ann"] != 7 {
		t.Errorf("ReadWoke = %v, %v", w, err)
	}
}

func TestGivenARuntimeFolderWhenRiffFindsTheFolderOfTheSignInThenItIsNeverTheRuntimeFolder(t *testing.T) {
	root := t.TempDir()
	m := map[string]string{
		"XDG_RUNTIME_DIR": filepath.Join(root, "run"),
		"HOME":            filepath.Join(root, "home"),
	}
	got, err := StateDir(env(m))
	if want := filepath.Join(root, "home", ".local", "state", "riff"); err != nil || got != want {
		t.Errorf("StateDir = %q, %v; want %q: a logout clears the runtime folder", got, err, want)
	}
	m["XDG_STATE_HOME"] = filepath.Join(root, "state")
	if got, _ := StateDir(env(m)); got != filepath.Join(root, "state", "riff") {
		t.Errorf("StateDir = %q; want the folder of XDG_STATE_HOME", got)
	}
	m["RIFF_HOME"] = filepath.Join(root, "rh")
	got, err = StateDir(env(m))
	if err != nil || got != filepath.Join(root, "rh", "state") {
		t.Errorf("StateDir = %q, %v; want the folder of RIFF_HOME", got, err)
	}
	if info, err := os.Stat(got); err != nil || info.Mode().Perm() != DirMode {
		t.Errorf("mode of %s: %v; want %v", got, err, DirMode)
	}
}
