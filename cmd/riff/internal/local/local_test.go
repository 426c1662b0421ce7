package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestGivenTheEnvWhenRiffFindsItsLocalFolderThenItTakesTheFirstThatIsSet(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"RIFF_HOME", map[string]string{"RIFF_HOME": "/h", "XDG_RUNTIME_DIR": "/r", "XDG_STATE_HOME": "/s", "HOME": "/home/a"}, "/h/state"},
		{"XDG_RUNTIME_DIR", map[string]string{"XDG_RUNTIME_DIR": "/r", "XDG_STATE_HOME": "/s", "HOME": "/home/a"}, "/r/riff"},
		{"XDG_STATE_HOME", map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/home/a"}, "/s/riff"},
		{"HOME", map[string]string{"HOME": "/home/a"}, "/home/a/.local/state/riff"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := pick(env(tc.env))
			if err != nil || got != tc.want {
				t.Errorf("pick = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestGivenAWiderModeWhenRiffStartsThenItMakesTheFolderPrivate(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "state")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "kept")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := Dir(env(map[string]string{"RIFF_HOME": home}))
	if err != nil || got != dir {
		t.Fatalf("Dir = %q, %v; want %q", got, err, dir)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, file: 0o600} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s has mode %o; want %o", path, info.Mode().Perm(), want)
		}
	}
}

func TestGivenAFolderThatRiffCannotMakeWhenItStartsThenItSaysWhyInTheWordsOfTheGuide(t *testing.T) {
	home := t.TempDir()
	// A file where the folder must be: riff cannot make the folder.
	if err := os.WriteFile(filepath.Join(home, "state"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Dir(env(map[string]string{"RIFF_HOME": home}))
	if err == nil || !strings.HasPrefix(err.Error(), "riff cannot make "+filepath.Join(home, "state")+" private (mode 0700, each file 0600): ") ||
		!strings.HasSuffix(err.Error(), ". Other users can maybe read it") {
		t.Errorf("Dir error = %v; want the line of the guide", err)
	}
}
