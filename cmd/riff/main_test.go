package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "write the golden files")

const testBuild = "0.4.3 7213825ab1c2 2026-09-27T20:10:44Z"

// golden is one case of the golden tests: a command line and, for the
// fake server, the calls it makes.
type golden struct {
	name string
	args []string
	env  map[string]string
	// stdin of the command.
	stdin string
	// color runs the case with --color always too.
	color bool
	// until ends a command that runs until Ctrl-C (tail): the run
	// stops when stdout holds this text.
	until string
	// serverBuild is the build that the fake server names.
	serverBuild string
	// local is the riff of this machine in riff server: "" is an address
	// with no riff, "other" a second fake server, "same" the fake server
	// under the name [::1].
	local string
	// signIn makes the fake server a riff with sign-in: it refuses its
	// facts to riff, which sends no token.
	signIn bool
	// frontEnd is the number of calls that get the 500 of Cloud Run.
	frontEnd int
	// noSignIn makes the fake server a riff with no sign-in for the
	// commands of the people; owner is its owner line.
	noSignIn bool
	owner    string
}

// goldenCases are the commands of the guide. The same cases run against
// the fake server (testdata/fake) and, once cmd/riff-server exists,
// against the real binaries (testdata/e2e).
func goldenCases() []golden {
	return []golden{
		{name: "whoami", args: []string{"whoami"}, color: true},
		{name: "whoami-session", args: []string{"whoami"}, env: map[string]string{"RIFF_SESSION": "a6cf2205-9a1b"}},
		{name: "who", args: []string{"who"}, color: true},
		{name: "who-long-all", args: []string{"who", "--long", "--all"}},
		{name: "threads", args: []string{"threads"}},
		{name: "read", args: []string{"read"}, color: true},
		{name: "read-direct-all", args: []string{"read", "--thread", "dm:a6cf", "--all"}},
		{name: "post", args: []string{"post", "--to", "claim=issue-6", "API is ready"}},
		{name: "post-unmatched", args: []string{"post", "-t", "acme/docs", "--to", "claim=issue-6", "--to", "claim=issue-9,lead=true", "the", "book", "builds"}, color: true},
		{name: "post-status", args: []string{"post", "--kind", "status", "--to", "repo=acme/app"}},
		{name: "post-bad-selector", args: []string{"post", "--to", "colour=red", "hi"}},
		{name: "tell", args: []string{"tell", "5b1e", "Use the new error type of #1063."}},
		{name: "tell-lead", args: []string{"tell", "lead", "Merge issue-6 now?"}},
		{name: "tell-ambiguous", args: []string{"tell", "ab12", "7878"}},
		{name: "tail", args: []string{"tail"}, until: "#2529", color: true},
		{name: "claim", args: []string{"claim", "issue-12"}},
		{name: "claim-held", args: []string{"claim", "issue-13"}},
		{name: "claim-paused", args: []string{"claim", "-t", "acme/app", "issue-14"}},
		{name: "claim-hold-warning", args: []string{"claim", "issue-15"}, color: true},
		{name: "claim-no-item", args: []string{"claim"}},
		{name: "release", args: []string{"release", "issue-12"}},
		{name: "release-for", args: []string{"release", "issue-12", "--session", "068a2cc2"}},
		{name: "lead", args: []string{"lead", "--session", "77e0a1b2"}},
		{name: "pause", args: []string{"pause"}},
		{name: "pause-repo", args: []string{"pause", "--repo", "acme/strata"}},
		{name: "resume-riff", args: []string{"resume", "--riff"}},
		{name: "plan-hold", args: []string{"plan", "hold", "issue-12", "waits", "for", "the", "word", "of", "Mike"}},
		{name: "plan-free", args: []string{"plan", "free", "issue-12"}},
		{name: "status", args: []string{"status", "write", "the", "tests"}},
		{name: "status-long", args: []string{"status", strings.Repeat("x", 401)}},
		{name: "blocked", args: []string{"blocked", "run", "riff", "owner", "--take"}},
		{name: "step-start", args: []string{"step", "start", "live", "window"}},
		{name: "step-done", args: []string{"step", "done"}},
		{name: "step-fail", args: []string{"step", "fail", "the", "stage", "gave", "502"}},
		{name: "lead-notes", args: []string{"lead", "notes"}},
		{name: "lead-notes-history", args: []string{"lead", "notes", "--history"}},
		{name: "lead-notes-edit-file", args: []string{"lead", "notes", "edit", "--file", "NOTES"}},
		{name: "server", args: []string{"server"}, color: true},
		{name: "server-local", args: []string{"server"}, local: "other", color: true},
		{name: "server-local-same", args: []string{"server"}, local: "same"},
		{name: "server-no-answer", args: []string{"--server", "127.0.0.1:1", "server"}, local: "other", color: true},
		{name: "server-sign-in", args: []string{"server"}, signIn: true, color: true},
		{name: "server-front-end", args: []string{"server"}, frontEnd: 1},
		{name: "claim-front-end", args: []string{"claim", "issue-12"}, frontEnd: 2},
		{name: "server-newer", args: []string{"server"}, serverBuild: "0.4.5 aaaaaaaaaaaa 2026-09-28T20:10:44Z", color: true},
		{name: "server-old", args: []string{"server"}, serverBuild: "0.2.0 929605821e54 2026-09-27T22:03:01Z", color: true},
		{name: "who-newer-server", args: []string{"who"}, serverBuild: "0.4.5 aaaaaaaaaaaa 2026-09-28T20:10:44Z", color: true},
		{name: "who-old-server", args: []string{"who"}, serverBuild: "0.2.0 929605821e54 2026-09-27T22:03:01Z", color: true},
		{name: "no-server", args: []string{"--server", "127.0.0.1:1", "who"}},
		{name: "bad-server", args: []string{"who", "--server", "ftp://x"}},
		{name: "bad-color", args: []string{"who", "--color", "pink"}},
		{name: "help", args: []string{"--help"}},
		{name: "help-claim", args: []string{"help", "claim"}},
		{name: "help-server", args: []string{"help", "server"}},
		{name: "help-tail", args: []string{"help", "tail"}},
		{name: "help-login", args: []string{"help", "login"}},
		{name: "whoami-owner", args: []string{"whoami"}, owner: "mike (mike@example.com)"},
		{name: "who-no-owner", args: []string{"who"}, owner: "none", color: true},
		{name: "invite", args: []string{"invite", "ann@example.com"}},
		{name: "invite-no-email", args: []string{"invite"}},
		{name: "invite-no-sign-in", args: []string{"invite", "ann@example.com"}, noSignIn: true},
		{name: "remove", args: []string{"remove", "brett@example.com"}},
		{name: "remove-owner", args: []string{"remove", "mike@example.com"}},
		{name: "admin-add", args: []string{"admin", "add", "ann@example.com"}},
		{name: "admin-remove", args: []string{"admin", "remove", "ann@example.com"}},
		{name: "admin-no-word", args: []string{"admin", "ann@example.com"}},
		{name: "owner-take", args: []string{"owner", "--take"}},
		{name: "owner-pass", args: []string{"owner", "--pass", "ann@example.com"}},
		{name: "owner-deny", args: []string{"owner", "--deny"}},
		{name: "owner-two", args: []string{"owner", "--take", "--deny"}},
		{name: "owner-no-sign-in", args: []string{"owner", "--take"}, noSignIn: true},
		{name: "revoke", args: []string{"revoke"}},
		{name: "revoke-other", args: []string{"revoke", "brett@example.com"}},
		{name: "people", args: []string{"people"}, color: true},
		{name: "people-not-member", args: []string{"people"}, env: map[string]string{"USER": "guest"}},
		{name: "people-no-owner", args: []string{"people"}, env: map[string]string{"USER": "nobody"}, color: true},
		{name: "people-no-sign-in", args: []string{"people"}, noSignIn: true},
		{name: "help-invite", args: []string{"help", "invite"}},
		{name: "help-owner", args: []string{"help", "owner"}},
		{name: "help-chat", args: []string{"help", "chat"}},
		{name: "version", args: []string{"--version"}},
		{name: "unknown-command", args: []string{"frobnicate"}},
	}
}

