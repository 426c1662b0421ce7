package top

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/como-technologies/riff/riffclient/forge"
	"github.com/como-technologies/riff/riffclient/render"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// By is the order of the levels of the tree.
type By int

const (
	// ByPerson is person › host › repository › session (the default).
	ByPerson By = iota
	// ByRepo is repository › person › host › session.
	ByRepo
)

// ParseBy gives the By of the value of --by: person or repo.
func ParseBy(s string) (By, error) {
	switch s {
	case "", "person":
		return ByPerson, nil
	case "repo":
		return ByRepo, nil
	}
	return ByPerson, fmt.Errorf("--by takes person or repo, not %q", s)
}

// Filter keeps the sessions that match each field that is set: --user,
// --host and --repo of riff top.
type Filter struct {
	User string
	Host string
	Repo name.Repo
}

func (f Filter) set() bool { return f.User != "" || f.Host != "" || f.Repo != "" }

func (f Filter) keeps(u name.SessionURI) bool {
	return (f.User == "" || u.User == f.User) && (f.Host == "" || u.Host == f.Host) && (f.Repo == "" || u.Repo == f.Repo)
}

// Snapshot is all that one table shows: the last good look of the
// server, what gh read, the choices of the command line, and the fault
// of the looks since, if any.
type Snapshot struct {
	Reply wire.TopReply
	// Mine is the build of this riff (the fact build of the header).
	Mine build.Build
	// Forge holds what gh read of each repository. nil: the machine has
	// no gh, so the table has no board and no title. A repository that
	// is not in it has no board and no titles.
	Forge  map[name.Repo]forge.Repo
	Filter Filter
	By     By
	// Fault is set while the looks fail: the table is the last good one,
	// under a red line.
	Fault *Fault
}

// Fault is the fault of the looks: the time of the last good look (in
// the zone of the reader), and the text of the fault.
type Fault struct {
	Since time.Time
	Text  string
}

// Line is one line of the table, made of parts with their styles.
type Line []render.Part

func plain(s string) Line { return Line{render.Plain(s)} }

// Table gives the lines of the table of a snapshot, each whole: Fit cuts
// them to the width of the terminal.
func Table(s Snapshot) []Line {
	var out []Line
	if s.Fault != nil {
		out = append(out, Line{render.In(render.Bad, "riff: no good look since "+s.Fault.Since.Format("15:04:05")+": "+render.Clean(s.Fault.Text))})
	}
	out = append(out, header(s)...)
	rows := shownRows(s)
	var blocked []Line
	for _, r := range rows {
		if l, ok := blockedLine(r); ok {
			blocked = append(blocked, l)
		}
	}
	if len(blocked) > 0 {
		out = append(out, Line{})
		out = append(out, blocked...)
	}
	for _, b := range boards(s, rows) {
		out = append(out, Line{})
		out = append(out, b...)
	}
	tree := treeLines(s, rows)
	if len(tree) > 0 {
		out = append(out, Line{})
		out = append(out, tree...)
	}
	return out
}

// header gives the facts of the riff as riff who shows them.
func header(s Snapshot) []Line {
	fs := render.PauseFacts(s.Reply.Pauses)
	fs = append(fs, render.OwnerFacts(s.Reply.Owner)...)
	fs = append(fs, render.BuildFacts(s.Mine, s.Reply.Build)...)
	width := 0
	for _, f := range fs {
		width = max(width, render.Cells(f.Key)+2)
	}
	var out []Line
	for _, f := range fs {
		l := Line{render.Plain(f.Key + strings.Repeat(" ", width-render.Cells(f.Key))), render.In(f.Style, f.Value)}
		if f.Extra != "" {
			l = append(l, render.Plain("  "), render.In(f.ExtraStyle, f.Extra))
		}
		out = append(out, l)
	}
	return out
}

// shownRows gives the rows that the filter keeps.
func shownRows(s Snapshot) []wire.TopRow {
	var out []wire.TopRow
	for _, r := range s.Reply.Rows {
		if !r.Gone && s.Filter.keeps(r.URI) {
			out = append(out, r)
		}
	}
	return out
}

// shortID gives the first 8 characters of a session ID.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// itemText gives an item as the board shows it: #12 for issue-12.
func itemText(item name.Item) string {
	if n, ok := strings.CutPrefix(string(item), "issue-"); ok {
		return "#" + n
	}
	return string(item)
}

// issueNumber gives the number of an item issue-N.
func issueNumber(item name.Item) (int, bool) {
	n, ok := strings.CutPrefix(string(item), "issue-")
	if !ok {
		return 0, false
	}
	v, err := strconv.Atoi(n)
	return v, err == nil && v > 0
}

// blockedLine gives the red line of a blocked session before the
// boards: the session, its claims, the time that it waits, the lead gave
// no answer when so, and the reason.
func blockedLine(r wire.TopRow) (Line, bool) {
	if r.Block == nil {
		return nil, false
	}
	head := shortID(r.URI.Session)
	for _, c := range r.Claims {
		head += " " + string(c.Item)
	}
	text := "blocked  " + render.Clean(head) + ", " + render.Clean(r.Block.Waits)
	if r.Unanswered {
		text += ", the lead gave no answer"
	}
	text += ": " + render.Clean(r.Block.Reason)
	return Line{render.In(render.Bad, text)}, true
}

