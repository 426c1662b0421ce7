package main

import (
	"fmt"
	"hash/fnv"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/graphemes"
	"github.com/mattn/go-runewidth"
)

// clean removes each escape sequence and each control character from a
// text of the server or of a message, so that it cannot change the
// terminal. A line break, a tab and each other control character become
// a space.
func clean(s string) string {
	return cleanKeep(s, false)
}

// cleanLines is clean that keeps the line breaks.
func cleanLines(s string) string {
	return cleanKeep(s, true)
}

func cleanKeep(s string, keepNewlines bool) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "�")
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b: // ESC: skip the sequence
			i += size + escapeLen(s[i+size:])
			continue
		case r == 0x9b: // CSI in one rune
			i += size + csiLen(s[i+size:])
			continue
		case r == '\n' && keepNewlines:
			b.WriteByte('\n')
		case r == '\r' && keepNewlines:
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r), r == '\u2028', r == '\u2029', unicode.Is(unicode.Bidi_Control, r):
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// escapeLen gives the length of the rest of an escape sequence after
// ESC: CSI (ESC [ ... final), OSC, DCS, APC, PM and SOS (up to BEL or ESC
// \), or one character.
func escapeLen(s string) int {
	if s == "" {
		return 0
	}
	switch s[0] {
	case '[':
		return 1 + csiLen(s[1:])
	case ']', 'P', '_', '^', 'X':
		for i := 1; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	}
	_, size := utf8.DecodeRuneInString(s)
	return size
}

// csiLen gives the length of a CSI sequence after its start: parameter
// and intermediate bytes, then one final byte.
func csiLen(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x40 && s[i] <= 0x7e {
			return i + 1
		}
		if s[i] < 0x20 || s[i] > 0x3f && s[i] < 0x40 {
			return i
		}
	}
	return len(s)
}

// cells gives the width of s in the cells of a terminal: a wide
// character takes two, a combining mark none.
func cells(s string) int { return runewidth.StringWidth(s) }

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
		w := cells(g)
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
	if width <= 0 || cells(s) <= width {
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

// wrap breaks a text into lines of at most width cells at spaces, each
// line break of the text kept; a width of 0 or less keeps each line
// whole.
func wrap(s string, width int) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		for _, r := range breakLines(para, width, 0) {
			lines = append(lines, para[r[0]:r[1]])
		}
	}
	return lines
}

// The colors of riff.
const (
	green  = "32"
	yellow = "33"
	red    = "31"
	dim    = "2"
	bold   = "1"
)

// sessionColors are the colors of the sessions: each session has the
// same color in riff who, riff read and riff tail. Green, yellow and red
// are not among them: they say running, a warning and an error.
var sessionColors = [...]string{"36", "35", "34", "94", "95", "96"}

// printer writes the lines of a command and adds color when the output
// takes it. Through a pipe (width 0) each line is written whole, as long
// as it is: a script and an agent read each word. In a terminal a line
// longer than the width is wrapped at spaces, never cut.
type printer struct {
	w     io.Writer
	color bool
	width int
}

// paint colors a part of a line.
func (p *printer) paint(code, s string) string {
	if !p.color || code == "" || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// sessionColor gives the color of a session or a person.
func sessionColor(key string) string {
	h := fnv.New32a()
	h.Write([]byte(key))
	return sessionColors[h.Sum32()%uint32(len(sessionColors))]
}

// line writes one line made of parts, each with its color. In a
// terminal it is wrapped at the width, the next lines at the left edge.
func (p *printer) line(parts ...part) { p.hanging(0, parts...) }

// hanging writes one line made of parts; in a terminal it is wrapped at
// the width, and each next line is indented by indent cells. The wrap
// counts only the text, not the color.
func (p *printer) hanging(indent int, parts ...part) {
	var whole strings.Builder
	for _, pt := range parts {
		whole.WriteString(pt.text)
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
// each piece in the color of its part.
func (p *printer) paintRange(parts []part, start, end int) string {
	var b strings.Builder
	at := 0
	for _, pt := range parts {
		from, to := max(start, at), min(end, at+len(pt.text))
		if from < to {
			b.WriteString(p.paint(pt.color, pt.text[from-at:to-at]))
		}
		at += len(pt.text)
	}
	return b.String()
}

// text writes a line with no color.
func (p *printer) text(s string) { p.line(part{text: s}) }

// textf writes a formatted line with no color.
func (p *printer) textf(format string, args ...any) { p.text(fmt.Sprintf(format, args...)) }

// part is a piece of a line with its color.
type part struct {
	text  string
	color string
}

func plain(s string) part        { return part{text: s} }
func colored(c, s string) part   { return part{text: s, color: c} }
func pad(s string, n int) string { return s + strings.Repeat(" ", max(0, n-cells(s))) }

// facts writes lines of KEY VALUE with the values in one column.
type fact struct {
	key        string
	value      string
	color      string
	extra      string // after the value, with extraColor
	extraColor string
}

func (p *printer) facts(fs []fact) { p.factsAt(fs, 0) }

// factsAt writes facts with the values at least at column col.
func (p *printer) factsAt(fs []fact, col int) {
	width := 0
	for _, f := range fs {
		width = max(width, cells(f.key)+2)
	}
	width = max(width, col)
	for _, f := range fs {
		parts := []part{plain(pad(f.key, width)), colored(f.color, f.value)}
		if f.extra != "" {
			parts = append(parts, plain("  "), colored(f.extraColor, f.extra))
		}
		p.hanging(width, parts...)
	}
}
