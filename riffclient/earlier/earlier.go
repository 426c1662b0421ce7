// Package earlier finds the earlier work on an item in the clone of a
// session, as the guide says ("See the earlier work on an item"): each
// branch of the item that origin holds, and each worktree of the item on
// the machine, with what in it is not committed and not pushed. riff shows
// it at a claim, so that a session goes on from the work of a session
// before it and does not start again.
//
// # Basics
//
//	work, err := earlier.Find(ctx, earlier.Options{Dir: dir}, "issue-12")
//	fmt.Println(work.Line(time.Now()))
//
// Find fetches from origin first (git fetch --prune origin), for at most
// 5 s; a fetch that fails or takes longer leaves the branches of the
// last fetch. A verify item (verify-issue-12) has no earlier work: a
// verify worktree holds no work. [List] gives the earlier work of the
// clone, at most 8 items, for a new session before it picks an item.
//
// The items of a branch and of a worktree come from their names: the
// branch worktree-ITEM (the name that Claude Code gives the branch of
// its worktree ITEM), ITEM, or a name that ends in /ITEM; the worktree
// whose folder is named ITEM, or that has such a branch checked out. The
// default branch is no item. List takes its items only from the names
// worktree-ITEM and from the folders of the linked worktrees, so that a
// branch of a release or of a bot is no item.
//
// # Caveats
//
// It runs git only, in the clone; it calls no riff and decides no rule of
// the riff. A commit is pushed when a branch of origin holds it, or when
// the default branch of origin holds its work (a squash merge makes new
// commits and the forge deletes the branch: merging the commit into the
// default branch then changes nothing). That test needs git 2.38 or later
// (git merge-tree --write-tree); an older git counts such commits as not
// pushed.
package earlier

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
)

// FetchLimit is the longest time of the fetch from origin.
const FetchLimit = 5 * time.Second

// MaxItems is the most items that [List] gives.
const MaxItems = 8

// Options say where and how to look.
type Options struct {
	// Dir is a folder of the clone: its main worktree or a linked one.
	Dir string
	// FetchLimit bounds the fetch; 0 is [FetchLimit], and below 0 there
	// is no fetch.
	FetchLimit time.Duration
}

// Branch is a branch of origin that holds work of the item that the
// default branch of origin does not hold.
type Branch struct {
	// Name is the remote-tracking name: origin/worktree-issue-12.
	Name string
	// Commit is the short hash of its head.
	Commit string
	// WIP says that the subject of its head has WIP: work that is not
	// done.
	WIP bool
	// At is the time of its head commit.
	At time.Time
}

// Worktree is a worktree of the item on this machine.
type Worktree struct {
	Path string
	// NotCommitted counts its files that differ from its head, or that
	// git does not track: they are the only copy.
	NotCommitted int
	// NotPushed counts its commits that are on no branch of origin.
	NotPushed int
	// NoOrigin says that the clone knows no branch of origin (no origin,
	// or no fetch yet): riff cannot tell what is pushed.
	NoOrigin bool
}

// Work is the earlier work on one item.
type Work struct {
	Item      name.Item
	Branches  []Branch
	Worktrees []Worktree
}

// None says that there is no earlier work.
func (w Work) None() bool { return len(w.Branches) == 0 && len(w.Worktrees) == 0 }

// Line is the line of the guide for the work, with the ages at now; ""
// when there is none.
//
//	Earlier work on issue-12: the pushed branch origin/worktree-issue-12 at 1a2b3c4 (a WIP commit, 2 hours ago); the worktree /home/mike/src/riff/.claude/worktrees/issue-12 (3 files not committed, 1 commit not pushed). Go on from it, and do not start again: see "Pick up dropped work" in the instructions of the riff tools.
func (w Work) Line(now time.Time) string {
	if w.None() {
		return ""
	}
	return fmt.Sprintf("Earlier work on %s: %s. Go on from it, and do not start again: see \"Pick up dropped work\" in the instructions of the riff tools.",
		w.Item, w.Parts(now))
}

