package riffengine_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/mem"
)

// The messages of the warning lines of the records that the state did
// not take (docs/operations.md, "The lines").
const (
	cannotTake = "a record that the state cannot take changes nothing"
	skipsKind  = "a record of a kind or a value that this build does not know is skipped"
	moreDrops  = "more records that the state did not take have no line of their own: GET /v1/server counts each one"
)

// releaseLine is a released record of a claim that is not there: the
// state cannot take it.
func releaseLine(t testing.TB, p uint64) []byte {
	t.Helper()
	line, err := record.Encode(record.Record{Position: p, WrittenAtMs: t0.UnixMilli(), By: record.BySession(whoOf("ann/ann1")),
		Command: "release", Change: record.Released{Session: uri("ann/ann1"), Thread: "o/repo", Item: "issue-9"}})
	if err != nil {
		t.Fatal(err)
	}
	return line
}

// laterLine is a record of a kind that this build does not know.
func laterLine(p uint64) []byte {
	return []byte(fmt.Sprintf(`{"position":%d,"written_at_ms":%d,"by":{"session":"ann/ann1"},"command":"later","change":{"kind_of_a_later_build":{"x":1}}}`,
		p, t0.UnixMilli()))
}

func facts(t testing.TB, r *riff) wire.ServerFacts {
	t.Helper()
	resp, err := r.http.Client().Get(r.http.URL + "/v1/server")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var f wire.ServerFacts
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/server = %d", resp.StatusCode)
	}
	if err := jsonDecode(resp, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestGivenALogWithRecordsTheStateCannotTakeWhenItStartsThenEachLogsAWarningWithItsPositionAndTheFactsCountThem(t *testing.T) {
	store := mem.New()
	// 1 and 3: a release of a claim that is not there; 2: a kind of a
	// later build.
	writeLog(t, store, rifflog.Replayed{}, 3, 3, func(p uint64) []byte {
		if p == 2 {
			return laterLine(p)
		}
		return releaseLine(t, p)
	})
	r := start(t, setup{store: store})

	var positions []float64
	for _, l := range r.logs.with(t, cannotTake) {
		if l["severity"] != "WARNING" {
			t.Errorf("line %v; want severity WARNING", l)
		}
		positions = append(positions, l["position"].(float64))
		if l["kind"] != "released" || l["command"] != "release" {
			t.Errorf("line %v; want the kind released and the command release", l)
		}
	}
	if fmt.Sprint(positions) != "[1 3]" {
		t.Errorf("warning lines at positions %v; want [1 3]\n%s", positions, r.logs)
	}
	skipped := r.logs.with(t, skipsKind)
	if len(skipped) != 1 || skipped[0]["position"] != float64(2) || skipped[0]["kind"] != "kind_of_a_later_build" {
		t.Errorf("skipped lines %v; want one at position 2 of the kind kind_of_a_later_build", skipped)
	}
	if more := r.logs.with(t, moreDrops); len(more) != 0 {
		t.Errorf("count lines %v; want none for 3 records", more)
	}
	f := facts(t, r)
	if f.Warnings != 2 || f.Skipped != 1 {
		t.Errorf("GET /v1/server warnings %d, skipped %d; want 2 and 1", f.Warnings, f.Skipped)
	}
}

func TestGivenALogWithManyRecordsTheStateCannotTakeWhenItStartsThenTheLinesAreBoundedAndOneLineGivesTheCount(t *testing.T) {
	store := mem.New()
	n := riffengine.MaxDropLines + 250
	writeLog(t, store, rifflog.Replayed{}, n, 50, func(p uint64) []byte { return releaseLine(t, p) })
	r := start(t, setup{store: store})

	lines := r.logs.with(t, cannotTake)
	if len(lines) != riffengine.MaxDropLines {
		t.Errorf("%d warning lines; want at most %d", len(lines), riffengine.MaxDropLines)
	}
	if len(lines) > 0 && (lines[0]["position"] != float64(1) || lines[len(lines)-1]["position"] != float64(riffengine.MaxDropLines)) {
		t.Errorf("warning lines from %v to %v; want 1 to %d", lines[0]["position"], lines[len(lines)-1]["position"], riffengine.MaxDropLines)
	}
	more := r.logs.with(t, moreDrops)
	if len(more) != 1 || more[0]["unlogged"] != float64(n-riffengine.MaxDropLines) || more[0]["severity"] != "WARNING" {
		t.Errorf("count lines %v; want one WARNING with unlogged %d", more, n-riffengine.MaxDropLines)
	}
	if f := facts(t, r); f.Warnings != uint64(n) {
		t.Errorf("GET /v1/server warnings %d; want %d", f.Warnings, n)
	}

	// A call after the start writes records that the state takes: the
	// counts and the lines stay.
	r.register("bob/bob1")
	if f := facts(t, r); f.Warnings != uint64(n) || f.Skipped != 0 {
		t.Errorf("after a call, warnings %d, skipped %d; want %d and 0", f.Warnings, f.Skipped, n)
	}
	if got := len(r.logs.with(t, cannotTake)) + len(r.logs.with(t, moreDrops)); got != riffengine.MaxDropLines+1 {
		t.Errorf("%d lines after a call; want %d", got, riffengine.MaxDropLines+1)
	}
	if strings.Contains(r.logs.String(), "issue-9\"") {
		t.Errorf("a warning line holds the item of the record; want only its position, kind and command")
	}
}
