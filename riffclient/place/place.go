// Package place is how a program of riff names itself: the URI of its
// caller (riff://USER@HOST/REPO/WORKTREE?session=ID), from the user, the
// host, the repository and the worktree that git gives, and the session.
// Every client that names a session with [Name] names it the way riff
// does (docs/cli.md, "Choices where the guide is silent": the host, the
// place of a person).
//
// It asks git (3 tries of each call) and reads what the process gives it
// (the env, the host name, the account); it never calls a riff and
// reads no sign-in: a caller with a stored sign-in passes its USER.
package place

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

// GitTries is the number of tries of each call of git.
const GitTries = 3

// Place is where a program runs: the repository and the worktree, from
// git.
type Place struct {
	// Repo is OWNER/REPO from the origin, local/NAME with no origin, and
	// name.NoRepo outside git.
	Repo name.Repo
	// Worktree is the name of a linked worktree (git worktree add); a
	// main clone has none.
	Worktree string
}

// WhereError is a working directory that riff cannot read.
type WhereError struct{ Dir string }

func (e *WhereError) Error() string {
	return fmt.Sprintf("riff cannot read its working directory %s. Change to a directory that exists", e.Dir)
}

// GitError is a call of git that failed 3 times. Reason is the stderr of
// git as it is: a printer cleans it before a terminal shows it.
type GitError struct {
	Dir    string
	Call   string
	Code   int // -1: git did not run to an exit code
	Reason string
}

func (e *GitError) Error() string {
	how := "failed"
	if e.Code >= 0 {
		how = fmt.Sprintf("failed with exit code %d", e.Code)
	}
	return fmt.Sprintf("riff cannot read git in %s: `git %s` %s: %s. riff does not guess where you work. Run the command again.",
		e.Dir, e.Call, how, e.Reason)
}

// Error is a caller that riff cannot name (no user, no host, a bad
// session ID); its text is for a person.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// WorkDir gives the working directory from getwd, or a *WhereError when
// it was removed: the directory that $PWD names, else ".".
func WorkDir(getwd func() (string, error), getenv func(string) string) (string, error) {
	dir, err := getwd()
	if err != nil {
		named := getenv("PWD")
		if named == "" {
			named = "."
		}
		return "", &WhereError{Dir: named}
	}
	if _, err := os.Stat(dir); err != nil {
		return "", &WhereError{Dir: dir}
	}
	return dir, nil
}

// Options are what names a caller.
type Options struct {
	// Dir is the working directory: its git gives the repository and the
	// worktree.
	Dir string
	// Session is the session ID of the caller; "" names the person.
	Session string
	// SignedIn is the USER of the stored sign-in of the machine for the
	// riff, if any: the riff knows the person by it, so it wins over the
	// env (docs/login.md, "The user").
	SignedIn string
	// Getenv reads USER, LOGNAME and RIFF_HOST.
	Getenv func(string) string
	// Hostname gives the name of the host when RIFF_HOST is unset.
	Hostname func() (string, error)
	// Account gives the user name of the account of the process
	// (os/user); nil is no account.
	Account func() (string, error)
}

// Name gives the URI of the caller: the session of o.Session, else the
// person, at the place of o.Dir. A person outside git has no repository
// (and no worktree); a session outside git has the repository -.
func Name(ctx context.Context, o Options) (name.SessionURI, error) {
	user, err := User(o)
	if err != nil {
		return name.SessionURI{}, err
	}
	host, err := Host(o)
	if err != nil {
		return name.SessionURI{}, err
	}
	p, err := Find(ctx, o.Dir)
	if err != nil {
		return name.SessionURI{}, err
	}
	u := name.SessionURI{User: user, Host: host, Worktree: p.Worktree}
	if o.Session != "" {
		if err := name.CheckSessionID(o.Session); err != nil {
			return name.SessionURI{}, errorf("the session ID %q is not a session ID: %s", o.Session, err)
		}
		u.Session = o.Session
		u.Repo = p.Repo
		return u, nil
	}
	if p.Repo.InGit() {
		u.Repo = p.Repo
	} else {
		u.Worktree = ""
	}
	return u, nil
}