// Parts names the pushed branches and the worktrees of the work, with
// the ages at now: the middle of [Work.Line].
func (w Work) Parts(now time.Time) string {
	var parts []string
	for _, b := range w.Branches {
		what := age(now.Sub(b.At))
		if b.WIP {
			what = "a WIP commit, " + what
		}
		parts = append(parts, fmt.Sprintf("the pushed branch %s at %s (%s)", b.Name, b.Commit, what))
	}
	for _, t := range w.Worktrees {
		var state []string
		if t.NotCommitted > 0 {
			state = append(state, count(t.NotCommitted, "file")+" not committed")
		}
		if t.NotPushed > 0 {
			state = append(state, count(t.NotPushed, "commit")+" not pushed")
		}
		if len(state) == 0 && t.NoOrigin {
			state = []string{"all committed"}
		} else if len(state) == 0 {
			state = []string{"all committed and pushed"}
		}
		parts = append(parts, fmt.Sprintf("the worktree %s (%s)", t.Path, strings.Join(state, ", ")))
	}
	return strings.Join(parts, "; ")
}

// Find gives the earlier work on item in the clone of o.Dir, after a
// fetch from origin. A folder outside git has none. A verify item has
// none, and nothing is fetched for it.
func Find(ctx context.Context, o Options, item name.Item) (Work, error) {
	if IsVerify(item) {
		return Work{Item: item}, nil
	}
	c, err := open(ctx, o)
	if err != nil || c == nil {
		return Work{Item: item}, err
	}
	return c.work(ctx, item), nil
}

// List gives the earlier work of the clone of o.Dir, after one fetch:
// each item with a pushed branch or a worktree, but the items of skip
// (those that a live session owns), in the order of their names, at
// most [MaxItems].
func List(ctx context.Context, o Options, skip func(name.Item) bool) ([]Work, error) {
	c, err := open(ctx, o)
	if err != nil || c == nil {
		return nil, err
	}
	seen := map[name.Item]bool{}
	var items []name.Item
	add := func(it name.Item) {
		if it == "" || seen[it] || IsVerify(it) {
			return
		}
		if _, err := name.ParseItem(string(it)); err != nil {
			return
		}
		seen[it] = true
		items = append(items, it)
	}
	// The items come from the names of Claude Code (the branch
	// worktree-ITEM) and from the folders of the linked worktrees: any
	// other branch of origin (a release, a bot's) is no sign of an item.
	for _, r := range c.refs {
		add(worktreeItem(strings.TrimPrefix(r.name, "origin/")))
	}
	for _, t := range c.trees {
		if !t.main {
			add(name.Item(filepath.Base(t.path)))
		}
		add(worktreeItem(t.branch))
	}
	slices.Sort(items)
	var out []Work
	for _, it := range items {
		// skip last: it may ask the riff.
		if w := c.work(ctx, it); !w.None() && (skip == nil || !skip(it)) {
			out = append(out, w)
		}
		if len(out) == MaxItems {
			break
		}
	}
	return out, nil
}

// IsVerify says whether item is the verify of an item (verify-issue-12):
// a verify worktree holds no work.
func IsVerify(item name.Item) bool { return strings.HasPrefix(string(item), "verify-") }

// itemOfBranch gives the item that a branch names: worktree-ITEM, ITEM,
// or a name that ends in /ITEM or /worktree-ITEM.
func itemOfBranch(branch string) name.Item {
	if branch == "" || branch == "HEAD" {
		return ""
	}
	last := branch[strings.LastIndex(branch, "/")+1:]
	return name.Item(strings.TrimPrefix(last, "worktree-"))
}

// worktreeItem is the item of a branch named as Claude Code names the
// branch of a worktree, worktree-ITEM (also after a folder: ann/…); ""
// for another name.
func worktreeItem(branch string) name.Item {
	last := branch[strings.LastIndex(branch, "/")+1:]
	it, ok := strings.CutPrefix(last, "worktree-")
	if !ok {
		return ""
	}
	return name.Item(it)
}

// itemOfBranch is the item of a branch of the clone: none for the
// default branch (main, master, or the one of origin).
func (c *clone) itemOfBranch(branch string) name.Item {
	if branch == "main" || branch == "master" || c.main != "" && branch == strings.TrimPrefix(c.main, "origin/") {
		return ""
	}
	return itemOfBranch(branch)
}

