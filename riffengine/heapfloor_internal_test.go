package riffengine

import "testing"

// The decision (docs/decisions.md, "A heap floor for the collector"):
// GOGC gives a heap goal of the floor or more, and never less than the
// runtime's default.
func TestGivenALiveHeapWhenTheHeapPercentIsChosenThenItsGoalIsTheFloor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live, floor uint64
		want        int
	}{
		{live: 4 * mib, floor: 64 * mib, want: 1500}, // 4 MiB × 16
		{live: 3 * mib, floor: 64 * mib, want: 1600}, // the runtime's minimum, 4 MiB × 16
		{live: 0, floor: 64 * mib, want: 1600},       // before the first collection
		{live: 100, floor: 64 * mib, want: 1600},
		{live: 32 * mib, floor: 64 * mib, want: 100}, // half the floor: the default
		{live: 31 * mib, floor: 64 * mib, want: 107}, // ceil(6400/31) − 100
		{live: 500 * mib, floor: 64 * mib, want: 100},
		{live: 2 * mib, floor: 1 << 40, want: 26214400}, // a floor of 1 TiB stays in range
	} {
		got := heapPercentFor(c.live, c.floor)
		if got != c.want {
			t.Errorf("heapPercentFor(%d, %d) = %d, want %d", c.live, c.floor, got, c.want)
		}
		p := uint64(got)
		if goal := max(c.live+c.live*p/100, runtimeHeapMinimum*p/100); goal < c.floor {
			t.Errorf("heapPercentFor(%d, %d) = %d: a goal of %d, under the floor", c.live, c.floor, got, goal)
		}
		if p > 100 {
			if p--; max(c.live+c.live*p/100, runtimeHeapMinimum*p/100) >= c.floor {
				t.Errorf("heapPercentFor(%d, %d) = %d: %d gives the floor too", c.live, c.floor, got, p)
			}
		}
	}
}