// boards gives the lines of each board that gh could read: of each
// repository of the reply, or with a filter, of the repositories of the
// sessions that it keeps (and of --repo).
func boards(s Snapshot, rows []wire.TopRow) [][]Line {
	if s.Forge == nil {
		return nil
	}
	want := map[name.Repo]bool{}
	if s.Filter.set() {
		for _, r := range rows {
			want[r.URI.Repo] = true
		}
		if s.Filter.Repo != "" {
			want[s.Filter.Repo] = true
		}
	}
	// Who holds each item now: a claimed item is in no other line.
	var out [][]Line
	for _, b := range s.Reply.Boards {
		if s.Filter.set() && !want[b.Repo] {
			continue
		}
		f, ok := s.Forge[b.Repo]
		if !ok {
			continue
		}
		out = append(out, board(b, f))
	}
	return out
}

// board gives the lines of one board: the wave line, then free, held,
// claimed, verify and stuck, each only when it has an item. A paused
// repository has no free line.
func board(b wire.TopBoard, f forge.Repo) []Line {
	head := "no open wave (" + string(b.Repo) + ")"
	if f.Wave != "" {
		head = f.Wave + " (" + string(b.Repo) + ")"
	}
	first := Line{render.In(render.Strong, render.Clean(head))}
	if b.Paused {
		first = append(first, render.Plain(" "), render.In(render.Warn, "paused"))
	}
	out := []Line{first}

	held := map[int]bool{}   // on hold, or claimed: not free
	worked := map[int]bool{} // a session holds the item or its verify
	var claimed, verify []string
	for _, item := range b.Claimed {
		if base, ok := strings.CutPrefix(string(item), "verify-"); ok {
			verify = append(verify, itemText(name.Item(base)))
			if n, ok := issueNumber(name.Item(base)); ok {
				worked[n], held[n] = true, true
			}
			continue
		}
		claimed = append(claimed, itemText(item))
		if n, ok := issueNumber(item); ok {
			worked[n], held[n] = true, true
		}
	}
	for _, h := range b.Held {
		if n, ok := issueNumber(h.Item); ok {
			held[n] = true
		}
	}
	open := map[int]bool{}
	for _, i := range f.Issues {
		open[i.Number] = true
	}
	pulled := map[int]bool{}
	var stuck []string
	for _, p := range f.Pulls {
		for _, n := range p.Items {
			pulled[n] = true
			if worked[n] {
				continue
			}
			if p.Stuck {
				stuck = append(stuck, "#"+strconv.Itoa(n))
			} else {
				verify = append(verify, "#"+strconv.Itoa(n))
			}
		}
	}
	var free []string
	if !b.Paused && f.Wave != "" {
		for _, i := range f.Issues {
			if i.Wave != f.Wave || held[i.Number] || pulled[i.Number] || needsOpen(i, open) {
				continue
			}
			free = append(free, "#"+strconv.Itoa(i.Number))
		}
	}
	if len(free) > 0 {
		out = append(out, plain("  free: "+strings.Join(free, " ")))
	}
	if len(b.Held) > 0 {
		out = append(out, plain("  held: "+heldText(b.Held)))
	}
	if len(claimed) > 0 {
		out = append(out, plain("  claimed: "+strings.Join(claimed, " ")))
	}
	if verify = sortedItems(verify); len(verify) > 0 {
		out = append(out, plain("  verify: "+strings.Join(verify, " ")))
	}
	if stuck = sortedItems(stuck); len(stuck) > 0 {
		out = append(out, Line{render.Plain("  "), render.In(render.Warn, "stuck: "+strings.Join(stuck, " "))})
	}
	return out
}

// needsOpen says whether an issue of the Needs: line of i is open.
func needsOpen(i forge.Issue, open map[int]bool) bool {
	for _, n := range i.Needs {
		if open[n] {
			return true
		}
	}
	return false
}

// heldText gives the held items, each run of one reason followed by it:
// #11 #12 (VmLck reading at 19:40 UTC).
func heldText(held []wire.TopHeld) string {
	var parts []string
	for i := 0; i < len(held); {
		j := i
		var items []string
		for j < len(held) && held[j].Reason == held[i].Reason {
			items = append(items, itemText(held[j].Item))
			j++
		}
		part := strings.Join(items, " ")
		if held[i].Reason != "" {
			part += " (" + held[i].Reason + ")"
		}
		parts = append(parts, part)
		i = j
	}
	return render.Clean(strings.Join(parts, ", "))
}

// sortedItems sorts #N texts by their number and drops repeats.
func sortedItems(items []string) []string {
	slices.SortFunc(items, func(a, b string) int {
		na, _ := strconv.Atoi(strings.TrimPrefix(a, "#"))
		nb, _ := strconv.Atoi(strings.TrimPrefix(b, "#"))
		if na != nb {
			return na - nb
		}
		return strings.Compare(a, b)
	})
	return slices.Compact(items)
}