// ofItem says whether a branch names item.
func (c *clone) ofItem(branch string, item name.Item) bool {
	return branch != "" && c.itemOfBranch(branch) == item
}

// clone is what git says of the clone, read once.
type clone struct {
	dir string
	// main is the default branch of origin (origin/main), "" with none.
	main string
	// base is the branch whose work is merged: main, else the local
	// main or master of a clone with no origin; "" with none.
	base  string
	refs  []ref
	trees []tree
}

type ref struct {
	name    string // origin/worktree-issue-12
	hash    string
	at      time.Time
	subject string
}

type tree struct {
	path   string
	head   string
	branch string // the short name of the branch checked out; "" detached
	main   bool   // the main worktree of the clone
}

// open fetches from origin and reads the branches and the worktrees. A
// folder outside git, or a clone with no origin, gives nil and no error:
// there is no pushed work to look at, and the worktrees of a clone with
// no origin are read with no branch of origin.
func open(ctx context.Context, o Options) (*clone, error) {
	top, err := git(ctx, o.Dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, nil
	}
	c := &clone{dir: strings.TrimSpace(top)}
	if _, err := git(ctx, c.dir, "remote", "get-url", "origin"); err == nil {
		limit := o.FetchLimit
		if limit == 0 {
			limit = FetchLimit
		}
		if limit > 0 {
			fctx, cancel := context.WithTimeout(ctx, limit)
			// A fetch that fails (no network, no access) leaves the
			// branches of the last fetch: they are still worth a look.
			_, _ = git(fctx, c.dir, "fetch", "--prune", "--quiet", "origin")
			cancel()
		}
		c.main = c.defaultBranch(ctx)
		c.refs = c.readRefs(ctx)
	}
	c.base = c.main
	for _, b := range []string{"main", "master"} {
		if c.base != "" {
			break
		}
		if _, err := git(ctx, c.dir, "rev-parse", "--verify", "--quiet", "refs/heads/"+b); err == nil {
			c.base = b
		}
	}
	c.trees, err = c.readTrees(ctx)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// defaultBranch gives origin/HEAD, else origin/main or origin/master.
func (c *clone) defaultBranch(ctx context.Context) string {
	if out, err := git(ctx, c.dir, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"); err == nil {
		return strings.TrimSpace(out)
	}
	for _, b := range []string{"origin/main", "origin/master"} {
		if _, err := git(ctx, c.dir, "rev-parse", "--verify", "--quiet", b); err == nil {
			return b
		}
	}
	return ""
}

func (c *clone) readRefs(ctx context.Context) []ref {
	out, err := git(ctx, c.dir, "for-each-ref", "--format=%(refname:short)%00%(objectname)%00%(committerdate:unix)%00%(subject)", "refs/remotes/origin/")
	if err != nil {
		return nil
	}
	var refs []ref
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		f := strings.SplitN(line, "\x00", 4)
		if len(f) != 4 || f[0] == "origin" || f[0] == "origin/HEAD" {
			continue
		}
		unix, _ := strconv.ParseInt(f[2], 10, 64)
		refs = append(refs, ref{name: f[0], hash: f[1], at: time.Unix(unix, 0), subject: f[3]})
	}
	return refs
}

