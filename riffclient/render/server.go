package render

import (
	"errors"
	"fmt"
	"strings"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The texts of riff server: the release of a riff against this riff, its
// sign-in, and the facts of GET /v1/server. The keys are indented under
// the line of the riff that they describe.

// The last lines of riff server that say what to run. riff update does
// not exist yet, so the line says what to do in its place (docs/cli.md).
const (
	UpdateRiffAct = "Update riff on this machine."
	LoginAct      = "Run riff login."
)

// Release gives the line release of a riff of the build server against
// mine, and the line that says what to run (none when nothing waits)
// with its style.
func Release(server, mine build.Build) (Fact, string, Style) {
	if server.String() == mine.String() {
		return Fact{Key: "  release", Value: "v" + server.Version.String(), Extra: "same build ✓", ExtraStyle: Good}, "", Normal
	}
	if text := build.MismatchError(server, mine); text != "" {
		act := UpdateRiffAct
		if build.Older(server, mine) == build.Server {
			act = "Update riff-server."
		}
		return Fact{Key: "  release", Value: server.Display(), Style: Bad, Extra: "the versions cannot talk", ExtraStyle: Bad}, act, Bad
	}
	act := ""
	switch build.Older(server, mine) {
	case build.Client:
		act = UpdateRiffAct
	case build.Server:
		act = "Update riff-server when you can."
	}
	return Fact{Key: "  release", Value: server.Display(), Style: Warn, Extra: "another build; the versions can talk", ExtraStyle: Warn}, act, Warn
}

// UnreadBuild gives the line release of a riff whose build riff cannot
// read.
func UnreadBuild(server string) Fact {
	return Fact{Key: "  release", Value: Clean(server), Style: Warn, Extra: "a build that riff cannot read", ExtraStyle: Warn}
}

// NoSignIn is the sign-in line of a riff that gave its facts to riff
// with no token: a riff with sign-in gives them only to a person who is
// signed in.
func NoSignIn() Fact { return Fact{Key: "  sign-in", Value: "none: this riff has no sign-in"} }

// NotSignedIn is the sign-in line of a riff that refused its facts to
// riff with no token.
func NotSignedIn() Fact {
	return Fact{Key: "  sign-in", Value: "no: this riff has sign-in, and you are not signed in", Style: Bad}
}

// SignedIn is the sign-in line of a riff that this machine is signed in
// to as who (the email of the sign-in, else its user).
func SignedIn(who string) Fact {
	return Fact{Key: "  sign-in", Value: "yes, signed in as " + Clean(who), Style: Good}
}

// SignInFault is the sign-in line of a riff that refused the token of
// this machine, or that the machine cannot send: "no: the sign-in of this
// machine ended". The last line of riff server says what to run.
func SignInFault(fault error) Fact {
	s := strings.TrimSuffix(strings.TrimSpace(Clean(fault.Error())), " Run riff login.")
	s = strings.TrimSuffix(s, ".")
	if s != "" {
		s = strings.ToLower(s[:1]) + s[1:]
	}
	return Fact{Key: "  sign-in", Value: "no: " + s, Style: Bad}
}

// NoAnswer is the line of a riff that does not answer, with the words of
// its error.
func NoAnswer(words string) Fact {
	return Fact{Key: "  answer", Value: "none", Style: Bad, Extra: "(" + words + ")"}
}

// Answer is what a riff gave riff server: its facts (GET /v1/server), or
// the error of the ask.
type Answer struct {
	Facts wire.ServerFacts
	Err   error
}

// Asked are the parts of riff server that are not in the answer: the
// build of this riff, the sign-in line of a riff that gave its facts
// (SignIn may ask the riff), the fault of the sign-in of this machine
// (nil: no sign-in), and the words of an error.
type Asked struct {
	Mine   build.Build
	SignIn func() Fact
	Fault  func() error
	Words  func(error) string
}

// ServerLines gives the lines of riff server for the riff that riff
// uses: its release against this riff, its sign-in and its facts; the
// last line, which says what to run ("" when nothing waits), with its
// style; and whether the riff failed to give its facts.
func ServerLines(a Answer, k Asked) (lines []Fact, act string, style Style, failed bool) {
	var mismatch *riffclient.MismatchError
	var front *riffclient.FrontEndError
	switch {
	case a.Err == nil:
		sb, err := build.ParseBuild(a.Facts.Build)
		if err != nil {
			return []Fact{UnreadBuild(a.Facts.Build)}, "", Normal, false
		}
		rel, act, style := Release(sb, k.Mine)
		return append([]Fact{rel, k.SignIn()}, ServerFacts(a.Facts)...), act, style, false
	case errors.As(a.Err, &mismatch):
		if mismatch.Server != nil {
			rel, act, style := Release(*mismatch.Server, k.Mine)
			return []Fact{rel}, act, style, true
		}
		return []Fact{{Key: "  release", Value: Clean(mismatch.Text), Style: Bad}}, "Check that the server is riff-server. See riff help server.", Bad, true
	}
	if f, ok := signInLine(a.Err, k.Fault); ok {
		// A riff with sign-in gives its facts only to a person who is
		// signed in: this machine has no sign-in for it, or it ended.
		return []Fact{f}, LoginAct, Bad, true
	}
	if errors.As(a.Err, &front) {
		// Cloud Run answered by itself: riff server asks once, and the
		// person runs it again (docs/cli.md, "The calls").
		return []Fact{NoAnswer(k.Words(a.Err))}, "Run riff server again in a few seconds.", Bad, true
	}
	return []Fact{NoAnswer(k.Words(a.Err))}, "Start riff-server, or name another riff with --server. See riff help server.", Bad, true
}

// LocalLines gives the lines of riff server under the line local, for
// the riff of this machine: its release and its sign-in. It gives none
// when that riff does not answer: it shows only when it answers.
func LocalLines(a Answer, k Asked) []Fact {
	var mismatch *riffclient.MismatchError
	switch {
	case a.Err == nil:
		sb, err := build.ParseBuild(a.Facts.Build)
		if err != nil {
			return []Fact{UnreadBuild(a.Facts.Build)}
		}
		rel, _, _ := Release(sb, k.Mine)
		return []Fact{rel, k.SignIn()}
	case errors.As(a.Err, &mismatch) && mismatch.Server != nil:
		rel, _, _ := Release(*mismatch.Server, k.Mine)
		return []Fact{rel}
	}
	if f, ok := signInLine(a.Err, k.Fault); ok {
		return []Fact{f}
	}
	return nil
}

// signInLine gives the sign-in line of a riff that refused the token of
// this machine or its lack, or whose token the machine cannot send, and
// whether err is one.
func signInLine(err error, fault func() error) (Fact, bool) {
	var auth *riffclient.AuthError
	var refused *wire.Refused
	switch {
	case errors.As(err, &auth):
		return SignInFault(auth), true
	case errors.As(err, &refused) && (refused.Code == wire.NoToken || refused.Code == wire.BadToken):
		if fault != nil {
			if ferr := fault(); ferr != nil {
				return SignInFault(ferr), true
			}
		}
		return NotSignedIn(), true
	}
	return Fact{}, false
}

// ServerFacts gives the lines of the facts of GET /v1/server.
func ServerFacts(f wire.ServerFacts) []Fact {
	var fs []Fact
	if f.Serves {
		fs = append(fs, Fact{Key: "  serves", Value: "yes", Style: Good})
	} else {
		why := "no"
		if f.Why != "" {
			why = "no: " + Clean(f.Why)
		}
		fs = append(fs, Fact{Key: "  serves", Value: why, Style: Bad})
	}
	if f.LastError == "" {
		fs = append(fs, Fact{Key: "  error", Value: "none since the start"})
	} else {
		fs = append(fs, Fact{Key: "  error", Value: Clean(f.LastError), Style: Bad})
	}
	log := fmt.Sprintf("position %d", f.Position)
	if f.LastWriteAgoMs > 0 || f.LastWriteTookMs > 0 {
		log += fmt.Sprintf("; the last chunk write was %s ago and took %d ms", Ago(f.LastWriteAgoMs), f.LastWriteTookMs)
	} else {
		log += "; no chunk write since the start"
	}
	fs = append(fs, Fact{Key: "  log", Value: log})
	faults := Fact{Key: "  faults", Value: fmt.Sprintf("%d write errors, %d warnings, %d skipped records since the start",
		f.WriteErrors, f.Warnings, f.Skipped)}
	if f.WriteErrors > 0 || f.Warnings > 0 || f.Skipped > 0 {
		faults.Style = Warn
	}
	fs = append(fs, faults)
	switch {
	case f.Checkpoint != nil:
		fs = append(fs, Fact{Key: "  saved", Value: fmt.Sprintf("checkpoint at position %d, %s old, from v%s",
			f.Checkpoint.Position, Ago(f.Checkpoint.AgeMs), Clean(f.Checkpoint.Version))})
	case f.NoCheckpointWhy != "":
		fs = append(fs, Fact{Key: "  saved", Value: "no checkpoint: " + Clean(f.NoCheckpointWhy)})
	default:
		fs = append(fs, Fact{Key: "  saved", Value: "no checkpoint yet"})
	}
	for _, unread := range f.UnreadCheckpoints {
		fs = append(fs, Fact{Key: "  unread", Value: "a checkpoint does not read, and the start used the one before it: " + Clean(unread), Style: Bad})
	}
	fs = append(fs, Fact{Key: "  counts", Value: fmt.Sprintf("%d chunks, %d sessions, %d cursors, %d threads, %d live sign-ins",
		f.Chunks, f.Sessions, f.Cursors, f.Threads, f.SignIns)})
	fs = append(fs, Fact{Key: "  memory", Value: fmt.Sprintf("%d MB in use", (f.MemoryBytes+500_000)/1_000_000)})
	fs = append(fs, Fact{Key: "  started", Value: fmt.Sprintf("%s ago; the replay took %d ms", Ago(f.StartedAgoMs), f.ReplayMs)})
	return fs
}

// Ago gives a duration in ms as people read it: 3s, 5m, 2h, 3d.
func Ago(ms int64) string {
	s := ms / 1000
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm", s/60)
	case s < 48*3600:
		return fmt.Sprintf("%dh", s/3600)
	}
	return fmt.Sprintf("%dd", s/86400)
}
