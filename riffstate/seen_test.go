package riffstate

import (
	"strings"
	"testing"
)

// Offline and seen (the guide, "When a session ends" and "See who is in
// the riff"): the time of seen is the time since the last call; a
// keep-alive does not change it; after a start of the server it is the
// time of the last call before the stop.

func TestGivenASessionWhenOnlyKeepAlivesComeThenItsSeenIsTheTimeSinceItsLastCall(t *testing.T) {
	f := given(t, member("ann/wrk1", true))
	WatchEnded{}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	// ann called at t0; its relay sends a keep-alive each minute.
	for range 4 {
		f.after(minute).seen("ann/wrk1")
	}
	f.after(30 * second)
	row, ok := f.rowOf("ann/wrk1", false)
	if !ok {
		t.Fatal("who has no row of a session with keep-alives")
	}
	if row.State != "offline" || row.Detail != "seen 4m ago" {
		t.Errorf("row = %s %q; want offline, seen 4m ago (the time since the last call)", row.State, row.Detail)
	}
	if row.SeenMs != t0 {
		t.Errorf("seen_ms = %d; want the time of the last call %d", row.SeenMs, t0)
	}
	// A call sets it again.
	Called{Place: uri("ann/wrk1").Place()}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	f.after(2 * minute)
	if row, _ := f.rowOf("ann/wrk1", false); row.State != "offline" || row.Detail != "seen 2m ago" {
		t.Errorf("row after a call = %s %q; want offline, seen 2m ago", row.State, row.Detail)
	}
}

func TestGivenASessionWithAnOpenWatchOrAContainerThenItIsNotOffline(t *testing.T) {
	f := given(t, member("ann/wrk1", true), member("ann/box1", true))
	WatchStarted{}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	Alive{Container: true}.Set(f.s.presence, whoOf("ann/box1"), f.now)
	f.after(2*minute).seen("ann/wrk1", "ann/box1")
	for _, who := range []string{"ann/wrk1", "ann/box1"} {
		if row, _ := f.rowOf(who, false); row.State != "idle" {
			t.Errorf("row of %s = %s %q; want idle", who, row.State, row.Detail)
		}
	}
}

func TestGivenAStatusOrAStepCallThenItIsACallForSeen(t *testing.T) {
	f := given(t, member("ann/wrk1", true))
	WatchEnded{}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	f.after(10 * minute)
	StatusSet{Text: "write the tests"}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	f.after(2 * minute)
	if row, _ := f.rowOf("ann/wrk1", false); !strings.HasPrefix(row.Detail, "seen 2m ago") {
		t.Errorf("row after a status call = %s %q; want seen 2m ago", row.State, row.Detail)
	}
}

func TestGivenARestartThenTheSeenOfASessionIsTheTimeOfItsLastCallBeforeTheStop(t *testing.T) {
	f := given(t, member("ann/wrk1", true), member("bob/bwk1", true))
	// bob calls 20 minutes later; then only keep-alives
	f.after(20 * minute)
	Called{Place: uri("bob/bwk1").Place()}.Set(f.s.presence, whoOf("bob/bwk1"), f.now)
	f.after(10*minute).seen("bob/bwk1", "ann/wrk1")

	// when the server starts again an hour later
	f.restart()
	f.after(hour)
	f.s.Loaded(f.now)
	f.after(minute)

	// then who --all shows the time since the last call before the stop
	for who, want := range map[string]string{"ann/wrk1": "seen 1h ago", "bob/bwk1": "seen 1h ago"} {
		row, ok := f.rowOf(who, true)
		if !ok || row.State != "gone" || row.Detail != want {
			t.Errorf("row of %s after a restart = %+v; want gone, %s", who, row, want)
		}
	}
	if row, _ := f.rowOf("bob/bwk1", true); row.SeenMs != t0+20*minute {
		t.Errorf("seen_ms of bob after a restart = %d; want its last call %d", row.SeenMs, t0+20*minute)
	}
	// and a session that calls again is back, with a new seen
	Called{Place: uri("ann/wrk1").Place()}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	if row, ok := f.rowOf("ann/wrk1", false); !ok || row.SeenMs != f.now.Ms {
		t.Errorf("row of ann after its call = %+v, %v; want a row seen now", row, ok)
	}
}
