package chat

import (
	"strings"

	"github.com/clipperhouse/uax29/v2/graphemes"
	"github.com/mattn/go-runewidth"
)

// editor is the line that the person types after the prompt: a list of
// grapheme clusters (a base character with its combining marks is one),
// the cursor between two of them, and the first cluster that shows when
// the line is wider than its room. It does no I/O.
type editor struct {
	clusters []string
	at       int // the cursor: the number of clusters before it
	from     int // the first cluster shown
	// history holds the lines sent, oldest first; back is the place in it
	// of Up and Down (len(history) is the line being typed).
	history []string
	back    int
	draft   string
}

// clustersOf splits s into grapheme clusters.
func clustersOf(s string) []string {
	var out []string
	g := graphemes.FromString(s)
	for g.Next() {
		out = append(out, g.Value())
	}
	return out
}

// cells gives the width of a cluster in the cells of a terminal.
func cells(s string) int { return runewidth.StringWidth(s) }

func (e *editor) text() string { return strings.Join(e.clusters, "") }

// set puts s in the line, the cursor at its end.
func (e *editor) set(s string) {
	e.clusters = clustersOf(s)
	e.at = len(e.clusters)
	e.from = 0
}

// insert types s at the cursor. The line is split into clusters again,
// so a combining mark typed after its base joins it.
func (e *editor) insert(s string) {
	before := strings.Join(e.clusters[:e.at], "") + s
	after := strings.Join(e.clusters[e.at:], "")
	e.clusters = clustersOf(before + after)
	// The cursor goes after the clusters that hold the bytes of before.
	n, size := 0, 0
	for n < len(e.clusters) && size < len(before) {
		size += len(e.clusters[n])
		n++
	}
	e.at = n
}

func (e *editor) backspace() {
	if e.at == 0 {
		return
	}
	e.clusters = append(e.clusters[:e.at-1], e.clusters[e.at:]...)
	e.at--
}

func (e *editor) deleteAt() {
	if e.at < len(e.clusters) {
		e.clusters = append(e.clusters[:e.at], e.clusters[e.at+1:]...)
	}
}

func (e *editor) left() {
	if e.at > 0 {
		e.at--
	}
}

func (e *editor) right() {
	if e.at < len(e.clusters) {
		e.at++
	}
}

func (e *editor) home() { e.at = 0 }
func (e *editor) end()  { e.at = len(e.clusters) }

// killStart removes the line before the cursor (Ctrl-U).
func (e *editor) killStart() {
	e.clusters = append([]string(nil), e.clusters[e.at:]...)
	e.at = 0
}

// killEnd removes the line after the cursor (Ctrl-K).
func (e *editor) killEnd() { e.clusters = e.clusters[:e.at] }

// killWord removes the word before the cursor, and the spaces after it
// (Ctrl-W).
func (e *editor) killWord() {
	i := e.at
	for i > 0 && e.clusters[i-1] == " " {
		i--
	}
	for i > 0 && e.clusters[i-1] != " " {
		i--
	}
	e.clusters = append(e.clusters[:i], e.clusters[e.at:]...)
	e.at = i
}

// take gives the line and empties it, keeping it in the history.
func (e *editor) take() string {
	s := e.text()
	if strings.TrimSpace(s) != "" && (len(e.history) == 0 || e.history[len(e.history)-1] != s) {
		e.history = append(e.history, s)
	}
	e.back = len(e.history)
	e.set("")
	return s
}

// up shows the line before in the history; down the line after it.
func (e *editor) up() {
	if e.back == 0 {
		return
	}
	if e.back == len(e.history) {
		e.draft = e.text()
	}
	e.back--
	e.set(e.history[e.back])
}

func (e *editor) down() {
	if e.back >= len(e.history) {
		return
	}
	e.back++
	if e.back == len(e.history) {
		e.set(e.draft)
		return
	}
	e.set(e.history[e.back])
}

// view gives the part of the line that shows in room cells, and the
// cell of the cursor in it. A line wider than its room scrolls, so that
// the cursor always shows; a wide character never shows in half.
func (e *editor) view(room int) (string, int) {
	if room < 1 {
		room = 1
	}
	if e.from > e.at {
		e.from = e.at
	}
	width := func(from, to int) int {
		w := 0
		for _, c := range e.clusters[from:to] {
			w += cells(c)
		}
		return w
	}
	// The cursor takes a cell after the last cluster.
	for e.from < e.at && width(e.from, e.at)+1 > room {
		e.from++
	}
	var b strings.Builder
	used := 0
	for _, c := range e.clusters[e.from:] {
		w := cells(c)
		if used+w > room {
			break
		}
		b.WriteString(c)
		used += w
	}
	return b.String(), width(e.from, e.at)
}
