// Package local is the local folder of riff: the files of this machine
// (the guide, "The local folder").
//
// This is the minimal form of the contract of issue 13 (Dir only) that
// riff relay denied needs; the full package (the facts of a session) is
// the part of another branch and takes its place at the merge.
package local

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Dir gives the local folder: the first of $RIFF_HOME/state,
// $XDG_RUNTIME_DIR/riff, $XDG_STATE_HOME/riff and ~/.local/state/riff
// that is set, made with mode 0700. A wider mode of the folder or of a
// file in it is fixed; when it cannot be, the error is the line of the
// guide.
func Dir(getenv func(string) string) (string, error) {
	dir, err := pick(getenv)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", private(dir, err)
	}
	if err := fix(dir); err != nil {
		return "", private(dir, err)
	}
	return dir, nil
}

// pick gives the first folder of the list that is set.
func pick(getenv func(string) string) (string, error) {
	if h := getenv("RIFF_HOME"); h != "" {
		return filepath.Join(h, "state"), nil
	}
	if r := getenv("XDG_RUNTIME_DIR"); r != "" {
		return filepath.Join(r, "riff"), nil
	}
	if s := getenv("XDG_STATE_HOME"); s != "" {
		return filepath.Join(s, "riff"), nil
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".local", "state", "riff"), nil
	}
	return "", errors.New("riff finds no local folder: set HOME, XDG_STATE_HOME or RIFF_HOME")
}

// fix gives the folder mode 0700 and each file in it 0600, when they are
// wider.
func fix(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if info.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return err
		}
	}
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if info.Mode().Perm()&0o077 != 0 {
			return os.Chmod(path, want)
		}
		return nil
	})
}

// private is the line of the guide when the folder cannot be private.
func private(dir string, err error) error {
	reason := err.Error()
	var errno syscall.Errno
	if errors.As(err, &errno) {
		reason = errno.Error()
		reason = strings.ToUpper(reason[:1]) + reason[1:]
	}
	return fmt.Errorf("riff cannot make %s private (mode 0700, each file 0600): %s. Other users can maybe read it", dir, reason)
}
