package door

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGivenALogFileWhenItsLinesPassTheBoundThenTheFileMovesToDot1AndTheTwoStayBounded(t *testing.T) {
	dir := t.TempDir()
	l := LogFile{Path: filepath.Join(dir, RelayLogName), Max: 100}
	line := strings.Repeat("x", 29) + "\n" // 30 bytes
	for range 10 {
		if n, err := l.Write([]byte(line)); err != nil || n != len(line) {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	now, _ := os.ReadFile(l.Path)
	older, _ := os.ReadFile(l.Path + ".1")
	// 3 lines fill 90 bytes; the 4th, 7th and 10th move the file away.
	if len(now) != 30 || len(older) != 90 {
		t.Errorf("the file has %d bytes and the older one %d; want 30 and 90 (each at most the bound)", len(now), len(older))
	}
	if info, err := os.Stat(l.Path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the mode of the log is %v, %v; want 0600", info.Mode().Perm(), err)
	}
	// A line longer than the bound is cut to it, and ends its line.
	if _, err := l.Write([]byte(strings.Repeat("y", 500) + "\n")); err != nil {
		t.Fatal(err)
	}
	now, _ = os.ReadFile(l.Path)
	if len(now) != 100 || !strings.HasSuffix(string(now), "y\n") {
		t.Errorf("a long line gave a file of %d bytes ending %q; want 100 bytes, one cut line", len(now), now[len(now)-2:])
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestGivenAStderrThatTheAgentToolClosedWhenTheRelayLogsThenTheLineStillReachesTheFile(t *testing.T) {
	l := RelayLog(t.TempDir())
	w := Tee(failing{}, l)
	if _, err := w.Write([]byte(`{"severity":"INFO","message":"riff relay mcp ended the session"}` + "\n")); err != nil {
		t.Fatalf("Tee with one writer left = %v", err)
	}
	if got, _ := os.ReadFile(l.Path); !strings.Contains(string(got), "ended the session") {
		t.Errorf("the file holds %q; want the line", got)
	}
	if _, err := Tee(failing{}, failing{}).Write([]byte("x\n")); err == nil {
		t.Error("Tee with each writer failing = nil; want the error")
	}
}
