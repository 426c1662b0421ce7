package top

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffclient/forge"
	"github.com/como-technologies/riff/riffclient/render"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

var update = flag.Bool("update", false, "write the golden files")

// guide gives the snapshot of the guide's example riff (testdata/guide):
// three people, three hosts, leads, workers, a container, a blocked
// session whose lead gave no answer, a lead that runs an old riff, a
// paused repository, and what a gh read of each repository.
func guide(t *testing.T) Snapshot {
	t.Helper()
	var reply wire.TopReply
	if err := json.Unmarshal(read(t, "reply.json"), &reply); err != nil {
		t.Fatal(err)
	}
	mine, err := build.ParseBuild(reply.Build)
	if err != nil {
		t.Fatal(err)
	}
	s := Snapshot{Reply: reply, Mine: mine, Forge: map[name.Repo]forge.Repo{}}
	for _, repo := range []string{"riff", "strata"} {
		f, err := forge.Parse(read(t, "issues-"+repo+".json"), read(t, "pulls-"+repo+".json"))
		if err != nil {
			t.Fatal(err)
		}
		s.Forge[name.Repo("como-technologies/"+repo)] = f
	}
	return s
}

func read(t *testing.T, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "guide", file))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// sgr paints each style as the terminal of riff does (cmd/riff
// colors.go), so that a golden shows where each color goes.
func sgr(p render.Part) string {
	code := map[render.Style]string{render.Good: "32", render.Warn: "33", render.Bad: "31", render.Faint: "2",
		render.Strong: "1", render.Named: "36", render.Person: "1;36"}[p.Style]
	return "\x1b[" + code + "m" + p.Text + "\x1b[0m"
}

func golden(t *testing.T, file string, lines []string) {
	t.Helper()
	got := strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", file)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs; got:\n%s", file, got)
	}
}

// The guide, "See what each session does": the table of its example at
// 80 columns (a pipe) and at a wide terminal, with and without color.
func TestGivenTheGuideExampleWhenTheTableIsDrawnThenItIsTheGoldenAt80ColumnsAndWideWithAndWithoutColor(t *testing.T) {
	s := guide(t)
	for _, tc := range []struct {
		file  string
		width int
		paint render.Paint
	}{
		{"guide-80.golden", 80, nil},
		{"guide-wide.golden", 160, nil},
		{"guide-80-color.golden", 80, sgr},
		{"guide-wide-color.golden", 160, sgr},
	} {
		t.Run(tc.file, func(t *testing.T) {
			lines := Render(s, tc.width, tc.paint)
			for _, l := range Render(s, tc.width, nil) {
				if n := render.Cells(l); n > tc.width {
					t.Errorf("a line of %d cells at the width %d: %q", n, tc.width, l)
				}
			}
			golden(t, tc.file, lines)
		})
	}
}

// --by repo puts the repositories at the top of the tree.
func TestGivenTheGuideExampleWhenByRepoThenTheTreeIsRepositoryPersonHostSession(t *testing.T) {
	s := guide(t)
	s.By = ByRepo
	golden(t, "guide-by-repo.golden", Render(s, 80, nil))
}

// --user, --host and --repo filter the tree and the boards, and combine.
func TestGivenFiltersWhenTheTableIsDrawnThenOnlyTheSessionsThatMatchEachShowAndTheBoardsOfTheirRepositories(t *testing.T) {
	s := guide(t)
	s.Filter = Filter{User: "mike", Repo: "como-technologies/strata"}
	golden(t, "guide-mike-strata.golden", Render(s, 80, nil))
	s.Filter = Filter{Host: "pangolin"}
	golden(t, "guide-pangolin.golden", Render(s, 80, nil))
}

// With no gh there are no boards and no titles; a repository that gh
// cannot read has no board and no titles, and no error line.
func TestGivenNoGHOrARepositoryThatGHCannotReadThenNoBoardAndNoTitlesAndNoErrorLine(t *testing.T) {
	s := guide(t)
	s.Forge = nil
	text := strings.Join(Render(s, 200, nil), "\n")
	for _, absent := range []string{"Wave", "Fix the help", "claimed:", "gh"} {
		if strings.Contains(text, absent) {
			t.Errorf("with no gh the table has %q:\n%s", absent, text)
		}
	}
	s = guide(t)
	delete(s.Forge, "como-technologies/strata")
	text = strings.Join(Render(s, 200, nil), "\n")
	if strings.Contains(text, "Wave 5") || strings.Contains(text, "Split the store") || !strings.Contains(text, "Wave 3") {
		t.Errorf("a repository that gh cannot read has a board or titles:\n%s", text)
	}
}