// repoDir makes a git repository with the origin git@github.com:acme/app.git.
func repoDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "app")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitRun(t, dir, "init", "-q")
	gitRun(t, dir, "remote", "add", "origin", "git@github.com:acme/app.git")
	return dir
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// syncBuffer is a buffer that a command writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runner runs one riff command line and gives its output and code.
type runner func(t *testing.T, g golden, args []string) (stdout, stderr string, code int)

// inProcess runs riff in this process, in dir, against server.
func inProcess(dir, server string) runner {
	return func(t *testing.T, g golden, args []string) (string, string, int) {
		t.Helper()
		b, _ := build.ParseBuild(testBuild)
		// Port 1 has no riff: riff server shows no riff of this machine.
		env := map[string]string{"USER": "mike", "RIFF_SERVER": server, "PWD": dir, testLocalEnv: "http://127.0.0.1:1"}
		for k, v := range g.env {
			env[k] = v
		}
		var stdout, stderr syncBuffer
		s := &system{
			env:      func(k string) string { return env[k] },
			stdin:    strings.NewReader(g.stdin),
			stdout:   &stdout,
			stderr:   &stderr,
			getwd:    func() (string, error) { return dir, nil },
			hostname: func() (string, error) { return "pangolin.example.com", nil },
			build:    b,
			loc:      time.UTC,
			now:      func() time.Time { return time.Date(2026, 9, 27, 14, 0, 0, 0, time.UTC) },
			terminal: func(io.Writer) (bool, int) { return false, 0 },
			client:   func(o *riffclient.Options) { o.Budget = 2 * time.Second },
			// The option that a binary of the tests takes from the env.
			localRiff: env[testLocalEnv],
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if g.until != "" {
			go func() {
				for ctx.Err() == nil && !strings.Contains(stdout.String(), g.until) {
					time.Sleep(5 * time.Millisecond)
				}
				cancel()
			}()
		}
		code := s.run(ctx, args)
		return stdout.String(), stderr.String(), code
	}
}

// transcript is the text of a golden file.
func transcript(args []string, stdout, stderr string, code int, calls []string) string {
	var b strings.Builder
	b.WriteString("$ riff " + strings.Join(args, " ") + "\n")
	b.WriteString("--- stdout\n" + stdout)
	b.WriteString("--- stderr\n" + stderr)
	b.WriteString("--- exit " + itoa(code) + "\n")
	if calls != nil {
		b.WriteString("--- calls\n")
		for _, c := range calls {
			b.WriteString(c + "\n")
		}
	}
	return b.String()
}

func itoa(n int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + fmtInt(n)) }

