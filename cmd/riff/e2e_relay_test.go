package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffclient/door"
)

// The env vars that the test build of riff reads (testOverlay): the
// marks and the gates of its streams. The riff that a person runs reads
// none of them.
const (
	envWatchMarks = "RIFF_TEST_WATCH_MARKS"
	envWatchGate  = "RIFF_TEST_WATCH_GATE"
	envTailGate   = "RIFF_TEST_TAIL_GATE"
)

// buildRelayBinaries builds riff and riff-server for the end-to-end tests
// of the relay.
func buildRelayBinaries(t testing.TB, more ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("the end-to-end tests of the relay build two binaries")
	}
	return binaries(t, "", append([]string{"./riff", "./riff-server"}, more...)...)
}

// startWatch starts riff relay watch (with args) as session, with the
// local folder home, keep-alives each 100 ms and the marks of the test
// on stderr, and waits until its stream is open.
func startWatch(t *testing.T, bin, dir, server, session, home string, args ...string) *proc {
	t.Helper()
	return startWatchEnv(t, bin, dir, server, session, home, nil, args...)
}

// startWatchEnv is startWatch with more env vars.
func startWatchEnv(t *testing.T, bin, dir, server, session, home string, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "riff"), append([]string{"relay", "watch"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(riffEnv(server, session), "RIFF_HOME="+home, keepAliveEnv+"=100ms", envWatchMarks+"=1"), env...)
	return startProc(t, cmd, "riff relay watch", 30*time.Second)
}

// exited waits until the watch ended by itself, and checks its exit 0.
func (p *proc) exited() {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		p.t.Fatalf("riff relay watch did not end after its first line")
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		p.t.Errorf("riff relay watch exit %d; want 0", code)
	}
}

// kill stops the server with kill -9: no last checkpoint, no end of its
// streams.
func (s *riffServer) kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
}

// runHook runs riff relay hook with the input of a file.
func runHook(t *testing.T, bin, dir, server, home, input string) (stdout, stderr string, code int) {
	t.Helper()
	raw, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "riff"), "relay", "hook")
	cmd.Dir = dir
	cmd.Env = append(riffEnv(server, ""), "RIFF_HOME="+home)
	cmd.Stdin = strings.NewReader(string(raw))
	var out, errOut syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		exit, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("run riff relay hook: %v", err)
		}
		code = exit.ExitCode()
	}
	return out.String(), errOut.String(), code
}

// hookSession is the session_id of the hook inputs of testdata/hooks.
const hookSession = "c1d2e3f4-0000-4a5b-8c9d-0e1f2a3b4c5d"

// whoRow gives the row of the session whose short name holds short in
// riff who: its state and detail, as one line.
func whoRow(t *testing.T, bin, dir, server, short string) string {
	t.Helper()
	stdout, stderr, code := runRiff(t, bin, dir, server, "", "who", "--color", "never")
	if code != 0 {
		t.Fatalf("riff who: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if strings.Contains(line, "("+short+")") {
			return strings.Join(strings.Fields(line[strings.Index(line, ")")+1:]), " ")
		}
	}
	return ""
}

