package riffstate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/como-technologies/riff/riffcore/record"
)

var update = flag.Bool("update", false, "write the fixture logs of fixtures/ again")

// fixtureLog is the sample log of this release.
const fixtureLog = "../fixtures/1.1.0/log.jsonl"

// kindsFile lists the kinds of each release.
const kindsFile = "../fixtures/kinds.json"

// scenario drives a riff through each command of the work and of the
// server that riffstate holds, at a fixed clock and with fixed IDs, so
// that it makes one record of each kind that it can make.
func scenario() []call {
	now := t0
	at := func(d int64) Now { now += d; return Now{Ms: now} }
	person := CallerOf(uri("ann"))
	leader := CallerOf(uri("ann/lead"))
	worker := CallerOf(uri("ann/wrk1"))
	server := ServerCaller()
	return []call{
		{caller: server, cmd: makeRiff("01JZ8Q6V2D3M4N5P6Q7R8S9T0V"), now: at(0)},
		{caller: leader, cmd: register(false), now: at(second)},
		{caller: worker, cmd: register(true), now: at(second)},
		{caller: person, cmd: resume(true, ""), now: at(second)},
		{caller: person, cmd: lead("lead"), now: at(second)},
		{caller: worker, cmd: join("chat"), now: at(second)},
		{caller: worker, cmd: leave("chat"), now: at(second)},
		{caller: leader, cmd: post("", "request: claim issue-7", "session=wrk1"), now: at(second)},
		{caller: worker, cmd: claim("", "issue-7"), now: at(second)},
		{caller: worker, cmd: release("", "issue-7"), now: at(second)},
		{caller: leader, cmd: hold("", "issue-9", "waits for the word of Mike"), now: at(second)},
		{caller: leader, cmd: free("", "issue-9"), now: at(second)},
		{caller: leader, cmd: setPlan("", "wave 1: issue-7, issue-9"), now: at(second)},
		{caller: leader, cmd: planOff(""), now: at(second)},
		{caller: leader, cmd: setNotes("", "the running state: wave 1"), now: at(second)},
		{caller: person, cmd: setIdle("ann", "pangolin", repo, 2), now: at(second)},
		{caller: worker, cmd: start(record.ReasonClear, true), now: at(second)},
		{caller: worker, cmd: end(), now: at(second)},
		{caller: leader, cmd: registerRelay("5b1e0c7a9d3f2e41"), now: at(second)},
		{caller: leader, cmd: registerRelay("c0ffee11aa22bb33"), now: at(second)},
		{caller: leader, cmd: endRelay("c0ffee11aa22bb33"), now: at(second)},
		{caller: leader, cmd: endRelay("5b1e0c7a9d3f2e41"), now: at(second)},
		{caller: server, cmd: forget("ann/wrk1"), now: at(31 * day)},
	}
}

// peopleLines are the records of the people: a riff with no sign-in
// cannot make them, so they are written by hand (docs/state.md says so).
// apply must read them all the same.
var peopleLines = []string{
	`{"position":0,"written_at_ms":1792678419000,"by":{"sign_in":"ann"},"command":"admit","change":{"person_joined":{"user":"ann","email":"ann@example.com"}}}`,
	`{"position":0,"written_at_ms":1792678420000,"by":{"person":"ann"},"command":"invite","change":{"member_invited":{"email":"bob@example.com"}}}`,
	`{"position":0,"written_at_ms":1792678421000,"by":{"person":"ann"},"command":"set_admin","change":{"admin_set":{"email":"bob@example.com","admin":true}}}`,
	`{"position":0,"written_at_ms":1792678422000,"by":{"person":"bob"},"command":"take_owner","change":{"owner_asked":{"email":"bob@example.com"}}}`,
	`{"position":0,"written_at_ms":1792678423000,"by":{"person":"ann"},"command":"deny_owner","change":{"owner_denied":{"email":"bob@example.com"}}}`,
	`{"position":0,"written_at_ms":1792678424000,"by":{"server":true},"command":"name_owner","change":{"owner_set":{"email":"ann@example.com"}}}`,
	`{"position":0,"written_at_ms":1792678425000,"by":{"server":true},"command":"end_owner","change":{"owner_ended":{"email":"ann@example.com"}}}`,
	`{"position":0,"written_at_ms":1792678426000,"by":{"person":"ann"},"command":"remove","change":{"member_removed":{"email":"bob@example.com"}}}`,
	`{"position":0,"written_at_ms":1792678427000,"by":{"person":"ann"},"command":"revoke","change":{"signins_ended":{"email":"ann@example.com"}}}`,
}

