package earlier

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/google/go-cmp/cmp"
)

// run runs git in dir with the env of a test (a fixed person, no global
// config) and fails the test when git fails; env adds variables.
func run(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Ann", "GIT_AUTHOR_EMAIL=ann@example.com", "GIT_COMMITTER_NAME=Ann", "GIT_COMMITTER_EMAIL=ann@example.com")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// origin makes a bare repository with one commit on main, and gives it
// with a clone of it (the machine of a session before).
func origin(t *testing.T) (bare, before string) {
	t.Helper()
	root := t.TempDir()
	bare = filepath.Join(root, "origin.git")
	run(t, root, nil, "init", "-q", "--bare", "-b", "main", bare)
	before = filepath.Join(root, "before")
	run(t, root, nil, "clone", "-q", bare, before)
	write(t, before, "README.md", "riff\n")
	run(t, before, nil, "add", "README.md")
	run(t, before, nil, "commit", "-q", "-m", "the start")
	run(t, before, nil, "push", "-q", "origin", "main")
	return bare, before
}

func write(t *testing.T, dir, file, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, file)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// commitAt commits file in dir with the subject, at the time at.
func commitAt(t *testing.T, dir, file, subject string, at time.Time) string {
	t.Helper()
	write(t, dir, file, subject+"\n")
	run(t, dir, nil, "add", file)
	date := "GIT_COMMITTER_DATE=" + at.Format(time.RFC3339)
	run(t, dir, []string{date, "GIT_AUTHOR_DATE=" + at.Format(time.RFC3339)}, "commit", "-q", "-m", subject)
	return run(t, dir, nil, "rev-parse", "HEAD")
}

// TestGivenAPushedBranchAndAWorktreeOfAnItemWhenASessionClaimsItThenTheLineNamesBothAsTheGuideDoes:
// the guide, "See the earlier work on an item": riff fetches first, so a
// branch pushed after the clone was made shows; a worktree of the item
// counts its files not committed and its commits not pushed.
func TestGivenAPushedBranchAndAWorktreeOfAnItemWhenASessionClaimsItThenTheLineNamesBothAsTheGuideDoes(t *testing.T) {
	bare, before := origin(t)
	clone := filepath.Join(t.TempDir(), "riff")
	run(t, "/", nil, "clone", "-q", bare, clone)

	// The session before pushed a WIP commit of issue-12, two hours ago,
	// after this clone was made.
	now := time.Now()
	run(t, before, nil, "switch", "-q", "-c", "worktree-issue-12")
	head := commitAt(t, before, "api.go", "WIP: the API of issue-12", now.Add(-2*time.Hour-time.Minute))
	run(t, before, nil, "push", "-q", "origin", "worktree-issue-12")

	// And on this machine a worktree of issue-12 with one commit not
	// pushed and three files not committed.
	wt := filepath.Join(clone, ".claude", "worktrees", "issue-12")
	run(t, clone, nil, "worktree", "add", "-q", "-b", "worktree-issue-12-local", wt)
	commitAt(t, wt, "local.go", "the start of the store", now.Add(-time.Hour))
	write(t, wt, "README.md", "changed\n")
	write(t, wt, "new1.go", "one\n")
	write(t, wt, "docs/new2.md", "two\n")

	work, err := Find(context.Background(), Options{Dir: clone}, "issue-12")
	if err != nil {
		t.Fatalf("Find = %v", err)
	}
	want := fmt.Sprintf("Earlier work on issue-12: the pushed branch origin/worktree-issue-12 at %s (a WIP commit, 2 hours ago); "+
		"the worktree %s (3 files not committed, 1 commit not pushed). "+
		`Go on from it, and do not start again: see "Pick up dropped work" in the instructions of the riff tools.`, head[:7], wt)
	if got := work.Line(now); got != want {
		t.Errorf("the line:\n%s\nwant:\n%s", got, want)
	}

	// Another item has none; a verify claim gets none, also with a
	// worktree of its own: a verify worktree holds no work.
	vwt := filepath.Join(clone, ".claude", "worktrees", "verify-issue-12")
	run(t, clone, nil, "worktree", "add", "-q", "-b", "worktree-verify-issue-12", vwt)
	write(t, vwt, "notes.md", "the criteria\n")
	for _, item := range []name.Item{"issue-1", "verify-issue-12"} {
		if work, err := Find(context.Background(), Options{Dir: clone}, item); err != nil || !work.None() || work.Line(now) != "" {
			t.Errorf("Find(%s) = %+v, %v; want no earlier work", item, work, err)
		}
	}
	// A folder outside git has none.
	if work, err := Find(context.Background(), Options{Dir: t.TempDir()}, "issue-12"); err != nil || !work.None() {
		t.Errorf("Find outside git = %+v, %v; want none", work, err)
	}
}

// TestGivenASquashMergeWhenTheBranchIsGoneThenRiffCountsNoCommitAsNotPushed:
// after a squash merge the forge deletes the branch and main holds the
// work in a new commit: the worktree has nothing that is not pushed.
func TestGivenASquashMergeWhenTheBranchIsGoneThenRiffCountsNoCommitAsNotPushed(t *testing.T) {
	bare, before := origin(t)
	clone := filepath.Join(t.TempDir(), "riff")
	run(t, "/", nil, "clone", "-q", bare, clone)
	wt := filepath.Join(clone, ".claude", "worktrees", "issue-9")
	run(t, clone, nil, "worktree", "add", "-q", "-b", "worktree-issue-9", wt)
	commitAt(t, wt, "a.go", "WIP: a", time.Now().Add(-time.Hour))
	commitAt(t, wt, "b.go", "the b of issue-9", time.Now().Add(-time.Hour))
	run(t, wt, nil, "push", "-q", "origin", "worktree-issue-9")

	// Before the merge: the pushed branch, and nothing not pushed.
	work, err := Find(context.Background(), Options{Dir: clone}, "issue-9")
	if err != nil || len(work.Branches) != 1 || len(work.Worktrees) != 1 || work.Worktrees[0].NotPushed != 0 {
		t.Fatalf("Find before the merge = %+v, %v; want the branch and the worktree with all pushed", work, err)
	}
	// The squash merge on the forge, and the delete of the branch.
	run(t, before, nil, "fetch", "-q", "origin")
	run(t, before, nil, "merge", "-q", "--squash", "origin/worktree-issue-9")
	run(t, before, nil, "commit", "-q", "-m", "issue-9 (#40)")
	run(t, before, nil, "push", "-q", "origin", "main")
	run(t, before, nil, "push", "-q", "origin", "--delete", "worktree-issue-9")

	// The two commits of the worktree are on no branch of origin now,
	// but main holds their work: none counts as not pushed. A file that
	// is not committed is still the only copy.
	write(t, wt, "c.go", "c\n")
	work, err = Find(context.Background(), Options{Dir: clone}, "issue-9")
	if err != nil {
		t.Fatal(err)
	}
	want := Work{Item: "issue-9", Worktrees: []Worktree{{Path: wt, NotCommitted: 1}}}
	if diff := cmp.Diff(want, work); diff != "" {
		t.Errorf("Find after the squash merge (-want +got):\n%s", diff)
	}
	if got := work.Line(time.Now()); !strings.Contains(got, "the worktree "+wt+" (1 file not committed)") {
		t.Errorf("the line = %q; want the worktree with 1 file not committed and no commit not pushed", got)
	}
	// With that file gone, main holds all of the worktree: it is no
	// earlier work.
	if err := os.Remove(filepath.Join(wt, "c.go")); err != nil {
		t.Fatal(err)
	}
	if work, err := Find(context.Background(), Options{Dir: clone}, "issue-9"); err != nil || !work.None() {
		t.Errorf("Find of a merged worktree = %+v, %v; want no earlier work", work, err)
	}
}

// TestGivenAnOriginThatDoesNotAnswerWhenRiffFetchesThenItStopsAtTheLimitAndUsesTheLastFetch:
// riff fetches for at most 5 s; the branches of the last fetch stay.
func TestGivenAnOriginThatDoesNotAnswerWhenRiffFetchesThenItStopsAtTheLimitAndUsesTheLastFetch(t *testing.T) {
	bare, before := origin(t)
	clone := filepath.Join(t.TempDir(), "riff")
	run(t, "/", nil, "clone", "-q", bare, clone)
	run(t, before, nil, "switch", "-q", "-c", "worktree-issue-3")
	commitAt(t, before, "c.go", "WIP: c", time.Now())
	run(t, before, nil, "push", "-q", "origin", "worktree-issue-3")
	run(t, clone, nil, "fetch", "-q", "origin")
	// Now origin hangs: an ext:: remote whose command never answers.
	run(t, clone, nil, "config", "protocol.ext.allow", "always")
	run(t, clone, nil, "remote", "set-url", "origin", "ext::sleep 60")
	start := time.Now()
	work, err := Find(context.Background(), Options{Dir: clone, FetchLimit: 200 * time.Millisecond}, "issue-3")
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("Find took %v with a fetch limit of 200ms; want it ended at the limit", took)
	}
	if err != nil || len(work.Branches) != 1 || work.Branches[0].Name != "origin/worktree-issue-3" || !work.Branches[0].WIP {
		t.Errorf("Find = %+v, %v; want the branch of the last fetch", work, err)
	}
}

