package top

import (
	"strings"
	"testing"
)

// Through a pipe each table comes whole and only when it changed; in a
// terminal each takes the place of the last, cut to the height, and
// Close gives the screen of before back.
func TestGivenAScreenThroughAPipeOrInATerminalThenItWritesEachChangedTableOrDrawsInPlace(t *testing.T) {
	var pipe strings.Builder
	s := NewScreen(&pipe, false, func() int { return 0 })
	s.Draw([]string{"a", "b"})
	s.Draw([]string{"a", "b"})
	s.Draw([]string{"a", "c"})
	s.Close()
	if got := pipe.String(); got != "a\nb\n\na\nc\n" {
		t.Errorf("pipe = %q", got)
	}
	var term strings.Builder
	s = NewScreen(&term, true, func() int { return 2 })
	s.Draw([]string{"1", "2", "3"})
	s.Close()
	if got := term.String(); got != "\x1b[?1049h\x1b[?25l\x1b[H1\x1b[K\r\n2\x1b[K\x1b[J\x1b[?25h\x1b[?1049l" {
		t.Errorf("terminal = %q", got)
	}
}
