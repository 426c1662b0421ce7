package main

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// The two relays of one session with the real binaries: Claude Code
// starts riff relay mcp for the session, and claude mcp list, run with
// the same session ID, starts a second one that exits at once.

// endRelay closes the input of a relay (the agent tool exits), waits for
// its exit, and gives its log.
func (r *mcpRelay) endRelay() string {
	r.t.Helper()
	if err := r.session.Close(); err != nil {
		r.t.Fatalf("close the MCP session: %v", err)
	}
	return r.stderr.String()
}

// holdsClaim says whether another session is refused the claim of item.
func holdsClaim(t *testing.T, bin, repo, server, item string) bool {
	t.Helper()
	_, _, code := runRiff(t, bin, repo, server, "0ddba11e-9999", "claim", item)
	if code == exitOK {
		if _, stderr, code := runRiff(t, bin, repo, server, "0ddba11e-9999", "release", item); code != exitOK {
			t.Fatalf("riff release %s: exit %d, %s", item, code, stderr)
		}
	}
	return code != exitOK
}

// TestGivenALiveRelayWhenASecondRelayOfTheSameSessionStartsAndExitsThenTheSessionKeepsItsClaimUntilTheLiveRelayExits:
// the second relay's end ends only that relay (its log says so), the
// session stays in who with its claim; after a SIGTERM restart of the
// server, a third relay that comes and goes before any keep-alive of the
// live one still does not end it (the relay of the live one is in the
// log); the exit of the live relay then ends the session and frees the
// claim at once.
func TestGivenALiveRelayWhenASecondRelayOfTheSameSessionStartsAndExitsThenTheSessionKeepsItsClaimUntilTheLiveRelayExits(t *testing.T) {
	bin := buildRelayBinaries(t)
	srv := startServer(t, bin, freePort(t), t.TempDir())
	server := srv.url()
	repo := repoDir(t)
	const session = "7e1a7e1a-2222"
	cliText(t, bin, repo, server, "", "resume", "--riff")
	// The live relay sends no keep-alive in the test: after the restart
	// only the log names it.
	live := startRelay(t, bin, repo, server, session, keepAliveEnv+"=1h")
	live.ok("claim", map[string]any{"item": "issue-42"})

	second := startRelay(t, bin, repo, server, session, keepAliveEnv+"=1h")
	second.ok("whoami", nil)
	if log := second.endRelay(); !strings.Contains(log, "ended its relay; another relay serves the session, which goes on") || strings.Contains(log, "ended the session") {
		t.Errorf("the log of the second relay:\n%s\nwant that the session goes on", log)
	}
	if who := cliText(t, bin, repo, server, "", "who"); !strings.Contains(who, "(7e1a)") {
		t.Errorf("who does not list the session after the exit of its second relay:\n%s", who)
	}
	if !holdsClaim(t, bin, repo, server, "issue-42") {
		t.Fatal("the exit of the second relay freed the claim of the live session")
	}

	srv.restart()
	third := startRelay(t, bin, repo, server, session, keepAliveEnv+"=1h")
	third.ok("whoami", nil)
	if log := third.endRelay(); !strings.Contains(log, "another relay serves the session") {
		t.Errorf("after a restart, the log of a third relay:\n%s\nwant that the session goes on", log)
	}
	if !holdsClaim(t, bin, repo, server, "issue-42") {
		t.Fatal("after a restart of the server, the exit of a third relay freed the claim of the live session")
	}
	if got := live.ok("whoami", nil); !strings.Contains(got, "issue-42") {
		t.Errorf("whoami of the live relay after the restart = %q; want its claim", got)
	}

	if log := live.endRelay(); !strings.Contains(log, "ended the session") {
		t.Errorf("the log of the live relay at its exit:\n%s\nwant the end of the session", log)
	}
	if holdsClaim(t, bin, repo, server, "issue-42") {
		t.Error("the exit of the last relay did not free the claim")
	}
	if who := cliText(t, bin, repo, server, "", "who"); strings.Contains(who, "(7e1a)") {
		t.Errorf("who lists the session after the exit of its last relay:\n%s", who)
	}
}

// TestGivenARelayKilledWith9WhenASecondRelayExitsAfter3MinutesThenItEndsTheSession:
// a relay that gives no sign of life for 3 minutes (kill -9: no end) no
// longer holds the session: the end of the next relay ends it. Before
// the 3 minutes, it still does. The engine runs on the clock of the test.
func TestGivenARelayKilledWith9WhenASecondRelayExitsAfter3MinutesThenItEndsTheSession(t *testing.T) {
	bin := buildRiff(t, "riff")
	cs := startClockServer(t)
	repo := repoDir(t)
	const session = "9d9d9d9d-3333"
	cliText(t, bin, repo, cs.url, "", "resume", "--riff")
	killed := startRelay(t, bin, repo, cs.url, session, keepAliveEnv+"=1h")
	killed.ok("claim", map[string]any{"item": "issue-43"})
	if err := killed.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = killed.session.Close()

	cs.clock.add(2 * time.Minute)
	early := startRelay(t, bin, repo, cs.url, session, keepAliveEnv+"=1h")
	early.ok("whoami", nil)
	if log := early.endRelay(); !strings.Contains(log, "another relay serves the session") {
		t.Errorf("2 minutes after the kill -9, the log of the next relay:\n%s\nwant that the session goes on", log)
	}
	cs.clock.add(time.Minute + time.Second)
	late := startRelay(t, bin, repo, cs.url, session, keepAliveEnv+"=1h")
	late.ok("whoami", nil)
	if log := late.endRelay(); !strings.Contains(log, "ended the session") {
		t.Errorf("3 minutes after the kill -9, the log of the next relay:\n%s\nwant the end of the session", log)
	}
	if who := cliText(t, bin, repo, cs.url, "", "who"); strings.Contains(who, "(9d9d)") {
		t.Errorf("who lists the ended session:\n%s", who)
	}
}