// TestGivenTenItemsWithEarlierWorkWhenANewSessionStartsThenRiffListsAtMost8ThatNoLiveSessionOwns:
// the guide: riff lists the earlier work of the clone that no live
// session owns, at most 8 items.
func TestGivenTenItemsWithEarlierWorkWhenANewSessionStartsThenRiffListsAtMost8ThatNoLiveSessionOwns(t *testing.T) {
	bare, before := origin(t)
	clone := filepath.Join(t.TempDir(), "riff")
	run(t, "/", nil, "clone", "-q", bare, clone)
	for i := 1; i <= 10; i++ {
		branch := fmt.Sprintf("worktree-issue-%02d", i)
		run(t, before, nil, "switch", "-q", "-c", branch, "main")
		commitAt(t, before, fmt.Sprintf("f%d.go", i), "WIP: "+branch, time.Now())
		run(t, before, nil, "push", "-q", "origin", branch)
	}
	// A branch of another name is no sign of an item.
	run(t, before, nil, "switch", "-q", "-c", "bugfix-login", "main")
	commitAt(t, before, "b.go", "the fix", time.Now())
	run(t, before, nil, "push", "-q", "origin", "bugfix-login")
	// A verify branch holds no work.
	run(t, before, nil, "switch", "-q", "-c", "worktree-verify-issue-01", "main")
	commitAt(t, before, "v.go", "verify", time.Now())
	run(t, before, nil, "push", "-q", "origin", "worktree-verify-issue-01")

	owned := func(it name.Item) bool { return it == "issue-02" }
	works, err := List(context.Background(), Options{Dir: clone}, owned)
	if err != nil {
		t.Fatalf("List = %v", err)
	}
	var items []name.Item
	for _, w := range works {
		items = append(items, w.Item)
	}
	want := []name.Item{"issue-01", "issue-03", "issue-04", "issue-05", "issue-06", "issue-07", "issue-08", "issue-09"}
	if diff := cmp.Diff(want, items); diff != "" {
		t.Errorf("the items of List (-want +got):\n%s", diff)
	}
}

