package main

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog/dir"
	"github.com/como-technologies/riff/riffstate"
)

// The callers of the restart tests: two sessions of two people, and the
// person mike in a terminal.
const (
	mikeSession = "riff://mike@pangolin/acme/app?session=a6cf"
	annSession  = "riff://ann@pangolin/acme/web?session=b7d0"
	mikePerson  = "riff://mike@pangolin/acme/app"
)

// call is one command of a script, with its call ID.
type call struct {
	path string
	id   string
	body map[string]any
}

// restartScript is the work before a restart: the riff resumed, two
// claims, a release, posts, a pause of one repository and a hold.
var restartScript = []call{
	{"/v1/resume", "c-resume", map[string]any{"me": mikePerson, "riff": true}},
	{"/v1/claim", "c-claim-12", map[string]any{"me": mikeSession, "item": "issue-12"}},
	{"/v1/claim", "c-claim-13", map[string]any{"me": annSession, "item": "issue-13"}},
	{"/v1/claim", "c-claim-14", map[string]any{"me": annSession, "item": "issue-14"}},
	{"/v1/release", "c-release-14", map[string]any{"me": annSession, "item": "issue-14"}},
	{"/v1/post", "c-post-1", map[string]any{"me": mikeSession, "body": "I take the parser; who has the lexer?"}},
	{"/v1/post", "c-post-2", map[string]any{"me": annSession, "thread": "acme/app", "body": "ann here: the lexer is free"}},
	{"/v1/pause", "c-pause-web", map[string]any{"me": mikePerson, "repository": "acme/web"}},
	{"/v1/hold", "c-hold-99", map[string]any{"me": mikePerson, "item": "issue-99", "reason": "waits for the design review"}},
}

// observed is what a user sees over HTTP: who, whoami of each caller,
// read and riff.
type observed struct {
	Who     wire.WhoReply
	Whoami  map[string]wire.WhoamiReply
	Read    wire.ReadReply
	Pauses  wire.Pauses
	Threads wire.ThreadsReply
}

// observe asks the server what a user sees. Each caller calls whoami
// first: after a restart a session counts as stopped until it calls, so
// who shows it again only after its call.
func observe(t *testing.T, s *server) observed {
	t.Helper()
	o := observed{Whoami: map[string]wire.WhoamiReply{}}
	for _, me := range []string{mikePerson, mikeSession, annSession} {
		var w wire.WhoamiReply
		decodeReply(t, s.must("/v1/whoami", "", map[string]any{"me": me}), &w)
		o.Whoami[me] = w
	}
	decodeReply(t, s.must("/v1/who", "", map[string]any{"me": mikeSession, "all": true}), &o.Who)
	for i := range o.Who.Rows {
		o.Who.Rows[i].SeenMs = 0 // the time of the last call: it moves
	}
	decodeReply(t, s.must("/v1/read", "", map[string]any{"me": annSession, "thread": "acme/app", "all": true}), &o.Read)
	decodeReply(t, s.must("/v1/riff", "", map[string]any{"me": mikeSession}), &o.Pauses)
	decodeReply(t, s.must("/v1/threads", "", map[string]any{"me": annSession}), &o.Threads)
	for i := range o.Threads.Threads {
		o.Threads.Threads[i].Unread = 0 // a read with all moves no cursor, but a crash may lose one
	}
	return o
}

func decodeReply(t *testing.T, r reply, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("the reply %s does not read: %v", r, err)
	}
}

// loadRiff loads a directory as a start does, and gives the written
// riff.
func loadRiff(t *testing.T, path string) (*riffstate.Riff, uint64) {
	t.Helper()
	st, err := dir.Open(path)
	if err != nil {
		t.Fatalf("dir.Open(%s): %v", path, err)
	}
	loaded, err := riffengine.Load(context.Background(), st, riffstate.Options{})
	if err != nil {
		t.Fatalf("riffengine.Load(%s): %v", path, err)
	}
	return loaded.State.Written().Riff(), loaded.Replayed.Last
}

// riffOpts compare two riffs: an empty map is an empty map, from the log
// or from a checkpoint.
// riffOpts leaves out the array that a thread's kept messages move in:
// memory, not state.
var riffOpts = cmp.Options{cmpopts.EquateEmpty(), cmpopts.IgnoreFields(riffstate.Thread{}, "kept")}

