package forge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// Every text from GitHub loses its escape sequences and line breaks and
// is cut to 256 characters.
func TestGivenATitleWithEscapesLineBreaksAndMoreThan256CharactersThenItIsCleanAndCut(t *testing.T) {
	long := strings.Repeat("漢", 300)
	issues := `[{"number": 1, "title": "\u001b[31mred\u001b[0m\nnext\r\nline", "milestone": {"title": "Wave 2\u001b]0;x\u0007"}, "body": ""},
		{"number": 2, "title": "` + long + `", "milestone": null, "body": ""}]`
	r, err := Parse([]byte(issues), []byte(`[]`))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Issues[0].Title; strings.ContainsAny(got, "\x1b\n\r\a") || !strings.Contains(got, "red") || !strings.Contains(got, "line") {
		t.Errorf("title = %q; want no escape and no line break", got)
	}
	if got := r.Issues[0].Wave; strings.ContainsAny(got, "\x1b\a") {
		t.Errorf("wave = %q", got)
	}
	if n := utf8.RuneCountInString(r.Issues[1].Title); n != MaxText {
		t.Errorf("a title of 300 characters has %d; want %d", n, MaxText)
	}
}

func TestParseFindsTheWaveTheNeedsAndTheItemsAndTheFaultsOfEachPullRequest(t *testing.T) {
	issues := `[{"number": 3, "title": "a", "milestone": {"title": "Wave 10"}, "body": ""},
		{"number": 4, "title": "b", "milestone": {"title": "Wave 9: Cleanup 2"}, "body": "text\nNeeds: #3, #1\n"},
		{"number": 5, "title": "c", "milestone": {"title": "Backlog"}, "body": ""}]`
	pulls := `[{"number": 40, "headRefName": "worktree-issue-4", "body": "", "mergeable": "MERGEABLE", "autoMergeRequest": {}, "statusCheckRollup": []},
		{"number": 41, "headRefName": "x", "body": "Refs #3", "mergeable": "MERGEABLE", "autoMergeRequest": {}, "statusCheckRollup": [{"conclusion": "FAILURE"}]},
		{"number": 42, "headRefName": "y", "body": "Issue: #5", "mergeable": "MERGEABLE", "autoMergeRequest": null, "statusCheckRollup": []},
		{"number": 43, "headRefName": "z", "body": "Closes #6", "mergeable": "MERGEABLE", "reviewDecision": "REVIEW_REQUIRED", "autoMergeRequest": {}},
		{"number": 44, "headRefName": "w", "body": "Fixes #7", "mergeable": "CONFLICTING", "autoMergeRequest": {}}]`
	r, err := Parse([]byte(issues), []byte(pulls))
	if err != nil {
		t.Fatal(err)
	}
	if r.Wave != "Wave 9: Cleanup 2" {
		t.Errorf("wave = %q; want the lowest number", r.Wave)
	}
	if diff := cmp.Diff([]int{1, 3}, r.Issues[1].Needs); diff != "" {
		t.Errorf("needs (-want +got):\n%s", diff)
	}
	want := []Pull{{Number: 40, Items: []int{4}}, {Number: 41, Items: []int{3}, Stuck: true}, {Number: 42, Items: []int{5}, Stuck: true},
		{Number: 43, Items: []int{6}, Stuck: true}, {Number: 44, Items: []int{7}, Stuck: true}}
	if diff := cmp.Diff(want, r.Pulls); diff != "" {
		t.Errorf("pulls (-want +got):\n%s", diff)
	}
}

// Read runs gh: a fake gh on the PATH gives the JSON; a gh that fails is
// an error (no board), and no gh is ErrNoGH.
func TestGivenAFakeGHWhenReadThenItAsksForTheOpenIssuesAndPullRequestsOfTheRepository(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	script := `#!/bin/sh
echo "$@" >> ` + log + `
case "$1 $4" in
"issue o/ok") echo '[{"number": 1, "title": "t", "milestone": {"title": "Wave 1"}, "body": ""}]' ;;
"pr o/ok") echo '[]' ;;
*) echo "no access" >&2; exit 1 ;;
esac
`
	gh := filepath.Join(dir, "gh")
	if err := os.WriteFile(gh, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Reader{GH: gh}.Read(context.Background(), "o/ok")
	if err != nil || r.Wave != "Wave 1" || len(r.Issues) != 1 {
		t.Fatalf("Read = %+v, %v", r, err)
	}
	if _, err := (Reader{GH: gh}).Read(context.Background(), "o/denied"); err == nil {
		t.Error("a repository that gh cannot read gave no error")
	}
	calls, _ := os.ReadFile(log)
	if !strings.Contains(string(calls), "issue list --repo o/ok --state open") || !strings.Contains(string(calls), "pr list --repo o/ok --state open") {
		t.Errorf("gh calls:\n%s", calls)
	}
	t.Setenv("PATH", t.TempDir())
	if (Reader{}).Available() {
		t.Error("a PATH with no gh has gh")
	}
}
