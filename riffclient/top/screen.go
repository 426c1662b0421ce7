package top

import (
	"io"
	"strings"
)

// Screen draws the tables of a live riff top on a writer. In a terminal
// each table takes the place of the one before, on the alternate screen
// of the terminal, cut to its height; Close gives the terminal back as
// it was. Through a pipe each table comes whole after a blank line, and
// only when it differs from the last one, so that a file gets each
// change once.
type Screen struct {
	w        io.Writer
	terminal bool
	height   func() int
	started  bool
	last     string
}

// NewScreen gives a Screen on w. terminal says that w is a terminal;
// height gives its height now (0: no cut).
func NewScreen(w io.Writer, terminal bool, height func() int) *Screen {
	return &Screen{w: w, terminal: terminal, height: height}
}

// Draw draws the lines of a table.
func (s *Screen) Draw(lines []string) {
	if !s.terminal {
		text := strings.Join(lines, "\n") + "\n"
		if text == s.last {
			return
		}
		if s.last != "" {
			text = "\n" + text
		}
		io.WriteString(s.w, text)
		s.last = strings.TrimPrefix(text, "\n")
		return
	}
	var b strings.Builder
	if !s.started {
		// The alternate screen, and no cursor.
		b.WriteString("\x1b[?1049h\x1b[?25l")
		s.started = true
	}
	if h := s.height(); h > 0 && len(lines) > h {
		lines = lines[:h]
	}
	b.WriteString("\x1b[H")
	for i, l := range lines {
		b.WriteString(l)
		b.WriteString("\x1b[K")
		if i < len(lines)-1 {
			b.WriteString("\r\n")
		}
	}
	b.WriteString("\x1b[J")
	io.WriteString(s.w, b.String())
}

// Close gives the terminal back: the cursor and the screen of before.
func (s *Screen) Close() {
	if s.started {
		io.WriteString(s.w, "\x1b[?25h\x1b[?1049l")
		s.started = false
	}
}