// TestRestart runs the work of a riff on a real directory, stops the
// server (SIGTERM, then kill -9 in a second run), starts it again on the
// same directory, and checks that a user sees the same riff, that a load
// of the directory gives the riff of before the stop, and that the first
// command after the restart works.
func TestRestart(t *testing.T) {
	needBinary(t)
	for _, tc := range []struct {
		name string
		stop func(*server)
		// checkpoint: the stop writes a last checkpoint.
		checkpoint bool
	}{
		{name: "SIGTERM", stop: (*server).stop, checkpoint: true},
		{name: "kill -9", stop: (*server).kill},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := t.TempDir()
			s := start(t, serverOpts{dir: path})
			replies := map[string]string{}
			for _, c := range restartScript {
				replies[c.id] = string(s.must(c.path, c.id, c.body).Body)
			}
			before := observe(t, s)
			riffBefore, position := loadRiff(t, path)
			if got := len(riffBefore.Claims); got != 2 {
				t.Errorf("the riff before the stop holds %d claims; want 2 (issue-12 and issue-13)", got)
			}

			tc.stop(s)
			s.checkLines()
			if tc.checkpoint {
				wantLines(t, s, "riff-server stops: it writes what waits and a last checkpoint", "checkpoint", "riff-server stopped")
				if msgs := messages(s.Lines(), "failed"); len(msgs) > 0 {
					t.Errorf("a normal stop wrote failed lines: %v", msgs)
				}
			}

			riffStopped, stoppedAt := loadRiff(t, path)
			if stoppedAt != position {
				t.Errorf("the log after the stop ends at %d; want %d", stoppedAt, position)
			}
			if diff := cmp.Diff(riffBefore, riffStopped, riffOpts); diff != "" {
				t.Errorf("Load after the stop differs from the riff before it (-before +after):\n%s", diff)
			}

			s2 := start(t, serverOpts{dir: path})
			after := observe(t, s2)
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("what a user sees after the restart differs (-before +after):\n%s", diff)
			}
			riffAfter, _ := loadRiff(t, path)
			if diff := cmp.Diff(riffBefore, riffAfter, riffOpts); diff != "" {
				t.Errorf("Load after the restart differs from the riff before the stop (-before +after):\n%s", diff)
			}

			// The first command after the restart works, and a claim of
			// the other session is still refused as held.
			s2.must("/v1/claim", "c-after-1", map[string]any{"me": mikeSession, "item": "issue-20"})
			r, err := post(context.Background(), s2.URL, "/v1/claim", "c-after-2", map[string]any{"me": annSession, "thread": "acme/app", "item": "issue-12"})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != http.StatusConflict || r.Header.Get(wire.HeaderRefused) != string(wire.Held) {
				t.Errorf("claim of issue-12 by ann after the restart = %v (riff-refused %q); want 409 held", r, r.Header.Get(wire.HeaderRefused))
			}
			s2.stop()
			s2.checkLines()
		})
	}
}

// wantLines checks that the messages come in the log lines, in order.
func wantLines(t *testing.T, s *server, want ...string) {
	t.Helper()
	lines := s.Lines()
	i := 0
	for _, l := range lines {
		if i < len(want) && l.Message == want[i] {
			i++
		}
	}
	if i < len(want) {
		t.Errorf("the log lines lack %q (in this order after the ones before it):\n%s", want[i], s.stderrText())
	}
}

// messages gives the lines with the message.
func messages(lines []logLine, message string) []string {
	return rawLines(lines, func(l logLine) bool { return l.Message == message })
}

// rawLines gives the lines that keep takes, as the server wrote them.
func rawLines(lines []logLine, keep func(logLine) bool) []string {
	var out []string
	for _, l := range lines {
		if keep(l) {
			out = append(out, l.Raw)
		}
	}
	return out
}

// TestRestartRepeatedCall sends a command again with its call ID after a
// restart: the server gives the kept reply (riff-repeat: 1), the same as
// the first, and writes no record.
func TestRestartRepeatedCall(t *testing.T) {
	needBinary(t)
	for _, tc := range []struct {
		name string
		stop func(*server)
	}{
		{name: "SIGTERM", stop: (*server).stop},
		{name: "kill -9", stop: (*server).kill},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := t.TempDir()
			s := start(t, serverOpts{dir: path})
			s.must("/v1/resume", "r-1", map[string]any{"me": mikePerson, "riff": true})
			first := s.must("/v1/claim", "r-2", map[string]any{"me": mikeSession, "item": "issue-12"})
			_, position := loadRiff(t, path)
			tc.stop(s)

			s2 := start(t, serverOpts{dir: path})
			again := s2.must("/v1/claim", "r-2", map[string]any{"me": mikeSession, "item": "issue-12"})
			if got := again.Header.Get(wire.HeaderRepeat); got != "1" {
				t.Errorf("the repeated claim after the restart has riff-repeat %q; want 1", got)
			}
			if _, now := loadRiff(t, path); now != position {
				t.Errorf("the repeated claim moved the log from %d to %d; want no record", position, now)
			}
			if got, want := string(again.Body), string(first.Body); got != want {
				t.Errorf("the repeated claim after the restart replied %s; want the first reply %s", got, want)
			}
			s2.stop()
		})
	}
}