// TestGivenTheHooksOfClaudeCodeWhenTheyRunThenWhoShowsTheirFact: each
// hook input of testdata/hooks, in order, gives the fact that riff who
// then shows, carried by the keep-alive of a riff relay watch; no hook
// prints a thing, but the Stop hook of a worker that must clear; no fact
// shows the command of a Bash call.
func TestGivenTheHooksOfClaudeCodeWhenTheyRunThenWhoShowsTheirFact(t *testing.T) {
	bin := buildRelayBinaries(t)
	srv := startServer(t, bin, freePort(t), t.TempDir())
	server := srv.url()
	dir := repoDir(t)
	home := t.TempDir()
	state := filepath.Join(home, "state")
	if stdout, stderr, code := runRiff(t, bin, dir, server, "", "resume", "--riff"); code != 0 {
		t.Fatalf("riff resume --riff: exit %d\n%s%s", code, stdout, stderr)
	}
	watch := startWatch(t, bin, dir, server, hookSession, home, "--follow")
	defer watch.stop()
	// A step that stops the watch and fails lets it go on before its stop.
	defer func() { _ = watch.cmd.Process.Signal(syscall.SIGCONT) }()
	for _, step := range []struct {
		input string
		// before runs before the hook: the keep-alive's reply or a long
		// call, as the relay would leave them in the local folder.
		before func()
		// want is the state and detail that who shows after the hook.
		want string
		// answer: the hook prints the answer of a Stop hook.
		answer bool
		// same: the hook is no work, and keeps the fact as it was.
		same bool
	}{
		{input: "01-session-start.json", want: `^idle$`},
		{input: "02-user-prompt-submit.json", want: `^busy works$`},
		{input: "03-pre-tool-use-bash.json", want: `^busy runs Bash: Run the tests of the relay for \d+s$`},
		{input: "04-post-tool-use-bash.json", want: `^busy \d+s ago between two tools$`},
		{input: "05-pre-tool-use-riff-tool.json", want: `^busy \d+s ago between two tools$`, same: true},
		{input: "06-post-tool-use-riff-tool.json", want: `^busy \d+s ago between two tools$`, same: true},
		{input: "07-pre-tool-use-bash-watch.json", want: `^busy \d+s ago between two tools$`, same: true},
		{input: "03-pre-tool-use-bash.json", want: `^busy runs Bash: Run the tests of the relay for \d+s$`},
		{input: "08-pre-tool-use-edit.json", want: `^busy runs Edit for \d+s$`},
		{input: "09-stop.json", want: `^idle turn ended \d+s ago$`},
		{input: "09-stop.json", before: func() {
			if err := (door.Files{Dir: state}).SetClear(hookSession, true); err != nil {
				t.Fatal(err)
			}
		}, want: `^idle turn ended \d+s ago$`, answer: true},
		{input: "10-stop-hook-active.json", before: func() {
			if err := (door.Files{Dir: state}).SetClear(hookSession, true); err != nil {
				t.Fatal(err)
			}
		}, want: `^idle turn ended \d+s ago$`},
		{input: "11-session-start-clear.json", want: `^idle turn ended \d+s ago$`},
	} {
		if step.before != nil {
			// The keep-alive of the watch keeps the server's answer (no
			// ask) each 100 ms: the watch stands still while the ask of
			// the step is in the folder and the hook reads it.
			if err := watch.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			step.before()
		}
		before, _ := os.ReadFile(filepath.Join(state, "sessions", hookSession, "fact"))
		path := filepath.Join("testdata", "hooks", step.input)
		stdout, stderr, code := runHook(t, bin, dir, server, home, path)
		if step.before != nil {
			if err := watch.cmd.Process.Signal(syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
		}
		if code != 0 || stderr != "" {
			t.Fatalf("riff relay hook < %s: exit %d, stderr %q", step.input, code, stderr)
		}
		wantOut := ""
		if step.answer {
			wantOut = `{"decision":"block","reason":"` + door.ClearReason + `"}` + "\n"
		}
		if stdout != wantOut {
			t.Errorf("riff relay hook < %s printed %q; want %q", step.input, stdout, wantOut)
		}
		after, _ := os.ReadFile(filepath.Join(state, "sessions", hookSession, "fact"))
		if step.same && string(after) != string(before) {
			t.Errorf("riff relay hook < %s changed the fact from %s to %s; want no change (no work)", step.input, before, after)
		}
		if ask, _ := (door.Files{Dir: state}).Clear(hookSession); ask && step.input != "10-stop-hook-active.json" {
			t.Errorf("after %s the ask to clear is still kept", step.input)
		}
		re := regexp.MustCompile(step.want)
		deadline := time.Now().Add(20 * time.Second)
		var row string
		for {
			row = whoRow(t, bin, dir, server, hookSession[:4])
			if re.MatchString(row) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after %s riff who shows %q; want %s", step.input, row, step.want)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if strings.Contains(row, "ghp_secret") || strings.Contains(row, "go test") {
			t.Errorf("after %s riff who shows the command of the Bash call: %q", step.input, row)
		}
	}
	// The keep-alive carries the age of the fact: a Bash call that runs
	// for 4 minutes shows so.
	fact, err := (door.Files{Dir: state}).ReadFact(hookSession)
	if err != nil {
		t.Fatal(err)
	}
	fact.Activity, fact.ActivityAtMs = "runs Bash: Run the tests of the relay", time.Now().Add(-4*time.Minute-time.Second).UnixMilli()
	if err := (door.Files{Dir: state}).WriteFact(hookSession, fact); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for row := ""; row != "busy runs Bash: Run the tests of the relay for 4m"; row = whoRow(t, bin, dir, server, hookSession[:4]) {
		if time.Now().After(deadline) {
			t.Fatalf("riff who shows %q; want the Bash call for 4m", row)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if out := watch.stdout.String(); out != "" {
		t.Errorf("the watch wrote %q with no message; want nothing", out)
	}
}

// TestGivenAWatchWhenTheServerIsKilledAndRestartedThenEachAddressedMessageGivesOneLine:
// riff relay watch --follow across a kill -9 and a SIGTERM restart of
// riff-server with --dir, then a new watch, and a watch after a read:
// each addressed message gives one line, none twice.
func TestGivenAWatchWhenTheServerIsKilledAndRestartedThenEachAddressedMessageGivesOneLine(t *testing.T) {
	bin := buildRelayBinaries(t)
	srv := startServer(t, bin, freePort(t), t.TempDir())
	server := srv.url()
	dir := repoDir(t)
	home := t.TempDir()
	const lead, peer = "a6cf2205-aaaa", "b7d0aa11-bbbb"
	var lines []string
	tell := func(n int) string {
		t.Helper()
		text := fmt.Sprintf("message number %d", n)
		if stdout, stderr, code := runRiff(t, bin, dir, server, peer, "tell", lead[:4], text); code != 0 {
			t.Fatalf("riff tell %d: exit %d\n%s%s", n, code, stdout, stderr)
		}
		return fmt.Sprintf("wake: mike@pangolin:app (b7d0) wrote to you in a direct message (message %d)\n", n)
	}
	gate := filepath.Join(t.TempDir(), "gate")
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	follow := startWatchEnv(t, bin, dir, server, lead, home, []string{envWatchGate + "=" + gate}, "--follow")
	for n := 1; n <= 2; n++ {
		follow.waitOut(tell(n))
	}
	// kill -9: the stream dies with no end. The watch connects again to
	// the new server, which gives the wake of the unread message 2 again:
	// the watch wrote it, so it writes no line.
	srv.kill()
	srv.start()
	follow.waitErr("(back)")
	follow.waitOut(tell(3))
	// A message while the watch is away (the gate holds it after the
	// break) gives its line once, at the reconnect.
	if err := os.Remove(gate); err != nil {
		t.Fatal(err)
	}
	srv.restart()
	follow.waitErr("(back)\n(reconnecting…)")
	// After a start the server counts a session as gone until its next
	// sign of life: the keep-alive of the watch, which goes on while its
	// stream is away.
	for deadline := time.Now().Add(20 * time.Second); whoRow(t, bin, dir, server, lead[:4]) == ""; {
		if time.Now().After(deadline) {
			t.Fatal("the keep-alive of the watch did not bring its session back in 20 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	want4 := tell(4)
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	follow.waitErr("(back)\n(reconnecting…)\n(back)")
	follow.waitOut(want4)
	follow.stop()
	lines = append(lines, follow.stdout.String())

	// A new watch gets the wake of the unread message 4 at its open: the
	// watch before wrote it, so it waits for the next one, then ends.
	once := startWatch(t, bin, dir, server, lead, home)
	want5 := tell(5)
	once.waitOut(want5)
	once.exited()
	lines = append(lines, once.stdout.String())

	// After a read, a new watch wakes for no message that the read
	// showed, also with --all and with no record of the wakes that a
	// watch wrote (a new machine).
	for _, args := range [][]string{{"read"}, {"read", "--all"}} {
		if stdout, stderr, code := runRiff(t, bin, dir, server, lead, args...); code != 0 {
			t.Fatalf("riff %v: exit %d\n%s%s", args, code, stdout, stderr)
		}
		if err := os.RemoveAll(filepath.Join(home, "state", "sessions", lead, "woke")); err != nil {
			t.Fatal(err)
		}
		fresh := startWatch(t, bin, dir, server, lead, home)
		n := len(lines) + 4
		wantN := tell(n)
		fresh.waitOut(wantN)
		fresh.exited()
		lines = append(lines, fresh.stdout.String())
		if stdout, stderr, code := runRiff(t, bin, dir, server, lead, "read"); code != 0 {
			t.Fatalf("riff read: exit %d\n%s%s", code, stdout, stderr)
		}
	}
	var want strings.Builder
	for n := 1; n <= 7; n++ {
		want.WriteString(fmt.Sprintf("wake: mike@pangolin:app (b7d0) wrote to you in a direct message (message %d)\n", n))
	}
	if got := strings.Join(lines, ""); got != want.String() {
		t.Errorf("the watches wrote:\n%s\nwant each message once:\n%s", got, want.String())
	}
}

// TestGivenAWatchThatClaudeCodeRunsWhenNoSessionIsSetThenItWatchesTheSessionOfItsClaudeCode:
// with no RIFF_SESSION, riff relay watch takes the session of the Claude
// Code among its parents (here the test process, with its session file
// CONFIG/sessions/PID.json).
func TestGivenAWatchThatClaudeCodeRunsWhenNoSessionIsSetThenItWatchesTheSessionOfItsClaudeCode(t *testing.T) {
	bin := buildRelayBinaries(t)
	srv := startServer(t, bin, freePort(t), t.TempDir())
	server := srv.url()
	dir := repoDir(t)
	config := t.TempDir()
	const session = "736848ea-e359-4f8c-9e44-7f2dea2ad9b1"
	if err := os.MkdirAll(filepath.Join(config, "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	file := fmt.Sprintf(`{"pid":%d,"sessionId":%q,"cwd":%q}`, os.Getpid(), session, dir)
	if err := os.WriteFile(filepath.Join(config, "sessions", fmt.Sprintf("%d.json", os.Getpid())), []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	watch := startWatchEnv(t, bin, dir, server, "", t.TempDir(), []string{"CLAUDE_CONFIG_DIR=" + config})
	if stdout, stderr, code := runRiff(t, bin, dir, server, "b7d0aa11-bbbb", "tell", session[:8], "hello"); code != 0 {
		t.Fatalf("riff tell: exit %d\n%s%s", code, stdout, stderr)
	}
	watch.waitOut("wake: mike@pangolin:app (b7d0) wrote to you in a direct message (message 1)\n")
	watch.exited()
}

// runPrompt runs riff relay prompt with a hook input, and checks that it
// prints nothing and exits 0.
func runPrompt(t *testing.T, bin, dir, server, home, input string, env ...string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "riff"), "relay", "prompt")
	cmd.Dir = dir
	cmd.Env = append(append(riffEnv(server, ""), "RIFF_HOME="+home), env...)
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) != 0 {
		t.Fatalf("riff relay prompt: %v, output %q; want exit 0 and no output", err, out)
	}
}

// TestGivenALeadThatWaitsForItsPersonWhenAPromptComesThenTheWaitEnds:
// riff relay prompt, the UserPromptSubmit hook of a lead, ends the wait
// of the lead at once; with no server it does nothing, prints nothing
// and exits 0.
func TestGivenALeadThatWaitsForItsPersonWhenAPromptComesThenTheWaitEnds(t *testing.T) {
	bin := buildRelayBinaries(t)
	srv := startServer(t, bin, freePort(t), t.TempDir())
	server := srv.url()
	dir := repoDir(t)
	home := t.TempDir()
	const lead = "4e54aaaa-0000"
	input := `{"session_id":"` + lead + `","transcript_path":"/tmp/t.jsonl","cwd":"` + dir + `","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"I took the owner"}`
	if stdout, stderr, code := runRiff(t, bin, dir, server, "", "resume", "--riff"); code != 0 {
		t.Fatalf("riff resume --riff: exit %d\n%s%s", code, stdout, stderr)
	}
	// The first prompt registers the session.
	runPrompt(t, bin, dir, server, home, input)
	if stdout, stderr, code := runRiff(t, bin, dir, server, "", "lead", "--session", lead); code != 0 {
		t.Fatalf("riff lead: exit %d\n%s%s", code, stdout, stderr)
	}
	if stdout, stderr, code := runRiff(t, bin, dir, server, lead, "blocked", "run riff owner --take"); code != 0 {
		t.Fatalf("riff blocked: exit %d\n%s%s", code, stdout, stderr)
	}
	if row := whoRow(t, bin, dir, server, lead[:4]); !strings.HasPrefix(row, "waiting") {
		t.Fatalf("the lead after its block: %q; want waiting", row)
	}
	runPrompt(t, bin, dir, server, home, input)
	if row := whoRow(t, bin, dir, server, lead[:4]); strings.HasPrefix(row, "waiting") || !strings.Contains(row, "works") {
		t.Errorf("the lead after a prompt: %q; want the wait ended, and works", row)
	}
	srv.stop()
	start := time.Now()
	runPrompt(t, bin, dir, server, home, input)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("riff relay prompt with no server took %s; want it to end at once", took)
	}
}

// TestGivenClaudeCodesSessionIDInTheEnvWhenThePromptHookRunsThenItEndsTheWaitOfThatSession:
// Claude Code gives CLAUDE_CODE_SESSION_ID to each hook; riff relay
// prompt takes it before the session_id of its input, as the other hooks
// do, so the prompt ends the wait of the session of the relay.
func TestGivenClaudeCodesSessionIDInTheEnvWhenThePromptHookRunsThenItEndsTheWaitOfThatSession(t *testing.T) {
	t.Parallel()
	bin := buildRelayBinaries(t)
	srv := startServer(t, bin, freePort(t), t.TempDir())
	server := srv.url()
	dir := repoDir(t)
	home := t.TempDir()
	const lead = "4e54bbbb-1111"
	input := `{"session_id":"c1d2e3f4-0000","transcript_path":"/tmp/t.jsonl","cwd":"` + dir + `","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"I took the owner"}`
	env := door.AgentSessionEnv + "=" + lead
	cliText(t, bin, dir, server, "", "resume", "--riff")
	runPrompt(t, bin, dir, server, home, input, env)
	cliText(t, bin, dir, server, "", "lead", "--session", lead)
	cliText(t, bin, dir, server, lead, "blocked", "run riff owner --take")
	if row := whoRow(t, bin, dir, server, lead[:4]); !strings.HasPrefix(row, "waiting") {
		t.Fatalf("the lead after its block: %q; want waiting", row)
	}
	runPrompt(t, bin, dir, server, home, input, env)
	if row := whoRow(t, bin, dir, server, lead[:4]); strings.HasPrefix(row, "waiting") {
		t.Errorf("the lead after a prompt with its ID in the env: %q; want the wait ended", row)
	}
}
