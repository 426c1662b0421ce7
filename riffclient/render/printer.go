package render

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/clipperhouse/uax29/v2/graphemes"
	"github.com/mattn/go-runewidth"
)

// Style says how a part of a line stands out. The program that shows the
// text gives each style its look ([Options.Paint]); riff gives each a
// color of the terminal.
type Style uint8

// The styles of the texts.
const (
	// Normal is a part that does not stand out.
	Normal Style = iota
	// Good is a state that is well: running, the same build, signed in.
	Good
	// Warn is a warning: paused, another build, not verified.
	Warn
	// Bad is an error or a stop: blocked, failed, the versions cannot talk.
	Bad
	// Faint is a part that matters less: a gone session, an old text.
	Faint
	// Strong is a title, or a count to read: a thread, unread messages.
	Strong
	// Named is the name of a session or a person ([Part.Who]): each has
	// its own look, the same in each text.
	Named
	// Person is the name of a person in riff top: the look of Named
	// (by [Part.Who]), in bold.
	Person
)

// Part is a piece of a line with its style.
type Part struct {
	Text  string
	Style Style
	// Who names the session or the person of a part in the style Named
	// (name.SessionURI.Who): one name, one look.
	Who string
}

// Plain gives a part that does not stand out.
func Plain(s string) Part { return Part{Text: s} }

// In gives a part in a style.
func In(style Style, s string) Part { return Part{Text: s, Style: style} }

// Of gives a part in the look of the session or person who.
func Of(who, s string) Part { return Part{Text: s, Style: Named, Who: who} }

// Fact is a line KEY VALUE of a list of facts, with the values in one
// column: whoami, who, people, riff server.
type Fact struct {
	Key   string
	Value string
	Style Style
	// Extra follows the value, in ExtraStyle.
	Extra      string
	ExtraStyle Style
}

// Paint gives the text of a part with its look. It gets only parts with a
// style, and a part of a part when a line breaks in it.
type Paint func(p Part) string

// Options are the settings of a Printer. The zero value writes plain
// lines, each whole, with the times in UTC.
type Options struct {
	// Width is the width of the terminal in cells; 0 is a pipe, where
	// each line comes whole: a script and an agent read each word.
	Width int
	// Paint gives each part with a style its look; nil is plain text.
	Paint Paint
	// Zone is the zone of the times of messages and notes; nil is UTC.
	Zone *time.Location
}

// Printer writes the lines of a text. Through a pipe (width 0) each line
// is written whole, as long as it is. In a terminal a line longer than
// the width is wrapped at spaces, never cut.
type Printer struct {
	w     io.Writer
	width int
	paint Paint
	zone  *time.Location
}

// NewPrinter gives a Printer that writes to w.
func NewPrinter(w io.Writer, o Options) *Printer {
	zone := o.Zone
	if zone == nil {
		zone = time.UTC
	}
	return &Printer{w: w, width: o.Width, paint: o.Paint, zone: zone}
}

// Width gives the width of the terminal in cells, 0 through a pipe.
func (p *Printer) Width() int { return p.width }

// time gives the time of ms in the zone of the printer.
func (p *Printer) time(ms int64) time.Time { return time.UnixMilli(ms).In(p.zone) }

// paintPart gives the text of a part with its look.
func (p *Printer) paintPart(pt Part) string {
	if p.paint == nil || pt.Style == Normal || pt.Text == "" {
		return pt.Text
	}
	return p.paint(pt)
}

// Line writes one line made of parts. In a terminal it is wrapped at the
// width, the next lines at the left edge.
func (p *Printer) Line(parts ...Part) { p.Hanging(0, parts...) }

// Hanging writes one line made of parts; in a terminal it is wrapped at
// the width, and each next line is indented by indent cells. The wrap
// counts only the text, not its look.
func (p *Printer) Hanging(indent int, parts ...Part) {
	var whole strings.Builder
	for _, pt := range parts {
		whole.WriteString(pt.Text)
	}
	text := whole.String()
	for i, r := range breakLines(text, p.width, indent) {
		var b strings.Builder
		if i > 0 && p.width-indent >= minWrap {
			b.WriteString(strings.Repeat(" ", indent))
		}
		b.WriteString(p.paintRange(parts, r[0], r[1]))
		fmt.Fprintln(p.w, b.String())
	}
}

