// Package local is the local folder of riff on this machine, and the
// facts of a session that the hooks keep in it (the guide, "The local
// folder"): the keep-alive of the session sends the newest fact.
//
// This is the minimal form that riff relay mcp needs; the part of issue
// 13 that builds riff relay hook owns the package and its full rules.
package local

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Dir gives the local folder: the first of $RIFF_HOME/state,
// $XDG_RUNTIME_DIR/riff, $XDG_STATE_HOME/riff and ~/.local/state/riff
// that is set. It makes the folder with mode 0700, and fixes a wider
// mode; when it cannot, the error is the line of the guide.
func Dir(getenv func(string) string) (string, error) {
	var dir string
	switch {
	case getenv("RIFF_HOME") != "":
		dir = filepath.Join(getenv("RIFF_HOME"), "state")
	case getenv("XDG_RUNTIME_DIR") != "":
		dir = filepath.Join(getenv("XDG_RUNTIME_DIR"), "riff")
	case getenv("XDG_STATE_HOME") != "":
		dir = filepath.Join(getenv("XDG_STATE_HOME"), "riff")
	case getenv("HOME") != "":
		dir = filepath.Join(getenv("HOME"), ".local", "state", "riff")
	default:
		return "", errors.New("riff has no local folder: set HOME, XDG_STATE_HOME or RIFF_HOME")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", private(dir, err)
	}
	info, err := os.Stat(dir)
	if err != nil {
		return "", private(dir, err)
	}
	if info.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return "", private(dir, err)
		}
	}
	return dir, nil
}

// private is the line of the guide when riff cannot make dir private.
func private(dir string, err error) error {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		err = pathErr.Err
	}
	msg := err.Error()
	if msg != "" {
		msg = strings.ToUpper(msg[:1]) + msg[1:]
	}
	return fmt.Errorf("riff cannot make %s private (mode 0700, each file 0600): %s. Other users can maybe read it", dir, msg)
}

// Fact is the newest fact of a session, as its hooks saw it.
type Fact struct {
	// Activity is the newest work, for example "runs Bash: run the tests".
	Activity     string `json:"activity,omitempty"`
	ActivityAtMs int64  `json:"activity_at_ms,omitempty"`
	// PromptAtMs is the time of the newest prompt of the user.
	PromptAtMs    int64 `json:"prompt_at_ms,omitempty"`
	TurnEndedAtMs int64 `json:"turn_ended_at_ms,omitempty"`
	Blocked       bool  `json:"blocked,omitempty"`
}

// Alive gives the keep-alive of me that carries the fact at nowMs.
func (f Fact) Alive(me name.SessionURI, nowMs int64) wire.Alive {
	a := wire.Alive{Me: me, Activity: f.Activity}
	if f.PromptAtMs > 0 {
		secs := max(nowMs-f.PromptAtMs, 0) / 1000
		a.PromptSecs = &secs
	}
	return a
}

// factFile is the file of the fact of a session in dir.
func factFile(dir, session string) string { return filepath.Join(dir, "fact-"+session+".json") }

// ReadFact reads the fact of session in dir: the zero Fact when there is
// none.
func ReadFact(dir, session string) (Fact, error) {
	b, err := os.ReadFile(factFile(dir, session))
	if errors.Is(err, fs.ErrNotExist) {
		return Fact{}, nil
	}
	if err != nil {
		return Fact{}, err
	}
	var f Fact
	if err := json.Unmarshal(b, &f); err != nil {
		return Fact{}, fmt.Errorf("the fact of session %s is not JSON: %w", session, err)
	}
	return f, nil
}

// WriteFact writes the fact of session in dir at once: a temp file, then
// a rename, mode 0600.
func WriteFact(dir, session string, f Fact) error {
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return WriteFile(factFile(dir, session), b)
}

// WriteFile writes b to path at once: a temp file of mode 0600 in the
// same folder, then a rename.
func WriteFile(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, 0o600)
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}
