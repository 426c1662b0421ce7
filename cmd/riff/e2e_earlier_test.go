package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGivenEarlierWorkOnAnItemWhenASessionClaimsItThenRiffClaimAndTheClaimToolShowTheLineOfTheGuide:
// the guide, "See the earlier work on an item", with a local bare
// repository as the origin (OWNER/REPO from its path: acme/app): the
// branch that a session before pushed after this clone was made (riff
// fetches first), and a worktree of the item on this machine. riff claim
// and the claim tool of riff relay mcp give the same line after the
// claim; a verify claim gets none.
func TestGivenEarlierWorkOnAnItemWhenASessionClaimsItThenRiffClaimAndTheClaimToolShowTheLineOfTheGuide(t *testing.T) {
	bin := buildRiff(t, "riff", "riff-server")
	srv := startServer(t, bin, freePort(t), "")
	server := srv.url()
	root := t.TempDir()
	bare := filepath.Join(root, "acme", "app.git")
	if err := os.MkdirAll(filepath.Dir(bare), 0o755); err != nil {
		t.Fatal(err)
	}
	gitRun(t, root, "init", "-q", "--bare", "-b", "main", bare)
	before := filepath.Join(root, "before")
	gitRun(t, root, "clone", "-q", bare, before)
	writeFile(t, filepath.Join(before, "README.md"), "app\n")
	gitRun(t, before, "add", "README.md")
	gitRun(t, before, "commit", "-q", "-m", "the start")
	gitRun(t, before, "push", "-q", "origin", "main")
	clone := filepath.Join(root, "app")
	gitRun(t, root, "clone", "-q", bare, clone)

	// The session before pushed a WIP commit of issue-12 after the clone.
	gitRun(t, before, "switch", "-q", "-c", "worktree-issue-12")
	writeFile(t, filepath.Join(before, "api.go"), "package app\n")
	gitRun(t, before, "add", "api.go")
	gitRun(t, before, "commit", "-q", "-m", "WIP: the API")
	gitRun(t, before, "push", "-q", "origin", "worktree-issue-12")
	head := gitRun(t, before, "rev-parse", "--short=7", "HEAD")
	// A worktree of issue-7 on this machine, with two files not committed.
	wt := filepath.Join(clone, ".claude", "worktrees", "issue-7")
	gitRun(t, clone, "worktree", "add", "-q", "-b", "worktree-issue-7", wt)
	writeFile(t, filepath.Join(wt, "a.go"), "package app\n")
	writeFile(t, filepath.Join(wt, "README.md"), "changed\n")

	cliText(t, bin, clone, server, "", "resume", "--riff")
	// A new session sees the earlier work of the clone before it picks
	// an item: the whoami tool lists it.
	relay := startRelay(t, bin, clone, server, "b7d0aa11-bbbb")
	list := fmt.Sprintf("Earlier work in this clone that no live session owns: claim the item to go on from it (\"Pick up dropped work\" in the instructions of the riff tools).\n"+
		"  issue-12: the pushed branch origin/worktree-issue-12 at %s (a WIP commit, just now)\n"+
		"  issue-7: the worktree %s (2 files not committed)", head, wt)
	if got := relay.ok("whoami", nil); !strings.HasSuffix(got, list) {
		t.Errorf("the whoami tool of a new session:\n%s\nwant it to end with:\n%s", got, list)
	}
	const pickUp = `Go on from it, and do not start again: see "Pick up dropped work" in the instructions of the riff tools.`
	got := cliText(t, bin, clone, server, "a6cf2205-aaaa", "claim", "issue-12")
	want := fmt.Sprintf("You hold issue-12 in acme/app.\nEarlier work on issue-12: the pushed branch origin/worktree-issue-12 at %s (a WIP commit, just now). %s", head, pickUp)
	if got != want {
		t.Errorf("riff claim issue-12:\n%s\nwant:\n%s", got, want)
	}

	got = relay.ok("claim", map[string]any{"item": "issue-7"})
	want = fmt.Sprintf("You hold issue-7 in acme/app.\nEarlier work on issue-7: the worktree %s (2 files not committed). %s", wt, pickUp)
	if got != want {
		t.Errorf("the claim tool of issue-7:\n%s\nwant:\n%s", got, want)
	}

	// A verify claim gets no line, also with a verify worktree of its own.
	vwt := filepath.Join(clone, ".claude", "worktrees", "verify-issue-12")
	gitRun(t, clone, "worktree", "add", "-q", "-b", "worktree-verify-issue-12", vwt)
	writeFile(t, filepath.Join(vwt, "notes.md"), "the criteria\n")
	got = cliText(t, bin, clone, server, "c8e1bb22-cccc", "claim", "verify-issue-12")
	if strings.Contains(got, "Earlier work") || !strings.HasPrefix(got, "You hold verify-issue-12 in acme/app.") {
		t.Errorf("riff claim verify-issue-12 = %q; want the claim and no earlier work", got)
	}
	// Now live sessions hold issue-12 and issue-7: whoami lists nothing.
	if got := cliText(t, bin, clone, server, "d9f2cc33-dddd", "whoami"); strings.Contains(got, "Earlier work") {
		t.Errorf("whoami of a session when live sessions own each item:\n%s\nwant no earlier work", got)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
