package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/door"
	"github.com/como-technologies/riff/riffclient/local"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// TestGivenARelayWhenItsRiffIsOlderThanTheServerOrItsFileIsReplacedThenWhoMarksItsSession:
// the keep-alive of riff relay mcp tells the server its riff (the build,
// and whether its file was replaced), and the who reply marks the session
// that runs an old riff (update: the ↑ of the guide's "Update a session
// that runs an old riff"): a riff of a lower version than the server, and
// a riff of the server's build once its file is replaced, as riff update
// does. The riff of the server's build has no mark before.
func TestGivenARelayWhenItsRiffIsOlderThanTheServerOrItsFileIsReplacedThenWhoMarksItsSession(t *testing.T) {
	t.Parallel()
	const newer = "0.1.1"
	old := buildRiff(t, "riff")
	bin := buildRiffVersion(t, newer, "riff", "riff-server")
	srv := startServer(t, bin, freePort(t), t.TempDir())
	server := srv.url()
	repo := repoDir(t)
	c := testClient(t, server)
	row := func(session string) (wire.WhoRow, bool) {
		t.Helper()
		reply, err := riffclient.Send(context.Background(), c, wire.Who{Me: name.SessionURI{User: "mike", Host: "pangolin", Repo: "acme/app"}})
		if err != nil {
			t.Fatalf("who: %v", err)
		}
		for _, row := range reply.Rows {
			if row.URI.Session == session {
				return row, true
			}
		}
		return wire.WhoRow{}, false
	}
	waitRow := func(session, want string, ok func(wire.WhoRow) bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); ; {
			if r, listed := row(session); listed && ok(r) {
				return
			}
			if time.Now().After(deadline) {
				r, listed := row(session)
				t.Fatalf("the who row of %s is %+v (listed %v) after 20 s; want %s", session, r, listed, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	marked := func(r wire.WhoRow) bool { return r.Update }

	const behind, current = "a1b2c3d4-0001", "e5f6a7b8-0002"
	startRelay(t, old, repo, server, behind, keepAliveEnv+"=50ms").ok("whoami", nil)
	waitRow(behind, "the mark to update", marked)

	// The riff of the server's build runs from a file of its own, which
	// the test replaces as riff update does: a new file renamed over it.
	own := t.TempDir()
	raw, err := os.ReadFile(filepath.Join(bin, "riff"))
	if err != nil {
		t.Fatal(err)
	}
	if err := writeExecutable(filepath.Join(own, "riff"), raw); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	startRelay(t, own, repo, server, current, keepAliveEnv+"=50ms", "RIFF_HOME="+home).ok("whoami", nil)
	// A fact in the local folder: once who shows it, a keep-alive with
	// the build of the riff came, and gave no mark.
	dir, err := local.Dir(func(k string) string { return map[string]string{"RIFF_HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	if err := (door.Files{Dir: dir}).WriteFact(current, door.Fact{Activity: "runs Bash: build the docs", ActivityAtMs: time.Now().UnixMilli()}); err != nil {
		t.Fatal(err)
	}
	waitRow(current, "the fact of the local folder", func(r wire.WhoRow) bool { return strings.Contains(r.Detail, "build the docs") })
	if r, _ := row(current); r.Update {
		t.Fatalf("the session of a riff of the server's build is marked to update: %+v", r)
	}
	if err := writeExecutable(filepath.Join(own, "riff.new"), raw); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(own, "riff.new"), filepath.Join(own, "riff")); err != nil {
		t.Fatal(err)
	}
	waitRow(current, "the mark to update", marked)
}
