package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/como-technologies/riff/riffcore/dpop"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/tools/oidcfake"
)

// signInRiff is a riff with sign-in for the tests of riff login: a token
// layer in front of the fake server. It checks each proof with
// dpop.Verify and each token, keeps the refresh chains as the seeds say,
// and answers with the build of the caller (or build, when set), so that
// the binary of the test talks with it.
type signInRiff struct {
	t        *testing.T
	inner    http.Handler
	provider *oidcfake.Provider
	srv      *httptest.Server

	mu     sync.Mutex
	riff   string
	build  string
	chains map[string]*loginChain
	access map[string]string // access token: chain
	// tokenCalls counts the calls of the token path; calls all calls.
	tokenCalls, calls int
}

type loginChain struct {
	key, user, email string
	gen              int
	secret           map[int]string
	ended            bool
}

func newSignInRiff(t *testing.T, p *oidcfake.Provider) *signInRiff {
	s := &signInRiff{t: t, inner: &fakeServer{t: t, build: testBuild}, provider: p, riff: "riff-1",
		chains: map[string]*loginChain{}, access: map[string]string{}}
	s.srv = httptest.NewServer(s)
	t.Cleanup(s.srv.Close)
	return s
}

func (s *signInRiff) url() string { return s.srv.URL }

func (s *signInRiff) counts() (token, all int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokenCalls, s.calls
}

// endSignIns ends each sign-in, as a reused refresh token does.
func (s *signInRiff) endSignIns() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.chains {
		c.ended = true
	}
	s.access = map[string]string{}
}

// restart is a restart with no bucket: a new riff.
func (s *signInRiff) restart() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.riff = "riff-2"
	s.chains, s.access = map[string]*loginChain{}, map[string]string{}
}

// buildWriter answers with a build.
type buildWriter struct {
	http.ResponseWriter
	build string
	wrote bool
}

func (b *buildWriter) WriteHeader(code int) {
	if !b.wrote {
		b.wrote = true
		b.ResponseWriter.Header().Set(wire.HeaderBuild, b.build)
	}
	b.ResponseWriter.WriteHeader(code)
}

func (b *buildWriter) Write(p []byte) (int, error) {
	if !b.wrote {
		b.WriteHeader(http.StatusOK)
	}
	return b.ResponseWriter.Write(p)
}

