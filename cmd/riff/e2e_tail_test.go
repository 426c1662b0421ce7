package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/google/go-cmp/cmp"
)

// startTail starts riff tail THREAD --color COLOR in dir as the person,
// with the test hook RIFF_TEST_TAIL_GATE=gate, and waits until its
// stream is open: from then on each new message shows.
func startTail(t *testing.T, bin, dir, server, thread, color, gate string) *proc {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "riff"), "tail", thread, "--color", color)
	cmd.Dir = dir
	cmd.Env = append(riffEnv(server, ""), envTailGate+"="+gate)
	return startProc(t, cmd, "riff tail", 20*time.Second)
}

// post posts body to the thread of repoDir as the person, with the riff
// binary.
func post(t *testing.T, bin, dir, server, body string) {
	t.Helper()
	if stdout, stderr, code := runRiff(t, bin, dir, server, "", "post", body); code != 0 {
		t.Fatalf("riff post %q: exit %d\n%s%s", body, code, stdout, stderr)
	}
}

// testTailRestart: riff tail shows each message once and in order across
// a restart of riff-server (SIGTERM), also the messages that came while
// it was away. It connects again by itself, with no hold.
func testTailRestart(t *testing.T, bin string) {
	srv := startServer(t, bin, freePort(t), t.TempDir())
	server := srv.url()
	dir := repoDir(t)
	post(t, bin, dir, server, "before the tail")

	open := filepath.Join(t.TempDir(), "open")
	if err := os.WriteFile(open, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tail := startTail(t, bin, dir, server, "acme/app", "never", open)
	post(t, bin, dir, server, "one")
	post(t, bin, dir, server, "two")
	tail.waitOut("two")

	srv.restart()
	tail.waitErr("(reconnecting…)")
	// These race with the new connect of tail: each shows once, in
	// order, whether it comes from the read after the break or from the
	// stream.
	post(t, bin, dir, server, "three")
	post(t, bin, dir, server, "four")
	post(t, bin, dir, server, "five")
	tail.waitOut("five")
	tail.waitErr("(back)")

	srv.restart()
	tail.waitErr("(back)\n(reconnecting…)")
	post(t, bin, dir, server, "six")
	tail.waitOut("six")
	tail.waitErr("(back)\n(reconnecting…)\n(back)")
	tail.stop()

	got := transcript([]string{"tail", "acme/app", "--color", "never"}, normalizeTimes(tail.stdout.String()), tail.stderr.String(), tail.cmd.ProcessState.ExitCode(), nil)
	checkGolden(t, "e2e", "tail-restart", got)
}

// testTailLost: after a break with more than 200 new messages, riff tail
// shows the yellow line of the lost messages, then the 200 kept ones in
// order, then the new messages. The test hook holds tail away from the
// server until the 250 posts are in. tail runs with --color always, so
// the line of lost messages must be yellow.
func testTailLost(t *testing.T, bin string) {
	srv := startServer(t, bin, freePort(t), t.TempDir())
	server := srv.url()
	dir := repoDir(t)
	post(t, bin, dir, server, "before the tail")

	gate := filepath.Join(t.TempDir(), "gate")
	tail := startTail(t, bin, dir, server, "acme/app", "always", gate)
	post(t, bin, dir, server, "before the break")
	tail.waitOut("before the break")

	srv.restart()
	tail.waitErr("(reconnecting…)")
	const inBreak = 250
	c := testClient(t, server)
	me := name.SessionURI{User: "mike", Host: "pangolin", Repo: "acme/app"}
	for i := 1; i <= inBreak; i++ {
		call := wire.Post{Me: me, Thread: "acme/app", Body: fmt.Sprintf("break %d", i)}
		if _, err := riffclient.Send(context.Background(), c, call); err != nil {
			t.Fatalf("post %q: %v", call.Body, err)
		}
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tail.waitErr("(back)")
	post(t, bin, dir, server, "after the break")
	tail.waitOut("after the break")
	tail.stop()

	const kept = 200
	want := []string{"before the break",
		fmt.Sprintf("riff: %d messages of the break are lost. The server keeps only the last messages of a thread.", inBreak-kept)}
	for i := inBreak - kept + 1; i <= inBreak; i++ {
		want = append(want, fmt.Sprintf("break %d", i))
	}
	want = append(want, "after the break")
	out := tail.stdout.String()
	if diff := cmp.Diff(want, tailBodies(stripColor(out))); diff != "" {
		t.Errorf("riff tail across a break of %d messages (-want +got):\n%s", inBreak, diff)
	}
	notice := 0
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, "lost") && !strings.Contains(line, "last messages of a thread") {
			continue
		}
		notice++
		if !strings.HasPrefix(line, "\x1b["+yellow+"m") || !strings.HasSuffix(line, "\x1b[0m") {
			t.Errorf("a line of lost messages in riff tail --color always = %q; want it yellow", line)
		}
	}
	if notice == 0 {
		t.Errorf("riff tail --color always shows no line of lost messages:\n%s", out)
	}
	if got, want := stripColor(tail.stderr.String()), "(open)\n(reconnecting…)\n(back)\n"; got != want {
		t.Errorf("the stderr of riff tail = %q; want %q", got, want)
	}
}

// colorRE is a color of riff: ESC [ codes m.
var colorRE = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// stripColor removes the colors from an output.
func stripColor(s string) string { return colorRE.ReplaceAllString(s, "") }

// tailBodies gives the bodies of the blocks of riff tail and its lines of
// lost messages (a wrapped line joined again), in order.
func tailBodies(out string) []string {
	var got []string
	notice := false
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, bodyIndent):
			got, notice = append(got, strings.TrimSpace(line)), false
		case strings.HasPrefix(line, "riff:"):
			got, notice = append(got, line), true
		case notice && line != "" && (line[0] < '0' || line[0] > '9'):
			// Not a date line nor a header: the rest of the notice.
			got[len(got)-1] += " " + line
		}
	}
	return got
}
