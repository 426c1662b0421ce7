package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The unanswered block with the real riff relay mcp of the lead (the
// guide, "A blocked session"): the engine runs on a clock of the test,
// the relay reads lead.wake from the settings file of the machine, and a
// fake notify-send on its PATH stands for the desktop.

// waitFile waits until the file at path holds want.
func waitFile(t *testing.T, path, want string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(b), want) {
			return string(b)
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not hold %q in 20 s: %q", path, want, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestGivenABlockThatTheLeadLeavesUnansweredWhenTheRelayOfTheLeadLooksThenNotifySendShowsIt(t *testing.T) {
	bin := buildRiff(t, "riff")
	ts := startClockServerAt(t, time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC), 24*time.Hour)
	repo := repoDir(t)
	const lead, worker = "c0ffee01-1111", "3a3f8d5d-2222"

	// The desktop of the lead: a display, and a notify-send of the test
	// that writes its arguments to a file.
	fakeBin := t.TempDir()
	notified := filepath.Join(t.TempDir(), "notified")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\" >> " + notified + "; done\necho --- >> " + notified + "\n"
	if err := writeExecutable(filepath.Join(fakeBin, "notify-send"), []byte(script)); err != nil {
		t.Fatal(err)
	}
	// The settings file of the machine: lead.wake 2 minutes.
	config := t.TempDir()
	if err := os.MkdirAll(filepath.Join(config, "riff"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(config, "riff", "config.toml"), []byte("[lead]\nwake = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	startRelay(t, bin, repo, ts.url, lead, keepAliveEnv+"=20ms", "DISPLAY=:99",
		"PATH="+fakeBin+string(os.PathListSeparator)+os.Getenv("PATH"), "XDG_CONFIG_HOME="+config)
	ts.waitAlives(t, ts.alives.Load(), 1)
	cliText(t, bin, repo, ts.url, "", "resume", "--riff")
	cliText(t, bin, repo, ts.url, "", "lead", "--session", lead[:8])
	cliText(t, bin, repo, ts.url, worker, "claim", "issue-8")
	cliText(t, bin, repo, ts.url, worker, "blocked", "which of two designs?")
	// The worker has its watch, so who shows its state (no open watch is
	// offline).
	startWatch(t, bin, repo, ts.url, worker, t.TempDir(), "--follow")

	// steps moves the clock in steps of 30 s, with a call of the worker
	// (a sign of life) and two keep-alives of the lead at each step, and
	// runs the timers of the server.
	steps := func(n int) {
		for range n {
			ts.clock.add(30 * time.Second)
			cliText(t, bin, repo, ts.url, worker, "whoami")
			ts.waitAlives(t, ts.alives.Load(), 2)
			ts.e.Tick(context.Background())
		}
	}
	steps(3)
	if text := cliText(t, bin, repo, ts.url, lead, "read"); strings.Contains(text, "has no answer") {
		t.Fatalf("the lead read a second wake after 1.5 minutes with lead.wake 2:\n%s", text)
	}
	steps(1)
	if text := cliText(t, bin, repo, ts.url, lead, "read"); !strings.Contains(text, `"which of two designs?" has no answer after 2 minutes`) {
		t.Fatalf("the lead after 2 minutes with lead.wake 2 reads:\n%s\nwant the second wake", text)
	}
	if _, err := os.Stat(notified); err == nil {
		t.Fatal("notify-send ran at the second wake; want it only when the block is unanswered")
	}
	steps(4)
	got := waitFile(t, notified, "---")
	want := "--app-name=riff\n--\nriff: the lead gave no answer\nmike@pangolin:app (3a3f) on #8, blocked 4m: which of two designs?\n---\n"
	if got != want {
		t.Errorf("notify-send got:\n%s\nwant:\n%s", got, want)
	}
	if row := whoRow(t, bin, repo, ts.url, worker[:4]); row != "blocked which of two designs? (4m ago) the lead gave no answer working on #8" {
		t.Errorf("the row of riff who = %q; want blocked, the reason, the lead gave no answer, working on #8", row)
	}
	// The relay looks each minute: it does not notify the same block again.
	steps(2)
	if b, _ := os.ReadFile(notified); string(b) != want {
		t.Errorf("notify-send after two more looks got:\n%s\nwant the one notification", b)
	}
}

// TestGivenABlockedSessionWhenRiffServerStopsWithSIGTERMAndStartsThenTheSessionIsStillBlocked:
// the last checkpoint of a stop keeps the block, as it keeps the status
// and the step (the guide, "A blocked session"; the store design, "The
// checkpoint").
func TestGivenABlockedSessionWhenRiffServerStopsWithSIGTERMAndStartsThenTheSessionIsStillBlocked(t *testing.T) {
	bin := buildRiff(t, "riff", "riff-server")
	srv := startServer(t, bin, freePort(t), t.TempDir())
	repo := repoDir(t)
	const worker = "3a3f8d5d-2222"
	cliText(t, bin, repo, srv.url(), "", "resume", "--riff")
	cliText(t, bin, repo, srv.url(), worker, "status", "write the tests")
	cliText(t, bin, repo, srv.url(), worker, "blocked", "which of two designs?")
	row := whoRow(t, bin, repo, srv.url(), worker[:4])
	if !strings.Contains(row, "blocked") || !strings.Contains(row, "which of two designs?") {
		t.Fatalf("the row before the stop = %q; want blocked with its reason", row)
	}

	srv.restart()
	// The session comes back with its next call.
	cliText(t, bin, repo, srv.url(), worker, "whoami")
	row = whoRow(t, bin, repo, srv.url(), worker[:4])
	if !strings.Contains(row, "blocked") || !strings.Contains(row, "which of two designs? (") || !strings.Contains(row, "write the tests") {
		t.Errorf("the row after SIGTERM and a start = %q; want blocked with its reason and its status", row)
	}
}
