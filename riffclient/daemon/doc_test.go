package daemon

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// docs/daemon.md as written: its riff.toml reads, and its unit is the
// text that riff daemon install writes.

func daemonPage(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "daemon.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func block(t *testing.T, page, lang string) string {
	t.Helper()
	m := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("docs/daemon.md has no ```%s block", lang)
	}
	return m[1]
}

func TestGivenTheRiffTomlOfTheDaemonPageWhenRiffReadsItThenItIsGood(t *testing.T) {
	s, err := ReadSettings(block(t, daemonPage(t), "toml"))
	if err != nil {
		t.Fatalf("the riff.toml of docs/daemon.md: %v", err)
	}
	if len(s.Sources) != 2 || len(s.Env) != 1 || len(s.Volumes) != 1 {
		t.Errorf("the riff.toml of docs/daemon.md gives %+v", s)
	}
}

func TestGivenTheUnitOfTheDaemonPageThenItIsTheTextThatRiffDaemonInstallWrites(t *testing.T) {
	got := block(t, daemonPage(t), "ini")
	want := UnitText("/home/mike/.local/bin/riff", []string{"RIFF_SERVER=http://thelio:7878"})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the unit of docs/daemon.md (-riff writes +the page):\n%s", diff)
	}
}
