package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/wire"
)

func parseBuild(s string) (build.Build, error) { return build.ParseBuild(s) }

// server shows the riff that riff uses, where the choice comes from, its
// release against this riff, and the facts of the server. The last line
// says what to run when the person must act.
func (c *cli) server(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	if err := c.noArgs(fs, args); err != nil {
		return err
	}
	lines := []fact{
		{key: "riff", value: c.build.Display()},
		{key: "server", value: c.serverURL().String(), extra: "(" + c.serverFrom + ")"},
	}
	facts, err := c.client.Facts(ctx)
	var mismatch *riffclient.MismatchError
	var act string
	var actColor string
	failed := false
	switch {
	case err == nil:
		sb, perr := parseBuild(facts.Build)
		if perr != nil {
			lines = append(lines, fact{key: "  release", value: clean(facts.Build), color: yellow, extra: "a build that riff cannot read", extraColor: yellow})
			break
		}
		rel, a, col := c.releaseFact(sb)
		lines = append(lines, rel)
		act, actColor = a, col
		lines = append(lines, fact{key: "  sign-in", value: "none: this riff has no sign-in"})
		lines = append(lines, factLines(facts)...)
	case errors.As(err, &mismatch):
		failed = true
		if mismatch.Server != nil {
			rel, a, col := c.releaseFact(*mismatch.Server)
			lines = append(lines, rel)
			act, actColor = a, col
		} else {
			lines = append(lines, fact{key: "  release", value: clean(mismatch.Text), color: red})
			act, actColor = "Check that the server is riff-server. See riff help server.", red
		}
	default:
		failed = true
		lines = append(lines, fact{key: "  answer", value: "none: " + c.words(err), color: red})
		act, actColor = "Start riff-server, or name another riff with --server. See riff help server.", red
	}
	c.out.factsAt(lines, 12)
	if act != "" {
		c.out.line(colored(actColor, act))
	}
	if failed {
		return errSilent
	}
	return nil
}

// errSilent ends a command that printed its fault already.
var errSilent = errors.New("the command printed its fault")

// releaseFact gives the line release, and the line to act with its color.
func (c *cli) releaseFact(sb build.Build) (fact, string, string) {
	if sb.String() == c.build.String() {
		return fact{key: "  release", value: "v" + sb.Version.String(), extra: "same build ✓", extraColor: green}, "", ""
	}
	if text := build.MismatchError(sb, c.build); text != "" {
		act := "Run riff update."
		if build.Older(sb, c.build) == build.Server {
			act = "Update riff-server."
		}
		return fact{key: "  release", value: sb.Display(), color: red, extra: "the versions cannot talk", extraColor: red}, act, red
	}
	act := ""
	switch build.Older(sb, c.build) {
	case build.Client:
		act = "Run riff update."
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
	faults := fact{key: "  faults", value: fmt.Sprintf("%d write errors, %d skipped records since the start", f.WriteErrors, f.Skipped)}
	if f.WriteErrors > 0 || f.Skipped > 0 {
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
