// Package forge reads what riff top shows of GitHub for a repository:
// its open issues, each with its wave (its milestone) and the items of
// its Needs: line, and its open pull requests, each with the items that
// it names and whether it can merge by itself. It reads them through the
// gh command line of the machine, so that riff holds no credential of
// GitHub.
//
// Each text from GitHub loses its escape sequences and its line breaks
// and is cut to [MaxText] characters before it leaves this package. The
// parse functions are pure; only [Reader.Read] runs gh.
//
// It decides nothing of the riff: which item is free, held or claimed is
// the table's (riffclient/top), with the claims and holds of the server.
package forge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/como-technologies/riff/riffclient/render"
	"github.com/como-technologies/riff/riffcore/name"
)

// MaxText is the longest text from GitHub that riff shows, in
// characters.
const MaxText = 256

// ReadBudget is the longest time of one read of a repository (its two
// calls of gh).
const ReadBudget = 30 * time.Second

// Repo is what GitHub says of a repository.
type Repo struct {
	// Wave is the title of the current wave: the open milestone named
	// Wave N with the lowest N among the open issues; "" when none.
	Wave   string
	Issues []Issue
	Pulls  []Pull
}

// Issue is an open issue.
type Issue struct {
	Number int
	Title  string
	// Wave is the title of its milestone, "" with none.
	Wave string
	// Needs are the issues of its Needs: line.
	Needs []int
}

// Pull is an open pull request.
type Pull struct {
	Number int
	Title  string
	// Items are the issues that it names: its branch worktree-issue-N,
	// a line Closes #N, Fixes #N or Refs #N, or the trailer Issue: #N.
	Items []int
	// Stuck says that it cannot merge by itself: a conflict, a failed
	// check, auto-merge off, a review that GitHub needs, or a run that
	// waits for an approval.
	Stuck bool
}

// Title gives the title of the open issue number, and whether the
// repository has it.
func (r Repo) Title(number int) (string, bool) {
	for _, i := range r.Issues {
		if i.Number == number {
			return i.Title, true
		}
	}
	return "", false
}

// Reader reads repositories with gh.
type Reader struct {
	// GH is the path of gh; "" looks it up on the PATH at each read.
	GH string
}

// Find gives the path of gh in the folders of path (the value of PATH),
// and whether it is there: a program that takes its env as a value
// finds gh where its env says.
func Find(path string) (string, bool) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, "gh")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

// ErrNoGH is the error of a read on a machine with no gh.
var ErrNoGH = errors.New("gh is not on the PATH")

// Available says whether the machine has gh.
func (r Reader) Available() bool {
	_, err := r.path()
	return err == nil
}

func (r Reader) path() (string, error) {
	if r.GH != "" {
		return r.GH, nil
	}
	p, err := exec.LookPath("gh")
	if err != nil {
		return "", ErrNoGH
	}
	return p, nil
}

// Read reads the open issues and the open pull requests of repo, within
// ReadBudget. An error says that gh cannot read the repository: riff
// top shows no board and no titles for it.
func (r Reader) Read(ctx context.Context, repo name.Repo) (Repo, error) {
	gh, err := r.path()
	if err != nil {
		return Repo{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, ReadBudget)
	defer cancel()
	issues, err := run(ctx, gh, "issue", "list", "--repo", string(repo), "--state", "open", "--limit", "1000",
		"--json", "number,title,milestone,body")
	if err != nil {
		return Repo{}, err
	}
	pulls, err := run(ctx, gh, "pr", "list", "--repo", string(repo), "--state", "open", "--limit", "200",
		"--json", "number,title,headRefName,body,mergeable,mergeStateStatus,reviewDecision,autoMergeRequest,statusCheckRollup")
	if err != nil {
		return Repo{}, err
	}
	return Parse(issues, pulls)
}

// run runs gh with args and gives its output. Its stderr is not kept: a
// failed read shows no error line.
func run(ctx context.Context, gh string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, gh, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("gh %s %s: %w", args[0], args[1], err)
	}
	return out.Bytes(), nil
}

