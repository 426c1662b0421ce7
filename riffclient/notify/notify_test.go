package notify_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffclient/notify"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// fakeNotifySend puts a notify-send on a PATH of its own that writes its
// arguments, one to a line, to a file of the test, and gives the folder
// and the file.
func fakeNotifySend(t *testing.T, exit int) (dir, out string) {
	t.Helper()
	dir = t.TempDir()
	out = filepath.Join(t.TempDir(), "notified")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> " + out + "; done\necho --- >> " + out + "\nexit " + string(rune('0'+exit)) + "\n"
	if err := os.WriteFile(filepath.Join(dir, notify.Program), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, out
}

func calls(t *testing.T, out string) []string {
	t.Helper()
	b, err := os.ReadFile(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range strings.Split(strings.TrimSuffix(string(b), "---\n"), "---\n") {
		got = append(got, strings.TrimSuffix(c, "\n"))
	}
	return got
}

var at = time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)

func block(session string) wire.UnansweredBlock {
	return wire.UnansweredBlock{
		Session: name.SessionURI{User: "mike", Host: "thelio", Repo: "o/riff", Worktree: "issue-8", Session: session},
		Items:   []name.Item{"issue-8"}, Reason: "which of two designs?", AtMs: at.UnixMilli(), WaitSecs: 32*60 + 10,
	}
}

func desk(t *testing.T, vars map[string]string) (*notify.Desk, *[]string) {
	warned := &[]string{}
	d := &notify.Desk{
		Getenv: func(k string) string { return vars[k] },
		Warn:   func(msg string, err error) { *warned = append(*warned, msg+": "+err.Error()) },
	}
	t.Cleanup(func() {
		for _, w := range *warned {
			t.Log("warning: " + w)
		}
	})
	return d, warned
}

func TestGivenADesktopWhenAnUnansweredBlockComesThenNotifySendShowsTheSessionItsItemAndTheReasonOnce(t *testing.T) {
	bin, out := fakeNotifySend(t, 0)
	d, _ := desk(t, map[string]string{"DISPLAY": ":0", "PATH": bin, "XDG_CONFIG_HOME": t.TempDir()})
	if n := d.Unanswered(context.Background(), []wire.UnansweredBlock{block("3a3f8d5d")}); n != 1 {
		t.Fatalf("sent = %d; want 1", n)
	}
	want := "--app-name=riff\n--\nriff: the lead gave no answer\nmike@thelio:riff#issue-8 (3a3f) on #8, blocked 32m: which of two designs?"
	if got := calls(t, out); len(got) != 1 || got[0] != want {
		t.Fatalf("notify-send got %q; want one call %q", got, want)
	}
	// The next look with the same block sends nothing again.
	if n := d.Unanswered(context.Background(), []wire.UnansweredBlock{block("3a3f8d5d")}); n != 0 {
		t.Errorf("a second look sent %d; want 0", n)
	}
	// The block goes (an answer), and a new block of the session comes.
	d.Unanswered(context.Background(), nil)
	next := block("3a3f8d5d")
	next.AtMs += 60_000
	if n := d.Unanswered(context.Background(), []wire.UnansweredBlock{next}); n != 1 {
		t.Errorf("a new block of the session sent %d; want 1", n)
	}
	if got := calls(t, out); len(got) != 2 {
		t.Errorf("notify-send ran %d times; want 2", len(got))
	}
}

func TestGivenNoDesktopWhenAnUnansweredBlockComesThenNothingIsSentAndNothingFails(t *testing.T) {
	bin, out := fakeNotifySend(t, 0)
	for label, vars := range map[string]map[string]string{
		"no display":     {"PATH": bin},
		"no notify-send": {"DISPLAY": ":0", "PATH": t.TempDir()},
		"no PATH":        {"WAYLAND_DISPLAY": "wayland-0"},
	} {
		vars["XDG_CONFIG_HOME"] = t.TempDir()
		d, warned := desk(t, vars)
		if n := d.Unanswered(context.Background(), []wire.UnansweredBlock{block("3a3f8d5d")}); n != 0 || len(*warned) != 0 {
			t.Errorf("%s: sent %d, warnings %q; want none", label, n, *warned)
		}
	}
	if got := calls(t, out); len(got) != 0 {
		t.Errorf("notify-send ran with no desktop: %q", got)
	}
}

func TestGivenLeadNotifyOffWhenAnUnansweredBlockComesThenNothingIsSent(t *testing.T) {
	bin, out := fakeNotifySend(t, 0)
	config := t.TempDir()
	if err := os.MkdirAll(filepath.Join(config, "riff"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(config, "riff", "config.toml"), []byte("[lead]\nnotify = false\nwake = 20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, _ := desk(t, map[string]string{"DISPLAY": ":0", "PATH": bin, "XDG_CONFIG_HOME": config})
	if w := d.LeadWake(); w != 20 {
		t.Errorf("LeadWake = %d; want the 20 of the file", w)
	}
	if n := d.Unanswered(context.Background(), []wire.UnansweredBlock{block("3a3f8d5d")}); n != 0 || len(calls(t, out)) != 0 {
		t.Errorf("lead.notify false sent %d; want none", n)
	}
}

func TestGivenANotifySendThatFailsWhenABlockComesThenItIsAWarningAndNoError(t *testing.T) {
	bin, _ := fakeNotifySend(t, 1)
	var warned []string
	vars := map[string]string{"DISPLAY": ":0", "PATH": bin, "XDG_CONFIG_HOME": t.TempDir()}
	d := &notify.Desk{Getenv: func(k string) string { return vars[k] }, Warn: func(msg string, err error) { warned = append(warned, err.Error()) }}
	if n := d.Unanswered(context.Background(), []wire.UnansweredBlock{block("3a3f8d5d")}); n != 0 || len(warned) != 1 {
		t.Errorf("a failing notify-send: sent %d, warnings %q; want 0 and one warning", n, warned)
	}
}

func TestGivenABadSettingsFileWhenTheDeskLooksThenItWarnsOnceAndKeepsTheDefaults(t *testing.T) {
	config := t.TempDir()
	if err := os.MkdirAll(filepath.Join(config, "riff"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(config, "riff", "config.toml"), []byte("lead.wake = \"soon\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var warned []string
	d := &notify.Desk{Getenv: func(k string) string { return map[string]string{"XDG_CONFIG_HOME": config}[k] },
		Warn: func(msg string, err error) { warned = append(warned, err.Error()) }}
	for range 3 {
		if w := d.LeadWake(); w != 15 {
			t.Errorf("LeadWake with a bad file = %d; want the default 15", w)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "lead.wake") {
		t.Errorf("warnings = %q; want one that names lead.wake", warned)
	}
}

func TestGivenAReasonThatStartsWithADashThenNotifySendReadsItAsText(t *testing.T) {
	b := block("3a3f8d5d")
	b.Reason = "--help me"
	args := notify.Args(b)
	if args[1] != "--" || !strings.HasSuffix(args[3], ": --help me") {
		t.Errorf("Args = %q; want -- before the summary and the body", args)
	}
}

// TestGivenTheLineOfDocsSettingsMdThenItIsTheNotifySendThatTheRelayRuns:
// the notify-send line of docs/settings.md, as written, is the program
// and the arguments of the notification of its block.
func TestGivenTheLineOfDocsSettingsMdThenItIsTheNotifySendThatTheRelayRuns(t *testing.T) {
	page, err := os.ReadFile("../../docs/settings.md")
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(string(page), "\n") {
		if strings.HasPrefix(l, notify.Program+" ") {
			line = l
		}
	}
	if line == "" {
		t.Fatal("docs/settings.md has no notify-send line")
	}
	b := block("3a3f8d5d")
	b.WaitSecs = 32 * 60
	want := append([]string{notify.Program}, notify.Args(b)...)
	if got := shellWords(line); strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("the line of docs/settings.md reads as %q; want %q", got, want)
	}
}

// shellWords splits a line of the shell with double quotes.
func shellWords(line string) []string {
	var out []string
	var word strings.Builder
	quoted, in := false, false
	for _, r := range line {
		switch {
		case r == '"':
			quoted, in = !quoted, true
		case r == ' ' && !quoted:
			if in {
				out = append(out, word.String())
				word.Reset()
				in = false
			}
		default:
			word.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, word.String())
	}
	return out
}

// A new relay of the lead (a new start of Claude Code) has a new desk:
// the marks file of the local folder keeps it from notifying a block of
// the old one's again.
func TestGivenABlockThatARelayNotifiedWhenANewRelayOfTheLeadLooksThenItIsNotNotifiedAgain(t *testing.T) {
	bin, out := fakeNotifySend(t, 0)
	vars := map[string]string{"DISPLAY": ":0", "PATH": bin, "XDG_CONFIG_HOME": t.TempDir()}
	marks := filepath.Join(t.TempDir(), "state", "notified")
	first, _ := desk(t, vars)
	first.Marks = marks
	if n := first.Unanswered(context.Background(), []wire.UnansweredBlock{block("3a3f8d5d")}); n != 1 {
		t.Fatalf("the first relay sent %d; want 1", n)
	}
	second, warned := desk(t, vars)
	second.Marks = marks
	if n := second.Unanswered(context.Background(), []wire.UnansweredBlock{block("3a3f8d5d"), block("4b4f8d5d")}); n != 1 {
		t.Errorf("the new relay sent %d; want 1, for the block that is new", n)
	}
	if got := calls(t, out); len(got) != 2 || !strings.Contains(got[1], "(4b4f)") {
		t.Errorf("notify-send got %q; want the block of 3a3f once and then the one of 4b4f", got)
	}
	// A block that left the list leaves the file too: it holds no more
	// than the list of the server.
	second.Unanswered(context.Background(), nil)
	if b, err := os.ReadFile(marks); err != nil || string(b) != "[]" {
		t.Errorf("the marks file = %q, %v; want []", b, err)
	}
	if len(*warned) != 0 {
		t.Errorf("warnings: %q", *warned)
	}
}
