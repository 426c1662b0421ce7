package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
