package render

import (
	"fmt"
	"strings"

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
