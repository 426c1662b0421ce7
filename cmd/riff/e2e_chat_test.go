package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/mattn/go-runewidth"
)

// The end-to-end tests of riff chat, with the real binaries on loopback:
// in a terminal of tmux as a person uses it (send-keys, capture-pane),
// and through a pipe. Each wait is a poll of the screen or the output,
// never a sleep that waits for time to pass.

// chatScreen is riff chat in a window of a tmux server of its own.
type chatScreen struct {
	t    *testing.T
	tmux string
	sock string
	name string
}

// startChatScreen runs riff chat as mike@thelio in dir, in a window of
// width columns, with the test hook RIFF_TEST_TAIL_GATE=gate. The script
// prints the terminal settings before and after riff, and its exit code.
func startChatScreen(t *testing.T, bin, dir, server, gate string, width int) *chatScreen {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed: the chat tests need it to give riff a terminal")
	}
	s := &chatScreen{t: t, tmux: tmux, sock: filepath.Join(t.TempDir(), "tmux.sock"), name: "chat"}
	var env strings.Builder
	for _, kv := range []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "USER=mike", "RIFF_HOST=thelio",
		"RIFF_SERVER=" + server, envTailGate + "=" + gate, testLocalEnv + "=http://127.0.0.1:1", "TERM=xterm", "TZ=UTC"} {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&env, "export %s=%s\n", k, shellQuote(v))
	}
	script := filepath.Join(t.TempDir(), "chat.sh")
	text := fmt.Sprintf("%scd %s\nbefore=$(stty -g)\n%s chat --color never\ncode=$?\nafter=$(stty -g)\n"+
		"[ \"$before\" = \"$after\" ] && same=same || same=changed\necho __END__ $code $same\nsleep 600\n",
		env.String(), shellQuote(dir), shellQuote(filepath.Join(bin, "riff")))
	if err := writeExecutable(script, []byte(text)); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(tmux, "-S", s.sock, "new-session", "-d", "-s", s.name, "-x", fmt.Sprint(width), "-y", "40", "sh "+script).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the screen of riff chat:\n%s", s.screen())
		}
		_ = exec.Command(tmux, "-S", s.sock, "kill-server").Run()
	})
	return s
}

func (s *chatScreen) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command(s.tmux, append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// screen gives the lines of the window, with no trailing empty lines.
func (s *chatScreen) screen() string {
	out, err := exec.Command(s.tmux, "-S", s.sock, "capture-pane", "-p", "-J", "-t", s.name).Output()
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(out), "\n ")
}

// rows gives the rows of the window as they show, each cut at the width.
func (s *chatScreen) rows() []string {
	out, err := exec.Command(s.tmux, "-S", s.sock, "capture-pane", "-p", "-t", s.name).Output()
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimRight(string(out), "\n "), "\n")
}

// typeText types text with no Enter; key presses keys (Enter, C-c).
func (s *chatScreen) typeText(text string) {
	s.t.Helper()
	s.run("send-keys", "-t", s.name, "-l", text)
}
func (s *chatScreen) key(keys ...string) {
	s.t.Helper()
	s.run(append([]string{"send-keys", "-t", s.name}, keys...)...)
}