func TestLineCountsAndAges(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	w := Work{Item: "issue-5",
		Branches:  []Branch{{Name: "origin/worktree-issue-5", Commit: "1a2b3c4", At: now.Add(-3 * 24 * time.Hour)}, {Name: "origin/ann/issue-5", Commit: "5d6e7f8", WIP: true, At: now.Add(-90 * time.Second)}},
		Worktrees: []Worktree{{Path: "/src/riff/.claude/worktrees/issue-5", NotCommitted: 1, NotPushed: 2}},
	}
	want := "Earlier work on issue-5: the pushed branch origin/worktree-issue-5 at 1a2b3c4 (3 days ago); " +
		"the pushed branch origin/ann/issue-5 at 5d6e7f8 (a WIP commit, 1 minute ago); " +
		"the worktree /src/riff/.claude/worktrees/issue-5 (1 file not committed, 2 commits not pushed). " +
		`Go on from it, and do not start again: see "Pick up dropped work" in the instructions of the riff tools.`
	if got := w.Line(now); got != want {
		t.Errorf("Line:\n%s\nwant:\n%s", got, want)
	}
}

// TestGivenWorktreesInTheMainCloneWhenRiffListsTheWorkThenTheDefaultBranchIsNoItemAndTheirFoldersAreNoFiles:
// Claude Code makes its worktrees under .claude/worktrees of the main
// clone, where git shows them as folders that it does not track.
func TestGivenWorktreesInTheMainCloneWhenRiffListsTheWorkThenTheDefaultBranchIsNoItemAndTheirFoldersAreNoFiles(t *testing.T) {
	bare, _ := origin(t)
	clone := filepath.Join(t.TempDir(), "riff")
	run(t, "/", nil, "clone", "-q", bare, clone)
	wt := filepath.Join(clone, ".claude", "worktrees", "issue-20")
	run(t, clone, nil, "worktree", "add", "-q", "-b", "worktree-issue-20", wt)
	write(t, wt, "x.go", "x\n")
	works, err := List(context.Background(), Options{Dir: clone}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Work{{Item: "issue-20", Worktrees: []Worktree{{Path: wt, NotCommitted: 1}}}}
	if diff := cmp.Diff(want, works); diff != "" {
		t.Errorf("List with the main clone on main (-want +got):\n%s", diff)
	}
	// The main clone on a branch of an item is a worktree of it; the
	// folder of the other worktree is no file of its work.
	run(t, clone, nil, "switch", "-q", "-c", "worktree-issue-30")
	write(t, clone, "y.go", "y\n")
	work, err := Find(context.Background(), Options{Dir: clone}, "issue-30")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Work{Item: "issue-30", Worktrees: []Worktree{{Path: clone, NotCommitted: 1}}}, work); diff != "" {
		t.Errorf("Find of the item of the main clone (-want +got):\n%s", diff)
	}
}