// User gives the user name of the caller: the USER of the stored
// sign-in, else $USER, else $LOGNAME, else the account of the process,
// the first that a URI can hold. Many containers and services set
// neither variable. With none, it refuses to guess.
func User(o Options) (string, error) {
	if o.SignedIn != "" && name.CheckUser(o.SignedIn) == nil {
		return o.SignedIn, nil
	}
	userVar, logname := o.Getenv("USER"), o.Getenv("LOGNAME")
	account := ""
	if o.Account != nil {
		if a, err := o.Account(); err == nil {
			account = a
		}
	}
	for _, u := range []string{userVar, logname, account} {
		if name.CheckUser(u) == nil {
			return u, nil
		}
	}
	return "", errorf("riff cannot tell who you are: $USER is %q, $LOGNAME is %q and the account of this process is %q. Set USER to your user name",
		userVar, logname, account)
}

// Host gives the name of this host: $RIFF_HOST, else the host name,
// before its first dot; a character that a host of a URI may not hold
// becomes -.
func Host(o Options) (string, error) {
	host := o.Getenv("RIFF_HOST")
	if host == "" {
		h, err := "", errors.New("no host name")
		if o.Hostname != nil {
			h, err = o.Hostname()
		}
		if err != nil {
			return "", errorf("riff cannot read the name of this host. Set RIFF_HOST to it")
		}
		host = h
	}
	host, _, _ = strings.Cut(host, ".")
	if name.CheckHost(host) != nil {
		host = SafeWord(host)
	}
	return host, nil
}

// git runs one call of git in dir, 3 times at most. A call whose end
// ok accepts gives its output and its code, with no error.
func git(ctx context.Context, dir string, ok func(code int, stderr string) bool, args ...string) (string, int, error) {
	var last *GitError
	for range GitTries {
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
		last = &GitError{Dir: dir, Call: strings.Join(args, " "), Code: code, Reason: reason}
		if ctx.Err() != nil {
			break
		}
	}
	return "", 0, last
}

// Find asks git for the repository and the worktree of dir. Outside git
// the repository is -, with no origin it is local/NAME.
func Find(ctx context.Context, dir string) (Place, error) {
	outside := func(code int, stderr string) bool {
		return code == 128 && strings.Contains(stderr, "not a git repository")
	}
	top, code, err := git(ctx, dir, outside, "rev-parse", "--show-toplevel")
	if err != nil {
		return Place{}, err
	}
	if code != 0 || top == "" {
		return Place{Repo: name.NoRepo}, nil
	}
	dirs, _, err := git(ctx, dir, nil, "rev-parse", "--git-dir", "--git-common-dir")
	if err != nil {
		return Place{}, err
	}
	var p Place
	if gitDir, common, ok := strings.Cut(dirs, "\n"); ok && abs(dir, gitDir) != abs(dir, common) {
		p.Worktree = SafeWord(filepath.Base(top))
	}
	noOrigin := func(code int, stderr string) bool {
		return (code == 2 || code == 128) && strings.Contains(stderr, "No such remote")
	}
	origin, code, err := git(ctx, top, noOrigin, "remote", "get-url", "origin")
	if err != nil {
		return Place{}, err
	}
	if code != 0 || origin == "" {
		p.Repo = name.Repo("local/" + SafeWord(filepath.Base(mainTop(top, dirs, dir))))
		return p, nil
	}
	repo, err := RepoOf(origin)
	if err != nil {
		return Place{}, fmt.Errorf("riff cannot read the origin %q of the repository in %s: %w", origin, top, err)
	}
	p.Repo = repo
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

// RepoOf reads OWNER/REPO from the URL of an origin: https, ssh and
// scp-like forms, with or without .git.
func RepoOf(origin string) (name.Repo, error) {
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

// SafeWord keeps the characters that a name may hold; each other
// becomes -.
func SafeWord(s string) string {
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
