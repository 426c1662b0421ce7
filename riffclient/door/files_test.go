package door

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/como-technologies/riff/riffclient/local"
	"github.com/como-technologies/riff/riffcore/name"
)

func TestGivenNoFactWhenReadThenItIsTheZeroFact(t *testing.T) {
	f, err := (Files{Dir: t.TempDir()}).ReadFact("s1")
	if err != nil || f != (Fact{}) {
		t.Errorf("ReadFact = %+v, %v; want the zero fact", f, err)
	}
}

func TestGivenAFactWhenWrittenThenItReadsBackInAPrivateFile(t *testing.T) {
	dir := t.TempDir()
	want := Fact{Activity: "runs Bash: run the tests", ActivityAtMs: 5, PromptAtMs: 3, Tool: "Bash"}
	if err := (Files{Dir: dir}).WriteFact("s1", want); err != nil {
		t.Fatal(err)
	}
	got, err := (Files{Dir: dir}).ReadFact("s1")
	if err != nil || got != want {
		t.Errorf("ReadFact = %+v, %v; want %+v", got, err, want)
	}
	info, err := os.Stat(filepath.Join(dir, "sessions", "s1", "fact"))
	if err != nil || info.Mode().Perm() != local.FileMode {
		t.Errorf("mode of the fact = %v, %v; want %v", info.Mode().Perm(), err, local.FileMode)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "sessions", "s1"))
	if len(entries) != 1 {
		t.Errorf("the folder of the session holds %d files; want only the fact (no temp file)", len(entries))
	}
}

func TestGivenASessionIDThatNamesAnotherPathWhenAFactIsWrittenThenItIsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{"../x", "a/b", ""} {
		if err := (Files{Dir: dir}).WriteFact(id, Fact{}); err == nil {
			t.Errorf("WriteFact(%q) = nil; want an error", id)
		}
	}
}

func TestGivenAFactWhenAKeepAliveCarriesItThenItHasTheAgesOfTheFactAndOfThePrompt(t *testing.T) {
	me := name.SessionURI{User: "ann", Host: "h", Session: "s1"}
	f := Fact{Activity: "runs Bash: run just ci", ActivityAtMs: 1_000, PromptAtMs: 500}
	a := f.Alive(me, 241_000)
	if a.Me.String() != me.String() || a.Activity != "runs Bash: run just ci" || a.ActivitySecs == nil || *a.ActivitySecs != 240 || a.PromptSecs == nil || *a.PromptSecs != 240 {
		t.Errorf("Alive = %+v; want the activity 240 s old and the prompt 240 s old", a)
	}
	if a := (Fact{}).Alive(me, 5); a.Activity != "" || a.ActivitySecs != nil || a.PromptSecs != nil {
		t.Errorf("Alive of no fact = %+v; want only me", a)
	}
}

func TestGivenAnAskToClearWhenItIsKeptAndRemovedThenClearSaysSo(t *testing.T) {
	dir := t.TempDir()
	for _, ask := range []bool{true, false, false} {
		if err := (Files{Dir: dir}).SetClear("s1", ask); err != nil {
			t.Fatal(err)
		}
		if got, err := (Files{Dir: dir}).Clear("s1"); err != nil || got != ask {
			t.Errorf("Clear after SetClear(%v) = %v, %v", ask, got, err)
		}
	}
}

func TestGivenPrintedWakesWhenWrittenThenTheyReadBack(t *testing.T) {
	dir := t.TempDir()
	if w, err := (Files{Dir: dir}).ReadWoke("s1"); err != nil || len(w.Seqs) != 0 || w.Riff != "" {
		t.Fatalf("ReadWoke of none = %v, %v", w, err)
	}
	if err := (Files{Dir: dir}).WriteWoke("s1", Woke{Riff: "r1", Seqs: map[string]uint64{"chat": 3, "dm:ann": 7}}); err != nil {
		t.Fatal(err)
	}
	if w, err := (Files{Dir: dir}).ReadWoke("s1"); err != nil || w.Riff != "r1" || w.Seqs["chat"] != 3 || w.Seqs["dm:ann"] != 7 {
		t.Errorf("ReadWoke = %v, %v", w, err)
	}
}

// TestGivenTheWokeMarksOfOneRiffWhenAWakeOfAnotherRiffComesThenItIsNewAndTheMarksStartAgain:
// a new riff behind the same address numbers its messages from 1 again.
func TestGivenTheWokeMarksOfOneRiffWhenAWakeOfAnotherRiffComesThenItIsNewAndTheMarksStartAgain(t *testing.T) {
	w := Woke{}
	steps := []struct {
		riff, thread string
		seq          uint64
		want         bool
	}{
		{"r1", "dm:ann", 3, true},
		{"r1", "dm:ann", 3, false},
		{"r1", "dm:ann", 2, false},
		{"r2", "dm:ann", 1, true},
		{"r2", "dm:ann", 1, false},
		{"r2", "chat", 1, true},
		{"", "dm:ann", 1, true},
		{"", "dm:ann", 1, false},
	}
	for i, s := range steps {
		if got := w.Take(s.riff, s.thread, s.seq); got != s.want {
			t.Errorf("step %d: Take(%q, %q, %d) = %v; want %v (marks %v)", i, s.riff, s.thread, s.seq, got, s.want, w)
		}
	}
}
