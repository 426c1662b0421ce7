// Package jsonlog holds the one log handler of riff's binaries: a JSON
// object a line, with the keys and severity words of Google Cloud
// Logging (severity DEBUG, INFO, WARNING or ERROR; time; message), so
// that riff-server and `riff relay mcp` write the same lines
// (docs/operations.md, "Monitoring").
//
// It holds no logger of its own: a binary builds one with New and hands
// it to the libraries, which take a *slog.Logger and never build one.
package jsonlog

import (
	"io"
	"log/slog"
)

// New gives a logger that writes a JSON object a line to w, with
// severity, time, message and the fields of the line. Lines under level
// are dropped; a nil level is INFO.
func New(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(NewHandler(w, level))
}

// NewHandler gives the handler of New, for a program that wraps it.
func NewHandler(w io.Writer, level slog.Leveler) slog.Handler {
	return slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: cloudKeys})
}

// cloudKeys renames the level and message keys of slog to the keys of
// Cloud Logging ("severity", "message") and its level to a severity
// word; the fields inside a group keep their names.
func cloudKeys(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	switch a.Key {
	case slog.LevelKey:
		level, _ := a.Value.Any().(slog.Level)
		return slog.String("severity", Severity(level))
	case slog.MessageKey:
		return slog.Attr{Key: "message", Value: a.Value}
	}
	return a
}

// Severity gives the severity word of Cloud Logging for a level of slog:
// ERROR from slog.LevelError up, WARNING from slog.LevelWarn, INFO from
// slog.LevelInfo, DEBUG under it. A level between two words takes the
// lower one (slog.LevelWarn-1 is INFO).
func Severity(level slog.Level) string {
	switch {
	case level >= slog.LevelError:
		return "ERROR"
	case level >= slog.LevelWarn:
		return "WARNING"
	case level >= slog.LevelInfo:
		return "INFO"
	}
	return "DEBUG"
}
