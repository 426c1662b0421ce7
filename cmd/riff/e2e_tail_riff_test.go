package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGivenARunningTailWhenAMemoryServerStartsAgainThenTheMessagesOfTheNewRiffShow:
// riff-server with a memory store makes a new riff at each start, whose
// messages count from 1 again. The point of the tail is a seq of the
// riff that its stream names, so the first messages of the new riff
// show in the tail that ran over the restart, and none twice.
func TestGivenARunningTailWhenAMemoryServerStartsAgainThenTheMessagesOfTheNewRiffShow(t *testing.T) {
	t.Parallel()
	bin := buildRiff(t, "riff", "riff-server")
	srv := startServer(t, bin, freePort(t), "")
	server := srv.url()
	dir := repoDir(t)
	post(t, bin, dir, server, "before the tail")
	open := filepath.Join(t.TempDir(), "open")
	if err := os.WriteFile(open, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tail := startTail(t, bin, dir, server, "acme/app", "never", open)
	for _, body := range []string{"one", "two", "three"} {
		post(t, bin, dir, server, body)
		tail.waitOut(body)
	}

	srv.restart()
	tail.waitErr("(back)")
	post(t, bin, dir, server, "new one")
	tail.waitOut("new one")
	post(t, bin, dir, server, "new two")
	tail.waitOut("new two")
	tail.stop()
	want := []string{"one", "two", "three", "new one", "new two"}
	if diff := cmp.Diff(want, tailBodies(tail.stdout.String())); diff != "" {
		t.Errorf("the tail over the restart (-want +got):\n%s\nstdout:\n%s\nstderr:\n%s", diff, tail.stdout.String(), tail.stderr.String())
	}
}
