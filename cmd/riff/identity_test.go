package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/google/go-cmp/cmp"
)

func TestFindPlace(t *testing.T) {
	withOrigin := repoDir(t)
	noOrigin := filepath.Join(t.TempDir(), "scratch")
	os.MkdirAll(noOrigin, 0o755)
	gitRun(t, noOrigin, "init", "-q")
	https := filepath.Join(t.TempDir(), "web")
	os.MkdirAll(https, 0o755)
	gitRun(t, https, "init", "-q")
	gitRun(t, https, "remote", "add", "origin", "https://github.com/acme/web.git")
	gitRun(t, withOrigin, "commit", "-q", "--allow-empty", "-m", "first")
	worktree := filepath.Join(t.TempDir(), "issue-12")
	gitRun(t, withOrigin, "worktree", "add", "-q", worktree)
	sub := filepath.Join(withOrigin, "src")
	os.MkdirAll(sub, 0o755)

	tests := []struct {
		name string
		dir  string
		want place
	}{
		{name: "ssh origin", dir: withOrigin, want: place{repo: "acme/app"}},
		{name: "a subdirectory", dir: sub, want: place{repo: "acme/app"}},
		{name: "https origin", dir: https, want: place{repo: "acme/web"}},
		{name: "no origin", dir: noOrigin, want: place{repo: "local/scratch"}},
		{name: "outside git", dir: t.TempDir(), want: place{repo: name.NoRepo}},
		{name: "a linked worktree", dir: worktree, want: place{repo: "acme/app", worktree: "issue-12"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := findPlace(context.Background(), tt.dir)
			if err != nil {
				t.Fatalf("findPlace(%s) = %v", tt.dir, err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(place{})); diff != "" {
				t.Errorf("findPlace(%s) (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}

func TestRepoOf(t *testing.T) {
	tests := []struct{ origin, want string }{
		{"git@github.com:acme/app.git", "acme/app"},
		{"git@github.com:acme/app", "acme/app"},
		{"https://github.com/acme/app.git", "acme/app"},
		{"https://github.com/acme/app/", "acme/app"},
		{"ssh://git@github.com/acme/app.git", "acme/app"},
		{"ssh://git@github.com:22/acme/app.git", "acme/app"},
		{"/srv/git/acme/app.git", "acme/app"},
	}
	for _, tt := range tests {
		got, err := repoOf(tt.origin)
		if err != nil || string(got) != tt.want {
			t.Errorf("repoOf(%q) = %q, %v; want %q", tt.origin, got, err, tt.want)
		}
	}
}

// TestGitFails runs a git that fails as a repository of another owner
// does: riff tries 3 times, then gives the error of the guide.
func TestGitFails(t *testing.T) {
	bin := t.TempDir()
	count := filepath.Join(bin, "count")
	script := "#!/bin/sh\necho x >> " + count + "\necho \"fatal: detected dubious ownership in repository at '/src/riff'\" >&2\nexit 128\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	_, err := findPlace(context.Background(), "/src/riff")
	want := "riff cannot read git in /src/riff: `git rev-parse --show-toplevel` failed with exit code 128: fatal: detected dubious ownership in repository at '/src/riff'. riff does not guess where you work. Run the command again."
	var gitErr *gitError
	if !errors.As(err, &gitErr) || err.Error() != want {
		t.Fatalf("findPlace = %v; want %q", err, want)
	}
	b, _ := os.ReadFile(count)
	if n := strings.Count(string(b), "x"); n != gitTries {
		t.Errorf("git ran %d times; want %d", n, gitTries)
	}
}

func TestRemovedDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "issue-12")
	var stdout, stderr syncBuffer
	s := &system{
		env: func(k string) string {
			return map[string]string{"USER": "mike", "PWD": dir, "RIFF_SERVER": "127.0.0.1:1"}[k]
		},
		stdout:   &stdout,
		stderr:   &stderr,
		getwd:    func() (string, error) { return "", os.ErrNotExist },
		hostname: func() (string, error) { return "pangolin", nil },
		terminal: func(io.Writer) (bool, int) { return false, 0 },
	}
	code := s.run(context.Background(), []string{"who"})
	want := "Error: riff cannot read its working directory " + dir + ". Change to a directory that exists\n"
	if code != exitFail || stderr.String() != want {
		t.Errorf("riff who in a removed directory = %d, %q; want %d, %q", code, stderr.String(), exitFail, want)
	}
}

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"red \x1b[31mtext\x1b[0m", "red text"},
		{"title \x1b]0;owned\x07 after", "title  after"},
		{"osc st \x1b]8;;http://x\x1b\\link", "osc st link"},
		{"line\nbreak\ttab", "line break tab"},
		{"bell\a and \u009b2J", "bell and "},
		{"raw byte \x9b2J", "raw byte �2J"},
		{"bidi \u202eevil", "bidi evil"},
	}
	for _, tt := range tests {
		if got := clean(tt.in); got != tt.want {
			t.Errorf("clean(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// TestGivenUserUnsetWhenRiffNamesTheCallerThenItTakesLognameThenTheAccount:
// $USER, then $LOGNAME, then the account of the process, the first that
// a URI can hold; with none, the clear error and no call.
func TestGivenUserUnsetWhenRiffNamesTheCallerThenItTakesLognameThenTheAccount(t *testing.T) {
	noAccount := func() (string, error) { return "", errors.New("no account") }
	tests := []struct {
		name    string
		env     map[string]string
		account func() (string, error)
		want    string
		wantErr string
	}{
		{name: "USER wins", env: map[string]string{"USER": "mike", "LOGNAME": "lena"}, account: func() (string, error) { return "root", nil }, want: "mike"},
		{name: "LOGNAME after an empty USER", env: map[string]string{"LOGNAME": "lena"}, account: func() (string, error) { return "root", nil }, want: "lena"},
		{name: "the account after both", env: map[string]string{}, account: func() (string, error) { return "svc-riff", nil }, want: "svc-riff"},
		{name: "a USER that no URI holds", env: map[string]string{"USER": "Mike Smith", "LOGNAME": "mike"}, account: noAccount, want: "mike"},
		{name: "none", env: map[string]string{"USER": "", "LOGNAME": "a b"}, account: noAccount,
			wantErr: `riff cannot tell who you are: $USER is "", $LOGNAME is "a b" and the account of this process is "". Set USER to your user name`},
		{name: "an account that no URI holds", env: map[string]string{}, account: func() (string, error) { return `CORP\mike`, nil },
			wantErr: `riff cannot tell who you are: $USER is "", $LOGNAME is "" and the account of this process is "CORP\\mike". Set USER to your user name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &cli{system: &system{env: func(k string) string { return tt.env[k] }, account: tt.account}}
			got, err := c.user()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("user() = %q, %v; want the error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("user() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
