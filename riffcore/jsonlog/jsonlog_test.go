package jsonlog_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/como-technologies/riff/riffcore/jsonlog"
)

// TestGivenALevelWhenALineIsWrittenThenItsSeverityIsTheWordOfCloudLogging:
// WARNING, not slog's WARN; a level between two words takes the lower.
func TestGivenALevelWhenALineIsWrittenThenItsSeverityIsTheWordOfCloudLogging(t *testing.T) {
	for _, tc := range []struct {
		name  string
		level slog.Level
		want  string
	}{
		{name: "debug", level: slog.LevelDebug, want: "DEBUG"},
		{name: "under info", level: slog.LevelInfo - 1, want: "DEBUG"},
		{name: "info", level: slog.LevelInfo, want: "INFO"},
		{name: "between info and warn", level: slog.LevelInfo + 2, want: "INFO"},
		{name: "warn", level: slog.LevelWarn, want: "WARNING"},
		{name: "between warn and error", level: slog.LevelWarn + 1, want: "WARNING"},
		{name: "error", level: slog.LevelError, want: "ERROR"},
		{name: "over error", level: slog.LevelError + 4, want: "ERROR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			jsonlog.New(&buf, slog.LevelDebug-4).Log(t.Context(), tc.level, "m")
			var m map[string]any
			if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
				t.Fatalf("line %q: %v", buf.Bytes(), err)
			}
			if m["severity"] != tc.want {
				t.Errorf("severity of level %v = %v; want %s", tc.level, m["severity"], tc.want)
			}
		})
	}
}

// TestGivenALineWhenItIsWrittenThenItHasSeverityTimeAndMessageAndNoSlogKeys:
// the keys of Cloud Logging, the fields of the line, and a group keeps
// its own keys (a field named level inside a group stays level).
func TestGivenALineWhenItIsWrittenThenItHasSeverityTimeAndMessageAndNoSlogKeys(t *testing.T) {
	var buf bytes.Buffer
	log := jsonlog.New(&buf, slog.LevelInfo)
	log.Debug("dropped")
	log.Info("one", "target", "engine", slog.Group("caller", "level", "x", "msg", "y"))
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	if len(lines) != 1 {
		t.Fatalf("lines = %q; want the one line over the level", buf.Bytes())
	}
	var m map[string]any
	if err := json.Unmarshal(lines[0], &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["time"]; !ok || m["level"] != nil || m["msg"] != nil {
		t.Errorf("line %s: want time, and no level or msg", lines[0])
	}
	if m["severity"] != "INFO" || m["message"] != "one" || m["target"] != "engine" {
		t.Errorf("line %s: want severity INFO, message one, target engine", lines[0])
	}
	if c, _ := m["caller"].(map[string]any); c["level"] != "x" || c["msg"] != "y" {
		t.Errorf("line %s: the keys inside a group changed", lines[0])
	}
}

// TestGivenNoLevelWhenADebugLineIsWrittenThenItIsDropped: a nil level is
// INFO.
func TestGivenNoLevelWhenADebugLineIsWrittenThenItIsDropped(t *testing.T) {
	var buf bytes.Buffer
	log := jsonlog.New(&buf, nil)
	log.Debug("dropped")
	if buf.Len() != 0 {
		t.Errorf("a debug line with no level: %q", buf.Bytes())
	}
}