func (b *buildWriter) Flush() {
	if f, ok := b.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *signInRiff) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.calls++
	b := s.build
	if r.URL.Path == "/v1/signin/provider" || r.URL.Path == "/v1/signin" || strings.HasPrefix(r.URL.Path, "/v1/token/") {
		s.tokenCalls++
	}
	s.mu.Unlock()
	if b == "" {
		b = r.Header.Get(wire.HeaderBuild)
	}
	w := &buildWriter{ResponseWriter: rw, build: b}
	if r.URL.Path == "/v1/signin/provider" {
		s.mu.Lock()
		reply := wire.ProviderReply{SignIn: true, Riff: s.riff, Issuer: s.provider.Issuer(), ClientID: s.provider.ClientID()}
		s.mu.Unlock()
		json.NewEncoder(w).Encode(reply)
		return
	}
	token, _ := strings.CutPrefix(r.Header.Get(wire.HeaderAuthorization), "DPoP ")
	if r.Header.Get(wire.HeaderDPoP) == "" && token == "" {
		refuse(w, wire.NoToken, "this riff wants a token")
		return
	}
	proof, err := dpop.Verify(r.Header.Get(wire.HeaderDPoP), r.Method, "http://"+r.Host+r.URL.Path, token, time.Now())
	if err != nil {
		refuse(w, wire.BadProof, err.Error())
		return
	}
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path == "/v1/watch" {
		s.mu.Lock()
		_, ok := s.access[token]
		s.mu.Unlock()
		if !ok {
			refuse(w, wire.BadToken, "riff-server does not know the token")
			return
		}
		// A stream that stays open, with a keep-alive.
		w.WriteHeader(http.StatusOK)
		json.NewEncoder(w).Encode(wire.Event{Type: wire.EventKeepAlive})
		w.Flush()
		<-r.Context().Done()
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.URL.Path {
	case "/v1/signin":
		var in wire.SignIn
		json.Unmarshal(body, &in)
		var jwk jose.JSONWebKey
		if err := jwk.UnmarshalJSON(in.Key); err != nil {
			refuse(w, wire.BadRequest, "key: "+err.Error())
			return
		}
		pub, _ := jwk.Key.(*ecdsa.PublicKey)
		if tp, err := signed.Thumbprint(pub); err != nil || tp != proof.Thumbprint {
			refuse(w, wire.BadProof, "the proof is not of the key of the sign-in")
			return
		}
		email := idEmail(in.IDToken)
		if email == "" {
			refuse(w, wire.BadToken, "no email in the ID token")
			return
		}
		user, _, _ := strings.Cut(email, "@")
		id := rand.Text()[:8]
		c := &loginChain{key: proof.Thumbprint, user: user, email: email, secret: map[int]string{}}
		s.chains[id] = c
		s.pair(w, id, c)
	case "/v1/token/refresh":
		var in wire.Refresh
		json.Unmarshal(body, &in)
		parts := strings.Split(in.RefreshToken, ".")
		c, ok := (*loginChain)(nil), false
		gen := 0
		if len(parts) == 3 {
			c, ok = s.chains[parts[0]]
			gen, _ = strconv.Atoi(parts[1])
		}
		switch {
		case !ok || c.ended:
			refuse(w, wire.BadToken, "riff-server does not know the token")
		case c.key != proof.Thumbprint:
			refuse(w, wire.BadProof, "another key")
		case gen >= c.gen-1 && c.secret[gen] == parts[2]:
			s.pair(w, parts[0], c)
		default:
			c.ended = true
			refuse(w, wire.BadToken, "the refresh token was used before, so the sign-in ended")
		}
	case "/v1/token/swap":
		id, ok := s.access[token]
		if !ok {
			refuse(w, wire.BadToken, "riff-server does not know the token")
			return
		}
		st := "session-" + rand.Text()
		s.access[st] = id
		json.NewEncoder(w).Encode(wire.TokenReply{AccessToken: st, ExpiresSecs: 3600, User: s.chains[id].user, Riff: s.riff})
	default:
		if _, ok := s.access[token]; !ok {
			refuse(w, wire.BadToken, "riff-server does not know the token")
			return
		}
		if r.URL.Path == "/v1/alive" {
			json.NewEncoder(w).Encode(wire.AliveReply{})
			return
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		s.inner.ServeHTTP(w, r)
	}
}

// pair gives the next pair of a chain. s.mu is held.
func (s *signInRiff) pair(w http.ResponseWriter, id string, c *loginChain) {
	c.gen++
	c.secret[c.gen] = rand.Text()
	delete(c.secret, c.gen-2)
	access := "access-" + rand.Text()
	s.access[access] = id
	json.NewEncoder(w).Encode(wire.TokenReply{AccessToken: access, ExpiresSecs: 3600,
		RefreshToken: fmt.Sprintf("%s.%d.%s", id, c.gen, c.secret[c.gen]), User: c.user, Email: c.email, Riff: s.riff})
}

// idEmail reads the email of an ID token of the fake provider.
func idEmail(id string) string {
	parts := strings.Split(id, ".")
	if len(parts) != 3 {
		return ""
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var c struct {
		Email string `json:"email"`
	}
	json.Unmarshal(raw, &c)
	return c.Email
}

// loginEnv is the env of riff in the tests of the sign-in: its own local
// folder (a machine of its own), the key in a file, no display, and a
// user that is not the USER of the sign-in.
func loginEnv(server, home string, more ...string) []string {
	return append(append(riffEnv(server, ""), "RIFF_HOME="+home, "RIFF_KEYRING=off", "DISPLAY=", "WAYLAND_DISPLAY=",
		"BROWSER=", "USER=someone", "DBUS_SESSION_BUS_ADDRESS="), more...)
}

// runLogin runs riff login through a pipe; approve gets each line of its
// stdout, as a person reads it, and may act on it.
func runLogin(t *testing.T, bin string, env []string, approve func(line string), args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "riff"), append([]string{"login"}, args...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut syncBuffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		approve(sc.Text())
	}
	if err := cmd.Wait(); err != nil {
		exit, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatal(err)
		}
		code = exit.ExitCode()
	}
	return strings.Join(lines, "\n") + "\n", errOut.String(), code
}

