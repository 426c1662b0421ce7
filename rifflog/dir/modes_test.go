//go:build unix

package dir_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/dir"
)

// The folders of the store are 0700 and its files 0600 whatever the
// umask: signins.json holds the emails of the people, the chunks their
// posts (docs/operations.md, "Start"); a umask that takes a bit of 0600
// (0277) needs the fchmod of each file. The test sets the umask of the
// process, so it runs alone (not in parallel).

// wantPrivate fails for each folder under root (root too) that is not
// 0700 and each file that is not 0600.
func wantPrivate(t *testing.T, root string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		} else {
			n++
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s has mode %04o; want %04o", p, got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 3 {
		t.Fatalf("%d files under %s; want the chunk, the checkpoint and signins.json", n, root)
	}
}

func writeEachKind(t *testing.T, s *dir.Store) {
	t.Helper()
	ctx := context.Background()
	if err := s.Put(ctx, "log/00000000000000000001.jsonl", []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, rifflog.CheckpointPrefix+"00000000000000000001.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Swap(ctx, rifflog.SignInsName, []byte(`{"version":1,"sign_ins":[]}`), 0); err != nil {
		t.Fatal(err)
	}
}

func TestGivenAnyUmaskWhenTheStoreWritesThenItsFoldersAre0700AndItsFiles0600(t *testing.T) {
	for _, umask := range []int{0o000, 0o022, 0o077, 0o277} {
		t.Run(fmt.Sprintf("umask %04o", umask), func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "riff-data", "deep")
			old := syscall.Umask(umask)
			defer syscall.Umask(old)
			s, err := dir.Open(root)
			if err != nil {
				t.Fatal(err)
			}
			writeEachKind(t, s)
			syscall.Umask(old)
			wantPrivate(t, root)
		})
	}
}

func TestGivenAFolderOfAnotherModeWhenTheStoreOpensItThenItIs0700(t *testing.T) {
	root := filepath.Join(t.TempDir(), "riff-data")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := dir.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	writeEachKind(t, s)
	wantPrivate(t, root)
}
