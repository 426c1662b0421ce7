package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"
)

// faultLine is the red first line of riff top while the server gives
// no reply, cut at 60 columns.
var faultLine = regexp.MustCompile(`^riff: no good look since \d\d:\d\d:\d\d: (cannot reach riff-server|riff-server gave no repl…)`)

// topTerminal is a terminal of tmux in which a test types, as a person
// does, and reads the screen. Each has a tmux server of its own.
type topTerminal struct {
	t    *testing.T
	tmux string
	sock string
	name string
}

// newTopTerminal starts a shell in a terminal of width × height cells
// with the env of env, in dir.
func newTopTerminal(t *testing.T, width, height int, dir string, env []string) *topTerminal {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed: the terminal tests of riff top need it to give riff a terminal")
	}
	term := &topTerminal{t: t, tmux: tmux, sock: filepath.Join(t.TempDir(), "tmux.sock"), name: "top"}
	t.Cleanup(func() { exec.Command(tmux, "-S", term.sock, "kill-server").Run() })
	rc := filepath.Join(t.TempDir(), "env.sh")
	var b strings.Builder
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, "export %s=%s\n", k, shellQuote(v))
	}
	fmt.Fprintf(&b, "cd %s\nPS1='$ '\n", shellQuote(dir))
	if err := os.WriteFile(rc, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(tmux, "-S", term.sock, "-f", "/dev/null", "new-session", "-d", "-s", term.name,
		"-x", fmt.Sprint(width), "-y", fmt.Sprint(height), "env", "-i", "TERM=xterm-256color", "ENV="+rc, "sh").CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	// The window keeps its size when no client is attached.
	term.run("set-option", "-t", term.name, "window-size", "manual")
	term.waitFor("the prompt", func(lines []string) bool { return strings.Contains(strings.Join(lines, "\n"), "$") })
	return term
}

func (term *topTerminal) run(args ...string) string {
	term.t.Helper()
	out, err := exec.Command(term.tmux, append([]string{"-S", term.sock}, args...)...).CombinedOutput()
	if err != nil {
		term.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// send types keys (tmux send-keys: Enter, C-c, or a text).
func (term *topTerminal) send(keys ...string) {
	term.t.Helper()
	term.run(append([]string{"send-keys", "-t", term.name}, keys...)...)
}

// screen gives the lines of the screen now, with no trailing empty line.
func (term *topTerminal) screen() []string {
	term.t.Helper()
	out := term.run("capture-pane", "-p", "-t", term.name)
	return strings.Split(strings.TrimRight(out, "\n"), "\n")
}

// waitFor polls the screen until ok says so, for at most 60 s.
func (term *topTerminal) waitFor(what string, ok func(lines []string) bool) []string {
	term.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var lines []string
	for time.Now().Before(deadline) {
		lines = term.screen()
		if ok(lines) {
			return lines
		}
		time.Sleep(50 * time.Millisecond)
	}
	term.t.Fatalf("the screen never showed %s; it shows:\n%s", what, strings.Join(lines, "\n"))
	return nil
}

// endLine says that the shell printed the exit code of riff top (the
// line of the command has the text of the echo too).
func endLine(lines []string) bool {
	return slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "__END__ ") })
}

func screenHas(parts ...string) func([]string) bool {
	return func(lines []string) bool {
		text := strings.Join(lines, "\n")
		for _, p := range parts {
			if !strings.Contains(text, p) {
				return false
			}
		}
		return true
	}
}

// widest gives the width of the widest line in cells.
func widest(lines []string) int {
	w := 0
	for _, l := range lines {
		w = max(w, runewidth.StringWidth(l))
	}
	return w
}

