// Package local is the local folder of riff on this machine
// (docs/login.md, "Where the sign-in lives"; docs/agents.md): the order
// of the places it may be in, its private modes (0700, each file 0600),
// and the files that the relay writes there for each session: the newest
// fact of the hooks, the ask of the server to clear the context, and the
// wakes that a watch printed. It also finds the session of the Claude
// Code that runs a process (AgentSession).
//
// It never calls a riff and holds no sign-in: package signin keeps the
// sign-in of the machine under [StateDir].
//
// The files of a session are in SESSIONS/ID under the folder:
//
//	fact   the newest fact of the hooks (JSON of Fact)
//	clear  present while the server asks the worker to clear its context
//	woke   the wakes that a watch printed (JSON: thread to seq)
//
// Each write is a temp file and a rename, so a reader sees the old file
// or the new one, never a part.
package local

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The modes of the folder and of each file in it.
const (
	DirMode  fs.FileMode = 0o700
	FileMode fs.FileMode = 0o600
)

// sessions is the folder of the files of the sessions.
const sessions = "sessions"

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

// sessionDir gives the folder of the files of a session; the ID is
// checked, so that it names no other path.
func sessionDir(dir, session string) (string, error) {
	if err := name.CheckSessionID(session); err != nil {
		return "", fmt.Errorf("the session ID %q is not a session ID: %w", session, err)
	}
	return filepath.Join(dir, sessions, session), nil
}

// writeFile writes a file of a session at once: a temp file with mode
// 0600 and a rename.
func writeFile(dir, session, file string, data []byte) error {
	sd, err := sessionDir(dir, session)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(sd, DirMode); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(sd, "."+file+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(FileMode); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(sd, file))
}

// readFile reads a file of a session; a file that is not there is nil.
func readFile(dir, session, file string) ([]byte, error) {
	sd, err := sessionDir(dir, session)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(sd, file))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// Fact is the newest fact of the hooks of a session. The keep-alive
// carries it to the server.
type Fact struct {
	// Activity is the work as "The state of a session" names it, with no
	// age: "runs Bash: run just ci", "works", "between two tools" or
	// "turn ended" (see the Activity constants of the wire).
	Activity     string `json:"activity,omitempty"`
	ActivityAtMs int64  `json:"activity_at_ms,omitempty"`
	// PromptAtMs is the time of the last prompt: it ends a block of the
	// session that came before it.
	PromptAtMs    int64 `json:"prompt_at_ms,omitempty"`
	TurnEndedAtMs int64 `json:"turn_ended_at_ms,omitempty"`
	// Blocked says that the session called the blocked tool of riff
	// after its last prompt (PreToolUse of mcp__riff__blocked); the next
	// prompt clears it. The server holds the block itself: the keep-alive
	// ends it with the time of the prompt (prompt_secs).
	Blocked bool `json:"blocked,omitempty"`
	// Tool is the tool that runs (between its PreToolUse and its
	// PostToolUse): a PostToolUse of another tool does not end it.
	Tool string `json:"tool,omitempty"`
}

// Alive gives the keep-alive of me that carries the fact at nowMs: the
// activity with its age, and the time since the last prompt.
func (f Fact) Alive(me name.SessionURI, nowMs int64) wire.Alive {
	a := wire.Alive{Me: me}
	if f.Activity != "" {
		a.Activity = f.Activity
		age := max(nowMs-f.ActivityAtMs, 0) / 1000
		a.ActivitySecs = &age
	}
	if f.PromptAtMs > 0 {
		age := max(nowMs-f.PromptAtMs, 0) / 1000
		a.PromptSecs = &age
	}
	return a
}

// ReadFact reads the fact of a session: the zero Fact when it has none.
func ReadFact(dir, session string) (Fact, error) {
	return readJSON(dir, session, "fact", func() Fact { return Fact{} }, "the fact of the session %s is not JSON")
}

// WriteFact keeps the fact of a session.
func WriteFact(dir, session string, f Fact) error {
	return writeJSON(dir, session, "fact", f)
}

// SetClear keeps the ask of the server to clear the context of a worker
// (the reply to a keep-alive), or removes it.
func SetClear(dir, session string, ask bool) error {
	if ask {
		return writeFile(dir, session, "clear", []byte("clear\n"))
	}
	sd, err := sessionDir(dir, session)
	if err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(sd, "clear")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Clear says whether the server asked the worker to clear its context.
func Clear(dir, session string) (bool, error) {
	data, err := readFile(dir, session, "clear")
	return data != nil, err
}

// Woke holds the newest seq of each thread that a watch of the session
// printed a wake for, so that a new watch does not print it again.
type Woke map[string]uint64

// ReadWoke reads the wakes that a watch printed: empty when none.
func ReadWoke(dir, session string) (Woke, error) {
	return readJSON(dir, session, "woke", func() Woke { return Woke{} }, "the wakes of the session %s are not JSON")
}

// WriteWoke keeps the wakes that a watch printed.
func WriteWoke(dir, session string, w Woke) error {
	return writeJSON(dir, session, "woke", w)
}

// readJSON reads the JSON file of a session: empty() when it has none,
// and empty() with an error that notJSON (a format of the session) says
// when it does not decode, never a half-decoded value.
func readJSON[T any](dir, session, file string, empty func() T, notJSON string) (T, error) {
	v := empty()
	data, err := readFile(dir, session, file)
	if err != nil || data == nil {
		return v, err
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return empty(), fmt.Errorf(notJSON+": %w", session, err)
	}
	return v, nil
}

// writeJSON keeps v as the JSON file of a session.
func writeJSON(dir, session, file string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeFile(dir, session, file, data)
}
