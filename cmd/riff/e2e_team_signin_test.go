package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/tools/oidcfake"
)

// loginAs runs riff login --device at the riff s as the machine home,
// approving the code as email, and gives its stdout.
func loginAs(t *testing.T, ctx context.Context, bin string, p *oidcfake.Provider, s *riffServer, home, email string, env ...string) string {
	t.Helper()
	p.SetNext(oidcfake.Identity{Email: email})
	return deviceLoginAt(t, ctx, bin, p, s.url(), home, env...)
}

// deviceLoginAt runs riff login --device at server as the machine home,
// approving its code as the next identity of p, and gives its stdout.
func deviceLoginAt(t *testing.T, ctx context.Context, bin string, p *oidcfake.Provider, server, home string, env ...string) string {
	t.Helper()
	approved := make(chan error, 1)
	go func() {
		code, err := p.WaitDevice(ctx)
		if err == nil {
			err = p.Approve(code)
		}
		approved <- err
	}()
	stdout, stderr, code := runLogin(t, bin, loginEnv(server, home, env...), func(string) {}, "--device")
	if err := <-approved; err != nil {
		t.Fatal(err)
	}
	if code != 0 {
		t.Fatalf("riff login --device = %d\n--- stdout\n%s--- stderr\n%s", code, stdout, stderr)
	}
	return stdout
}

// storedTokens gives the access and refresh tokens that the machine home
// stores for the riff at server.
func storedTokens(t *testing.T, home, server string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(home, "state", "signin", "tokens.json"))
	if err != nil {
		t.Fatal(err)
	}
	var stored struct {
		Servers map[string]struct {
			Access  string `json:"access_token"`
			Refresh string `json:"refresh_token"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(data, &stored); err != nil {
		t.Fatal(err)
	}
	k := stored.Servers[server]
	if k.Refresh == "" {
		t.Fatalf("the machine stores no refresh token for %s:\n%s", server, data)
	}
	return []string{k.Access, k.Refresh}
}

// Two people on two machines in one riff with sign-in, with the real
// binaries: the post of one verifies for the other; a tell wakes the
// watch of the other's session, which goes on through a kill -9 and a
// start; an access token that
// expired is refreshed by riff itself; a kill -9 of riff-server right
// after a refresh loses no sign-in (the next refresh takes the generation
// after the saved one); and no line of riff-server holds an email, a
// token or the body of a post.
func TestGivenTwoPeopleSignedInWhenOnePostsAndTheServerIsKilledAfterARefreshThenTheMessageVerifiesAndBothSignInsStay(t *testing.T) {
	t.Parallel()
	bin := buildRiff(t, "riff", "riff-server")
	p := newProvider(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const life = 3 * time.Second
	s := startSignInServer(t, bin, t.TempDir(), p, "--allowed-domain", "example.com", "--access-life", life.String())
	dir := repoDir(t)
	mike, ann := t.TempDir(), t.TempDir()
	annHost := "RIFF_HOST=heron"
	loginAs(t, ctx, bin, p, s, mike, "mike@example.com")
	loginAs(t, ctx, bin, p, s, ann, "ann@example.com", annHost)
	riffAs := func(home string, args ...string) (string, string, int) {
		t.Helper()
		env := loginEnv(s.url(), home)
		if home == ann {
			// ann works in a session, which joins the repository thread.
			env = append(env, annHost, "RIFF_SESSION=b7d0aa11-bbbb")
		}
		return runRiffEnv(t, bin, dir, s.url(), "", env, args...)
	}
	must := func(home string, args ...string) string {
		t.Helper()
		stdout, stderr, code := riffAs(home, args...)
		if code != 0 {
			t.Fatalf("riff %s = %d\n--- stdout\n%s--- stderr\n%s", strings.Join(args, " "), code, stdout, stderr)
		}
		return stdout
	}

	must(ann, "whoami")
	// ann's session watches: a tell of mike wakes it, with its own
	// session token, which it swaps again as it expires.
	watch := startWatchEnv(t, bin, dir, s.url(), "b7d0aa11-bbbb", ann, loginEnv(s.url(), ann, annHost, "RIFF_SESSION=b7d0aa11-bbbb"), "--follow")
	must(mike, "tell", "b7d0", "marked-body-7f3e can you take the review?")
	watch.waitOut("wake: mike@pangolin:app wrote to you in a direct message (message 1)\n")
	const body = "marked-body-7f3e the API is ready"
	must(mike, "post", body)
	read := must(ann, "read")
	if !strings.Contains(read, "(verified): "+body) {
		t.Errorf("ann's riff read:\n%s; want mike's message (verified)", read)
	}

	// The access tokens expire: riff refreshes by itself.
	refreshedBy := func(before []string) []string {
		t.Helper()
		// riff renews the token after three quarters of its life: the
		// test runs whoami until the machine stores a new refresh token.
		for deadline := time.Now().Add(3 * life); storedTokens(t, mike, s.url())[1] == before[1]; {
			if time.Now().After(deadline) {
				t.Fatalf("riff stored the same refresh token %v after the access token's life of %v: no refresh", 3*life, life)
			}
			time.Sleep(100 * time.Millisecond)
			must(mike, "whoami")
		}
		return storedTokens(t, mike, s.url())
	}
	before := storedTokens(t, mike, s.url())
	after := refreshedBy(before)
	// kill -9 at once: signins.json may hold the generation before it.
	s.kill()
	s.start()
	if out := must(mike, "whoami"); !strings.Contains(out, "riff://mike@") {
		t.Errorf("mike's whoami after the kill:\n%s", out)
	}
	refreshedBy(after)
	// The watch went on through the kill and the restart: once it is
	// back (it tries again every 5 s), a tell wakes it.
	watch.waitErr("(back)")
	must(mike, "tell", "b7d0", "marked-body-7f3e and #41?")
	watch.waitOut("(message 2)\n")
	watch.stop()
	if read := must(ann, "read", "--all"); !strings.Contains(read, "(verified): "+body) {
		t.Errorf("ann's riff read --all after the kill:\n%s; want mike's message (verified)", read)
	}

	s.stop()
	lines := s.log.String()
	marks := append([]string{"mike@example.com", "ann@example.com", "marked-body-7f3e"}, before...)
	marks = append(marks, after...)
	marks = append(marks, storedTokens(t, mike, s.url())...)
	marks = append(marks, storedTokens(t, ann, s.url())...)
	for _, mark := range marks {
		if mark != "" && strings.Contains(lines, mark) {
			t.Errorf("a line of riff-server holds %q:\n%s", mark, lines)
		}
	}
}
