package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/como-technologies/riff/riffcore/name"
)

// gitTries is the number of tries of each call of git.
const gitTries = 3

// place is where riff runs: the repository and the worktree, from git.
type place struct {
	repo     name.Repo
	worktree string
}

// whereError is a working directory that riff cannot read.
type whereError struct{ dir string }

func (e *whereError) Error() string {
	return fmt.Sprintf("riff cannot read its working directory %s. Change to a directory that exists", e.dir)
}

// gitError is a call of git that failed 3 times.
type gitError struct {
	dir    string
	call   string
	code   int
	reason string
}

func (e *gitError) Error() string {
	how := "failed"
	if e.code >= 0 {
		how = fmt.Sprintf("failed with exit code %d", e.code)
	}
	return fmt.Sprintf("riff cannot read git in %s: `git %s` %s: %s. riff does not guess where you work. Run the command again.",
		e.dir, e.call, how, e.reason)
}

// workDir gives the working directory, or the error of the guide when it
// was removed.
func (s *system) workDir() (string, error) {
	dir, err := s.getwd()
	if err != nil {
		named := s.env("PWD")
		if named == "" {
			named = "."
		}
		return "", &whereError{dir: named}
	}
	if _, err := os.Stat(dir); err != nil {
		return "", &whereError{dir: dir}
	}
	return dir, nil
}

// git runs one call of git in dir, 3 times at most. A call whose end
// ok accepts gives its output and its code, with no error.
func git(ctx context.Context, dir string, ok func(code int, stderr string) bool, args ...string) (string, int, error) {
	var last *gitError
	for range gitTries {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Env = append(os.Environ(), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
		err := cmd.Run()
		if err == nil {
			return strings.TrimSpace(stdout.String()), 0, nil
		}
		code := -1
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
			if ok != nil && ok(code, stderr.String()) {
				return strings.TrimSpace(stdout.String()), code, nil
			}
		}
		reason := strings.TrimSpace(stderr.String())
		if reason == "" {
			reason = err.Error()
		}
		last = &gitError{dir: dir, call: strings.Join(args, " "), code: code, reason: clean(reason)}
		if ctx.Err() != nil {
			break
		}
	}
	return "", 0, last
}

// findPlace asks git for the repository and the worktree of dir. Outside
// git the repository is -, with no origin it is local/NAME.
func findPlace(ctx context.Context, dir string) (place, error) {
	outside := func(code int, stderr string) bool {
		return code == 128 && strings.Contains(stderr, "not a git repository")
	}
	top, code, err := git(ctx, dir, outside, "rev-parse", "--show-toplevel")
	if err != nil {
		return place{}, err
	}
	if code != 0 || top == "" {
		return place{repo: name.NoRepo}, nil
	}
	dirs, _, err := git(ctx, dir, nil, "rev-parse", "--git-dir", "--git-common-dir")
	if err != nil {
		return place{}, err
	}
	var p place
	if gitDir, common, ok := strings.Cut(dirs, "\n"); ok && abs(dir, gitDir) != abs(dir, common) {
		p.worktree = safeWord(filepath.Base(top))
	}
	noOrigin := func(code int, stderr string) bool {
		return (code == 2 || code == 128) && strings.Contains(stderr, "No such remote")
	}
	origin, code, err := git(ctx, top, noOrigin, "remote", "get-url", "origin")
	if err != nil {
		return place{}, err
	}
	if code != 0 || origin == "" {
		p.repo = name.Repo("local/" + safeWord(filepath.Base(mainTop(top, dirs, dir))))
		return p, nil
	}
	repo, err := repoOf(origin)
	if err != nil {
		return place{}, fmt.Errorf("riff cannot read the origin %q of the repository in %s: %w", clean(origin), top, err)
	}
	p.repo = repo
	return p, nil
}

// mainTop gives the top directory of the main clone: the parent of the
// common git directory, or top.
func mainTop(top, dirs, dir string) string {
	_, common, ok := strings.Cut(dirs, "\n")
	if !ok {
		return top
	}
	common = abs(dir, common)
	if filepath.Base(common) == ".git" {
		return filepath.Dir(common)
	}
	return top
}

func abs(dir, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}

// repoOf reads OWNER/REPO from the URL of an origin: https, ssh and
// scp-like forms, with or without .git.
func repoOf(origin string) (name.Repo, error) {
	s := strings.TrimSpace(origin)
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
		if j := strings.IndexByte(s, '/'); j >= 0 {
			s = s[j+1:]
		} else {
			return "", fmt.Errorf("it has no path")
		}
	} else if at := strings.IndexByte(s, ':'); at >= 0 && !strings.HasPrefix(s, "/") {
		s = s[at+1:]
	}
	s = strings.TrimSuffix(strings.TrimRight(s, "/"), ".git")
	parts := strings.Split(s, "/")
	if len(parts) < 2 {
		return "", fmt.Errorf("it names no OWNER/REPO")
	}
	return name.ParseRepo(parts[len(parts)-2] + "/" + parts[len(parts)-1])
}

// safeWord keeps the characters that a name may hold.
func safeWord(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 128 && (r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	if b.Len() == 0 {
		return "repo"
	}
	return b.String()
}
