package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestGivenASignInThatRiffLoginStoredWhenAGoProgramCallsTheRiffThenItCallsAsThePersonWithSignedPosts:
// examples/signedin, a Go program with riffclient and riffclient/signin
// only, calls the real riff-server with sign-in as the person of the
// sign-in that riff login stored: whoami names the USER of the sign-in,
// its post is signed with the device key and reads back verified, and
// riff reads it too. With no stored sign-in it says what to run.
func TestGivenASignInThatRiffLoginStoredWhenAGoProgramCallsTheRiffThenItCallsAsThePersonWithSignedPosts(t *testing.T) {
	bin := buildRiff(t, "riff", "riff-server")
	// A program of the module examples, built as a package path.
	exampleBin := binaries(t, "", "github.com/como-technologies/riff/examples/signedin")
	p := newProvider(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	s := startSignInServer(t, bin, "", p)
	home := t.TempDir()
	dir := repoDir(t)
	example := func(args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.CommandContext(ctx, filepath.Join(exampleBin, "signedin"), args...)
		cmd.Dir = dir
		cmd.Env = loginEnv(s.url(), home)
		var stdout, stderr syncBuffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		code := 0
		if err := cmd.Run(); err != nil {
			exit, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			code = exit.ExitCode()
		}
		return stdout.String(), stderr.String(), code
	}

	stdout, stderr, code := example("hello from Go")
	if want := "signedin: this machine has no stored sign-in for the riff at " + s.url() + ". Run riff login\n"; code != 1 || stdout != "" || stderr != want {
		t.Errorf("signedin before riff login = %d, %q, %q; want %q", code, stdout, stderr, want)
	}

	loginAt(t, ctx, bin, p, s, home)
	stdout, stderr, code = example("hello from Go")
	want := regexp.MustCompile(`^signed in as riff://mike@pangolin/acme/app \(mike@example\.com\)\n#(\d+) in chat from mike: hello from Go \(verified\)\n$`)
	if code != 0 || !want.MatchString(stdout) {
		t.Fatalf("signedin after riff login = %d\n--- stdout\n%s--- stderr\n%s", code, stdout, stderr)
	}
	out, errOut, code := runRiffEnv(t, bin, dir, s.url(), "", loginEnv(s.url(), home), "--color", "never", "read", "-t", "chat", "--all")
	if code != 0 || !strings.Contains(out, "hello from Go") || !strings.Contains(out, "(verified)") || strings.Contains(out, "not verified") {
		t.Errorf("riff read -t chat --all = %d\n%s%s; want the post of the program, verified", code, out, errOut)
	}
}
