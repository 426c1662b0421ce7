package riffengine_test

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/como-technologies/riff/riffengine"
)

// gcPercent reads the GOGC of the runtime.
func gcPercent(t *testing.T) int64 {
	t.Helper()
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// collectUntil runs collections until ok holds (the cleanup of a
// collection runs on the runtime's goroutine, after it), at most 100.
func collectUntil(t *testing.T, ok func() bool) bool {
	t.Helper()
	for range 100 {
		runtime.GC()
		for range 100 {
			if ok() {
				return true
			}
			runtime.Gosched()
		}
	}
	return false
}

// restoreGCPercent puts back the GOGC of the test binary at the end.
func restoreGCPercent(t *testing.T) {
	before := debug.SetGCPercent(100)
	debug.SetGCPercent(before)
	t.Cleanup(func() { debug.SetGCPercent(before) })
}

const floorForTests = 1 << 30 // far above the live heap of a test binary

// The decision (docs/decisions.md, "A heap floor for the collector"):
// after a collection, GOGC gives a goal of the floor or more; after a
// change of GOGC by another hand, the next collection sets it again
// (each cleanup arms the next); stop puts back the GOGC of before, and
// a collection after it changes nothing.
func TestGivenAHeapFloorWhenCollectionsRunThenTheGoalStaysAtTheFloorUntilStop(t *testing.T) {
	t.Setenv("GOGC", "")
	restoreGCPercent(t)
	debug.SetGCPercent(100)
	stop := riffengine.KeepHeapFloor(floorForTests)
	defer stop()
	if !collectUntil(t, func() bool { return gcPercent(t) > 100 }) {
		t.Fatalf("GOGC is %d after 100 collections, want the percent of the floor", gcPercent(t))
	}
	goal := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	if metrics.Read(goal); goal[0].Value.Uint64() < floorForTests {
		t.Fatalf("GOGC %d gives a heap goal of %d, under the floor of %d", gcPercent(t), goal[0].Value.Uint64(), floorForTests)
	}
	for round := range 3 {
		debug.SetGCPercent(100)
		if !collectUntil(t, func() bool { return gcPercent(t) > 100 }) {
			t.Fatalf("round %d: GOGC stays %d: the floor was kept for one collection only", round, gcPercent(t))
		}
	}
	stop()
	if got := gcPercent(t); got != 100 {
		t.Fatalf("GOGC after stop = %d, want 100 (before)", got)
	}
	for range 3 {
		runtime.GC()
	}
	if collectUntil(t, func() bool { return gcPercent(t) != 100 }) {
		t.Fatalf("GOGC = %d after stop and more collections, want 100", gcPercent(t))
	}
}

// GOGC in the environment is the person's choice, and a floor of 0 is
// none: the collector keeps its percent.
func TestGivenGOGCOrNoFloorWhenAProgramKeepsAHeapFloorThenGOGCStays(t *testing.T) {
	restoreGCPercent(t)
	for _, c := range []struct {
		env   string
		floor uint64
	}{{env: "100", floor: floorForTests}, {env: "", floor: 0}} {
		t.Setenv("GOGC", c.env)
		debug.SetGCPercent(100)
		stop := riffengine.KeepHeapFloor(c.floor)
		if collectUntil(t, func() bool { return gcPercent(t) != 100 }) {
			t.Errorf("GOGC=%q, floor %d: GOGC became %d, want 100", c.env, c.floor, gcPercent(t))
		}
		stop()
	}
}
