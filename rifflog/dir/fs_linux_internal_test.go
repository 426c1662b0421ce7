package dir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Given a Dir of the host, with renameat2 and with its fallback (link
// and remove), when a file is renamed onto a name that exists, then the
// rename fails with fs.ErrExist and changes nothing; onto a free name,
// the file has the new name only.
func TestGivenADirWhenItRenamesThenItNeverReplacesAName(t *testing.T) {
	for _, fallback := range []bool{false, true} {
		root := t.TempDir()
		d, err := OS{}.OpenDir(root)
		if err != nil {
			t.Fatal(err)
		}
		d.(*atDir).noRename.Store(fallback)
		put := func(name, data string) {
			t.Helper()
			f, err := d.CreateExcl(name)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write([]byte(data)); err != nil {
				t.Fatal(err)
			}
			if err := errors.Join(f.Sync(), f.Close()); err != nil {
				t.Fatal(err)
			}
		}
		put("taken", "first")
		put(".tmp-a", "second")
		if err := d.Rename(".tmp-a", "taken"); !errors.Is(err, fs.ErrExist) {
			t.Errorf("fallback %v: Rename onto a taken name = %v; want fs.ErrExist", fallback, err)
		}
		for name, want := range map[string]string{"taken": "first", ".tmp-a": "second"} {
			if got, err := os.ReadFile(filepath.Join(root, name)); err != nil || string(got) != want {
				t.Errorf("fallback %v: %s = %q, %v; want %q", fallback, name, got, err, want)
			}
		}
		if err := errors.Join(d.Rename(".tmp-a", "free"), d.Sync()); err != nil {
			t.Fatalf("fallback %v: Rename onto a free name = %v", fallback, err)
		}
		if _, err := os.Stat(filepath.Join(root, ".tmp-a")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("fallback %v: the old name is still there (%v)", fallback, err)
		}
		if got, _ := os.ReadFile(filepath.Join(root, "free")); string(got) != "second" {
			t.Errorf("fallback %v: free = %q; want second", fallback, got)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
