package top

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/como-technologies/riff/riffclient/forge"
	"github.com/como-technologies/riff/riffclient/render"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// node is a line of the tree: a person, a host or a repository with the
// nodes under it, or a session with the lines of its facts.
type node struct {
	label Line
	// counts ends the line of a group; host says that the counts are of
	// a host (with the kinds and the sessions to update).
	counts string
	host   bool
	// children are the nodes under a group; facts the lines under a
	// session (a session has no children).
	children []*node
	session  bool
	facts    []Line
}

// treeLines gives the tree of the sessions that the filter keeps.
func treeLines(s Snapshot, rows []wire.TopRow) []Line {
	short := shortRepoNames(rows)
	var roots []*node
	switch s.By {
	case ByRepo:
		roots = byRepo(s, rows, short)
	default:
		roots = byPerson(s, rows, short)
	}
	var out []Line
	for _, r := range roots {
		out = append(out, r.render("", "")...)
	}
	return out
}

// byPerson gives person › host › repository › session: each person of
// the riff, also when away, unless a filter leaves none of its sessions.
func byPerson(s Snapshot, rows []wire.TopRow, short bool) []*node {
	var roots []*node
	people := slices.Clone(s.Reply.People)
	// A user with a session has a line, also when the server named no
	// person for it.
	known := map[string]bool{}
	for _, p := range people {
		known[p.User] = true
	}
	for _, user := range keysOf(rows, func(r wire.TopRow) string { return r.URI.User }) {
		if !known[user] {
			online := slices.ContainsFunc(rows, func(r wire.TopRow) bool { return r.URI.User == user && r.State != "offline" })
			people = append(people, wire.TopPerson{User: user, Online: online})
		}
	}
	slices.SortFunc(people, func(a, b wire.TopPerson) int { return strings.Compare(a.User, b.User) })
	for _, p := range people {
		mine := rowsWhere(rows, func(r wire.TopRow) bool { return r.URI.User == p.User })
		if len(mine) == 0 && s.Filter.set() && (s.Filter.User != p.User || s.Filter.Host != "" || s.Filter.Repo != "") {
			continue
		}
		n := &node{label: personLabel(p, true), counts: countText(mine, false)}
		if len(mine) == 0 {
			n.counts = ""
		}
		for _, host := range keysOf(mine, func(r wire.TopRow) string { return r.URI.Host }) {
			onHost := rowsWhere(mine, func(r wire.TopRow) bool { return r.URI.Host == host })
			h := &node{label: plain(render.Clean(host)), counts: countText(onHost, true), host: true}
			h.children = repoNodes(s, onHost, short, func(repoRows []wire.TopRow) []*node { return sessionNodes(s, repoRows) })
			n.children = append(n.children, h)
		}
		roots = append(roots, n)
	}
	return roots
}

// byRepo gives repository › person › host › session.
func byRepo(s Snapshot, rows []wire.TopRow, short bool) []*node {
	people := map[string]wire.TopPerson{}
	for _, p := range s.Reply.People {
		people[p.User] = p
	}
	return repoNodes(s, rows, short, func(repoRows []wire.TopRow) []*node {
		var out []*node
		for _, user := range keysOf(repoRows, func(r wire.TopRow) string { return r.URI.User }) {
			mine := rowsWhere(repoRows, func(r wire.TopRow) bool { return r.URI.User == user })
			p, ok := people[user]
			if !ok {
				p = wire.TopPerson{User: user, Online: true}
			}
			n := &node{label: personLabel(p, false), counts: countText(mine, false)}
			for _, host := range keysOf(mine, func(r wire.TopRow) string { return r.URI.Host }) {
				onHost := rowsWhere(mine, func(r wire.TopRow) bool { return r.URI.Host == host })
				n.children = append(n.children, &node{label: plain(render.Clean(host)), counts: countText(onHost, true), host: true,
					children: sessionNodes(s, onHost)})
			}
			out = append(out, n)
		}
		return out
	})
}