// Parse gives a repository from the JSON of gh issue list and gh pr list
// (the fields that Reader.Read asks for).
func Parse(issuesJSON, pullsJSON []byte) (Repo, error) {
	var rawIssues []struct {
		Number    int    `json:"number"`
		Title     string `json:"title"`
		Body      string `json:"body"`
		Milestone *struct {
			Title string `json:"title"`
		} `json:"milestone"`
	}
	if err := json.Unmarshal(issuesJSON, &rawIssues); err != nil {
		return Repo{}, fmt.Errorf("the issues of gh: %w", err)
	}
	var rawPulls []struct {
		Number           int             `json:"number"`
		Title            string          `json:"title"`
		HeadRefName      string          `json:"headRefName"`
		Body             string          `json:"body"`
		Mergeable        string          `json:"mergeable"`
		MergeStateStatus string          `json:"mergeStateStatus"`
		ReviewDecision   string          `json:"reviewDecision"`
		AutoMergeRequest json.RawMessage `json:"autoMergeRequest"`
		Checks           []struct {
			Conclusion string `json:"conclusion"`
			State      string `json:"state"`
		} `json:"statusCheckRollup"`
	}
	if err := json.Unmarshal(pullsJSON, &rawPulls); err != nil {
		return Repo{}, fmt.Errorf("the pull requests of gh: %w", err)
	}
	var repo Repo
	for _, i := range rawIssues {
		issue := Issue{Number: i.Number, Title: Text(i.Title), Needs: needs(i.Body)}
		if i.Milestone != nil {
			issue.Wave = Text(i.Milestone.Title)
		}
		repo.Issues = append(repo.Issues, issue)
	}
	slices.SortFunc(repo.Issues, func(a, b Issue) int { return a.Number - b.Number })
	repo.Wave = currentWave(repo.Issues)
	for _, p := range rawPulls {
		pull := Pull{Number: p.Number, Title: Text(p.Title), Items: namedItems(p.HeadRefName, p.Body)}
		autoMerge := len(p.AutoMergeRequest) > 0 && string(p.AutoMergeRequest) != "null"
		failed := false
		for _, c := range p.Checks {
			switch strings.ToUpper(c.Conclusion) {
			case "FAILURE", "CANCELLED", "TIMED_OUT", "ACTION_REQUIRED", "STARTUP_FAILURE":
				failed = true
			}
			switch strings.ToUpper(c.State) {
			case "FAILURE", "ERROR":
				failed = true
			}
		}
		pull.Stuck = p.Mergeable == "CONFLICTING" || p.MergeStateStatus == "DIRTY" || failed || !autoMerge ||
			p.ReviewDecision == "REVIEW_REQUIRED" || p.ReviewDecision == "CHANGES_REQUESTED"
		repo.Pulls = append(repo.Pulls, pull)
	}
	slices.SortFunc(repo.Pulls, func(a, b Pull) int { return a.Number - b.Number })
	return repo, nil
}

// Text gives a text from GitHub as riff shows it: no escape sequence, no
// line break, at most MaxText characters.
func Text(s string) string {
	s = render.Clean(s)
	if utf8.RuneCountInString(s) <= MaxText {
		return s
	}
	return string([]rune(s)[:MaxText])
}

var waveTitle = regexp.MustCompile(`^Wave ([0-9]+)\b`)

// currentWave gives the title of the wave with the lowest number among
// the milestones of the open issues.
func currentWave(issues []Issue) string {
	best, title := -1, ""
	for _, i := range issues {
		m := waveTitle.FindStringSubmatch(i.Wave)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		if best < 0 || n < best || (n == best && i.Wave < title) {
			best, title = n, i.Wave
		}
	}
	return title
}

var issueRef = regexp.MustCompile(`#([0-9]+)`)

// needs gives the issues of the Needs: line of a body.
func needs(body string) []int {
	var out []int
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		rest, ok := cutPrefixFold(line, "Needs:")
		if !ok {
			continue
		}
		out = append(out, numbers(rest)...)
	}
	return sortedUnique(out)
}

var branchItem = regexp.MustCompile(`^worktree-issue-([0-9]+)$`)
var closingLine = regexp.MustCompile(`(?i)^(?:closes|fixes|resolves|refs|issue:)\s+#([0-9]+)`)

// namedItems gives the issues that a pull request names.
func namedItems(branch, body string) []int {
	var out []int
	if m := branchItem.FindStringSubmatch(branch); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			out = append(out, n)
		}
	}
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if m := closingLine.FindStringSubmatch(strings.TrimSpace(sc.Text())); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				out = append(out, n)
			}
		}
	}
	return sortedUnique(out)
}

func numbers(s string) []int {
	var out []int
	for _, m := range issueRef.FindAllStringSubmatch(s, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil {
			out = append(out, n)
		}
	}
	return out
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return "", false
	}
	return s[len(prefix):], true
}

func sortedUnique(xs []int) []int {
	slices.Sort(xs)
	return slices.Compact(xs)
}