func fmtInt(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var d []byte
	for n > 0 {
		d = append([]byte{byte('0' + n%10)}, d...)
		n /= 10
	}
	if neg {
		d = append([]byte{'-'}, d...)
	}
	return string(d)
}

// checkGolden compares got with testdata/DIR/NAME.golden, or writes it.
func checkGolden(t *testing.T, dir, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", dir, name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v (run go test -update)", path, err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

func TestGoldenFake(t *testing.T) {
	dir := repoDir(t)
	notes := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(notes, []byte("Wave 5: issue-20.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, g := range goldenCases() {
		t.Run(g.name, func(t *testing.T) {
			fake := &fakeServer{t: t, build: testBuild, signIn: g.signIn, noSignIn: g.noSignIn, owner: g.owner}
			if g.serverBuild != "" {
				fake.build = g.serverBuild
			}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			local := ""
			switch g.local {
			case "other":
				other := httptest.NewServer(&fakeServer{t: t, build: testBuild})
				defer other.Close()
				local = other.URL
				g.env = map[string]string{testLocalEnv: local}
			case "same":
				// The riff that riff uses is the fake server under the
				// name localhost, and the riff of this machine is the
				// same server under 127.0.0.1: it answers, so a line
				// local would show if riff took them for two riffs.
				port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
				g.env = map[string]string{"RIFF_SERVER": "localhost:" + port, testLocalEnv: srv.URL}
				local = "http://localhost:" + port
			}
			run := inProcess(dir, srv.URL)
			args := replaceArg(g.args, "NOTES", notes)
			variants := []string{"never"}
			if g.color {
				variants = append(variants, "always")
			}
			for _, color := range variants {
				fake.mu.Lock()
				fake.calls = nil
				fake.frontEnd = g.frontEnd
				fake.mu.Unlock()
				full := append([]string{"--color", color}, args...)
				stdout, stderr, code := run(t, g, full)
				stdout = strings.ReplaceAll(stdout, srv.URL, "http://SERVER")
				stderr = strings.ReplaceAll(stderr, srv.URL, "http://SERVER")
				switch g.local {
				case "other":
					stdout = strings.ReplaceAll(stdout, local, "http://LOCAL")
				case "same":
					stdout = strings.ReplaceAll(stdout, local, "http://localhost:PORT")
				}
				calls := fake.Calls()
				for i := range calls {
					calls[i] = strings.ReplaceAll(calls[i], notes, "NOTES")
				}
				name := g.name
				if color == "always" {
					name += "-color"
				}
				checkGolden(t, "fake", name, transcript(replaceArg(full, notes, "NOTES"), stdout, stderr, code, nonNil(calls)))
			}
		})
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func replaceArg(args []string, old, new string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, old, new)
	}
	return out
}

func TestSameRiff(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{name: "same URL", a: "http://first:7878", b: "first", want: true},
		{name: "localhost and 127.0.0.1", a: "localhost", b: "127.0.0.1", want: true},
		{name: "[::1] and 127.0.0.1", a: "[::1]:9000", b: "127.0.0.1:9000", want: true},
		{name: "::1 and localhost", a: "::1", b: "http://localhost:7878", want: true},
		{name: "LOCALHOST and 127.0.0.2", a: "LOCALHOST", b: "127.0.0.2", want: true},
		{name: "another port", a: "localhost:9000", b: "127.0.0.1:7878", want: false},
		{name: "another host", a: "first:7878", b: "127.0.0.1:7878", want: false},
		{name: "another scheme", a: "https://localhost:7878", b: "http://127.0.0.1:7878", want: false},
		{name: "another path", a: "http://localhost:7878/riff", b: "http://127.0.0.1:7878", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := riffclient.ParseServer(tt.a)
			if err != nil {
				t.Fatal(err)
			}
			b, err := riffclient.ParseServer(tt.b)
			if err != nil {
				t.Fatal(err)
			}
			if got := sameRiff(a, b); got != tt.want {
				t.Errorf("sameRiff(%s, %s) = %v; want %v", a, b, got, tt.want)
			}
		})
	}
}

