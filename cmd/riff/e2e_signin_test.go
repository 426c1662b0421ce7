package main

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/tools/oidcfake"
)

// waitProvider waits until a riff-server with sign-in answers riff login.
func waitProvider(t *testing.T, server string) {
	t.Helper()
	u, err := riffclient.ParseServer(server)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		c := riffclient.New(u, riffclient.Options{Budget: time.Second})
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		p, err := riffclient.SendProved(ctx, c, wire.SignInProvider{}, nil, "")
		cancel()
		if err == nil && p.SignIn {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("riff-server at %s gives no provider after 30 s", server)
}

// newProvider starts the OpenID provider of the tests, with the client of
// riff login; a cleanup stops it.
func newProvider(t *testing.T) *oidcfake.Provider {
	t.Helper()
	p, err := oidcfake.New(oidcfake.Options{ClientID: "riff-cli"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// startSignInServer starts the real riff-server with the provider p, the
// owner mike@example.com (unless more names --owner: "" for none) and
// the flags more; dir "" keeps its state in memory; ADDR in a flag is
// the address of the server. A cleanup stops it, and shows its log when
// the test failed.
func startSignInServer(t *testing.T, bin, dir string, p *oidcfake.Provider, more ...string) *riffServer {
	t.Helper()
	addr := freePort(t)
	more = append(slices.Clone(more), "--issuer", p.Issuer(), "--client-id", p.ClientID())
	if !slices.Contains(more, "--owner") {
		more = append(more, "--owner", "mike@example.com")
	}
	for i, arg := range more {
		more[i] = strings.ReplaceAll(arg, "ADDR", addr)
	}
	s := &riffServer{t: t, bin: bin, addr: addr, dir: dir, signIn: true, args: more}
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			t.Logf("the log of riff-server:\n%s", s.log.String())
		}
	})
	s.start()
	return s
}

// loginAt runs riff login --device at the riff s as the machine home,
// approving the code as mike.
func loginAt(t *testing.T, ctx context.Context, bin string, p *oidcfake.Provider, s *riffServer, home string) string {
	t.Helper()
	return loginAs(t, ctx, bin, p, s, home, "mike@example.com")
}

func TestGivenTheRealRiffServerWithSignInWhenRiffLoginRunsThenCommandsWorkAndARestartWithNoStoreIsANewRiff(t *testing.T) {
	bin := buildRiff(t, "riff", "riff-server")
	p := newProvider(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	s := startSignInServer(t, bin, "", p)
	home := t.TempDir()
	dir := repoDir(t)
	riff := func(args ...string) (string, string, int) {
		t.Helper()
		return runRiffEnv(t, bin, dir, s.url(), "", loginEnv(s.url(), home), args...)
	}
	if _, stderr, code := riff("whoami"); code != 1 || !strings.Contains(stderr, "Run riff login.") {
		t.Errorf("whoami with no sign-in = %d, %q; want what to run", code, stderr)
	}
	if out := loginAt(t, ctx, bin, p, s, home); !strings.HasSuffix(out, "Signed in to the riff at "+s.url()+" as mike@example.com (mike).\n") {
		t.Errorf("riff login:\n%s", out)
	}
	stdout, stderr, code := riff("whoami")
	if code != 0 || !strings.Contains(stdout, "riff://mike@pangolin") {
		t.Fatalf("whoami = %d\n%s%s; want the URI of mike, the USER of the sign-in", code, stdout, stderr)
	}
	// A session of the machine: its own token by swap.
	stdout, stderr, code = runRiffEnv(t, bin, dir, s.url(), "", append(loginEnv(s.url(), home), "RIFF_SESSION=a6cf2205-9a1b"), "whoami")
	if code != 0 || !strings.Contains(stdout, "session=a6cf2205-9a1b") {
		t.Errorf("whoami of a session = %d\n%s%s", code, stdout, stderr)
	}
	stdout, _, _ = riff("server", "--color", "never")
	if !strings.Contains(stdout, "  sign-in   yes, signed in as mike@example.com\n") || !strings.Contains(stdout, "  serves    yes") {
		t.Errorf("riff server:\n%s; want the sign-in line and the facts", stdout)
	}
	// riff server in a session: the facts go only to a signed-in person
	// (a session token gets not_you), and riff asks for them with the
	// person token, so a session shows them too.
	stdout, stderr, code = runRiffEnv(t, bin, dir, s.url(), "", append(loginEnv(s.url(), home), "RIFF_SESSION=a6cf2205-9a1b"), "server", "--color", "never")
	if code != 0 || !strings.Contains(stdout, "  sign-in   yes, signed in as mike@example.com\n") || !strings.Contains(stdout, "  serves    yes") || !strings.Contains(stdout, "live sign-ins") {
		t.Errorf("riff server in a session = %d\n%s%s; want the sign-in line and the facts", code, stdout, stderr)
	}

	// A restart with no store: a new riff.
	s.restart()
	if _, stderr, code := riff("whoami"); code != 1 || stderr != "Error: This riff is new. Run riff login.\n" {
		t.Errorf("whoami after a restart with no store = %d, %q; want This riff is new", code, stderr)
	}
	if _, stderr, code := riff("whoami"); code != 1 || strings.Contains(stderr, "new") {
		t.Errorf("the command after it = %d, %q; want it to run with no sign-in", code, stderr)
	}
	loginAt(t, ctx, bin, p, s, home)
	if _, stderr, code := riff("whoami"); code != 0 {
		t.Errorf("whoami after riff login = %d, %q", code, stderr)
	}
}

func TestGivenTheRealRiffServerWithADirectoryWhenItRestartsThenTheSignInStays(t *testing.T) {
	bin := buildRiff(t, "riff", "riff-server")
	p := newProvider(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	s := startSignInServer(t, bin, t.TempDir(), p)
	home := t.TempDir()
	dir := repoDir(t)
	loginAt(t, ctx, bin, p, s, home)
	s.restart()
	stdout, stderr, code := runRiffEnv(t, bin, dir, s.url(), "", loginEnv(s.url(), home), "whoami")
	if code != 0 || !strings.Contains(stdout, "riff://mike@pangolin") {
		t.Errorf("whoami after a restart with a directory = %d\n%s%s; want the sign-in to stay", code, stdout, stderr)
	}
}

// reuseRefresh ends the sign-in of the machine home at the riff s as a
// copied refresh token does: two refreshes with proofs of the device key
// from the refresh token of the machine, then that token again, two
// generations old: reuse.
func reuseRefresh(t *testing.T, s *riffServer, home string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(home, "state", "signin", "tokens.json"))
	if err != nil {
		t.Fatal(err)
	}
	var stored struct {
		Servers map[string]struct {
			Refresh string `json:"refresh_token"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(data, &stored); err != nil {
		t.Fatal(err)
	}
	refresh := stored.Servers[s.url()].Refresh
	pemKey, err := os.ReadFile(filepath.Join(home, "state", "signin", "key"))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(pemKey)
	key, err := x509.ParseECPrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	c := testClient(t, s.url())
	ctx := context.Background()
	next := refresh
	for range 2 {
		reply, err := riffclient.SendProved(ctx, c, wire.Refresh{RefreshToken: next}, key, "")
		if err != nil {
			t.Fatalf("refresh: %v", err)
		}
		next = reply.RefreshToken
	}
	_, last := riffclient.SendProved(ctx, c, wire.Refresh{RefreshToken: refresh}, key, "")
	var refused *wire.Refused
	if !errors.As(last, &refused) || refused.Code != wire.BadToken {
		t.Fatalf("the third refresh with one token = %v; want bad_token (reuse)", last)
	}
}

func TestGivenARelayWhenItsSignInEndsThenEachToolSaysSoUntilRiffLoginAndThenWorks(t *testing.T) {
	bin := buildRiff(t, "riff", "riff-server")
	p := newProvider(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	s := startSignInServer(t, bin, "", p)
	home := t.TempDir()
	loginAt(t, ctx, bin, p, s, home)

	cmd := exec.Command(filepath.Join(bin, "riff"), "relay", "mcp")
	cmd.Dir = repoDir(t)
	cmd.Env = append(loginEnv(s.url(), home), "RIFF_SESSION=a6cf2205-cccc")
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "riff-test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to riff relay mcp: %v\n%s", err, stderr.String())
	}
	r := &mcpRelay{t: t, cmd: cmd, session: cs, stderr: stderr}
	t.Cleanup(func() {
		_ = cs.Close()
		if t.Failed() {
			t.Logf("the stderr of riff relay mcp:\n%s", stderr.String())
		}
	})
	if text := r.ok("whoami", nil); !strings.Contains(text, "riff://mike@pangolin") {
		t.Errorf("whoami: %s", text)
	}
	reuseRefresh(t, s, home)
	for range 2 {
		text, isErr := r.call("whoami", nil)
		if !isErr || text != "The sign-in of this machine ended. Run riff login." {
			t.Errorf("whoami after the end = %q, %v; want the lost sign-in", text, isErr)
		}
	}
	loginAt(t, ctx, bin, p, s, home)
	if text := r.ok("whoami", nil); !strings.Contains(text, "riff://mike@pangolin") {
		t.Errorf("whoami after riff login: %s", text)
	}
	// No log line holds a token, a key or an email.
	tokens, _ := os.ReadFile(filepath.Join(home, "state", "signin", "tokens.json"))
	var stored struct {
		Servers map[string]struct {
			Access  string `json:"access_token"`
			Refresh string `json:"refresh_token"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(tokens, &stored); err != nil {
		t.Fatal(err)
	}
	k := stored.Servers[s.url()]
	for _, mark := range []string{k.Access, k.Refresh, "mike@example.com", "PRIVATE KEY"} {
		if mark != "" && strings.Contains(stderr.String(), mark) {
			t.Errorf("a log line of riff relay mcp holds %q", mark)
		}
	}
}
