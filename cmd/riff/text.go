package main

import (
	"fmt"
	"hash/fnv"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
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

// cut cuts a line with no color to width runes, with … at the end.
func cut(s string, width int) string {
	if width <= 0 || utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:width-1]) + "…"
}

// wrap breaks a text into lines of at most width runes at spaces.
func wrap(s string, width int) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			switch {
			case line == "":
				line = word
			case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width:
				line += " " + word
			default:
				lines = append(lines, line)
				line = word
			}
			for utf8.RuneCountInString(line) > width && width > 0 {
				r := []rune(line)
				lines = append(lines, string(r[:width]))
				line = string(r[width:])
			}
		}
		lines = append(lines, line)
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

// printer writes the lines of a command: it cuts each line to the width
// and adds color when the output takes it.
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

// line writes one line made of parts, each with its color, cut to the
// width: the cut counts only the text.
func (p *printer) line(parts ...part) {
	left := p.width
	var b strings.Builder
	for _, pt := range parts {
		if left <= 0 {
			break
		}
		text := pt.text
		if n := utf8.RuneCountInString(text); n > left {
			text = cut(text, left)
			left = 0
		} else {
			left -= n
		}
		b.WriteString(p.paint(pt.color, text))
	}
	fmt.Fprintln(p.w, b.String())
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
func pad(s string, n int) string { return s + strings.Repeat(" ", max(0, n-utf8.RuneCountInString(s))) }

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
		width = max(width, utf8.RuneCountInString(f.key)+2)
	}
	width = max(width, col)
	for _, f := range fs {
		parts := []part{plain(pad(f.key, width)), colored(f.color, f.value)}
		if f.extra != "" {
			parts = append(parts, plain("  "), colored(f.extraColor, f.extra))
		}
		p.line(parts...)
	}
}