// repoNodes gives a node for each repository of rows, in the order of
// OWNER/REPO (the sessions outside a repository last), each with the
// nodes that under gives for its rows.
func repoNodes(s Snapshot, rows []wire.TopRow, short bool, under func([]wire.TopRow) []*node) []*node {
	repos := keysOf(rows, func(r wire.TopRow) string { return string(r.URI.Repo) })
	slices.SortStableFunc(repos, func(a, b string) int {
		return cmp.Compare(boolInt(a == ""), boolInt(b == ""))
	})
	var out []*node
	for _, repo := range repos {
		in := rowsWhere(rows, func(r wire.TopRow) bool { return string(r.URI.Repo) == repo })
		out = append(out, &node{label: plain(repoName(name.Repo(repo), short)), counts: countText(in, false), children: under(in)})
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// repoName gives the name of a repository on its line: the name after
// the slash, or OWNER/REPO when the repositories have several owners.
func repoName(r name.Repo, short bool) string {
	if r == "" {
		return "no repository"
	}
	if _, after, ok := strings.Cut(string(r), "/"); ok && short {
		return render.Clean(after)
	}
	return render.Clean(string(r))
}

// shortRepoNames says whether the repositories of rows have one owner.
func shortRepoNames(rows []wire.TopRow) bool {
	owners := map[string]bool{}
	for _, r := range rows {
		if owner, _, ok := strings.Cut(string(r.URI.Repo), "/"); ok {
			owners[owner] = true
		}
	}
	return len(owners) <= 1
}

// sessionNodes gives the sessions of one repository: a blocked session
// first, then in the order of the session ID.
func sessionNodes(s Snapshot, rows []wire.TopRow) []*node {
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b wire.TopRow) int {
		if c := cmp.Compare(boolInt(a.State != "blocked"), boolInt(b.State != "blocked")); c != 0 {
			return c
		}
		return strings.Compare(a.URI.Session, b.URI.Session)
	})
	var out []*node
	for _, r := range rows {
		out = append(out, sessionNode(s, r))
	}
	return out
}

// sessionNode gives the line of a session (short ID, ↑ for an old riff,
// #worktree, tags, the state in its color) and one line for each fact.
func sessionNode(s Snapshot, r wire.TopRow) *node {
	who := r.URI.Who().String()
	label := Line{render.Of(who, shortID(render.Clean(r.URI.Session)))}
	if r.Update {
		label = append(label, render.Plain("  "), render.In(render.Warn, "↑"))
	}
	if r.URI.Worktree != "" {
		label = append(label, render.Plain("  #"+render.Clean(r.URI.Worktree)))
	}
	if r.Role != "" {
		label = append(label, render.Plain("  "+render.Clean(r.Role)))
	}
	label = append(label, render.Plain("  "), render.In(stateStyle(r.State), render.Clean(r.State)))
	n := &node{label: label, session: true}
	if r.First != "" {
		style := render.Normal
		if r.State == "blocked" {
			style = render.Bad
		}
		n.facts = append(n.facts, Line{render.In(style, render.Clean(r.First))})
	}
	if r.Unanswered {
		n.facts = append(n.facts, Line{render.In(render.Bad, "the lead gave no answer")})
	}
	if len(r.Claims) > 0 {
		n.facts = append(n.facts, plain("working on "+workingOn(s, r)))
	}
	for _, f := range r.Facts {
		style := render.Normal
		if strings.HasSuffix(f, "(stale)") {
			style = render.Faint
		}
		n.facts = append(n.facts, Line{render.In(style, render.Clean(f))})
	}
	return n
}

// workingOn gives the claims of a session, each issue of its own
// repository with its title when gh read it: #7 Fix the help.
func workingOn(s Snapshot, r wire.TopRow) string {
	var items []string
	for _, c := range r.Claims {
		text := itemText(c.Item)
		if f, ok := s.Forge[r.URI.Repo]; ok && c.Thread == string(r.URI.Repo) {
			if n, ok := issueNumber(c.Item); ok {
				if title, ok := f.Title(n); ok {
					text += " " + forge.Text(title)
				}
			}
		}
		items = append(items, text)
	}
	return render.Clean(strings.Join(items, ", "))
}

func stateStyle(state string) render.Style {
	switch state {
	case "blocked", "failed":
		return render.Bad
	case "paused", "waiting", "must clear":
		return render.Warn
	case "offline":
		return render.Faint
	}
	return render.Normal
}

