package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/dir"
)

// facts gives GET /v1/server.
func (s *server) facts() wire.ServerFacts {
	s.t.Helper()
	r, err := s.get("/v1/server")
	if err != nil {
		s.t.Fatalf("GET /v1/server: %v", err)
	}
	var f wire.ServerFacts
	if err := json.Unmarshal(r.Body, &f); err != nil {
		s.t.Fatalf("GET /v1/server = %s: %v", r, err)
	}
	return f
}

// ageLease makes the lease in a directory as old as LeaseAge and a
// second, as it is 90 s after the last write of an instance that
// crashed (a stop ends its lease: TestLogCutRightAfterStop).
func ageLease(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	st, err := dir.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	r, gen, ok, err := rifflog.ReadLease(ctx, st)
	if err != nil || !ok {
		t.Fatalf("ReadLease = %v, %v; want the lease of the stopped server", ok, err)
	}
	r.WrittenAtMs = time.Now().Add(-rifflog.LeaseAge - time.Second).UnixMilli()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Swap(ctx, rifflog.LeaseName, data, gen); err != nil {
		t.Fatalf("age the lease: %v", err)
	}
}

// snapshot gives each object file of the log and the checkpoints with
// its bytes (not the temporary files of a serving instance).
func snapshot(t *testing.T, path string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, sub := range []string{"log", "checkpoint"} {
		err := filepath.WalkDir(filepath.Join(path, sub), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if strings.HasPrefix(d.Name(), ".") {
				// A temporary file of a serving instance (the spare of
				// its next chunk, made at any time): no object of the log.
				return nil
			}
			b, err := os.ReadFile(p)
			rel, _ := filepath.Rel(path, p)
			out[filepath.ToSlash(rel)] = string(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// printed gives the positions of the lines of riff-server log.
func printed(t *testing.T, out string) []uint64 {
	t.Helper()
	var ps []uint64
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		p, err := strconv.ParseUint(strings.Fields(line)[0], 10, 64)
		if err != nil {
			t.Fatalf("the line %q of riff-server log does not start with a position", line)
		}
		ps = append(ps, p)
	}
	return ps
}

func span(from, to uint64) []uint64 {
	var ps []uint64
	for p := from; p <= to; p++ {
		ps = append(ps, p)
	}
	return ps
}

// TestLogTools runs riff-server log, log verify and log cut as a person
// runs them, on a directory that a real server wrote in two runs.
func TestLogTools(t *testing.T) {
	needBinary(t)
	path := t.TempDir()

	// The first run ends with a stop: a checkpoint at p1, and the chunks
	// before it are gone.
	s := start(t, serverOpts{dir: path})
	s.must("/v1/resume", "t-1", map[string]any{"me": mikePerson, "riff": true})
	s.must("/v1/claim", "t-2", map[string]any{"me": mikeSession, "item": "issue-1"})
	p1 := s.facts().Position
	s.stop()

	// The second run: work up to cut (in the middle of the chunk of
	// ann's first claim: its session_started and joined_thread stay, its
	// claimed goes), then work after it.
	s = start(t, serverOpts{dir: path})
	s.must("/v1/post", "t-3", map[string]any{"me": mikeSession, "body": "before the cut"})
	s.must("/v1/claim", "t-4", map[string]any{"me": annSession, "item": "issue-3"})
	cut := s.facts().Position - 1
	s.must("/v1/post", "t-5", map[string]any{"me": annSession, "body": "after the cut"})
	s.must("/v1/hold", "t-6", map[string]any{"me": mikePerson, "item": "issue-9", "reason": "waits for the review"})
	last := s.facts().Position
	s.stop()
	ageLease(t, path)
	t.Logf("checkpoint at %d, cut after %d, last %d", p1, cut, last)

	t.Run("log", func(t *testing.T) {
		out, errOut, code := runTool(t, path, "log")
		if code != 0 {
			t.Fatalf("riff-server log exited %d: %s", code, errOut)
		}
		if diff := cmp.Diff(span(p1+1, last), printed(t, out)); diff != "" {
			t.Errorf("riff-server log printed the positions (-want +got):\n%s\n%s", diff, out)
		}
		for _, want := range []string{"post", "claimed", "hold", "issue-3"} {
			if !strings.Contains(out, want) {
				t.Errorf("riff-server log does not name %q:\n%s", want, out)
			}
		}
		if !strings.Contains(errOut, fmt.Sprintf("up to position %d are in the checkpoint", p1)) {
			t.Errorf("riff-server log does not say where the kept records start: %q", errOut)
		}
		out, errOut, code = runTool(t, path, "log", "--from", strconv.FormatUint(cut, 10))
		if code != 0 {
			t.Fatalf("riff-server log --from %d exited %d: %s", cut, code, errOut)
		}
		if diff := cmp.Diff(span(cut, last), printed(t, out)); diff != "" {
			t.Errorf("riff-server log --from %d printed the positions (-want +got):\n%s", cut, diff)
		}
	})

	t.Run("verify", func(t *testing.T) {
		out, errOut, code := runTool(t, path, "log", "verify")
		if code != 0 || !strings.Contains(out, "the log reads: no problem") {
			t.Errorf("riff-server log verify = %d, %q, %q; want 0 and the log reads", code, out, errOut)
		}
	})

	t.Run("verify names a flipped chunk", func(t *testing.T) {
		broken := t.TempDir()
		if err := os.CopyFS(broken, os.DirFS(path)); err != nil {
			t.Fatal(err)
		}
		chunk := rifflog.ChunkName(last) // the chunk of the hold, the last command
		file := filepath.Join(broken, filepath.FromSlash(chunk))
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("read %s: %v", chunk, err)
		}
		i := strings.Index(string(data), "\"position\"") + 2 // a byte of the record line
		data[i] ^= 0x01
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := runTool(t, broken, "log", "verify")
		if code == 0 || !strings.Contains(out, chunk) {
			t.Errorf("riff-server log verify of a flipped byte = %d, %q, %q; want an error that names %s", code, out, errOut, chunk)
		}
		if !strings.Contains(errOut, "log cut --after") {
			t.Errorf("riff-server log verify does not say how to restore: %q", errOut)
		}
		// A server does not start on a log that does not read.
		srv := start(t, serverOpts{dir: broken, noWait: true})
		code, text := srv.wait(30 * time.Second)
		if code == 0 || !strings.Contains(text, "cannot load the log") || !strings.Contains(text, chunk) {
			t.Errorf("riff-server on a flipped chunk exited %d with:\n%s\nwant an exit with the ERROR line that names %s", code, text, chunk)
		}
	})

	t.Run("cut", func(t *testing.T) {
		before := snapshot(t, path)
		// Before the checkpoint, with its chunks gone: refused.
		out, errOut, code := runTool(t, path, "log", "cut", "--after", "2", "--yes")
		if code == 0 || !strings.Contains(errOut, "gone") {
			t.Errorf("riff-server log cut --after 2 --yes = %d, %q, %q; want a refusal: the chunks before the checkpoint are gone", code, out, errOut)
		}
		// With no --yes: the plan, and nothing changes.
		at := strconv.FormatUint(cut, 10)
		out, errOut, code = runTool(t, path, "log", "cut", "--after", at)
		if code != 0 {
			t.Fatalf("riff-server log cut --after %s exited %d: %s", at, code, errOut)
		}
		for _, want := range []string{
			fmt.Sprintf("would remove %d records in the threads acme/app, acme/web", last-cut),
			"Nothing is removed",
			"issue-3", "issue-9",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("riff-server log cut --after %s does not say %q:\n%s", at, want, out)
			}
		}
		for p := cut + 1; p <= last; p++ {
			if !strings.Contains(out, fmt.Sprintf(`{"position":%d,`, p)) {
				t.Errorf("riff-server log cut --after %s does not name the record %d:\n%s", at, p, out)
			}
		}
		if diff := cmp.Diff(before, snapshot(t, path)); diff != "" {
			t.Errorf("riff-server log cut with no --yes changed the directory:\n%s", diff)
		}

		out, errOut, code = runTool(t, path, "log", "cut", "--after", at, "--yes")
		if code != 0 || !strings.Contains(out, fmt.Sprintf("removed %d records", last-cut)) {
			t.Fatalf("riff-server log cut --after %s --yes = %d, %q, %q", at, code, out, errOut)
		}
		if out, errOut, code := runTool(t, path, "log", "verify"); code != 0 {
			t.Errorf("riff-server log verify after the cut = %d, %q, %q", code, out, errOut)
		}
		out, _, _ = runTool(t, path, "log")
		if ps := printed(t, out); len(ps) == 0 || ps[len(ps)-1] != cut {
			t.Errorf("riff-server log after the cut ends at %v; want %d", ps, cut)
		}

		// A start serves the state at the cut.
		s := start(t, serverOpts{dir: path})
		if got := s.facts().Position; got != cut {
			t.Errorf("the server after the cut is at %d; want %d", got, cut)
		}
		riff, _ := loadRiff(t, path)
		var claims []string
		for _, h := range riff.Claims {
			claims = append(claims, string(h.Item))
		}
		if diff := cmp.Diff([]string{"issue-1"}, claims); diff != "" {
			t.Errorf("the claims after the cut (-want +got):\n%s", diff)
		}
		if len(riff.Holds) != 0 {
			t.Errorf("the holds after the cut = %v; want none", riff.Holds)
		}
		var read wire.ReadReply
		decodeReply(t, s.must("/v1/read", "", map[string]any{"me": annSession, "thread": "acme/web", "all": true}), &read)
		if strings.Contains(fmt.Sprint(read), "after the cut") {
			t.Errorf("ann reads a message that the cut removed: %+v", read)
		}
		// The removed claim can be made again, as the first command.
		s.must("/v1/claim", "t-after-cut", map[string]any{"me": annSession, "item": "issue-3"})

		// While the server holds the lease, a cut is refused.
		before = snapshot(t, path)
		out, errOut, code = runTool(t, path, "log", "cut", "--after", strconv.FormatUint(cut-1, 10), "--yes")
		if code == 0 || !strings.Contains(errOut, "holds the lease") {
			t.Errorf("riff-server log cut while a server serves = %d, %q, %q; want a refusal: the server holds the lease", code, out, errOut)
		}
		if diff := cmp.Diff(before, snapshot(t, path)); diff != "" {
			t.Errorf("a refused cut changed the directory:\n%s", diff)
		}
		s.stop()
	})
}

// TestLogCutRightAfterStop cuts the log at once after a normal stop, as
// the restore steps say (stop, verify, cut). The store design says a
// serving instance ends its lease at its shutdown, so the cut need not
// wait 90 s for the lease to age.
func TestLogCutRightAfterStop(t *testing.T) {
	needBinary(t)
	path := t.TempDir()
	s := start(t, serverOpts{dir: path})
	s.must("/v1/resume", "a-1", map[string]any{"me": mikePerson, "riff": true})
	s.must("/v1/claim", "a-2", map[string]any{"me": mikeSession, "item": "issue-1"})
	at := s.facts().Position
	s.stop()
	out, errOut, code := runTool(t, path, "log", "cut", "--after", strconv.FormatUint(at, 10), "--yes")
	if code != 0 {
		t.Errorf("riff-server log cut right after a stop = %d, %q, %q; want 0: a stop ends the lease", code, out, errOut)
	}
}