func TestGivenARiffWithSignInWhenRiffLoginRunsThenCommandsCarryTheSignInUntilItEnds(t *testing.T) {
	bin := buildRiff(t, "riff")
	p := newProvider(t)
	p.SetNext(oidcfake.Identity{Email: "mike@example.com"})
	s := newSignInRiff(t, p)
	home := t.TempDir()
	dir := repoDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	riff := func(args ...string) (string, string, int) {
		t.Helper()
		return runRiffEnv(t, bin, dir, s.url(), "", loginEnv(s.url(), home), args...)
	}

	// No sign-in yet: the riff refuses, and riff says what to run.
	_, stderr, code := riff("whoami")
	if want := "Error: This riff has sign-in, and this machine is not signed in to it. Run riff login.\n"; code != 1 || stderr != want {
		t.Errorf("whoami before riff login = %d, %q; want %q", code, stderr, want)
	}

	t.Run("browser", func(t *testing.T) {
		// BROWSER=true: a browser that does nothing; the test opens the
		// printed URL, as a person would.
		stdout, stderr, code := runLogin(t, bin, loginEnv(s.url(), home, "BROWSER=true"), func(line string) {
			if u, ok := strings.CutPrefix(line, "  "); ok && strings.HasPrefix(u, p.Issuer()) {
				if err := oidcfake.Browse(ctx, u); err != nil {
					t.Errorf("browse: %v", err)
				}
			}
		})
		want := "Signed in to the riff at " + s.url() + " as mike@example.com (mike).\n"
		if code != 0 || !strings.HasPrefix(stdout, "Open this URL in a browser to sign in:\n  "+p.Issuer()+"/auth?") || !strings.HasSuffix(stdout, want) {
			t.Fatalf("riff login = %d\n--- stdout\n%s--- stderr\n%s", code, stdout, stderr)
		}
		for _, f := range []string{"key", "tokens.json", "lock"} {
			info, err := os.Stat(filepath.Join(home, "state", "signin", f))
			if err != nil || info.Mode().Perm() != 0o600 {
				t.Errorf("%s: %v, %v; want mode 0600", f, info, err)
			}
		}
	})

	// The user of the calls is the USER of the sign-in, not $USER.
	stdout, stderr, code := riff("whoami")
	if code != 0 || !strings.Contains(stdout, "riff://mike@pangolin") {
		t.Errorf("whoami = %d\n%s%s; want the URI of mike", code, stdout, stderr)
	}
	stdout, _, _ = riff("server", "--color", "never")
	if !strings.Contains(stdout, "  sign-in   yes, signed in as mike@example.com\n") || !strings.Contains(stdout, "  serves    ") {
		t.Errorf("riff server:\n%s; want the sign-in line and the facts", stdout)
	}

	// The server ends the sign-in: the next command asks once, keeps it,
	// and the one after asks nothing.
	s.endSignIns()
	lost := "Error: The sign-in of this machine ended. Run riff login.\n"
	if _, stderr, code := riff("whoami"); code != 1 || stderr != lost {
		t.Errorf("whoami after the end = %d, %q; want %q", code, stderr, lost)
	}
	_, before := s.counts()
	if _, stderr, code := riff("whoami"); code != 1 || stderr != lost {
		t.Errorf("whoami again = %d, %q; want %q", code, stderr, lost)
	}
	stdout, _, _ = riff("server", "--color", "never")
	if !strings.Contains(stdout, "  sign-in   no: the sign-in of this machine ended\nRun riff login.\n") {
		t.Errorf("riff server after the end:\n%s", stdout)
	}
	if _, after := s.counts(); after != before {
		t.Errorf("%d requests with an ended sign-in; want none", after-before)
	}

	t.Run("device", func(t *testing.T) {
		p.SetNext(oidcfake.Identity{Email: "mike@example.com"})
		approved := make(chan error, 1)
		go func() {
			code, err := p.WaitDevice(ctx)
			if err == nil {
				err = p.Approve(code)
			}
			approved <- err
		}()
		// No display and no BROWSER: the device flow by itself.
		stdout, stderr, code := runLogin(t, bin, loginEnv(s.url(), home), func(string) {})
		if err := <-approved; err != nil {
			t.Fatal(err)
		}
		if code != 0 || !strings.HasPrefix(stdout, "To sign in, open "+p.Issuer()+"/activate on any device and enter the code ") ||
			!strings.HasSuffix(stdout, "Signed in to the riff at "+s.url()+" as mike@example.com (mike).\n") {
			t.Fatalf("riff login = %d\n--- stdout\n%s--- stderr\n%s", code, stdout, stderr)
		}
	})
	if _, stderr, code := riff("whoami"); code != 0 {
		t.Errorf("whoami after riff login = %d, %q", code, stderr)
	}

	// A restart with no bucket: a new riff.
	s.restart()
	if _, stderr, code := riff("whoami"); code != 1 || stderr != "Error: This riff is new. Run riff login.\n" {
		t.Errorf("whoami at a new riff = %d, %q", code, stderr)
	}
	if _, stderr, code := riff("whoami"); code != 1 || stderr != "Error: This riff has sign-in, and this machine is not signed in to it. Run riff login.\n" {
		t.Errorf("the command after it = %d, %q; want it to run with no sign-in", code, stderr)
	}
}

