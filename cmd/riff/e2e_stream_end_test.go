package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The streams of a person whose sign-in ends, with the real binaries
// (docs/wire.md, "Streams"; docs/login.md, "A lost sign-in"): the owner
// removes bob while bob's riff tail chat and the riff relay watch of
// his session run. From the reply of riff remove on, neither gets a
// message, and each says the lost sign-in.
func TestGivenATailAndAWatchOfAPersonWhenTheOwnerRemovesThePersonThenNeitherGetsAMessageAfterTheReplyAndEachSaysTheLostSignIn(t *testing.T) {
	bin := buildRiff(t, "riff", "riff-server")
	p := newProvider(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := startSignInServer(t, bin, t.TempDir(), p)
	var script strings.Builder
	mike := newTeamMachine(t, bin, s.url(), "pangolin", &script)
	mike.signIn(ctx, p, "mike@example.com", "mike")
	bob := newTeamMachine(t, bin, s.url(), "heron", &script)
	mike.ok("invite", "bob@example.com")
	bob.signIn(ctx, p, "bob@example.com", "bob")
	const session = "b0b5e551-0000-tail"
	bob.ok("--session", session, "whoami")

	open := filepath.Join(t.TempDir(), "open")
	if err := os.WriteFile(open, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tailCmd := exec.Command(filepath.Join(bin, "riff"), "tail", "chat", "--color", "never")
	tailCmd.Dir, tailCmd.Env = bob.dir, append(bob.env(), envTailGate+"="+open)
	tail := startProc(t, tailCmd, "riff tail chat", 30*time.Second)
	watchCmd := exec.Command(filepath.Join(bin, "riff"), "relay", "watch", "--follow")
	watchCmd.Dir = bob.dir
	watchCmd.Env = append(bob.env(), "RIFF_SESSION="+session, keepAliveEnv+"=100ms", envWatchMarks+"=1")
	watch := startProc(t, watchCmd, "riff relay watch", 30*time.Second)

	// Both streams are open: each gets what mike sends.
	mike.ok("post", "--thread", "chat", "before the remove")
	tail.waitOut("before the remove")
	mike.ok("tell", "b0b5", "before the remove")
	watch.waitOut("wake: ")
	wakes := strings.Count(watch.stdout.String(), "wake: ")

	if out := mike.ok("remove", "bob@example.com"); !strings.Contains(out, "1 sign-in") {
		t.Errorf("riff remove:\n%s; want 1 sign-in ended", out)
	}
	// After the reply of the remove.
	mike.ok("post", "--thread", "chat", "after the remove")
	if stdout, stderr, code := mike.riff("tell", "b0b5", "after the remove"); code != exitOK && !strings.Contains(stderr, "gone") {
		t.Fatalf("riff tell after the remove = exit %d\n%s%s", code, stdout, stderr)
	}
	lost := "riff: The sign-in of this machine ended. Run riff login."
	tail.waitErr(lost)
	watch.waitErr(lost)
	// Each says it once, and each stream was open until then: what came
	// after the reply came on no stream. (A later message would come
	// before the end line, which the lost sign-in follows.)
	if out := tail.stdout.String(); strings.Contains(out, "after the remove") {
		t.Errorf("riff tail chat of the removed bob showed a message posted after the remove:\n%s", out)
	}
	if n := strings.Count(watch.stdout.String(), "wake: "); n != wakes {
		t.Errorf("riff relay watch of the removed bob gave %d wakes after the remove:\n%s", n-wakes, watch.stdout.String())
	}
	for _, pr := range []*proc{tail, watch} {
		if n := strings.Count(pr.stderr.String(), lost); n != 1 {
			t.Errorf("%s said the lost sign-in %d times; want once:\n%s", pr.what, n, pr.stderr.String())
		}
	}
}

// A tail whose access token expires, with the real binaries: riff-server
// ends the stream at the expiry, and riff tail opens it again with its
// renewed token, with no break to show, and shows each message once.
// The token lives 2 s of real time (--access-life): the test waits for
// it.
func TestGivenATailWhenItsAccessTokenExpiresThenRiffTailOpensItAgainWithTheRenewedTokenAndShowsEachMessageOnce(t *testing.T) {
	bin := buildRiff(t, "riff", "riff-server")
	p := newProvider(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const life = 2 * time.Second
	s := startSignInServer(t, bin, t.TempDir(), p, "--access-life", life.String())
	var script strings.Builder
	mike := newTeamMachine(t, bin, s.url(), "pangolin", &script)
	mike.signIn(ctx, p, "mike@example.com", "mike")
	bob := newTeamMachine(t, bin, s.url(), "heron", &script)
	mike.ok("invite", "bob@example.com")
	bob.signIn(ctx, p, "bob@example.com", "bob")
	before := storedTokens(t, bob.home, s.url())

	open := filepath.Join(t.TempDir(), "open")
	if err := os.WriteFile(open, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tailCmd := exec.Command(filepath.Join(bin, "riff"), "tail", "chat", "--color", "never")
	tailCmd.Dir, tailCmd.Env = bob.dir, append(bob.env(), envTailGate+"="+open)
	tail := startProc(t, tailCmd, "riff tail chat", 30*time.Second)
	mike.ok("post", "--thread", "chat", "message one")
	tail.waitOut("message one")
	// The tail renews its token when the server ends the stream at its
	// expiry: the kept refresh token changes.
	deadline := time.Now().Add(30 * time.Second)
	for storedTokens(t, bob.home, s.url())[1] == before[1] {
		if time.Now().After(deadline) {
			t.Fatalf("riff tail renewed no token in 30 s with an access life of %s", life)
		}
		time.Sleep(50 * time.Millisecond)
	}
	mike.ok("post", "--thread", "chat", "message two")
	tail.waitOut("message two")
	out, errOut := tail.stdout.String(), tail.stderr.String()
	for _, m := range []string{"message one", "message two"} {
		if n := strings.Count(out, m); n != 1 {
			t.Errorf("riff tail showed %q %d times; want once:\n%s", m, n, out)
		}
	}
	if strings.Contains(errOut, "(reconnecting") || strings.Contains(errOut, "(back)") || strings.Contains(errOut, "riff:") {
		t.Errorf("riff tail showed a break at the renewal of its token:\n%s", errOut)
	}
}
