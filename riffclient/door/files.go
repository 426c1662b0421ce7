package door

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/como-technologies/riff/riffclient/local"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// sessions is the folder of the files of the sessions in the local
// folder.
const sessions = "sessions"

// Files are the files that the door keeps for each session in the local
// folder Dir, in SESSIONS/ID:
//
//	fact   the newest fact of the hooks (JSON of Fact)
//	clear  present while the server asks the worker to clear its context
//	woke   the wakes that a watch printed (JSON of Woke)
//
// Each write is a temp file with mode 0600 and a rename, so that a reader
// sees the old file or the new one, never a part. Each method checks the
// session ID first, so that it names no other path.
type Files struct {
	// Dir is the local folder, as local.Dir gives it: private, mode
	// 0700. The files of a session take its modes (local.DirMode,
	// local.FileMode).
	Dir string
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

// Woke holds the newest seq of each thread that a watch of the session
// printed a wake for, so that a new watch does not print it again. The
// seqs count in one riff: behind the same address a new riff (a memory
// store makes one at each start) numbers its messages from 1 again, so
// the marks name the ID of their riff, and a wake of another riff
// starts them again (a wake may then come twice, never none).
type Woke struct {
	// Riff is the ID of the riff of the marks; "" when its server named
	// none.
	Riff string `json:"riff,omitempty"`
	// Seqs holds the newest seq printed, by thread.
	Seqs map[string]uint64 `json:"seqs,omitempty"`
}

// Take says whether a wake of seq in thread of the riff riff is new, and
// keeps its mark when it is: a seq of another riff than the marks' is
// new, and starts the marks of that riff.
func (w *Woke) Take(riff, thread string, seq uint64) bool {
	if riff != w.Riff || w.Seqs == nil {
		w.Riff, w.Seqs = riff, map[string]uint64{}
	}
	if w.Seqs[thread] >= seq {
		return false
	}
	w.Seqs[thread] = seq
	return true
}

// ReadFact reads the fact of a session: the zero Fact when it has none.
func (s Files) ReadFact(session string) (Fact, error) {
	return readJSON(s, session, "fact", func() Fact { return Fact{} }, "the fact of the session %s is not JSON")
}

// WriteFact keeps the fact of a session.
func (s Files) WriteFact(session string, f Fact) error {
	return s.writeJSON(session, "fact", f)
}

// SetClear keeps the ask of the server to clear the context of a worker
// (the reply to a keep-alive), or removes it.
func (s Files) SetClear(session string, ask bool) error {
	if ask {
		return s.writeFile(session, "clear", []byte("clear\n"))
	}
	sd, err := s.sessionDir(session)
	if err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(sd, "clear")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// Clear says whether the server asked the worker to clear its context.
func (s Files) Clear(session string) (bool, error) {
	data, err := s.readFile(session, "clear")
	return data != nil, err
}

// ReadWoke reads the wakes that a watch printed: empty when none. A file
// of a build before the riff ID (a bare map of seqs) reads as empty: a
// wake may come again once.
func (s Files) ReadWoke(session string) (Woke, error) {
	return readJSON(s, session, "woke", func() Woke { return Woke{} }, "the wakes of the session %s are not JSON")
}

// WriteWoke keeps the wakes that a watch printed.
func (s Files) WriteWoke(session string, w Woke) error {
	return s.writeJSON(session, "woke", w)
}

// sessionDir gives the folder of the files of a session; the ID is
// checked, so that it names no other path.
func (s Files) sessionDir(session string) (string, error) {
	if err := name.CheckSessionID(session); err != nil {
		return "", fmt.Errorf("the session ID %q is not a session ID: %w", session, err)
	}
	return filepath.Join(s.Dir, sessions, session), nil
}

// writeFile writes a file of a session at once: a temp file with mode
// 0600 and a rename.
func (s Files) writeFile(session, file string, data []byte) error {
	sd, err := s.sessionDir(session)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(sd, local.DirMode); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(sd, "."+file+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(local.FileMode); err != nil {
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
func (s Files) readFile(session, file string) ([]byte, error) {
	sd, err := s.sessionDir(session)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(sd, file))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// readJSON reads the JSON file of a session: empty() when it has none,
// and empty() with an error that notJSON (a format of the session) says
// when it does not decode, never a half-decoded value.
func readJSON[T any](s Files, session, file string, empty func() T, notJSON string) (T, error) {
	v := empty()
	data, err := s.readFile(session, file)
	if err != nil || data == nil {
		return v, err
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return empty(), fmt.Errorf(notJSON+": %w", session, err)
	}
	return v, nil
}

// writeJSON keeps v as the JSON file of a session.
func (s Files) writeJSON(session, file string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.writeFile(session, file, data)
}
