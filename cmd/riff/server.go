package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/signin"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/loopback"
	"github.com/como-technologies/riff/riffcore/wire"
)

func parseBuild(s string) (build.Build, error) { return build.ParseBuild(s) }

// The last lines of riff server that say what to run. The guide names
// riff update there; that command does not exist yet, so the line says
// what to do in its place (docs/cli.md).
const (
	updateRiffAct = "Update riff on this machine."
	loginAct      = "Run riff login."
)

// noSignInFact is the sign-in of a riff that gives its facts to riff
// with no token: a riff with sign-in gives them only to a person who is
// signed in.
var noSignInFact = fact{key: "  sign-in", value: "none: this riff has no sign-in"}

// notSignedInFact is the sign-in of a riff that refused its facts to riff
// with no token.
var notSignedInFact = fact{key: "  sign-in", value: "no: this riff has sign-in, and you are not signed in", color: red}

// signInFact gives the sign-in line of a riff that gave its facts to
// riff: signed in as the email of the sign-in of m, or no sign-in.
func (c *cli) signInFact(ctx context.Context, m *signin.Machine, client *riffclient.Client) fact {
	if m == nil {
		return noSignInFact
	}
	k, ok, err := m.Stored()
	if err != nil || !ok || k.Ended {
		return noSignInFact
	}
	// A sign-in stored for a riff that has none now (it started again with
	// no provider): the riff says so. An older riff-server has no such
	// route: the sign-in line stays.
	p, perr := riffclient.SendProved(ctx, client, wire.SignInProvider{}, nil, "")
	if perr == nil && !p.SignIn {
		return noSignInFact
	}
	who := k.Email
	if who == "" {
		who = k.User
	}
	return fact{key: "  sign-in", value: "yes, signed in as " + clean(who), color: green}
}

// signInFaultFact gives the sign-in line of a riff that refused the
// token of this machine or that the machine cannot send, and whether it
// is one.
func (c *cli) signInFaultFact(err error, m *signin.Machine) (fact, bool) {
	var auth *riffclient.AuthError
	var refused *wire.Refused
	switch {
	case errors.As(err, &auth):
		return fact{key: "  sign-in", value: "no: " + faultWords(auth), color: red}, true
	case errors.As(err, &refused) && signInCode(refused.Code):
		if m != nil {
			if ferr := m.Fault(); ferr != nil {
				return fact{key: "  sign-in", value: "no: " + faultWords(ferr), color: red}, true
			}
		}
		return notSignedInFact, true
	}
	return fact{}, false
}

// faultWords gives the text of a fault of the sign-in for the sign-in
// line: "the sign-in of this machine ended". The last line of riff server
// says what to run.
func faultWords(err error) string {
	s := strings.TrimSuffix(strings.TrimSpace(clean(err.Error())), " Run riff login.")
	s = strings.TrimSuffix(s, ".")
	if s != "" {
		s = strings.ToLower(s[:1]) + s[1:]
	}
	return s
}

// signInCode says whether a refusal says that the riff wants a sign-in.
func signInCode(code wire.Code) bool {
	switch code {
	case wire.NoToken, wire.BadToken:
		return true
	}
	return false
}

// localBudget is the budget of the call to the riff of this machine in
// riff server: it shows only when it answers, and it must not hold the
// command.
const localBudget = 2 * time.Second

// localFacts gives the lines of the riff of this machine: local, its
// release and its sign-in. It gives none when the riff that riff uses is
// the riff of this machine, and none when it does not answer.
func (c *cli) localFacts(ctx context.Context) []fact {
	raw := c.localRiff
	if raw == "" {
		raw = riffclient.DefaultServer
	}
	u, err := riffclient.ParseServer(raw)
	if err != nil || sameRiff(u, c.serverURL()) {
		return nil
	}
	opts := riffclient.Options{Build: c.build}
	if c.system.client != nil {
		c.system.client(&opts)
	}
	opts.Out, opts.Budget = nil, localBudget
	m := c.openSignIn(u, opts)
	plain := riffclient.New(u, opts)
	if m != nil && m.HasSignIn() {
		opts.Auth = m
	}
	facts, err := riffclient.New(u, opts).Facts(ctx)
	lines := []fact{{key: "local", value: u.String(), extra: "(the riff of this machine)"}}
	var mismatch *riffclient.MismatchError
	switch {
	case err == nil:
		sb, perr := parseBuild(facts.Build)
		if perr != nil {
			return append(lines, fact{key: "  release", value: clean(facts.Build), color: yellow, extra: "a build that riff cannot read", extraColor: yellow})
		}
		rel, _, _ := c.releaseFact(sb)
		return append(lines, rel, c.signInFact(ctx, m, plain))
	case errors.As(err, &mismatch) && mismatch.Server != nil:
		rel, _, _ := c.releaseFact(*mismatch.Server)
		return append(lines, rel)
	}
	if f, ok := c.signInFaultFact(err, m); ok {
		return append(lines, f)
	}
	return nil
}

