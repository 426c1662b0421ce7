package daemon

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/como-technologies/riff/riffcore/name"
)

// The phases of a container session.
const (
	// PhaseFirstTurn: claude runs its first turn; each wake goes into
	// its input.
	PhaseFirstTurn = "first turn"
	// PhaseWorkEnded: the first turn ended; the session reads no more
	// messages, and the first later message of each sender gets the
	// direct answer.
	PhaseWorkEnded = "work ended"
)

// Kept is what the daemon keeps of one container session in its folder
// (sessions/ID/session.json): a new daemon takes the session over from
// it.
type Kept struct {
	URI       name.SessionURI `json:"uri"`
	Item      name.Item       `json:"item"`
	Thread    string          `json:"thread"`
	Container string          `json:"container"`
	Main      string          `json:"main"`
	Clone     string          `json:"clone"`
	Prompt    string          `json:"prompt"`
	Phase     string          `json:"phase"`
	// Answered are the senders (a session ID start or ~USER) that got
	// the direct answer after the work ended.
	Answered []string `json:"answered,omitempty"`
	// Given are the wakes that went into the input, thread and seq.
	Given []Given `json:"given,omitempty"`
}

// Given is one wake that went into the input of a worker.
type Given struct {
	Thread string `json:"thread"`
	Seq    uint64 `json:"seq"`
}

// folder is the folder of the daemon: its own session and one folder
// for each container session.
type folder struct{ dir string }

func (f folder) sessionDir(id string) string { return filepath.Join(f.dir, "sessions", id) }

// SessionFolder gives the folder of a container session in the
// daemon's folder dir: the clone, the home and the socket's folder are
// in it.
func SessionFolder(dir, id string) string { return folder{dir}.sessionDir(id) }

// ownSession gives the session ID of the daemon, made at its first start
// and kept, so that a new start of the daemon keeps its session.
func (f folder) ownSession() (string, error) {
	path := filepath.Join(f.dir, "daemon.json")
	var own struct {
		Session string `json:"session"`
	}
	data, err := os.ReadFile(path)
	if err == nil && json.Unmarshal(data, &own) == nil && name.CheckSessionID(own.Session) == nil {
		return own.Session, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read the session of the daemon: %w", err)
	}
	own.Session = newSessionID()
	if err := writeJSON(path, own); err != nil {
		return "", err
	}
	return own.Session, nil
}

// keep writes the record of a container session.
func (f folder) keep(id string, k Kept) error {
	return writeJSON(filepath.Join(f.sessionDir(id), "session.json"), k)
}

// kept gives the record of each container session, by session ID.
func (f folder) kept() ([]Kept, error) {
	entries, err := os.ReadDir(filepath.Join(f.dir, "sessions"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the sessions of the daemon: %w", err)
	}
	var out []Kept
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(f.dir, "sessions", e.Name(), "session.json"))
		if err != nil {
			continue
		}
		var k Kept
		if json.Unmarshal(data, &k) == nil && k.URI.Session == e.Name() {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URI.Session < out[j].URI.Session })
	return out, nil
}

// forget removes the record of a session; the folder stays when keep.
func (f folder) forget(id string, keepFolder bool) error {
	if keepFolder {
		return os.Remove(filepath.Join(f.sessionDir(id), "session.json"))
	}
	return os.RemoveAll(f.sessionDir(id))
}

// writeJSON writes v to path whole: a temporary file, then a rename.
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// newSessionID makes a session ID: 16 random bytes in the form of a
// UUID, as the session IDs of Claude Code.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