// personLabel gives the start of the line of a person: the user in its
// bold color, the tag owner or admin, online or offline with the time
// since its last call (away only on a line of each member).
func personLabel(p wire.TopPerson, away bool) Line {
	l := Line{render.Part{Text: render.Clean(p.User), Style: render.Person, Who: p.User}}
	if p.Tag != "" {
		l = append(l, render.Plain("  "+render.Clean(p.Tag)))
	}
	switch {
	case p.Online:
		l = append(l, render.Plain("  online"))
	case away:
		l = append(l, render.Plain("  "), render.In(render.Faint, "offline"))
		if p.Seen != "" {
			l = append(l, render.Plain("  "), render.In(render.Faint, "seen "+render.Clean(p.Seen)+" ago"))
		}
	}
	return l
}

// countText gives the counts at the end of a group line: the sessions,
// then for a host the kinds and the sessions to update, then the busy,
// idle and blocked sessions and the claims. A count of 0 is not shown.
// A wait counts as busy; offline, paused and must clear as idle.
func countText(rows []wire.TopRow, host bool) string {
	text := plural(len(rows), "session", "sessions")
	var groups []string
	if host {
		kinds := map[string]int{}
		update := 0
		for _, r := range rows {
			tags := strings.Fields(r.Role)
			for _, k := range []string{"lead", "container", "worker", "daemon"} {
				if slices.Contains(tags, k) {
					kinds[k]++
					break
				}
			}
			if r.Update {
				update++
			}
		}
		var ks []string
		for _, k := range []struct{ one, many string }{{"lead", "leads"}, {"container", "containers"}, {"worker", "workers"}, {"daemon", "daemons"}} {
			if n := kinds[k.one]; n > 0 {
				ks = append(ks, plural(n, k.one, k.many))
			}
		}
		if len(ks) > 0 {
			groups = append(groups, strings.Join(ks, ", "))
		}
		if update > 0 {
			groups = append(groups, strconv.Itoa(update)+" to update")
		}
	}
	// The guide's example counts an offline session as idle: each
	// session that is neither busy (a wait is busy) nor blocked is idle.
	states := map[string]int{}
	claims := 0
	for _, r := range rows {
		switch r.State {
		case "busy", "waiting":
			states["busy"]++
		case "blocked":
			states["blocked"]++
		default:
			states["idle"]++
		}
		claims += len(r.Claims)
	}
	var ss []string
	for _, st := range []string{"busy", "idle", "blocked"} {
		if n := states[st]; n > 0 {
			ss = append(ss, strconv.Itoa(n)+" "+st)
		}
	}
	if claims > 0 {
		ss = append(ss, plural(claims, "claim", "claims"))
	}
	if len(ss) > 0 {
		groups = append(groups, strings.Join(ss, ", "))
	}
	if len(groups) > 0 {
		text += ": " + strings.Join(groups, "; ")
	}
	return text
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// collapse joins a group line with the only line under it, after a ›,
// while that line is a group too: the counts are those of the host
// when the chain holds one (they say the most), else of the last line.
func (n *node) collapse() *node {
	out := &node{label: slices.Clone(n.label), counts: n.counts, host: n.host, children: n.children}
	for len(out.children) == 1 && !out.children[0].session {
		c := out.children[0]
		out.label = append(out.label, render.Plain("  › "))
		out.label = append(out.label, c.label...)
		if c.host || !out.host {
			out.counts, out.host = c.counts, c.host || out.host
		}
		out.children = c.children
	}
	return out
}

// render gives the lines of a node: its own line after prefix, and the
// lines under it after more, each with a branch of the tree.
func (n *node) render(prefix, more string) []Line {
	if !n.session {
		n = n.collapse()
	}
	line := append(Line{render.Plain(prefix)}, n.label...)
	if n.counts != "" {
		line = append(line, render.Plain("  "+n.counts))
	}
	out := []Line{line}
	if n.session {
		for _, f := range n.facts {
			out = append(out, append(Line{render.Plain(more + "  ")}, f...))
		}
		return out
	}
	for i, c := range n.children {
		branch, next := "├─ ", "│  "
		if i == len(n.children)-1 {
			branch, next = "└─ ", "   "
		}
		out = append(out, c.render(more+branch, more+next)...)
	}
	return out
}

// rowsWhere gives the rows that keep says.
func rowsWhere(rows []wire.TopRow, keep func(wire.TopRow) bool) []wire.TopRow {
	var out []wire.TopRow
	for _, r := range rows {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// keysOf gives the sorted keys of rows, each once.
func keysOf(rows []wire.TopRow, key func(wire.TopRow) string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, key(r))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
