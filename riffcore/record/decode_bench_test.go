package record_test

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/como-technologies/riff/riffcore/record"
)

// logFixture is the log of the fixture mix of release 1.0.0.
const logFixture = "../../fixtures/1.0.0/log.jsonl"

// fixtureLines gives the lines of the fixture log.
func fixtureLines(tb testing.TB) [][]byte {
	tb.Helper()
	data, err := os.ReadFile(logFixture)
	if err != nil {
		tb.Fatalf("read %s: %v", logFixture, err)
	}
	var lines [][]byte
	for line := range bytes.Lines(data) {
		if line = bytes.TrimRight(line, "\r\n"); len(line) > 0 {
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		tb.Fatalf("%s holds no line", logFixture)
	}
	return lines
}

// workKinds are the kinds of the work records of a replay (the mix of
// riffengine's BenchmarkReplayWorkRecords).
var workKinds = []record.Kind{record.KindPosted, record.KindClaimed, record.KindReleased,
	record.KindJoinedThread, record.KindSessionStarted}

// BenchmarkDecode decodes the records of the fixture log, one record an
// op: "all" each line of the log in turn, "work" only its work records.
func BenchmarkDecode(b *testing.B) {
	lines := fixtureLines(b)
	var work [][]byte
	for _, line := range lines {
		r, err := record.Decode(line)
		if err != nil {
			b.Fatalf("Decode(%s) = %v", line, err)
		}
		if slices.Contains(workKinds, r.Change.Kind()) {
			work = append(work, line)
		}
	}
	for _, set := range []struct {
		name  string
		lines [][]byte
	}{{"all", lines}, {"work", work}} {
		b.Run(set.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := record.Decode(set.lines[i]); err != nil {
					b.Fatal(err)
				}
				if i++; i == len(set.lines) {
					i = 0
				}
			}
		})
	}
}