// paintRange gives the bytes from start to end of the text of parts,
// each piece in the look of its part.
func (p *Printer) paintRange(parts []Part, start, end int) string {
	var b strings.Builder
	at := 0
	for _, pt := range parts {
		from, to := max(start, at), min(end, at+len(pt.Text))
		if from < to {
			piece := pt
			piece.Text = pt.Text[from-at : to-at]
			b.WriteString(p.paintPart(piece))
		}
		at += len(pt.Text)
	}
	return b.String()
}

// Text writes a line that does not stand out.
func (p *Printer) Text(s string) { p.Line(Plain(s)) }

// Textf writes a formatted line that does not stand out.
func (p *Printer) Textf(format string, args ...any) { p.Text(fmt.Sprintf(format, args...)) }

// Reply writes the text of a reply of the server, cleaned, each of its
// lines on a line.
func (p *Printer) Reply(text string) {
	for _, line := range strings.Split(CleanLines(text), "\n") {
		p.Text(line)
	}
}

// Facts writes lines of KEY VALUE with the values in one column.
func (p *Printer) Facts(fs []Fact) { p.FactsAt(fs, 0) }

// FactsAt writes facts with the values at least at column col.
func (p *Printer) FactsAt(fs []Fact, col int) {
	width := 0
	for _, f := range fs {
		width = max(width, Cells(f.Key)+2)
	}
	width = max(width, col)
	for _, f := range fs {
		parts := []Part{Plain(pad(f.Key, width)), In(f.Style, f.Value)}
		if f.Extra != "" {
			parts = append(parts, Plain("  "), In(f.ExtraStyle, f.Extra))
		}
		p.Hanging(width, parts...)
	}
}

// Cells gives the width of s in the cells of a terminal: a wide
// character takes two, a combining mark none.
func Cells(s string) int { return runewidth.StringWidth(s) }

func pad(s string, n int) string { return s + strings.Repeat(" ", max(0, n-Cells(s))) }

// nextLine finds where the first line of s ends when a line holds limit
// cells: end is the end of the line, next the start of the rest (after
// the spaces of the break). A line breaks at a run of spaces that
// follows some text; a word longer than a line breaks between two
// grapheme clusters, so no character is split. fits says that s fits
// whole.
func nextLine(s string, limit int) (end, next int, fits bool) {
	used := 0
	spaceAt, afterSpace := -1, -1
	it := graphemes.FromString(s)
	for it.Next() {
		g := it.Value()
		if g == " " {
			if afterSpace != it.Start() {
				spaceAt = it.Start()
			}
			afterSpace = it.End()
			used++
			continue
		}
		w := Cells(g)
		if used+w > limit {
			switch {
			case spaceAt > 0:
				return spaceAt, afterSpace, false
			case it.Start() == 0:
				// One cluster wider than the line: it takes a line.
				return it.End(), it.End(), false
			}
			return it.Start(), it.Start(), false
		}
		used += w
	}
	return len(s), len(s), true
}

// breakLines gives the byte ranges of the lines of s in lines of width
// cells; the lines after the first have indent cells less. A width of 0
// or less gives s whole: a pipe gets each line whole.
func breakLines(s string, width, indent int) [][2]int {
	if width <= 0 || Cells(s) <= width {
		return [][2]int{{0, len(s)}}
	}
	if width-indent < minWrap {
		indent = 0
	}
	var out [][2]int
	start, limit := 0, width
	for {
		end, next, fits := nextLine(s[start:], limit)
		out = append(out, [2]int{start, start + end})
		if fits || start+next >= len(s) {
			return out
		}
		start += next
		limit = width - indent
	}
}

// minWrap is the fewest cells that a wrapped line after an indent
// keeps; with less room, the next lines start at the left edge.
const minWrap = 10

// Wrap breaks a text into lines of at most width cells at spaces, each
// line break of the text kept; a width of 0 or less keeps each line
// whole.
func Wrap(s string, width int) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		for _, r := range breakLines(para, width, 0) {
			lines = append(lines, para[r[0]:r[1]])
		}
	}
	return lines
}
