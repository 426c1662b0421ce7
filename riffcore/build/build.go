package build

import (
	"fmt"
	"github.com/como-technologies/riff/riffcore/quote"
	"runtime/debug"
	"strings"
	"time"
)

// UnknownCommit is the commit of a build that does not know its commit,
// for example a binary built outside git.
const UnknownCommit = "unknown"

// The lengths of a commit: in the header form, and in the display form.
const (
	headerCommitLen  = 12
	displayCommitLen = 7
)

// timeLayout is the time of the header form: RFC 3339 in UTC, to the
// second.
const timeLayout = "2006-01-02T15:04:05Z"

// Build is a build of riff or riff-server: the version, the last commit
// that changed the code, and the time of that commit.
type Build struct {
	Version Version
	// Commit is the commit in lowercase hex (at least 7 characters), or
	// UnknownCommit. An empty Commit reads as UnknownCommit.
	Commit string
	// Time is the time of the commit. The zero Time is an unknown time.
	Time time.Time
}

// String gives the header form that each call and each reply carries:
// "0.4.3 7213825ab1c2 2026-09-27T20:10:44Z". The commit is cut to 12
// characters and the time to the second, in UTC.
func (b Build) String() string {
	return fmt.Sprintf("%s %s %s", b.Version, cut(b.commit(), headerCommitLen), b.Time.UTC().Format(timeLayout))
}

// Display gives the short form that riff whoami and riff who show:
// "v0.7.0  (f45be4d, 2026-09-29)", with the commit cut to 7 characters and
// the date of the commit in UTC.
func (b Build) Display() string {
	if b.commit() == UnknownCommit && b.Time.IsZero() {
		// A build with no VCS stamp, for example go run with
		// -buildvcs=false.
		return fmt.Sprintf("v%s  (a build with no commit)", b.Version)
	}
	return fmt.Sprintf("v%s  (%s, %s)", b.Version, cut(b.commit(), displayCommitLen), b.Time.UTC().Format(time.DateOnly))
}

// commit gives the commit, with UnknownCommit for an empty one.
func (b Build) commit() string {
	if b.Commit == "" {
		return UnknownCommit
	}
	return b.Commit
}

// sameCommit reports whether b and c name the same commit: one is the start
// of the other, as the header form cuts commits.
func (b Build) sameCommit(c Build) bool {
	x, y := b.commit(), c.commit()
	if x == UnknownCommit || y == UnknownCommit {
		return x == y
	}
	return strings.HasPrefix(x, y) || strings.HasPrefix(y, x)
}

// cut gives at most the first n bytes of s.
func cut(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// ParseBuild reads the header form of a build, the inverse of
// [Build.String]: "0.4.3 7213825ab1c2 2026-09-27T20:10:44Z". The commit is
// 7 to 40 lowercase hex characters, or "unknown"; the time is RFC 3339 in
// UTC to the second. The error names the bad part.
func ParseBuild(s string) (Build, error) {
	parts := strings.Split(s, " ")
	if len(parts) != 3 {
		return Build{}, fmt.Errorf("parse build %s: want VERSION COMMIT TIME separated by one space", quote.Input(s))
	}
	v, err := ParseVersion(parts[0])
	if err != nil {
		return Build{}, fmt.Errorf("parse build %s: %w", quote.Input(s), err)
	}
	commit := parts[1]
	if err := checkCommit(commit); err != nil {
		return Build{}, fmt.Errorf("parse build %s: %w", quote.Input(s), err)
	}
	t, err := parseTime(parts[2])
	if err != nil {
		return Build{}, fmt.Errorf("parse build %s: %w", quote.Input(s), err)
	}
	return Build{Version: v, Commit: commit, Time: t}, nil
}

// checkCommit checks a commit: 7 to 40 lowercase hex characters, or
// UnknownCommit.
func checkCommit(c string) error {
	if c == UnknownCommit {
		return nil
	}
	if len(c) < displayCommitLen || len(c) > 40 {
		return fmt.Errorf("commit %s: want 7 to 40 hex characters or %q", quote.Input(c), UnknownCommit)
	}
	for _, r := range c {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return fmt.Errorf("commit %s: want lowercase hex characters", quote.Input(c))
		}
	}
	return nil
}

// parseTime reads the time of the header form.
func parseTime(s string) (time.Time, error) {
	// time.Parse accepts a fraction of a second that the layout does not
	// name; the header form has none.
	if len(s) != len(timeLayout) {
		return time.Time{}, fmt.Errorf("time %s: want the form %s", quote.Input(s), timeLayout)
	}
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("time %s: %w", quote.Input(s), err)
	}
	return t, nil
}

// FromBuildInfo gives the build of the running binary: the version that
// the binary was given (by -ldflags), and the commit and its time from
// vcs.revision and vcs.time of [debug.ReadBuildInfo]. When version does not
// parse, it takes the version of the main module from the build info (as
// go install sets it), and else 0.0.0. With no commit in the build info,
// the commit is UnknownCommit and the time is zero.
func FromBuildInfo(version string) Build {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	return fromInfo(version, info)
}

// fromInfo is FromBuildInfo over a given build info, which may be nil.
func fromInfo(version string, info *debug.BuildInfo) Build {
	b := Build{Commit: UnknownCommit}
	if v, err := ParseVersion(version); err == nil {
		b.Version = v
	} else if info != nil {
		if v, err := ParseVersion(info.Main.Version); err == nil {
			b.Version = v
		}
	}
	if info == nil {
		return b
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			if checkCommit(s.Value) == nil {
				b.Commit = s.Value
			}
		case "vcs.time":
			if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
				b.Time = t.UTC()
			}
		}
	}
	return b
}