func (c *clone) readTrees(ctx context.Context) ([]tree, error) {
	out, err := git(ctx, c.dir, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	var trees []tree
	for i, block := range strings.Split(strings.TrimSpace(out), "\n\n") {
		var t tree
		skip := false
		for _, line := range strings.Split(block, "\n") {
			key, value, _ := strings.Cut(line, " ")
			switch key {
			case "worktree":
				t.path = value
			case "HEAD":
				t.head = value
			case "branch":
				t.branch = strings.TrimPrefix(value, "refs/heads/")
			case "bare", "prunable":
				skip = true
			}
		}
		t.main = i == 0
		if !skip && t.path != "" {
			trees = append(trees, t)
		}
	}
	return trees, nil
}

// work gives the earlier work on item.
func (c *clone) work(ctx context.Context, item name.Item) Work {
	w := Work{Item: item}
	for _, r := range c.refs {
		if !c.ofItem(strings.TrimPrefix(r.name, "origin/"), item) || r.name == c.main || c.mainHolds(ctx, r.hash) {
			continue
		}
		w.Branches = append(w.Branches, Branch{Name: r.name, Commit: short(r.hash), WIP: isWIP(r.subject), At: r.at})
	}
	for _, t := range c.trees {
		if !c.ofItem(t.branch, item) && (t.main || filepath.Base(t.path) != string(item)) {
			continue
		}
		wt := c.worktree(ctx, t)
		if wt.NotCommitted == 0 && wt.NotPushed == 0 && t.head != "" && c.mainHolds(ctx, t.head) {
			// Nothing of it is work that the default branch lacks.
			continue
		}
		w.Worktrees = append(w.Worktrees, wt)
	}
	return w
}

// worktree counts what a worktree has that is not committed, and not
// pushed.
func (c *clone) worktree(ctx context.Context, t tree) Worktree {
	wt := Worktree{Path: t.path}
	if out, err := git(ctx, t.path, "status", "--porcelain", "--untracked-files=all"); err == nil {
		for _, line := range strings.Split(out, "\n") {
			if len(line) > 3 && !c.holdsTree(filepath.Join(t.path, strings.Trim(line[3:], `"/`))) {
				wt.NotCommitted++
			}
		}
	}
	if t.head == "" {
		return wt
	}
	if len(c.refs) == 0 {
		// No branch of origin to compare with (no origin, or no fetch
		// yet): riff cannot count what is not pushed.
		wt.NoOrigin = true
		return wt
	}
	if out, err := git(ctx, c.dir, "rev-list", "--count", t.head, "--not", "--remotes=origin"); err == nil {
		wt.NotPushed, _ = strconv.Atoi(strings.TrimSpace(out))
	}
	if wt.NotPushed > 0 && c.mainHolds(ctx, t.head) {
		wt.NotPushed = 0
	}
	return wt
}

// holdsTree says whether path is another worktree of the clone, or a
// folder that holds one (.claude/worktrees in the main worktree): git
// shows it as a folder that it does not track, and it is no file of
// the work.
func (c *clone) holdsTree(path string) bool {
	for _, t := range c.trees {
		if t.path == path || strings.HasPrefix(t.path, path+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// mainHolds says whether the default branch of origin holds the work of
// commit: merging commit into it changes nothing (a merge, or a squash
// merge of the same changes).
func (c *clone) mainHolds(ctx context.Context, commit string) bool {
	if c.base == "" {
		return false
	}
	if _, err := git(ctx, c.dir, "merge-base", "--is-ancestor", commit, c.base); err == nil {
		return true
	}
	merged, err := git(ctx, c.dir, "merge-tree", "--write-tree", c.base, commit)
	if err != nil {
		return false
	}
	tree, err := git(ctx, c.dir, "rev-parse", c.base+"^{tree}")
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(merged, "\n")
	return strings.TrimSpace(first) == strings.TrimSpace(tree)
}

func isWIP(subject string) bool {
	for _, w := range strings.FieldsFunc(subject, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') }) {
		if w == "WIP" {
			return true
		}
	}
	return false
}

func short(hash string) string {
	if len(hash) > 7 {
		return hash[:7]
	}
	return hash
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// age says how long ago as the guide does: "2 hours ago".
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return count(int(d/time.Minute), "minute") + " ago"
	case d < 48*time.Hour:
		return count(int(d/time.Hour), "hour") + " ago"
	}
	return count(int(d/(24*time.Hour)), "day") + " ago"
}

// git runs git in dir, with no prompt for a password: a fetch that
// needs one fails at once.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	cmd.WaitDelay = time.Second
	if args[0] == "fetch" {
		detach(cmd)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return out.String(), fmt.Errorf("git %s: exit %d: %s", args[0], exit.ExitCode(), strings.TrimSpace(errOut.String()))
		}
		return out.String(), fmt.Errorf("git %s: %w", args[0], err)
	}
	return out.String(), nil
}