// TestGivenRiffHelpWhenItListsTheCommandsThenItUsesTheHeadingsOfTheGuide:
// riff --help groups each command under a heading of the guide's "Find a
// command", in the guide's order. It lists the commands that people use:
// not riff relay, which an agent tool runs.
func TestGivenRiffHelpWhenItListsTheCommandsThenItUsesTheHeadingsOfTheGuide(t *testing.T) {
	guide := []string{"Get started", "Work in the riff", "Pull requests", "Lead", "Members"}
	c := &cli{system: &system{}}
	var out strings.Builder
	c.usage(&out)
	var shown []string
	listed := map[string]bool{}
	for _, line := range strings.Split(out.String(), "\n") {
		switch {
		case strings.HasSuffix(line, ":") && !strings.HasPrefix(line, " "):
			shown = append(shown, strings.TrimSuffix(line, ":"))
		case strings.HasPrefix(line, "  ") && len(shown) > 0:
			listed[strings.Fields(line)[0]] = true
		}
	}
	at := 0
	for _, h := range shown {
		for at < len(guide) && guide[at] != h {
			at++
		}
		if at == len(guide) {
			t.Errorf("riff --help shows the headings %q; want only headings of the guide %q, in its order", shown, guide)
			break
		}
	}
	hidden := map[string]bool{}
	for _, h := range riffCommands() {
		for _, cmd := range h.commands {
			hidden[cmd.name] = h.hidden
		}
	}
	for n := range c.commands() {
		switch {
		case !listed[n] && !hidden[n]:
			t.Errorf("riff --help does not list the command %s under a heading", n)
		case listed[n] && hidden[n]:
			t.Errorf("riff --help lists the command %s, which is for an agent tool, not a person", n)
		}
	}
}

// runRE finds a command that a text tells a person to run: "Run riff X",
// "run riff X" or "`riff X".
var runRE = regexp.MustCompile("(?:[Rr]un |`)riff ([a-z][a-z-]*)")

// TestGivenEachTextOfRiffWhenItSaysWhatToRunThenTheCommandExists: no
// output of riff, of the fake server or of the real riff-server (the
// golden files) tells a person to run a command that riff does not have,
// such as riff update or riff login. A text that the command line of
// the case gave (a reason of riff blocked) is the person's own.
func TestGivenEachTextOfRiffWhenItSaysWhatToRunThenTheCommandExists(t *testing.T) {
	c := &cli{system: &system{}}
	commands := c.commands()
	var help strings.Builder
	c.usage(&help)
	texts := map[string]string{"riff --help": help.String()}
	for n, cmd := range commands {
		texts["riff help "+n] = cmd.long
	}
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.golden"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(b)
	}
	for where, text := range texts {
		given := ""
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "$ riff ") {
				given = line
				continue
			}
			if strings.HasPrefix(line, "POST ") || strings.HasPrefix(line, "GET ") {
				continue
			}
			for _, m := range runRE.FindAllStringSubmatch(line, -1) {
				if _, ok := commands[m[1]]; ok || strings.Contains(given, "riff "+m[1]) && strings.Contains(given, strings.TrimPrefix(m[0], "`")) {
					continue
				}
				t.Errorf("%s tells to run riff %s, which riff does not have: %q", where, m[1], line)
			}
		}
	}
}
