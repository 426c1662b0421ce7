// Package local is the local folder of riff on this machine
// (docs/login.md, "Where the sign-in lives"; docs/agents.md, "The local
// folder"): the order of the places it may be in and its private modes
// (0700, each file 0600). It also finds the session of the Claude Code
// that runs a process (AgentSession).
//
// It never calls a riff and holds no sign-in: package signin keeps the
// sign-in of the machine under [StateDir]. The files that the door keeps
// in the folder for each session (the fact of the hooks, the ask to
// clear, the woke marks) are riffclient/door's (door.Files); the outbox
// of the refusals of auto mode is riffclient/denied's.
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

// The modes of the folder and of each file in it.
const (
	DirMode  fs.FileMode = 0o700
	FileMode fs.FileMode = 0o600
)

// Dir gives the local folder, the first of $RIFF_HOME/state,
// $XDG_RUNTIME_DIR/riff, $XDG_STATE_HOME/riff and ~/.local/state/riff
// that is set, and makes it private: mode 0700, each file in it 0600. A
// wider mode is fixed; when it cannot be, the error says so (riff cannot
// make DIR private ...: REASON. Other users can maybe read it).
func Dir(getenv func(string) string) (string, error) { return folder(getenv, true) }

// StateDir gives the local folder of what must outlive a logout, the
// stored sign-in of the machine: the first of $RIFF_HOME/state,
// $XDG_STATE_HOME/riff and ~/.local/state/riff that is set, never
// $XDG_RUNTIME_DIR (the system clears it at a logout). It is private as
// Dir is.
func StateDir(getenv func(string) string) (string, error) { return folder(getenv, false) }

// folder picks the local folder, with $XDG_RUNTIME_DIR when runtime
// says so, and makes it private.
func folder(getenv func(string) string, runtime bool) (string, error) {
	var dir string
	switch {
	case getenv("RIFF_HOME") != "":
		dir = filepath.Join(getenv("RIFF_HOME"), "state")
	case runtime && getenv("XDG_RUNTIME_DIR") != "":
		dir = filepath.Join(getenv("XDG_RUNTIME_DIR"), "riff")
	case getenv("XDG_STATE_HOME") != "":
		dir = filepath.Join(getenv("XDG_STATE_HOME"), "riff")
	case getenv("HOME") != "":
		dir = filepath.Join(getenv("HOME"), ".local", "state", "riff")
	default:
		return "", errors.New("riff has no local folder: set HOME, XDG_STATE_HOME or RIFF_HOME")
	}
	return makePrivate(dir)
}

// makePrivate makes dir private, or says why it cannot.
func makePrivate(dir string) (string, error) {
	if err := private(dir); err != nil {
		return "", fmt.Errorf("riff cannot make %s private (mode 0700, each file 0600): %s. Other users can maybe read it", dir, reason(err))
	}
	return dir, nil
}

// private makes dir with mode 0700 and narrows each wider mode in it.
func private(dir string) error {
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return err
	}
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := FileMode
		if d.IsDir() {
			want = DirMode
		}
		if info.Mode().Perm()&^want != 0 {
			return os.Chmod(path, info.Mode().Perm()&want)
		}
		return nil
	})
}

// reason gives the text of the system for err, with a capital:
// "Operation not permitted".
func reason(err error) string {
	var errno syscall.Errno
	text := err.Error()
	if errors.As(err, &errno) {
		text = errno.Error()
	}
	if text == "" {
		return text
	}
	return strings.ToUpper(text[:1]) + text[1:]
}
