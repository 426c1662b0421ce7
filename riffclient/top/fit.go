package top

import (
	"strings"

	"github.com/clipperhouse/uax29/v2/graphemes"
	"github.com/mattn/go-runewidth"

	"github.com/como-technologies/riff/riffclient/render"
)

// Ellipsis ends a line that Fit cut.
const Ellipsis = "…"

// PipeWidth is the width of the table through a pipe or into a file.
const PipeWidth = 80

// Cells gives the width of a line in the cells of a terminal.
func (l Line) Cells() int {
	n := 0
	for _, p := range l {
		n += render.Cells(p.Text)
	}
	return n
}

// Fit gives a line that is at most width cells wide: a longer line is
// cut between two characters (never inside one, a wide character that
// does not fit whole goes) and ends with …, in the style of the part
// where it was cut.
func Fit(l Line, width int) Line {
	if width <= 0 || l.Cells() <= width {
		return l
	}
	room := width - runewidth.StringWidth(Ellipsis)
	var out Line
	used := 0
	for _, p := range l {
		var b strings.Builder
		g := graphemes.FromString(p.Text)
		cut := false
		for g.Next() {
			w := runewidth.StringWidth(g.Value())
			if used+w > room {
				cut = true
				break
			}
			used += w
			b.WriteString(g.Value())
		}
		if cut {
			out = append(out, render.Part{Text: b.String() + Ellipsis, Style: p.Style, Who: p.Who})
			return out
		}
		out = append(out, p)
	}
	return out
}

// Render gives the text of each line of the table of s, cut to width,
// each part with its look from paint (nil: plain text).
func Render(s Snapshot, width int, paint render.Paint) []string {
	var out []string
	for _, l := range Table(s) {
		var b strings.Builder
		for _, p := range Fit(l, width) {
			if paint == nil || p.Style == render.Normal || p.Text == "" {
				b.WriteString(p.Text)
				continue
			}
			b.WriteString(paint(p))
		}
		out = append(out, b.String())
	}
	return out
}
