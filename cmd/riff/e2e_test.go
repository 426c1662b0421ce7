package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffclient"
)

// e2eStep is one command of the scenario of the guide, run by a person
// (no session) or by a session.
type e2eStep struct {
	name    string
	session string
	args    []string
}

// e2eScenario: two sessions and a person; a claim, a second claim refused
// as held (exit 1), a pause of the repository refusing claims, a resume,
// a hold refused to a worker and granted with a warning to another, a
// tell to the lead, a read with direct threads first, a release by the
// lead for another session.
func e2eScenario() []e2eStep {
	const a, b, w = "a6cf2205-aaaa", "b7d0aa11-bbbb", "c9e1bb22-cccc"
	return []e2eStep{
		{name: "01-resume-riff", args: []string{"resume", "--riff"}},
		{name: "02-whoami", args: []string{"whoami"}},
		{name: "03-whoami-a", session: a, args: []string{"whoami"}},
		{name: "04-whoami-b", session: b, args: []string{"whoami"}},
		{name: "05-lead", args: []string{"lead", "--session", a[:8]}},
		{name: "06-claim-b", session: b, args: []string{"claim", "issue-12"}},
		{name: "07-claim-a-held", session: a, args: []string{"claim", "issue-12"}},
		{name: "08-pause", args: []string{"pause"}},
		{name: "09-claim-paused", session: b, args: []string{"claim", "issue-13"}},
		{name: "10-resume", args: []string{"resume"}},
		{name: "11-plan-hold", session: a, args: []string{"plan", "hold", "issue-14", "waits", "for", "the", "word", "of", "Mike"}},
		// riff cannot register a worker (riff relay does): a third
		// session that is no worker.
		{name: "12-third", session: w, args: []string{"whoami"}},
		{name: "13-claim-b-warning", session: b, args: []string{"claim", "issue-14"}},
		{name: "14-tell-lead", session: b, args: []string{"tell", "lead", "Merge issue-12 now?"}},
		{name: "15-post", args: []string{"post", "--to", "claim=issue-12", "API is ready"}},
		{name: "16-read-a", session: a, args: []string{"read"}},
		{name: "17-release-for", session: a, args: []string{"release", "issue-12", "--session", b[:8]}},
		{name: "18-who", args: []string{"who"}},
		{name: "19-threads", session: b, args: []string{"threads"}},
		{name: "20-read-all", session: b, args: []string{"read", "--all"}},
		{name: "21-status", session: b, args: []string{"status", "write", "the", "tests"}},
		{name: "22-step", session: b, args: []string{"step", "start", "live", "window"}},
		{name: "23-blocked", session: b, args: []string{"blocked", "which of two designs?"}},
		{name: "24-notes-edit", args: []string{"lead", "notes", "edit", "--file", "NOTES"}},
		{name: "25-notes", args: []string{"lead", "notes"}},
		{name: "26-plan-free", session: a, args: []string{"plan", "free", "issue-14"}},
		{name: "27-release", session: b, args: []string{"release", "issue-14"}},
	}
}

// TestEndToEnd builds riff and riff-server with go build, starts the
// server on loopback with a temporary RIFF_DIR, and runs the scenario of
// the guide with the binary as a person would. It skips while
// cmd/riff-server does not exist.
func TestEndToEnd(t *testing.T) {
	if _, err := os.Stat(filepath.Join("..", "riff-server")); err != nil {
		t.Skip("cmd/riff-server does not exist yet")
	}
	if testing.Short() {
		t.Skip("the end-to-end test builds two binaries")
	}
	bin := t.TempDir()
	for _, name := range []string{"riff", "riff-server"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(bin, name), "./"+name)
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", name, err, out)
		}
	}
	addr := freePort(t)
	server := "http://" + addr
	ctx, cancel := context.WithCancel(context.Background())
	var serverLog bytes.Buffer
	srv := exec.CommandContext(ctx, filepath.Join(bin, "riff-server"), "--listen", addr, "--dir", t.TempDir(), "--lease-wait", "0s")
	srv.Stdout, srv.Stderr = &serverLog, &serverLog
	srv.Cancel = func() error { return srv.Process.Signal(os.Interrupt) }
	srv.WaitDelay = 10 * time.Second
	if err := srv.Start(); err != nil {
		t.Fatalf("start riff-server: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		_ = srv.Wait()
		if t.Failed() {
			t.Logf("the log of riff-server:\n%s", serverLog.String())
		}
	})
	waitServes(t, server)

	dir := repoDir(t)
	notes := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(notes, []byte("Wave 5: issue-20.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, step := range e2eScenario() {
		args := append([]string{"--color", "never"}, replaceArg(step.args, "NOTES", notes)...)
		cmd := exec.Command(filepath.Join(bin, "riff"), args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "USER=mike", "RIFF_HOST=pangolin", "RIFF_SERVER="+server, "NO_COLOR=", "RIFF_SESSION="+step.session)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		code := 0
		if err := cmd.Run(); err != nil {
			exit, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatalf("run riff %v: %v", args, err)
			}
			code = exit.ExitCode()
		}
		norm := func(s string) string {
			s = strings.ReplaceAll(s, server, "http://SERVER")
			s = strings.ReplaceAll(s, notes, "NOTES")
			return normalizeTimes(s)
		}
		shown := replaceArg(args, notes, "NOTES")
		if step.session != "" {
			shown = append([]string{"RIFF_SESSION=" + step.session}, shown...)
		}
		checkGolden(t, "e2e", step.name, transcript(shown, norm(stdout.String()), norm(stderr.String()), code, nil))
	}
}

var (
	agoRE   = regexp.MustCompile(`\b\d+(ms|s|m|h|d) (ago|old)\b`)
	forRE   = regexp.MustCompile(`\bfor \d+(s|m|h|d)\b`)
	clockRE = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}( \d{2}:\d{2})?\b`)
	hourRE  = regexp.MustCompile(`\b\d{2}:\d{2}\b`)
)

// normalizeTimes replaces the times of a run, which change from run to
// run.
func normalizeTimes(s string) string {
	s = agoRE.ReplaceAllString(s, "T $2")
	s = forRE.ReplaceAllString(s, "for T")
	s = clockRE.ReplaceAllString(s, "DATE")
	return hourRE.ReplaceAllString(s, "HH:MM")
}

// freePort gives a loopback address with a free port.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// waitServes waits until the server says that it serves.
func waitServes(t *testing.T, server string) {
	t.Helper()
	u, err := riffclient.ParseServer(server)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		c := riffclient.New(u, riffclient.Options{Budget: time.Second})
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		facts, err := c.Facts(ctx)
		cancel()
		if err == nil && facts.Serves {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("riff-server at %s did not serve in 30 s", server)
}