// fixtureRecords makes the records of the sample log: the scenario
// through the steps of Run (checked against Run itself), then the
// records of the people.
func fixtureRecords(t *testing.T) []record.Record {
	t.Helper()
	calls := scenario()
	live := New(Options{Build: "test"})
	twin, made := drive(t, live, calls)
	if !bytes.Equal(jsonOf(t, live.written), jsonOf(t, twin.written)) {
		t.Fatal("the scenario through Run differs from its steps")
	}
	next := uint64(len(made)) + 1
	for _, line := range peopleLines {
		r, err := record.Decode([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		r.Position = next
		next++
		made = append(made, r)
	}
	return made
}

func TestFixtureLogOfThisRelease(t *testing.T) {
	made := fixtureRecords(t)
	var buf bytes.Buffer
	kinds := map[record.Kind]bool{}
	for _, r := range made {
		line, err := record.Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
		kinds[r.Change.Kind()] = true
	}
	for _, k := range record.Kinds() {
		if !kinds[k] {
			t.Errorf("the sample log has no record of the kind %s", k)
		}
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(fixtureLog), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fixtureLog, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(fixtureLog)
	if err != nil {
		t.Fatalf("%v (write it with: go test ./... -run TestFixture -update)", err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Errorf("%s differs from the scenario; if the change is meant, write it again with: go test ./... -run TestFixture -update", fixtureLog)
	}
}

// readLog reads a log of JSON lines.
func readLog(t *testing.T, path string) []record.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []record.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		r, err := record.Decode(sc.Bytes())
		if err != nil {
			t.Fatalf("%s:%d: %v", path, len(out)+1, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFixtureLogsOfEachReleaseReplayWithNoWarning(t *testing.T) {
	logs, err := filepath.Glob("../fixtures/*/log.jsonl")
	if err != nil || len(logs) == 0 {
		t.Fatalf("no fixture logs: %v", err)
	}
	for _, path := range logs {
		t.Run(filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			log := readLog(t, path)
			riff := NewRiff()
			var kinds []record.Kind
			for i, r := range log {
				if r.Position != uint64(i+1) {
					t.Fatalf("record %d has the position %d", i+1, r.Position)
				}
				if !Apply(riff, r) {
					t.Errorf("apply did not take the record at %d (%s)", r.Position, r.Change.Kind())
				}
				kinds = append(kinds, r.Change.Kind())
			}
			if riff.Warnings != 0 || riff.Skipped != 0 {
				t.Errorf("warnings %d, skipped %d; want none", riff.Warnings, riff.Skipped)
			}
			for _, k := range releaseKinds(t, filepath.Base(filepath.Dir(path))) {
				if !slices.Contains(kinds, k) {
					t.Errorf("the log has no record of the kind %s", k)
				}
			}
			checkpointAtEachPosition(t, log)
		})
	}
}

// releaseKinds gives the change kinds of a release of kinds.json: the log
// of a release has a record of each kind of its release.
func releaseKinds(t *testing.T, release string) []record.Kind {
	t.Helper()
	data, err := os.ReadFile(kindsFile)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Releases []struct {
			Release string        `json:"release"`
			Changes []record.Kind `json:"changes"`
		} `json:"releases"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("read %s: %v", kindsFile, err)
	}
	for _, r := range f.Releases {
		if r.Release == release {
			return r.Changes
		}
	}
	t.Fatalf("%s lists no release %s", kindsFile, release)
	return nil
}