// When the looks fail, the last table stays under a red first line with
// the time of the last good look and the fault.
func TestGivenAFaultWhenTheTableIsDrawnThenItsFirstLineIsRedWithTheTimeOfTheLastGoodLook(t *testing.T) {
	s := guide(t)
	s.Fault = &Fault{Since: time.Date(2026, 12, 2, 21, 35, 7, 0, time.UTC), Text: "riff-server gave no reply in 60 seconds"}
	lines := Table(s)
	first := lines[0]
	if len(first) != 1 || first[0].Style != render.Bad || first[0].Text != "riff: no good look since 21:35:07: riff-server gave no reply in 60 seconds" {
		t.Errorf("first line = %+v", first)
	}
}

// Fit cuts a line with … and never splits a wide character.
func TestFitCutsAtTheWidthWithAnEllipsisAndNeverSplitsAWideCharacter(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  string
	}{
		{"abcdef", 6, "abcdef"},
		{"abcdefg", 6, "abcde…"},
		{"ab漢字cd", 6, "ab漢…"}, // 字 would end at 6 cells, with no room for …
		{"ab漢字cd", 4, "ab…"},
		{"e\u0301e\u0301e\u0301e\u0301", 3, "e\u0301e\u0301…"},
	} {
		got := Fit(plain(tc.in), tc.width)
		text := ""
		for _, p := range got {
			text += p.Text
		}
		if text != tc.want || got.Cells() > tc.width {
			t.Errorf("Fit(%q, %d) = %q (%d cells); want %q", tc.in, tc.width, text, got.Cells(), tc.want)
		}
	}
}

// In a repository a blocked session comes first, then the order of the
// session IDs; people in the order of user, hosts of name.
func TestGivenABlockedSessionWithALaterIDThenItComesFirstInItsRepository(t *testing.T) {
	row := func(uri, state string) wire.TopRow {
		u, err := name.ParseURI(uri)
		if err != nil {
			t.Fatal(err)
		}
		return wire.TopRow{WhoRow: wire.WhoRow{URI: u, State: state}}
	}
	s := Snapshot{Reply: wire.TopReply{
		Rows: []wire.TopRow{
			row("riff://zed@b-host/o/r?session=11111111", "idle"),
			row("riff://zed@b-host/o/r?session=ffffffff", "blocked"),
			row("riff://zed@a-host/o/r?session=22222222", "busy"),
			row("riff://amy@b-host/o/r?session=33333333", "idle"),
		},
		People: []wire.TopPerson{{User: "zed", Online: true}, {User: "amy", Online: true}},
	}}
	var order []string
	for _, l := range Render(s, 80, nil) {
		for _, w := range []string{"amy", "zed", "a-host", "b-host", "11111111", "ffffffff", "22222222", "33333333"} {
			if strings.Contains(l, w) {
				order = append(order, w)
			}
		}
	}
	want := "amy b-host 33333333 zed a-host 22222222 b-host ffffffff 11111111"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("order = %s; want %s", got, want)
	}
}

// The guide's example as the guide prints it, strata running: brett's
// worker busy, the lead of strata idle, no fact of a pause. Its lines
// are the guide's but for the counts, which add up here (the guide's
// example says 3 idle on thelio over 2 idle sessions; docs/decisions.md).
func TestGivenTheGuideExampleWithStrataRunningThenTheTreeIsTheGuides(t *testing.T) {
	s := guide(t)
	s.Reply.Pauses = wire.Pauses{}
	for i := range s.Reply.Boards {
		s.Reply.Boards[i].Paused = false
	}
	for i, r := range s.Reply.Rows {
		switch r.URI.Session[:8] {
		case "7a8b9c0d":
			s.Reply.Rows[i].State, s.Reply.Rows[i].First, s.Reply.Rows[i].Facts = "busy", "", nil
		case "6d2b7c1a":
			s.Reply.Rows[i].State, s.Reply.Rows[i].First = "idle", "monitoring work for 1h"
		}
	}
	golden(t, "guide-running.golden", Render(s, 80, nil))
}