// topGH writes a fake gh for acme/app: issue #7 with a title that holds
// escape sequences and a line break, in the wave Wave 3 with #10 free.
func topGH(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	script := `#!/bin/sh
[ "$4" = acme/app ] || exit 1
case "$1" in
issue) cat <<'JSON'
[{"number": 7, "title": "Fix the \u001b[31mhelp\u001b[0m\nnow", "milestone": {"title": "Wave 3"}, "body": ""},
 {"number": 10, "title": "Count", "milestone": {"title": "Wave 3"}, "body": ""}]
JSON
;;
pr) echo '[]' ;;
esac
`
	if err := writeExecutable(filepath.Join(dir, "gh"), []byte(script)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// riff top as a person meets it, in a real terminal against the real
// riff-server: it starts (gh gives the board and the titles), it shows a
// new session, a resize draws it again at the new width with no line
// wider, a kill -9 of the server keeps the last table under the red line
// of the fault, a new start of the server takes the line away, and
// Ctrl-C stops it with exit 0.
func TestGivenRiffTopInATerminalWhenItResizesTheServerDiesAndStartsAgainAndCtrlCThenItRedrawsKeepsTheTableAndStops(t *testing.T) {
	bin := binaries(t, "", "./riff", "./riff-server")
	srv := startServer(t, bin, freePort(t), t.TempDir())
	repo := repoDir(t)
	const worker, blocked = "5b1e2a90-top-aaaa", "3a3f8d5d-top-bbbb"
	long := "write the tests of the table of riff top, each line of it cut at the width of the terminal with an ellipsis"
	for _, step := range []struct {
		session string
		args    []string
	}{
		{args: []string{"resume", "--riff"}},
		{session: worker, args: []string{"claim", "issue-7"}},
		{session: worker, args: []string{"status", long}},
		{session: blocked, args: []string{"blocked", "which of two designs?"}},
	} {
		if _, stderr, code := runRiff(t, bin, repo, srv.url(), step.session, step.args...); code != exitOK {
			t.Fatalf("riff %v: exit %d, %s", step.args, code, stderr)
		}
	}
	term := newTopTerminal(t, 100, 50, repo, []string{"PATH=" + topGH(t) + ":" + os.Getenv("PATH"), "HOME=" + t.TempDir(),
		"USER=mike", "RIFF_HOST=pangolin", "RIFF_SERVER=" + srv.url(), "RIFF_TEST_BUDGET=2s", testLocalEnv + "=http://127.0.0.1:1"})
	term.send(filepath.Join(bin, "riff")+" top; echo __END__ $?", "Enter")

	lines := term.waitFor("the table with the board and the title from gh",
		screenHas("riff   running", "Wave 3 (acme/app)", "free: #10", "claimed: #7", "working on #7 Fix the help now",
			"blocked  3a3f8d5d, ", ": which of two designs?", "5b1e2a90"))
	if w := widest(lines); w > 100 {
		t.Errorf("a line of %d cells in a terminal of 100", w)
	}
	if text := strings.Join(lines, "\n"); !strings.Contains(text, "…") || strings.Contains(text, "ellipsis") {
		t.Errorf("the long status is not cut with … at 100 cells:\n%s", text)
	}

	// A new session shows at a later look, with no key typed.
	const carol = "9c0d1e2f-top-cccc"
	if _, stderr, code := runRiffEnv(t, bin, repo, srv.url(), carol, []string{"USER=carol", "RIFF_HOST=thelio"}, "post", "hello from carol"); code != exitOK {
		t.Fatalf("riff post: %s", stderr)
	}
	term.waitFor("the session of carol", screenHas("carol", "9c0d1e2f"))

	// A resize draws the table again at the new width.
	term.run("resize-window", "-t", term.name, "-x", "60", "-y", "50")
	lines = term.waitFor("the table at 60 columns", func(lines []string) bool {
		return widest(lines) <= 60 && screenHas("Wave 3 (acme/app)", "9c0d1e2f")(lines)
	})
	for _, l := range lines {
		if strings.Contains(l, "3a3f8d5d, ") && !strings.HasSuffix(l, "…") && runewidth.StringWidth(l) == 60 {
			t.Errorf("the blocked line at 60 columns: %q", l)
		}
	}

	// kill -9: the last table stays under the red line of the fault.
	srv.kill()
	lines = term.waitFor("the line of the fault", func(lines []string) bool {
		return strings.HasPrefix(lines[0], "riff: no good look since ")
	})
	if text := strings.Join(lines, "\n"); !strings.Contains(text, "Wave 3 (acme/app)") || !strings.Contains(text, "9c0d1e2f") {
		t.Errorf("the table went with the server:\n%s", text)
	}
	// At 60 columns the line is cut with …
	if !faultLine.MatchString(lines[0]) || widest(lines) > 60 {
		t.Errorf("the line of the fault = %q", lines[0])
	}
	if colored := term.run("capture-pane", "-p", "-e", "-t", term.name); !strings.HasPrefix(colored, "\x1b[31mriff: no good look since ") {
		t.Errorf("the line of the fault is not red: %q", strings.SplitN(colored, "\n", 2)[0])
	}

	// The server starts again on its folder; the line goes.
	srv.start()
	term.waitFor("the table with no line of the fault", func(lines []string) bool {
		return strings.HasPrefix(lines[0], "riff ") && !strings.Contains(strings.Join(lines, "\n"), "no good look")
	})

	// Ctrl-C stops riff top, gives the screen back and exits 0.
	term.send("C-c")
	lines = term.waitFor("the end of riff top", endLine)
	if !slices.Contains(lines, "__END__ 0") {
		t.Errorf("riff top after Ctrl-C:\n%s", strings.Join(lines, "\n"))
	}
	if screenHas("Wave 3")(lines) {
		t.Errorf("the table stays after Ctrl-C; want the screen of before:\n%s", strings.Join(lines, "\n"))
	}
}

// With no tick in sight (a look each hour), a resize alone draws the
// table again at the new width, and a message of the thread alone brings
// a new look: the tail of the thread drives it.
func TestGivenRiffTopWithNoTickWhenTheWindowResizesOrAMessageComesThenEachDrawsTheTableAgain(t *testing.T) {
	bin := binaries(t, "", "./riff", "./riff-server")
	srv := startServer(t, bin, freePort(t), "")
	repo := repoDir(t)
	long := "a status long enough to pass sixty columns of a terminal, and to be cut there with an ellipsis"
	for _, step := range []struct {
		session string
		args    []string
	}{
		{args: []string{"resume", "--riff"}},
		{session: "5b1e2a90-top-aaaa", args: []string{"status", long}},
	} {
		if _, stderr, code := runRiff(t, bin, repo, srv.url(), step.session, step.args...); code != exitOK {
			t.Fatalf("riff %v: exit %d, %s", step.args, code, stderr)
		}
	}
	term := newTopTerminal(t, 120, 40, repo, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(),
		"USER=mike", "RIFF_HOST=pangolin", "RIFF_SERVER=" + srv.url(), "RIFF_TEST_TOP_EVERY=1h", testLocalEnv + "=http://127.0.0.1:1"})
	term.send(filepath.Join(bin, "riff")+" top; echo __END__ $?", "Enter")
	lines := term.waitFor("the table", screenHas("5b1e2a90", "an ellipsis"))
	if w := widest(lines); w > 120 {
		t.Errorf("a line of %d cells at 120 columns", w)
	}
	term.run("resize-window", "-t", term.name, "-x", "60", "-y", "40")
	term.waitFor("the table at 60 columns after the resize", func(lines []string) bool {
		return widest(lines) <= 60 && screenHas("5b1e2a90", "…")(lines)
	})
	// A post of a new session to the thread of the repository: its
	// message brings the look that shows the session.
	if _, stderr, code := runRiffEnv(t, bin, repo, srv.url(), "9c0d1e2f-top-cccc", []string{"USER=carol", "RIFF_HOST=thelio"}, "post", "hello"); code != exitOK {
		t.Fatalf("riff post: %s", stderr)
	}
	term.waitFor("the session of the message", screenHas("carol", "9c0d1e2f"))
	term.send("C-c")
	if lines := term.waitFor("the end of riff top", endLine); !slices.Contains(lines, "__END__ 0") {
		t.Errorf("riff top after Ctrl-C:\n%s", strings.Join(lines, "\n"))
	}
}
