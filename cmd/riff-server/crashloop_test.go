package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/rifflog"
)

// newestCheckpoint gives the position of the newest checkpoint in a
// directory store, or 0.
func newestCheckpoint(t *testing.T, path string) uint64 {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(path, "checkpoint"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var newest uint64
	for _, e := range entries {
		if p, _, ok := rifflog.ParseCheckpointName(rifflog.CheckpointPrefix + e.Name()); ok && p > newest {
			newest = p
		}
	}
	return newest
}

// tempFiles lists the temporary files of a directory store.
func tempFiles(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".tmp-") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A crash loop: riff-server is killed with -9 after fewer records than a
// checkpoint needs, again and again. The count toward the next
// checkpoint starts at the newest checkpoint, not at zero at each start:
// a start that is a checkpoint's worth of records past it writes one
// soon after it serves, so the replay of each start stays short. And the
// temporary files that the killed process left are gone once the next
// start serves.
func TestGivenAServerKilledAgainAndAgainBeforeACheckpointWhenItStartsThenItCountsFromTheNewestCheckpoint(t *testing.T) {
	needBinary(t)
	const every, perRound, rounds = 40, 15, 8
	path := t.TempDir()
	opts := serverOpts{dir: path, args: []string{"--checkpoint-every", fmt.Sprint(every)}}
	me := "riff://k0@pangolin/acme/app?session=a000"
	if err := os.MkdirAll(filepath.Join(path, "checkpoint"), 0o700); err != nil {
		t.Fatal(err)
	}
	// A first run with no checkpoint (an older build, or kills before
	// each 1,000 records) leaves 50 records past none.
	first := start(t, serverOpts{dir: path, args: []string{"--checkpoint-every", "1000000000"}})
	first.must("/v1/resume", "loop-resume", map[string]any{"me": "riff://k0@pangolin/acme/app", "riff": true})
	for i := range 50 {
		call := fmt.Sprintf("first-n%02d", i)
		first.must("/v1/claim", call, map[string]any{"me": me, "item": "item-" + call})
	}
	first.kill()
	if n := newestCheckpoint(t, path); n != 0 {
		t.Fatalf("the first run wrote a checkpoint at %d", n)
	}
	checkpointsWritten := 0
	for round := 1; round <= rounds; round++ {
		// What a killed checkpoint leaves: a temporary file of another
		// process, as large as the state, younger than ten minutes.
		planted := filepath.Join(path, "checkpoint", fmt.Sprintf(".tmp-%d-0000deadbeef-1", time.Now().UnixNano()))
		if err := os.WriteFile(planted, make([]byte, 1<<20), 0o600); err != nil {
			t.Fatal(err)
		}
		left := tempFiles(t, path) // with the spare chunk file of the killed process
		newest := newestCheckpoint(t, path)

		s := start(t, opts)
		var facts wire.ServerFacts
		r, err := s.get("/v1/server")
		if err != nil {
			t.Fatal(err)
		}
		decodeReply(t, r, &facts)
		// The one that it may write right after it serves is not in it.
		since := facts.Position - newest
		if since >= every {
			deadline := time.Now().Add(30 * time.Second)
			for newestCheckpoint(t, path) < facts.Position {
				if time.Now().After(deadline) {
					t.Fatalf("round %d: the start is %d records past the newest checkpoint (at %d), and wrote no checkpoint in 30 s after it served:\n%s",
						round, since, newestCheckpoint(t, path), s.stderrText())
				}
				time.Sleep(20 * time.Millisecond)
			}
			checkpointsWritten++
		}
		for _, f := range left {
			if _, err := os.Stat(f); err == nil {
				t.Errorf("round %d: the leftover %s of the killed process is still there after the start served", round, f)
			}
		}
		for i := range perRound {
			call := fmt.Sprintf("r%02d-n%02d", round, i)
			s.must("/v1/claim", call, map[string]any{"me": me, "item": "item-" + call})
		}
		s.kill()
	}
	if checkpointsWritten == 0 {
		t.Errorf("no start wrote a checkpoint, and the first was 50 records past none")
	}
	s := start(t, opts)
	defer s.kill()
	var facts wire.ServerFacts
	r, err := s.get("/v1/server")
	if err != nil {
		t.Fatal(err)
	}
	decodeReply(t, r, &facts)
	if replay := facts.Position - newestCheckpoint(t, path); replay > every+perRound+2 {
		t.Errorf("after %d kills the start replays %d records (position %d); want at most a checkpoint's worth and one round (%d)",
			rounds, replay, facts.Position, every+perRound+2)
	}
}
