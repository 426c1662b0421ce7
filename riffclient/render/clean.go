package render

import "github.com/como-technologies/riff/riffclient/internal/terminal"

// Clean removes each escape sequence and each control character from a
// text of the server or of a message, so that it cannot change the
// terminal. A line break, a tab and each other control character become
// a space.
func Clean(s string) string { return terminal.Clean(s) }

// CleanLines is Clean that keeps the line breaks.
func CleanLines(s string) string { return terminal.CleanLines(s) }
