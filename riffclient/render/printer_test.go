package render

import (
	"strings"
	"testing"
)

// TestGivenATerminalWhenALineIsWiderThanItThenItIsWrappedByCellsNeverCut:
// the width counts terminal cells (a wide character takes two), a line
// breaks at spaces, a word longer than a line between two characters,
// and nothing is cut; through a pipe (width 0) the line is whole.
func TestGivenATerminalWhenALineIsWiderThanItThenItIsWrappedByCellsNeverCut(t *testing.T) {
	tests := []struct {
		name   string
		width  int
		indent int
		parts  []Part
		want   string
	}{
		{name: "a pipe: whole", width: 0, parts: []Part{Plain(strings.Repeat("word ", 30) + "end")},
			want: strings.Repeat("word ", 30) + "end\n"},
		{name: "wide characters take two cells", width: 10, parts: []Part{Plain("漢字漢字 漢字漢字 ab")},
			want: "漢字漢字\n漢字漢字\nab\n"},
		{name: "a hanging indent", width: 16, indent: 4, parts: []Part{Plain("[1] one two three four five")},
			want: "[1] one two\n    three four\n    five\n"},
		{name: "no room for the indent", width: 12, indent: 4, parts: []Part{Plain("[1] one two three four")},
			want: "[1] one two\nthree four\n"},
		{name: "a long word breaks between characters", width: 5, parts: []Part{Plain("naïvenaïve")},
			want: "naïve\nnaïve\n"},
		{name: "colors stay on their text", width: 7, parts: []Part{In(Bad, "ab cd"), Plain(" ef gh")},
			want: "\x1b[31mab cd\x1b[0m\nef gh\n"},
		{name: "a color across a break", width: 4, parts: []Part{In(Bad, "ab cd"), Plain(" ef")},
			want: "\x1b[31mab\x1b[0m\n\x1b[31mcd\x1b[0m\nef\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			p := NewPrinter(&out, Options{Width: tt.width, Paint: paintRed})
			p.Hanging(tt.indent, tt.parts...)
			if out.String() != tt.want {
				t.Errorf("hanging(%d) in a width of %d =\n%q; want\n%q", tt.indent, tt.width, out.String(), tt.want)
			}
		})
	}
}

// TestGivenATerminalWhenATableIsWiderThanItThenItFitsTheWidth: the
// widest column narrows and its cells wrap in it; a pipe keeps each cell
// whole on its row.
func TestGivenATerminalWhenATableIsWiderThanItThenItFitsTheWidth(t *testing.T) {
	rows := [][]Part{
		{Plain("SESSION"), Plain("STATE"), Plain("DETAIL")},
		{Plain("mike@pangolin:app (a6cf)"), Plain("busy"), Plain("working on #6  2m ago: write the tests of the long window")},
	}
	var pipe strings.Builder
	NewPrinter(&pipe, Options{}).Table(rows)
	wantPipe := "SESSION                   STATE  DETAIL\nmike@pangolin:app (a6cf)  busy   working on #6  2m ago: write the tests of the long window\n"
	if pipe.String() != wantPipe {
		t.Errorf("the table through a pipe =\n%s; want\n%s", pipe.String(), wantPipe)
	}
	var term strings.Builder
	NewPrinter(&term, Options{Width: 50}).Table(rows)
	want := `SESSION                   STATE  DETAIL
mike@pangolin:app (a6cf)  busy   working on #6  2m
                                 ago: write the
                                 tests of the long
                                 window
`
	if term.String() != want {
		t.Errorf("the table in a terminal of 50 =\n%s; want\n%s", term.String(), want)
	}
	for _, line := range strings.Split(strings.TrimRight(term.String(), "\n"), "\n") {
		if Cells(line) > 50 {
			t.Errorf("a line of the table in a terminal of 50: %q (%d cells)", line, Cells(line))
		}
	}
}

// paintRed paints each part red, as riff paints a part in the style Bad.
func paintRed(p Part) string { return "\x1b[31m" + p.Text + "\x1b[0m" }
