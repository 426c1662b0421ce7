package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/render"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/wire"
)

// guideDir holds the guide's example riff of riff top: the reply of the
// server and what gh gives for each repository. The table's own goldens
// (riffclient/top) read the same files.
const guideDir = "../../riffclient/top/testdata/guide"

// fakeGH writes a gh that answers gh issue list and gh pr list of the
// repositories of the guide's example from guideDir, and fails for any
// other repository (as gh does for a repository that it cannot read).
// It gives the folder to put on the PATH.
func fakeGH(t *testing.T) string {
	t.Helper()
	guide, err := filepath.Abs(guideDir)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := `#!/bin/sh
# gh issue list --repo OWNER/REPO ... and gh pr list --repo OWNER/REPO ...
kind=$1
case "$4" in
como-technologies/riff) repo=riff ;;
como-technologies/strata) repo=strata ;;
*) echo "GraphQL: Could not resolve to a Repository" >&2; exit 1 ;;
esac
case "$kind" in
issue) cat "` + guide + `/issues-$repo.json" ;;
pr) cat "` + guide + `/pulls-$repo.json" ;;
*) exit 1 ;;
esac
`
	if err := writeExecutable(filepath.Join(dir, "gh"), []byte(script)); err != nil {
		t.Fatal(err)
	}
	return dir
}

func guideReply(t *testing.T) *wire.TopReply {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(guideDir, "reply.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r wire.TopReply
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// runTop runs riff in this process as runner does, with a terminal of
// width cells (0: a pipe) and the env of env.
func runTop(t *testing.T, server, dir string, width int, env map[string]string, args ...string) (string, string, int) {
	t.Helper()
	b, _ := build.ParseBuild(testBuild)
	all := map[string]string{"USER": "mike", "RIFF_SERVER": server, "PWD": dir}
	for k, v := range env {
		all[k] = v
	}
	var stdout, stderr syncBuffer
	s := &system{
		env:      func(k string) string { return all[k] },
		stdin:    strings.NewReader(""),
		stdout:   &stdout,
		stderr:   &stderr,
		getwd:    func() (string, error) { return dir, nil },
		hostname: func() (string, error) { return "pangolin.example.com", nil },
		build:    b,
		loc:      time.UTC,
		now:      func() time.Time { return time.Date(2026, 9, 27, 14, 0, 0, 0, time.UTC) },
		terminal: func(io.Writer) (bool, int) { return width > 0, width },
		client:   func(o *riffclient.Options) { o.Budget = 2 * time.Second },
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code := s.run(ctx, args)
	return stdout.String(), stderr.String(), code
}

// The goldens: riff top --once for the guide's example riff
// (people, hosts, leads, workers, a blocked session with no answer, an
// old riff, a paused repository, a fake gh with issues and pull
// requests), at 80 columns (a pipe) and at a wide terminal, with and
// without color. NO_COLOR takes the color away in a terminal, and
// --color always keeps it in a pipe.
func TestGivenTheGuideExampleWhenRiffTopOnceThenTheGoldenAt80ColumnsAndWideWithAndWithoutColor(t *testing.T) {
	fake := &fakeServer{t: t, build: testBuild, topReply: guideReply(t)}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	dir := repoDir(t)
	path := fakeGH(t) + ":" + os.Getenv("PATH")
	for _, tc := range []struct {
		name  string
		width int
		env   map[string]string
		args  []string
	}{
		{"top-once-80", 0, nil, []string{"top", "--once"}},
		{"top-once-80-color", 0, nil, []string{"top", "--once", "--color", "always"}},
		{"top-once-wide", 160, map[string]string{"NO_COLOR": "1"}, []string{"top", "--once"}},
		{"top-once-wide-color", 160, nil, []string{"top", "--once"}},
		{"top-once-by-repo", 0, nil, []string{"top", "--once", "--by", "repo"}},
		{"top-once-user-repo", 0, nil, []string{"top", "--once", "--user", "mike", "--repo", "como-technologies/strata"}},
		{"top-once-host", 0, nil, []string{"top", "--once", "--host", "pangolin"}},
		{"top-bad-repo", 0, nil, []string{"top", "--once", "--repo", "strata"}},
		{"top-bad-by", 0, nil, []string{"top", "--once", "--by", "host"}},
		{"help-top", 0, nil, []string{"help", "top"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"PATH": path}
			for k, v := range tc.env {
				env[k] = v
			}
			fake.mu.Lock()
			fake.calls = nil
			fake.mu.Unlock()
			stdout, stderr, code := runTop(t, srv.URL, dir, tc.width, env, tc.args...)
			limit := tc.width
			if limit == 0 {
				limit = 80
			}
			for _, line := range strings.Split(stripSGR(stdout), "\n") {
				if n := cells(line); n > limit && tc.name != "help-top" {
					t.Errorf("a line of %d cells, wider than %d: %q", n, limit, line)
				}
			}
			// The calls show that riff top only reads: one look, no post.
			checkGolden(t, "top", tc.name, transcript(tc.args, stdout, stderr, code, fake.Calls()))
		})
	}
}

// With no gh on the PATH the table has no board and no title.
func TestGivenNoGHOnThePathWhenRiffTopOnceThenNoBoardAndNoTitle(t *testing.T) {
	fake := &fakeServer{t: t, build: testBuild, topReply: guideReply(t)}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	stdout, stderr, code := runTop(t, srv.URL, repoDir(t), 0, map[string]string{"PATH": t.TempDir()}, "top", "--once")
	if code != 0 || stderr != "" || strings.Contains(stdout, "Wave") || strings.Contains(stdout, "Fix the help") || !strings.Contains(stdout, "working on #7\n") {
		t.Errorf("riff top --once with no gh: code %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}

// The first look that fails ends riff top with the error of the call.
func TestGivenNoServerWhenRiffTopThenItEndsWithTheErrorOfTheFirstLook(t *testing.T) {
	_, stderr, code := runTop(t, "127.0.0.1:1", repoDir(t), 0, nil, "top")
	if code != exitFail || !strings.Contains(stderr, "Error: cannot reach riff-server at http://127.0.0.1:1") {
		t.Errorf("riff top with no server: code %d, stderr %q", code, stderr)
	}
}

// stripSGR removes the color codes of a text.
func stripSGR(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// cells gives the width of a line in the cells of a terminal.
func cells(s string) int { return render.Cells(s) }