// waitFor polls the screen until ok holds, for at most 20 s.
func (s *chatScreen) waitFor(what string, ok func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		screen := s.screen()
		if ok(screen) {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen of riff chat does not show %s after 20 s:\n%s", what, screen)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitText waits until the screen holds text, a line that the chat
// wrapped joined again.
func (s *chatScreen) waitText(text string) string {
	s.t.Helper()
	return s.waitFor(fmt.Sprintf("%q", text), func(screen string) bool { return strings.Contains(words(screen), words(text)) })
}

// words gives the words of s, each run of spaces and line breaks one
// space.
func words(s string) string { return strings.Join(strings.Fields(s), " ") }

// lastLine gives the last line of a screen.
func lastLine(screen string) string {
	lines := strings.Split(screen, "\n")
	return strings.TrimRight(lines[len(lines)-1], " ")
}

// cursor gives the column of the cursor.
func (s *chatScreen) cursor() string {
	s.t.Helper()
	return strings.TrimSpace(s.run("display-message", "-p", "-t", s.name, "#{cursor_x}"))
}

// waitPrompt waits until the last line is the prompt with typed after it.
func (s *chatScreen) waitPrompt(typed string) string {
	s.t.Helper()
	want := strings.TrimRight("[riff] > "+typed, " ")
	return s.waitFor("the prompt "+want, func(screen string) bool { return lastLine(screen) == want })
}

// chatAs posts a line to chat as user@host.
func chatAs(t *testing.T, bin, dir, server, user, host, body string) {
	t.Helper()
	stdout, stderr, code := runRiffEnv(t, bin, dir, server, "", []string{"USER=" + user, "RIFF_HOST=" + host}, "post", "-t", "chat", body)
	if code != 0 {
		t.Fatalf("riff post -t chat %q as %s: exit %d\n%s%s", body, user, code, stdout, stderr)
	}
}

// TestGivenRiffChatInATerminalWhenPeopleTalkThenEachLineShowsAboveThePromptOnceAndTheTypedLineStays
// runs riff chat in tmux as a person does: the history first, a line of
// another person above the prompt while a half-typed line (wide and
// combining characters) stays with the cursor at its cell, the own line
// once from the server, a refused command, a line to a lead that no lead
// fits and one that wakes the lead (which joins chat), a resize, a kill
// -9 of riff-server and its start again (the lines of the break once and
// in order, then (back)), and Ctrl-C, which gives the terminal back as
// it was.
func TestGivenRiffChatInATerminalWhenPeopleTalkThenEachLineShowsAboveThePromptOnceAndTheTypedLineStays(t *testing.T) {
	if testing.Short() {
		t.Skip("the chat test builds two binaries")
	}
	bin := binaries(t, "", "./riff", "./riff-server")
	srv := startServer(t, bin, freePort(t), t.TempDir())
	server := srv.url()
	dir := repoDir(t)
	if _, stderr, code := runRiff(t, bin, dir, server, "", "resume", "--riff"); code != 0 {
		t.Fatalf("riff resume --riff: %s", stderr)
	}
	chatAs(t, bin, dir, server, "brett", "heron", "hello from brett")
	gate := filepath.Join(t.TempDir(), "gate")
	const width = 60
	s := startChatScreen(t, bin, dir, server, gate, width)

	s.waitText("<brett@heron> hello from brett")
	s.waitPrompt("")

	half := "half typed 日本語 e\u0301"
	s.typeText(half)
	s.waitPrompt(half)
	chatAs(t, bin, dir, server, "brett", "heron", "a new line from brett")
	screen := s.waitText("<brett@heron> a new line from brett")
	screen = s.waitPrompt(half)
	if !strings.Contains(screen, "a new line from brett\n[riff] > "+half) {
		t.Errorf("the new line is not right above the prompt with the half-typed line:\n%s", screen)
	}
	// 9 cells of the prompt, 11 of "half typed ", 6 of 日本語, a space, and
	// é (e and a combining mark) in one cell.
	if got, want := s.cursor(), fmt.Sprint(9+11+6+1+1); got != want {
		t.Errorf("the cursor after %q is at column %s; want %s", half, got, want)
	}

	s.key("Enter")
	s.waitText("<mike@thelio> " + half)
	s.waitPrompt("")
	chatAs(t, bin, dir, server, "brett", "heron", "marker one")
	screen = s.waitText("marker one")
	if n := strings.Count(screen, "<mike@thelio> "+half); n != 1 {
		t.Errorf("the own line shows %d times; want once, from the server:\n%s", n, screen)
	}

	s.typeText("/join #riff")
	s.key("Enter")
	s.waitText("riff: the chat knows only /me and /quit, and sends no line /join.")
	s.typeText("@lead:strata is #12 done?")
	s.key("Enter")
	s.waitText("riff: cannot send the line: mike has no lead in a repository with the name strata.")
	if strings.Contains(s.screen(), "> is #12 done?") || strings.Contains(s.screen(), "<mike@thelio> @lead:strata") {
		t.Errorf("a line that no lead fits was sent:\n%s", s.screen())
	}

	// mike's lead of acme/app: a line to @lead:app wakes it, and it joins
	// chat with the line, so that its read shows it.
	const leadID = "a6cf2205-chat-lead"
	if _, stderr, code := runRiff(t, bin, dir, server, leadID, "whoami"); code != 0 {
		t.Fatalf("riff whoami as the lead: %s", stderr)
	}
	if _, stderr, code := runRiff(t, bin, dir, server, "", "lead", "--session", leadID); code != 0 {
		t.Fatalf("riff lead: %s", stderr)
	}
	s.typeText("@lead:app is #12 done?")
	s.key("Enter")
	s.waitText("<mike@thelio> @lead:app is #12 done?")
	read, stderr, code := runRiff(t, bin, dir, server, leadID, "read")
	if code != 0 || !strings.Contains(read, "@lead:app is #12 done?") {
		t.Errorf("the read of the lead after @lead:app = exit %d\n%s%s; want the line of chat", code, read, stderr)
	}
	runRiff(t, bin, dir, server, leadID, "post", "-t", "chat", "--to", "user=mike,host=thelio,person=true", "yes, #12 is done.")
	s.waitText("[mike's lead, app] yes, #12 is done.")

	// A resize: each row fits the new width, the typed line scrolls.
	const narrow = 40
	s.run("resize-window", "-t", s.name, "-x", fmt.Sprint(narrow))
	long := "a long line of brett that is wider than the window of the chat"
	chatAs(t, bin, dir, server, "brett", "heron", long)
	s.waitText(long)
	typed := "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
	s.typeText(typed)
	s.waitFor("the end of the typed line", func(string) bool {
		rows := s.rows()
		return strings.HasSuffix(rows[len(rows)-1], "FGHIJ")
	})
	for _, row := range s.rows() {
		if w := runewidth.StringWidth(row); w > narrow {
			t.Errorf("a row of %d cells in a window of %d: %q", w, narrow, row)
		}
	}
	if rows := s.rows(); !strings.HasPrefix(rows[len(rows)-1], "[riff] > ") {
		t.Errorf("the prompt after a resize = %q; want [riff] > and the end of the typed line", rows[len(rows)-1])
	}
	s.key("C-u")
	s.waitPrompt("")

	// kill -9 of riff-server, a start again on the same directory, two
	// lines while the chat is away (the gate holds it), then the chat
	// connects again: each line of the break once, in order, then (back).
	s.typeText("still here")
	s.waitPrompt("still here")
	_ = srv.cmd.Process.Signal(syscall.SIGKILL)
	<-srv.done
	srv.cmd = nil
	s.waitText("(reconnecting…)")
	srv.start()
	chatAs(t, bin, dir, server, "brett", "heron", "in the break one")
	chatAs(t, bin, dir, server, "brett", "heron", "in the break two")
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	screen = s.waitText("(back)")
	screen = s.waitPrompt("still here")
	one, two, back := strings.Index(screen, "in the break one"), strings.Index(screen, "in the break two"), strings.Index(screen, "(back)")
	if one < 0 || two < one || back < two || strings.Count(screen, "in the break one") != 1 || strings.Count(screen, "in the break two") != 1 {
		t.Errorf("the lines of the break: want each once, in order, before (back):\n%s", screen)
	}
	chatAs(t, bin, dir, server, "brett", "heron", "after the break")
	s.waitText("after the break")
	s.waitPrompt("still here")

	s.key("C-c")
	screen = s.waitText("__END__")
	if !strings.Contains(screen, "__END__ 0 same") {
		t.Errorf("riff chat after Ctrl-C: want exit 0 and the terminal as it was:\n%s", screen)
	}
}

// TestGivenRiffChatThroughAPipeWhenItGetsLinesThenItSendsEachAndShowsEachLineWhole:
// with no terminal, riff chat has no prompt: it shows the history and
// each new line whole, sends each line of its input, refuses another
// /word on stderr, and ends at Ctrl-C with exit 0.
func TestGivenRiffChatThroughAPipeWhenItGetsLinesThenItSendsEachAndShowsEachLineWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("the chat test builds two binaries")
	}
	bin := binaries(t, "", "./riff", "./riff-server")
	srv := startServer(t, bin, freePort(t), t.TempDir())
	server := srv.url()
	dir := repoDir(t)
	if _, stderr, code := runRiff(t, bin, dir, server, "", "resume", "--riff"); code != 0 {
		t.Fatalf("riff resume --riff: %s", stderr)
	}
	long := strings.Repeat("word ", 40) + "end"
	chatAs(t, bin, dir, server, "brett", "heron", long)
	cmd := exec.Command(filepath.Join(bin, "riff"), "chat")
	cmd.Dir = dir
	cmd.Env = riffEnv(server, "")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, done: make(chan struct{}), what: "riff chat", limit: 20 * time.Second}
	cmd.Stdout, cmd.Stderr = &p.stdout, &p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("riff chat:\n--- stdout\n%s--- stderr\n%s", p.stdout.String(), p.stderr.String())
		}
	})
	p.waitOut("<brett@heron> " + long + "\n")
	fmt.Fprint(in, "hello from the pipe\n/me pipes\n/nick mike2\n")
	p.waitOut("<mike@pangolin> hello from the pipe\n")
	p.waitOut("* mike@pangolin pipes\n")
	p.waitErr("riff: the chat knows only /me and /quit, and sends no line /nick.")
	p.stop()
	if strings.Contains(p.stdout.String(), "[riff] >") || strings.Contains(p.stdout.String(), "\x1b") {
		t.Errorf("riff chat through a pipe shows a prompt or an escape sequence:\n%q", p.stdout.String())
	}
}

