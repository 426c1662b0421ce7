package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGivenARiffThatRequiresSignInWithNoProviderWhenRiffLoginRunsThenItShowsTheServersReason:
// riff-server --require-sign-in with no --issuer and --client-id names no
// provider; riff login shows the server's reason (not a Go URL error of
// an empty issuer), exits 1, and keeps nothing.
func TestGivenARiffThatRequiresSignInWithNoProviderWhenRiffLoginRunsThenItShowsTheServersReason(t *testing.T) {
	bin := buildRiff(t, "riff", "riff-server")
	addr := freePort(t)
	s := &riffServer{t: t, bin: bin, addr: addr, signIn: true, args: []string{"--require-sign-in"}}
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			t.Logf("the log of riff-server:\n%s", s.log.String())
		}
	})
	s.start()
	home := t.TempDir()
	stdout, stderr, code := runLogin(t, bin, loginEnv(s.url(), home), func(string) {})
	want := "Error: riff cannot sign in to the riff at " + s.url() +
		": this riff requires sign-in and has no provider: give riff-server --issuer and --client-id\n"
	if code != 1 || stderr != want || stdout != "\n" {
		t.Errorf("riff login = %d, stdout %q, stderr %q; want 1 and %q", code, stdout, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(home, "state", "signin")); !os.IsNotExist(err) {
		t.Errorf("the folder of the sign-in: %v; want none", err)
	}
}
