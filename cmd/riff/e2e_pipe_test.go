package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"
)

// longBody gives a body of n characters: words with wide and accented
// characters, so that a cut by bytes, runes or cells would show.
func longBody(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < 4*n; i++ {
		fmt.Fprintf(&b, "word%d naïve 漢字 ", i)
	}
	r := []rune(b.String())
	return strings.TrimSpace(string(r[:n-1])) + "."
}

// pipeTexts are the long texts that the pipe test sends: none holds …,
// so each … in the output would be a cut of riff.
type pipeTexts struct {
	body, status, step, reason, hold string
}

func newPipeTexts() pipeTexts {
	return pipeTexts{
		body:   longBody(2000),
		status: longBody(390),
		step:   longBody(150),
		reason: longBody(300),
		hold:   longBody(190),
	}
}

// testPipe runs each command of riff through a pipe against a real
// riff-server, with texts far longer than a line: no output holds a …
// (none of the texts has one), and each text comes whole, the body of
// 2,000 characters too.
func testPipe(t *testing.T, bin string) {
	srv := startServer(t, bin, freePort(t), t.TempDir())
	server := srv.url()
	repo := repoDir(t)
	texts := newPipeTexts()
	const a, b = "a6cf2205-pipe-aaaa", "b7d0aa11-pipe-bbbb"
	open := filepath.Join(t.TempDir(), "open")
	if err := os.WriteFile(open, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tail := startTail(t, bin, repo, server, "acme/app", "never", open)
	steps := []struct {
		session string
		args    []string
		// whole are the texts that the output holds whole; wholeErr those
		// of stderr, and code the exit code.
		whole, wholeErr []string
		code            int
	}{
		{args: []string{"resume", "--riff"}},
		{session: a, args: []string{"whoami"}, whole: []string{"riff://mike@pangolin/acme/app?session=" + a}},
		{args: []string{"lead", "--session", a}},
		{session: b, args: []string{"claim", "issue-12"}},
		{session: b, args: []string{"status", texts.status}},
		{session: b, args: []string{"step", "start", texts.step}},
		{session: a, args: []string{"plan", "hold", "issue-14", texts.hold}},
		{session: b, args: []string{"claim", "issue-14"}, whole: []string{texts.hold}},
		{session: b, args: []string{"post", texts.body}},
		{session: b, args: []string{"tell", "lead", texts.body}},
		{session: a, args: []string{"read"}, whole: []string{texts.body}},
		{session: a, args: []string{"read", "--all", "-t", "acme/app"}, whole: []string{texts.body}},
		{session: b, args: []string{"threads"}},
		{args: []string{"who"}, whole: []string{texts.step, texts.status}},
		{session: b, args: []string{"blocked", texts.reason}},
		{args: []string{"who", "--long", "--all"}, whole: []string{texts.reason, "riff://mike@pangolin/acme/app?session=" + b + "&claim=issue-12&claim=issue-14"}},
		{args: []string{"lead", "notes", "edit", "--file", "NOTES"}},
		{args: []string{"lead", "notes"}, whole: []string{texts.body}},
		{args: []string{"lead", "notes", "edit", "--file", "NOTES2"}},
		{args: []string{"lead", "notes", "--history"}, whole: []string{texts.body, texts.reason}},
		{session: b, args: []string{"step", "fail", texts.reason}},
		{args: []string{"who", "--all"}, whole: []string{texts.reason}},
		{session: b, args: []string{"step", "done"}},
		{session: a, args: []string{"release", "issue-12", "--session", b}, whole: []string{"for the session " + b + "."}},
		{session: a, args: []string{"plan", "free", "issue-14"}},
		{args: []string{"pause"}},
		{args: []string{"resume"}},
		{args: []string{"server"}},
		// The commands of Members: a riff with no sign-in has no people,
		// and riff says what that means, whole.
		{args: []string{"invite", "ann@example.com"}, code: exitFail, wholeErr: []string{noPeople(server, "invite")}},
		{args: []string{"remove", "ann@example.com"}, code: exitFail, wholeErr: []string{noPeople(server, "remove")}},
		{args: []string{"admin", "add", "ann@example.com"}, code: exitFail, wholeErr: []string{noPeople(server, "admin add")}},
		{args: []string{"admin", "remove", "ann@example.com"}, code: exitFail, wholeErr: []string{noPeople(server, "admin remove")}},
		{args: []string{"owner", "--take"}, code: exitFail, wholeErr: []string{noPeople(server, "owner --take")}},
		{args: []string{"owner", "--pass", "ann@example.com"}, code: exitFail, wholeErr: []string{noPeople(server, "owner --pass")}},
		{args: []string{"owner", "--deny"}, code: exitFail, wholeErr: []string{noPeople(server, "owner --deny")}},
		{args: []string{"revoke"}, code: exitFail, wholeErr: []string{noPeople(server, "revoke")}},
		{args: []string{"revoke", "ann@example.com"}, code: exitFail, wholeErr: []string{noPeople(server, "revoke")}},
		{args: []string{"people"}, code: exitFail, wholeErr: []string{noPeople(server, "people")}},
		{args: []string{"help", "invite"}},
		{args: []string{"--help"}},
		{args: []string{"help", "post"}},
		{args: []string{"help", "server"}},
		{args: []string{"--version"}},
	}
	notes := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(notes, []byte(texts.body+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notes2 := filepath.Join(t.TempDir(), "notes2.md")
	if err := os.WriteFile(notes2, []byte(texts.reason+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, step := range steps {
		args := replaceArg(replaceArg(step.args, "NOTES2", notes2), "NOTES", notes)
		stdout, stderr, code := runRiffEnv(t, bin, repo, server, step.session, []string{testLocalEnv + "=" + server}, args...)
		if code != step.code {
			t.Errorf("riff %s: exit %d, stderr %q; want exit %d", strings.Join(step.args, " "), code, stderr, step.code)
		}
		checkNoCut(t, "riff "+strings.Join(step.args, " "), stdout+stderr)
		for _, want := range step.whole {
			if !strings.Contains(stdout, want) {
				t.Errorf("riff %s through a pipe does not hold the text of %d characters whole:\n%s", step.args[0], len([]rune(want)), stdout)
			}
		}
		for _, want := range step.wholeErr {
			if !strings.Contains(stderr, want) {
				t.Errorf("riff %s through a pipe does not hold the text %q whole on stderr:\n%s", strings.Join(step.args, " "), want, stderr)
			}
		}
	}
	tail.waitOut("word0 naïve")
	tail.stop()
	checkNoCut(t, "riff tail", tail.stdout.String()+strings.ReplaceAll(tail.stderr.String(), "(reconnecting…)", ""))
	if !strings.Contains(tail.stdout.String(), bodyIndent+texts.body+"\n") {
		t.Errorf("riff tail through a pipe does not show the body of 2,000 characters whole on its line:\n%s", tail.stdout.String())
	}
}

// noPeople is the error of a command of Members in a riff with no
// sign-in, on one line.
func noPeople(server, cmd string) string {
	return "Error: The riff at " + server + " has no sign-in, so it has no people: no member, admin or owner, and riff-server " +
		"trusts each caller on its network as an admin. riff " + cmd + " needs a riff with sign-in (riff-server --client-id); see riff help invite\n"
}

// checkNoCut fails when out holds a … : none of the texts of the test
// has one, and the wait line is not in a pipe test's output.
func checkNoCut(t *testing.T, what, out string) {
	t.Helper()
	if strings.Contains(out, "…") {
		t.Errorf("%s through a pipe holds a … that is in no text: a cut\n%s", what, out)
	}
}

// testNoUserEnv runs the real binary with an env that has neither USER
// nor LOGNAME, as in many containers: riff takes LOGNAME, then the
// account of the process.
func testNoUserEnv(t *testing.T, bin string) {
	srv := startServer(t, bin, freePort(t), t.TempDir())
	repo := repoDir(t)
	account, err := user.Current()
	if err != nil {
		t.Skipf("the account of the test has no name: %v", err)
	}
	minimal := []string{"PATH=" + os.Getenv("PATH"), "RIFF_SERVER=" + srv.url(), "RIFF_HOST=pangolin", testLocalEnv + "=http://127.0.0.1:1"}
	run := func(extra ...string) (string, string, int) {
		cmd := exec.Command(filepath.Join(bin, "riff"), "--color", "never", "whoami")
		cmd.Dir = repo
		cmd.Env = append(append([]string(nil), minimal...), extra...)
		var out, errOut syncBuffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		code := 0
		if err := cmd.Run(); err != nil {
			exit, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatalf("run riff: %v", err)
			}
			code = exit.ExitCode()
		}
		return out.String(), errOut.String(), code
	}
	t.Run("LOGNAME", func(t *testing.T) {
		stdout, stderr, code := run("LOGNAME=lena")
		if code != exitOK || !strings.Contains(stdout, "riff://lena@pangolin/acme/app") {
			t.Errorf("riff whoami with LOGNAME=lena and no USER = exit %d, %q, %q; want the URI of lena", code, stdout, stderr)
		}
	})
	t.Run("the account", func(t *testing.T) {
		stdout, stderr, code := run()
		want := "riff://" + account.Username + "@pangolin/acme/app"
		if code != exitOK || !strings.Contains(stdout, want) {
			t.Errorf("riff whoami with neither USER nor LOGNAME = exit %d, %q, %q; want %s", code, stdout, stderr, want)
		}
	})
}

// testTerminal runs riff in a terminal of 60 columns (tmux): a body is
// wrapped, never cut, and the table of riff who fits the width.
func testTerminal(t *testing.T, bin string) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed: the terminal test needs it to give riff a terminal")
	}
	const width = 60
	srv := startServer(t, bin, freePort(t), t.TempDir())
	server := srv.url()
	repo := repoDir(t)
	texts := newPipeTexts()
	const a, b = "a6cf2205-term-aaaa", "b7d0aa11-term-bbbb"
	for _, step := range []struct {
		session string
		args    []string
	}{
		{args: []string{"resume", "--riff"}},
		{session: a, args: []string{"whoami"}},
		{session: b, args: []string{"status", texts.status}},
		{session: b, args: []string{"post", texts.body}},
	} {
		if _, stderr, code := runRiff(t, bin, repo, server, step.session, step.args...); code != exitOK {
			t.Fatalf("riff %s: exit %d, %s", step.args[0], code, stderr)
		}
	}
	inTerminal := func(t *testing.T, session string, args ...string) []string {
		t.Helper()
		// A tmux server of its own for each run: the end of the last
		// session ends a server, and a new session must not race it.
		sock := filepath.Join(t.TempDir(), "tmux.sock")
		defer exec.Command(tmux, "-S", sock, "kill-server").Run()
		script := filepath.Join(t.TempDir(), "run.sh")
		var env strings.Builder
		for _, kv := range []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "USER=mike", "RIFF_HOST=pangolin",
			"RIFF_SERVER=" + server, "RIFF_SESSION=" + session, testLocalEnv + "=http://127.0.0.1:1"} {
			k, v, _ := strings.Cut(kv, "=")
			fmt.Fprintf(&env, "export %s=%s\n", k, shellQuote(v))
		}
		quoted := make([]string, len(args))
		for i, a := range args {
			quoted[i] = shellQuote(a)
		}
		text := fmt.Sprintf("%scd %s\nexport TERM=xterm\n%s --color never %s\necho __END__\nsleep 60\n", env.String(), shellQuote(repo),
			shellQuote(filepath.Join(bin, "riff")), strings.Join(quoted, " "))
		if err := writeExecutable(script, []byte(text)); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("riff%d", time.Now().UnixNano())
		if out, err := exec.Command(tmux, "-S", sock, "new-session", "-d", "-s", name, "-x", fmt.Sprint(width), "-y", "200", "sh "+script).CombinedOutput(); err != nil {
			t.Fatalf("tmux new-session: %v: %s", err, out)
		}
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			out, err := exec.Command(tmux, "-S", sock, "capture-pane", "-p", "-t", name, "-S", "0", "-E", "199").Output()
			if err == nil && strings.Contains(string(out), "__END__") {
				before, _, _ := strings.Cut(string(out), "__END__")
				return strings.Split(strings.TrimRight(before, "\n"), "\n")
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("riff %v did not end in the terminal in 20 s", args)
		return nil
	}
	fits := func(t *testing.T, what string, lines []string) {
		t.Helper()
		for _, line := range lines {
			if w := runewidth.StringWidth(line); w > width {
				t.Errorf("%s: a line of %d cells in a terminal of %d: %q", what, w, width, line)
			}
			if strings.Contains(line, "…") {
				t.Errorf("%s: a line is cut: %q", what, line)
			}
		}
	}
	// joined gives the words of lines, each run of spaces one space.
	joined := func(lines []string) string {
		return strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
	}
	t.Run("read wraps a body", func(t *testing.T) {
		lines := inTerminal(t, a, "read")
		fits(t, "riff read", lines)
		if len(lines) < 2000/width {
			t.Errorf("riff read in a terminal of %d gives %d lines; want the body wrapped:\n%s", width, len(lines), strings.Join(lines, "\n"))
		}
		if !strings.Contains(joined(lines), texts.body) {
			t.Errorf("riff read in a terminal does not hold each word of the body:\n%s", strings.Join(lines, "\n"))
		}
	})
	t.Run("who fits the width", func(t *testing.T) {
		lines := inTerminal(t, "", "who", "--long")
		fits(t, "riff who --long", lines)
		at := -1
		var detail []string
		for _, l := range lines {
			if strings.HasPrefix(l, "SESSION") {
				at = runewidth.StringWidth(l[:strings.Index(l, "DETAIL")])
				continue
			}
			if at >= 0 {
				detail = append(detail, fromCell(l, at))
			}
		}
		if at < 0 {
			t.Fatalf("riff who in a terminal has no DETAIL column:\n%s", strings.Join(lines, "\n"))
		}
		if !strings.Contains(joined(detail), texts.status) {
			t.Errorf("the DETAIL column of riff who in a terminal does not hold each word of the status:\n%s", strings.Join(lines, "\n"))
		}
	})
}

// fromCell gives the part of line from the cell at on.
func fromCell(line string, at int) string {
	cell := 0
	for i, r := range line {
		if cell >= at {
			return line[i:]
		}
		cell += runewidth.RuneWidth(r)
	}
	return ""
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
