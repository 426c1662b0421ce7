package door

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/como-technologies/riff/riffclient/local"
)

// The log of the relays of this machine in the local folder: Claude Code
// keeps the stderr of a stdio MCP server only while it is connected, so
// the last lines of riff relay mcp (its end) never reach its logs there.
const (
	// RelayLogName is the file of the lines of the relays, in the local
	// folder of what outlives a logout (local.StateDir); the older lines
	// are in RelayLogName.1.
	RelayLogName = "relay.log"
	// MaxRelayLog bounds the file: a line that would take it past the
	// bound moves it to RelayLogName.1 (which it replaces) first, so the
	// two hold at most twice the bound.
	MaxRelayLog = 1 << 20
)

// LogFile is a bounded file of log lines. Each Write appends one line
// (slog writes each record with one Write) with the file open for that
// write only, so that the relays of the machine can share the file and a
// move of it by one of them is seen by the others at their next line.
// Two relays that move the file at the same instant can lose the older
// file's lines, never a line that they write.
type LogFile struct {
	// Path is the file; Max its bound (MaxRelayLog when 0).
	Path string
	Max  int64
}

// RelayLog is the LogFile of the relays in the local folder dir.
func RelayLog(dir string) LogFile { return LogFile{Path: filepath.Join(dir, RelayLogName)} }

// Write appends p, after it moves a full file away. A line longer than
// the bound is cut to it.
func (l LogFile) Write(p []byte) (int, error) {
	max := l.Max
	if max <= 0 {
		max = MaxRelayLog
	}
	line := p
	if int64(len(line)) > max {
		line = append(line[:max-1:max-1], '\n')
	}
	if info, err := os.Stat(l.Path); err == nil && info.Size()+int64(len(line)) > max {
		if err := os.Rename(l.Path, l.Path+".1"); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return 0, err
		}
	}
	f, err := os.OpenFile(l.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, local.FileMode)
	if err != nil {
		return 0, err
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Tee writes each Write to each writer in order, and goes on past a
// writer that fails: a stderr that the agent tool closed (its pipe is
// gone after the end of the connection) does not stop the line in the
// file. It fails only when each writer failed.
func Tee(writers ...io.Writer) io.Writer { return tee(writers) }

type tee []io.Writer

func (t tee) Write(p []byte) (int, error) {
	var errs []error
	for _, w := range t {
		if _, err := w.Write(p); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == len(t) && len(t) > 0 {
		return 0, errors.Join(errs...)
	}
	return len(p), nil
}
