package riffstate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/record"
)

func TestGivenRecordsTheWrittenCopyCannotTakeWhenTheyAreReplayedOrWrittenThenEachIsADropWithItsPosition(t *testing.T) {
	s := New(Options{Build: "test"})
	s.Replay(numbered(recs(sessionRec("ann/wrk1"), releaseRec("ann/wrk1", repo, "issue-9", false)), 1)...)
	other := rec("ann/wrk1", "later", record.Other{Name: "kind_of_a_later_build", Raw: []byte(`{"x":1}`)})
	s.WrittenRecords(numbered(recs(other, releaseRec("ann/wrk1", repo, "issue-9", false)), 3), Now{Ms: t0})
	want := []Drop{
		{Position: 2, Kind: record.KindReleased, Command: "release"},
		{Position: 3, Kind: "kind_of_a_later_build", Command: "later", Skipped: true},
		{Position: 4, Kind: record.KindReleased, Command: "release"},
	}
	if diff := cmp.Diff(want, s.TakeDrops()); diff != "" {
		t.Errorf("TakeDrops() (-want +got):\n%s", diff)
	}
	if w, sk := s.Dropped(); w != 2 || sk != 1 {
		t.Errorf("Dropped() = %d, %d; want 2, 1", w, sk)
	}
	if got := s.TakeDrops(); len(got) != 0 {
		t.Errorf("a second TakeDrops() = %v; want none", got)
	}
}

func TestGivenMoreDropsThanTheStateKeepsThenTheCountsGoOn(t *testing.T) {
	s := New(Options{Build: "test"})
	var rs []record.Record
	for range MaxDrops + 5 {
		rs = append(rs, releaseRec("ann/wrk1", repo, "issue-9", false))
	}
	s.Replay(numbered(rs, 1)...)
	if got := len(s.TakeDrops()); got != MaxDrops {
		t.Errorf("TakeDrops() gave %d; want %d", got, MaxDrops)
	}
	if w, _ := s.Dropped(); w != MaxDrops+5 {
		t.Errorf("Dropped() warnings = %d; want %d", w, MaxDrops+5)
	}
}
