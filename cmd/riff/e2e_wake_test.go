package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGivenTwoSessionsWhenTheRelayOfOneTellsAndPostsToTheOtherThenTheWatchOfTheOtherWritesOneLineForEachMessage:
// session A talks through riff relay mcp (the MCP client of the Go SDK
// over stdio), session B runs riff relay watch --follow, both against
// riff-server on loopback. A tell to B by the start of its ID and a post
// to a claim that B holds (a message: a note wakes nobody) each give one
// line of the Monitor form on the stdout of the watch, and nothing else. After B reads them (the read
// tool of a relay of B), a new watch of B writes no line for them, also
// on a new machine (no record of the wakes that a watch wrote).
func TestGivenTwoSessionsWhenTheRelayOfOneTellsAndPostsToTheOtherThenTheWatchOfTheOtherWritesOneLineForEachMessage(t *testing.T) {
	bin := buildRiff(t, "riff", "riff-server")
	srv := startServer(t, bin, freePort(t), t.TempDir())
	server := srv.url()
	repo := repoDir(t)
	home := t.TempDir()
	const a, b = "a6cf2205-aaaa", "b7d0aa11-bbbb"
	cliText(t, bin, repo, server, "", "resume", "--riff")
	relayA := startRelay(t, bin, repo, server, a)
	relayA.ok("whoami", nil)
	cliText(t, bin, repo, server, b, "claim", "issue-40")

	direct := func(n string) string {
		return "wake: mike@pangolin:app (a6cf) wrote to you in a direct message (message " + n + ")\n"
	}
	follow := startWatch(t, bin, repo, server, b, home, "--follow")
	if got := relayA.ok("tell", map[string]any{"to": b[:4], "text": "can you take the review of #40?"}); !strings.HasPrefix(got, "Posted #") {
		t.Fatalf("tell gives %q", got)
	}
	follow.waitOut(direct("1"))
	posted := relayA.ok("post", map[string]any{"text": "the API of issue-40 is ready", "to": []string{"claim=issue-40"}})
	if !strings.HasPrefix(posted, "Posted #") {
		t.Fatalf("post gives %q", posted)
	}
	toClaim := "wake: mike@pangolin:app (a6cf) wrote in acme/app (message 1)\n"
	follow.waitOut(toClaim)
	// A third message is the mark that the watch wrote all it would
	// write for the first two: a wake written twice comes before it.
	relayA.ok("tell", map[string]any{"to": b[:4], "text": "and the docs too"})
	follow.waitOut(direct("2"))
	follow.stop()
	if got, want := follow.stdout.String(), direct("1")+toClaim+direct("2"); got != want {
		t.Errorf("the watch of B wrote:\n%s\nwant one line for each message, and nothing else:\n%s", got, want)
	}
	// A new watch before the read: the server gives the wakes of the
	// unread messages again, and the watch wrote them, so its first line
	// is the one of the next message.
	again := startWatch(t, bin, repo, server, b, home)
	relayA.ok("tell", map[string]any{"to": b[:4], "text": "one more, number 3"})
	again.waitOut(direct("3"))
	again.exited()
	if got := again.stdout.String(); got != direct("3") {
		t.Errorf("a new watch of B before its read wrote:\n%s\nwant only the line of the new message:\n%s", got, direct("3"))
	}

	relayB := startRelay(t, bin, repo, server, b)
	read := relayB.ok("read", nil)
	for _, text := range []string{"can you take the review of #40?", "the API of issue-40 is ready", "and the docs too", "number 3"} {
		if !strings.Contains(read, text) {
			t.Errorf("the read tool of B does not show %q:\n%s", text, read)
		}
	}
	for _, newMachine := range []bool{false, true} {
		if newMachine {
			if err := os.RemoveAll(filepath.Join(home, "state", "sessions", b, "woke")); err != nil {
				t.Fatal(err)
			}
		}
		// The watch ends after its first line: a wake of a message that
		// B read would be that line.
		fresh := startWatch(t, bin, repo, server, b, home)
		n := map[bool]string{false: "4", true: "5"}[newMachine]
		relayA.ok("tell", map[string]any{"to": b[:4], "text": "one more, number " + n})
		fresh.waitOut(direct(n))
		fresh.exited()
		if got := fresh.stdout.String(); got != direct(n) {
			t.Errorf("a new watch of B after its read (new machine %v) wrote:\n%s\nwant only the line of the new message:\n%s", newMachine, got, direct(n))
		}
		relayB.ok("read", nil)
	}
}