// TestGivenSignedLinesWhenRiffChatShowsThemThenItChecksEachSignatureItselfAndOnlyAVerifiedLeadShowsAsTheLead:
// the server's verdict and lead mark say yes each time; riff chat checks
// each signature over the kept bytes and the key against the live
// sign-ins of the sender. A verified lead shows as [USER's lead, REPO];
// a false sender, a changed line and a lead mark of another key show as
// [USER ID] (not verified), never as the lead.
func TestGivenSignedLinesWhenRiffChatShowsThemThenItChecksEachSignatureItselfAndOnlyAVerifiedLeadShowsAsTheLead(t *testing.T) {
	bin := buildRiff(t, "riff")
	mikeKey, brettKey := newTestKey(t), newTestKey(t)
	mikePrint, _ := signed.Thumbprint(&mikeKey.PublicKey)
	mike := uri("riff://mike@pangolin/acme/app?session=a6cf2205-9a1b")
	lead := signedMessage(t, 1, mike, signed.Content{User: "mike", Session: "a6cf2205-9a1b", Lead: true, Body: "the API is ready"}, mikeKey, mikePrint)
	falseSender := signedMessage(t, 2, mike, signed.Content{User: "brett", Session: "a6cf2205-9a1b", Lead: true, Body: "ship it now"}, brettKey, mikePrint)
	changed := signedMessage(t, 3, mike, signed.Content{User: "mike", Session: "a6cf2205-9a1b", Lead: true, Body: "merge #12"}, mikeKey, mikePrint)
	changed.Payload = bytes.Replace(changed.Payload, []byte("#12"), []byte("#13"), 1)
	falseLead := signedMessage(t, 4, mike, signed.Content{User: "mike", Session: "a6cf2205-9a1b", Lead: true, Body: "claim issue-9"}, brettKey, mikePrint)
	messages := []wire.Message{lead, falseSender, changed, falseLead}
	for i := range messages {
		messages[i].Thread = "chat"
	}
	serverBuild := build.FromBuildInfo(defaultVersion).String()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(wire.HeaderBuild, serverBuild)
		switch r.URL.Path {
		case wire.Read{}.Path():
			json.NewEncoder(w).Encode(wire.ReadReply{Threads: []wire.ThreadPage{{Thread: "chat", Messages: messages, Last: 4}}})
		case wire.Tail{}.Path():
			json.NewEncoder(w).Encode(wire.Event{Type: wire.EventHello, Last: 4})
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			json.NewEncoder(w).Encode(map[string]any{})
		}
	}))
	t.Cleanup(srv.Close)
	cmd := exec.Command(filepath.Join(bin, "riff"), "chat")
	cmd.Dir = t.TempDir()
	cmd.Env = riffEnv(srv.URL, "")
	p := &proc{t: t, cmd: cmd, done: make(chan struct{}), what: "riff chat", limit: 20 * time.Second}
	cmd.Stdout, cmd.Stderr = &p.stdout, &p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(p.stop)
	p.waitOut("claim issue-9\n")
	p.stop()
	out := normalizeTimes(p.stdout.String())
	for _, line := range []string{
		"HH:MM [mike's lead, app] the API is ready",
		"HH:MM [brett a6cf] (not verified) ship it now",
		"HH:MM [mike a6cf] (not verified) merge #13",
		"HH:MM [mike a6cf] (not verified) claim issue-9",
	} {
		if !strings.Contains(out, line+"\n") {
			t.Errorf("riff chat has no line %q:\n%s", line, out)
		}
	}
}
