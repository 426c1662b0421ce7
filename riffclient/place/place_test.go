package place

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/google/go-cmp/cmp"
)

func repoDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "app")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitRun(t, dir, "init", "-q")
	gitRun(t, dir, "remote", "add", "origin", "git@github.com:acme/app.git")
	return dir
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

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
		want Place
	}{
		{name: "ssh origin", dir: withOrigin, want: Place{Repo: "acme/app"}},
		{name: "a subdirectory", dir: sub, want: Place{Repo: "acme/app"}},
		{name: "https origin", dir: https, want: Place{Repo: "acme/web"}},
		{name: "no origin", dir: noOrigin, want: Place{Repo: "local/scratch"}},
		{name: "outside git", dir: t.TempDir(), want: Place{Repo: name.NoRepo}},
		{name: "a linked worktree", dir: worktree, want: Place{Repo: "acme/app", Worktree: "issue-12"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Find(context.Background(), tt.dir)
			if err != nil {
				t.Fatalf("Find(%s) = %v", tt.dir, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Find(%s) (-want +got):\n%s", tt.name, diff)
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
		got, err := RepoOf(tt.origin)
		if err != nil || string(got) != tt.want {
			t.Errorf("RepoOf(%q) = %q, %v; want %q", tt.origin, got, err, tt.want)
		}
	}
}

// TestGitFails runs a git that fails as a repository of another owner
// does: riff tries 3 times, then says that it does not guess.
func TestGitFails(t *testing.T) {
	bin := t.TempDir()
	count := filepath.Join(bin, "count")
	script := "#!/bin/sh\necho x >> " + count + "\necho \"fatal: detected dubious ownership in repository at '/src/riff'\" >&2\nexit 128\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	_, err := Find(context.Background(), "/src/riff")
	want := "riff cannot read git in /src/riff: `git rev-parse --show-toplevel` failed with exit code 128: fatal: detected dubious ownership in repository at '/src/riff'. riff does not guess where you work. Run the command again."
	var gitErr *GitError
	if !errors.As(err, &gitErr) || err.Error() != want {
		t.Fatalf("findPlace = %v; want %q", err, want)
	}
	b, _ := os.ReadFile(count)
	if n := strings.Count(string(b), "x"); n != GitTries {
		t.Errorf("git ran %d times; want %d", n, GitTries)
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
			got, err := User(Options{Getenv: func(k string) string { return tt.env[k] }, Account: tt.account})
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

// TestGivenAStoredSignInWhenAProgramNamesItselfThenTheUserIsTheUSEROfTheSignIn:
// the riff knows the person by the USER of the sign-in, not $USER
// (docs/login.md, "The user"); the host is cut at its first dot; a
// session outside git has the repository -, a person none.
func TestGivenAStoredSignInWhenAProgramNamesItselfThenTheUserIsTheUSEROfTheSignIn(t *testing.T) {
	env := func(k string) string { return map[string]string{"USER": "someone"}[k] }
	host := func() (string, error) { return "pangolin.example.com", nil }
	ctx := context.Background()
	dir := repoDir(t)
	got, err := Name(ctx, Options{Dir: dir, SignedIn: "mike", Getenv: env, Hostname: host})
	if err != nil || got.String() != "riff://mike@pangolin/acme/app" {
		t.Errorf("Name with a stored sign-in = %s, %v; want riff://mike@pangolin/acme/app", got, err)
	}
	got, err = Name(ctx, Options{Dir: dir, Getenv: env, Hostname: host, Session: "a6cf2205-9a1b"})
	if err != nil || got.User != "someone" || got.Session != "a6cf2205-9a1b" || got.Repo != "acme/app" {
		t.Errorf("Name of a session with no sign-in = %+v, %v", got, err)
	}
	outside := t.TempDir()
	if got, err := Name(ctx, Options{Dir: outside, Getenv: env, Hostname: host, Session: "a6cf2205-9a1b"}); err != nil || got.Repo != name.NoRepo {
		t.Errorf("Name of a session outside git = %+v, %v; want the repository -", got, err)
	}
	if got, err := Name(ctx, Options{Dir: outside, Getenv: env, Hostname: host}); err != nil || got.Repo != "" {
		t.Errorf("Name of a person outside git = %+v, %v; want no repository", got, err)
	}
	_, err = Name(ctx, Options{Dir: dir, Getenv: env, Hostname: host, Session: "../x"})
	var pe *Error
	if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), `the session ID "../x" is not a session ID: `) {
		t.Errorf("Name with a bad session ID = %v; want the error of the session ID", err)
	}
	_, err = Name(ctx, Options{Dir: dir, Getenv: env})
	if !errors.As(err, &pe) || err.Error() != "riff cannot read the name of this host. Set RIFF_HOST to it" {
		t.Errorf("Name with no host name = %v; want what to set", err)
	}
}