func TestGivenVersionsThatDoNotMatchWhenRiffLoginRunsThenItSignsIn(t *testing.T) {
	bin := buildRiff(t, "riff")
	p := newProvider(t)
	s := newSignInRiff(t, p)
	s.mu.Lock()
	s.build = "9.0.0 7213825ab1c2 2026-09-27T20:10:44Z"
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	go func() {
		if code, err := p.WaitDevice(ctx); err == nil {
			p.Approve(code)
		}
	}()
	stdout, stderr, code := runLogin(t, bin, loginEnv(s.url(), t.TempDir()), func(string) {}, "--device")
	if code != 0 || !strings.HasSuffix(stdout, "as person@example.com (person).\n") {
		t.Fatalf("riff login with another version = %d\n--- stdout\n%s--- stderr\n%s", code, stdout, stderr)
	}
}

func TestGivenARiffWithNoSignInWhenRiffLoginRunsThenItSaysSoAndChangesNothing(t *testing.T) {
	bin := buildRiff(t, "riff")
	f := &fakeServer{t: t, build: testBuild}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/signin/provider" {
			w.Header().Set(wire.HeaderBuild, r.Header.Get(wire.HeaderBuild))
			json.NewEncoder(w).Encode(wire.ProviderReply{})
			return
		}
		f.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	home := t.TempDir()
	stdout, stderr, code := runLogin(t, bin, loginEnv(srv.URL, home), func(string) {})
	if want := "The riff at " + srv.URL + " has no sign-in: riff works with it as it is.\n"; code != 0 || stdout != want {
		t.Errorf("riff login = %d, %q, %q; want %q", code, stdout, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(home, "state", "signin")); !os.IsNotExist(err) {
		t.Errorf("the folder of the sign-in: %v; want none", err)
	}
}

// deviceLogin runs riff login --device in home, approving its code.
func deviceLogin(t *testing.T, ctx context.Context, bin string, p *oidcfake.Provider, s *signInRiff, home string) {
	t.Helper()
	deviceLoginAt(t, ctx, bin, p, s.url(), home)
}

func TestGivenALostSignInWhenAWatchRunsThenItSaysSoOnceAndGoesOnAfterRiffLoginInAnotherTerminal(t *testing.T) {
	t.Parallel()
	bin := buildRiff(t, "riff")
	p := newProvider(t)
	s := newSignInRiff(t, p)
	home := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	deviceLogin(t, ctx, bin, p, s, home)
	s.endSignIns()

	cmd := exec.Command(filepath.Join(bin, "riff"), "relay", "watch", "--follow")
	cmd.Dir = repoDir(t)
	cmd.Env = append(loginEnv(s.url(), home), "RIFF_SESSION=a6cf2205-9a1b", keepAliveEnv+"=100ms", envWatchMarks+"=1")
	w := &proc{t: t, cmd: cmd, done: make(chan struct{}), what: "riff relay watch", limit: 30 * time.Second}
	cmd.Stdout, cmd.Stderr = &w.stdout, &w.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = cmd.Wait()
		close(w.done)
	}()
	t.Cleanup(func() {
		w.stop()
		if t.Failed() {
			t.Logf("riff relay watch:\n--- stdout\n%s--- stderr\n%s", w.stdout.String(), w.stderr.String())
		}
	})
	lost := "riff: The sign-in of this machine ended. Run riff login.\n"
	w.waitErr(lost)
	// It waits: a riff login in another terminal lets it go on.
	deviceLogin(t, ctx, bin, p, s, home)
	w.waitErr("(back)")
	if n := strings.Count(w.stderr.String(), lost); n != 1 {
		t.Errorf("the watch said the lost sign-in %d times; want once", n)
	}
}
