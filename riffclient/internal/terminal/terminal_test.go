package terminal

import "testing"

// TestGivenATextWithEscapesAndControlsWhenCleanedThenNoneGetsThrough: an
// escape sequence is gone whole, a control character is gone or a space,
// invalid UTF-8 is �.
func TestGivenATextWithEscapesAndControlsWhenCleanedThenNoneGetsThrough(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"red \x1b[31mtext\x1b[0m", "red text"},
		{"title \x1b]0;owned\x07 after", "title  after"},
		{"osc st \x1b]8;;http://x\x1b\\link", "osc st link"},
		{"line\nbreak\ttab\rend", "line break tab end"},
		{"bell\a and \u009b2J", "bell and "},
		{"raw byte \x9b2J", "raw byte �2J"},
		{"bidi \u202eevil", "bidi evil"},
		{"separators \u2028 \u2029", "separators  "},
		{"cut escape \x1b", "cut escape "},
		{"cut csi \x1b[12", "cut csi "},
	}
	for _, tt := range tests {
		if got := Clean(tt.in); got != tt.want {
			t.Errorf("Clean(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// TestGivenATextWithLineBreaksWhenCleanedKeepingLinesThenOnlyTheBreaksStay:
// CleanLines keeps \n, drops \r, and cleans the rest as Clean does.
func TestGivenATextWithLineBreaksWhenCleanedKeepingLinesThenOnlyTheBreaksStay(t *testing.T) {
	if got, want := CleanLines("one\r\ntwo\x1b[31m\tthree\n"), "one\ntwo three\n"; got != want {
		t.Errorf("CleanLines = %q; want %q", got, want)
	}
}
