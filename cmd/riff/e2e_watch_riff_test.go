package main

import (
	"strings"
	"testing"
)

// TestGivenARunningWatchWhenAMemoryServerStartsAgainThenTheTellsOfTheNewRiffGiveLines:
// riff-server with a memory store makes a new riff at each start, whose
// messages count from 1 again. The woke marks of the watch are of the
// riff that the stream names, so the first tell of the new riff (message
// 1 of the direct thread, whose message 3 the watch printed before)
// gives its line, in the watch that ran over the restart.
func TestGivenARunningWatchWhenAMemoryServerStartsAgainThenTheTellsOfTheNewRiffGiveLines(t *testing.T) {
	bin := buildRiff(t, "riff", "riff-server")
	srv := startServer(t, bin, freePort(t), "")
	server := srv.url()
	repo := repoDir(t)
	home := t.TempDir()
	const a, b = "a6cf2205-aaaa", "b7d0aa11-bbbb"
	cliText(t, bin, repo, server, a, "whoami")
	direct := func(n string) string {
		return "wake: mike@pangolin:app (a6cf) wrote to you in a direct message (message " + n + ")\n"
	}
	follow := startWatch(t, bin, repo, server, b, home, "--follow")
	follow.waitErr("(open)")
	for _, n := range []string{"1", "2", "3"} {
		cliText(t, bin, repo, server, a, "tell", b[:4], "before the restart, number "+n)
		follow.waitOut(direct(n))
	}

	srv.restart()
	// The watch opens its stream again by itself (the server had replied
	// to it before); its stream registers b in the new riff.
	follow.waitErr("(back)")
	cliText(t, bin, repo, server, a, "whoami")
	cliText(t, bin, repo, server, a, "tell", b[:4], "after the restart, number 1")
	follow.waitOut(direct("3") + direct("1"))
	cliText(t, bin, repo, server, a, "tell", b[:4], "after the restart, number 2")
	follow.waitOut(direct("3") + direct("1") + direct("2"))
	follow.stop()
	want := direct("1") + direct("2") + direct("3") + direct("1") + direct("2")
	if got := follow.stdout.String(); got != want {
		t.Errorf("the watch over the restart wrote:\n%s\nwant one line for each message of each riff:\n%s", got, want)
	}
	if strings.Count(follow.stderr.String(), "(back)") < 1 {
		t.Errorf("the watch shows no (back) after the restart:\n%s", follow.stderr.String())
	}
}