// sameRiff says whether a and b are one riff: the same URL, or the same
// scheme, port and path on this machine (riffcore/loopback).
func sameRiff(a, b *url.URL) bool {
	if a.String() == b.String() {
		return true
	}
	return loopback.Is(a.Hostname()) && loopback.Is(b.Hostname()) &&
		a.Scheme == b.Scheme && a.Port() == b.Port() &&
		strings.TrimRight(a.Path, "/") == strings.TrimRight(b.Path, "/")
}

// errSilent ends a command that printed its fault already.
var errSilent = errors.New("the command printed its fault")

// releaseFact gives the line release, and the line to act with its color.
func (c *cli) releaseFact(sb build.Build) (fact, string, string) {
	if sb.String() == c.build.String() {
		return fact{key: "  release", value: "v" + sb.Version.String(), extra: "same build ✓", extraColor: green}, "", ""
	}
	if text := build.MismatchError(sb, c.build); text != "" {
		act := updateRiffAct
		if build.Older(sb, c.build) == build.Server {
			act = "Update riff-server."
		}
		return fact{key: "  release", value: sb.Display(), color: red, extra: "the versions cannot talk", extraColor: red}, act, red
	}
	act := ""
	switch build.Older(sb, c.build) {
	case build.Client:
		act = updateRiffAct
	case build.Server:
		act = "Update riff-server when you can."
	}
	return fact{key: "  release", value: sb.Display(), color: yellow, extra: "another build; the versions can talk", extraColor: yellow}, act, yellow
}

// factLines gives the facts of GET /v1/server in the layout of the guide.
func factLines(f wire.ServerFacts) []fact {
	var fs []fact
	if f.Serves {
		fs = append(fs, fact{key: "  serves", value: "yes", color: green})
	} else {
		why := "no"
		if f.Why != "" {
			why = "no: " + clean(f.Why)
		}
		fs = append(fs, fact{key: "  serves", value: why, color: red})
	}
	if f.LastError == "" {
		fs = append(fs, fact{key: "  error", value: "none since the start"})
	} else {
		fs = append(fs, fact{key: "  error", value: clean(f.LastError), color: red})
	}
	log := fmt.Sprintf("position %d", f.Position)
	if f.LastWriteAgoMs > 0 || f.LastWriteTookMs > 0 {
		log += fmt.Sprintf("; the last chunk write was %s ago and took %d ms", ago(f.LastWriteAgoMs), f.LastWriteTookMs)
	} else {
		log += "; no chunk write since the start"
	}
	fs = append(fs, fact{key: "  log", value: log})
	faults := fact{key: "  faults", value: fmt.Sprintf("%d write errors, %d warnings, %d skipped records since the start",
		f.WriteErrors, f.Warnings, f.Skipped)}
	if f.WriteErrors > 0 || f.Warnings > 0 || f.Skipped > 0 {
		faults.color = yellow
	}
	fs = append(fs, faults)
	switch {
	case f.Checkpoint != nil:
		fs = append(fs, fact{key: "  saved", value: fmt.Sprintf("checkpoint at position %d, %s old, from v%s",
			f.Checkpoint.Position, ago(f.Checkpoint.AgeMs), clean(f.Checkpoint.Version))})
	case f.NoCheckpointWhy != "":
		fs = append(fs, fact{key: "  saved", value: "no checkpoint: " + clean(f.NoCheckpointWhy)})
	default:
		fs = append(fs, fact{key: "  saved", value: "no checkpoint yet"})
	}
	for _, unread := range f.UnreadCheckpoints {
		fs = append(fs, fact{key: "  unread", value: "a checkpoint does not read, and the start used the one before it: " + clean(unread), color: red})
	}
	fs = append(fs, fact{key: "  counts", value: fmt.Sprintf("%d chunks, %d sessions, %d cursors, %d threads, %d live sign-ins",
		f.Chunks, f.Sessions, f.Cursors, f.Threads, f.SignIns)})
	fs = append(fs, fact{key: "  memory", value: fmt.Sprintf("%d MB in use", (f.MemoryBytes+500_000)/1_000_000)})
	fs = append(fs, fact{key: "  started", value: fmt.Sprintf("%s ago; the replay took %d ms", ago(f.StartedAgoMs), f.ReplayMs)})
	return fs
}

// ago gives a duration in ms as people read it: 3s, 5m, 2h, 3d.
func ago(ms int64) string {
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
