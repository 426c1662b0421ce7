package riffstate

import (
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/wire"
)

func secs(n int64) *int64 { return &n }

func TestGivenTheFactOfAKeepAliveWhenWhoShowsItThenItHasTheStateAndTheAgeOfTheGuide(t *testing.T) {
	for _, tc := range []struct {
		name   string
		alive  Alive
		state  string
		detail string
	}{
		{"a Bash call", Alive{Activity: "runs Bash: run just ci", ActivitySecs: secs(4 * 60)}, "busy", "runs Bash: run just ci for 4m"},
		{"a tool", Alive{Activity: "runs Edit", ActivitySecs: secs(12)}, "busy", "runs Edit for 12s"},
		{"works", Alive{Activity: wire.ActivityWorks, ActivitySecs: secs(30)}, "busy", "works"},
		{"between two tools", Alive{Activity: wire.ActivityBetweenTools, ActivitySecs: secs(5)}, "busy", "5s ago between two tools"},
		{"the turn ended", Alive{Activity: wire.ActivityTurnEnded, ActivitySecs: secs(5 * 60)}, "idle", "turn ended 5m ago"},
		{"no age is now", Alive{Activity: "runs Bash: build"}, "busy", "runs Bash: build for 0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := given(t, member("ann/wrk1", true))
			tc.alive.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
			row, _ := f.rowOf("ann/wrk1", false)
			if row.State != tc.state || !strings.Contains(row.Detail, tc.detail) {
				t.Errorf("row = %q %q; want %q with %q", row.State, row.Detail, tc.state, tc.detail)
			}
		})
	}
}

func TestGivenAFactWhenNoKeepAliveCarriedItForTwoMinutesThenItIsNoLongerTheWork(t *testing.T) {
	f := given(t, member("ann/wrk1", true))
	Alive{Activity: "runs Bash: run just ci"}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	f.after(2 * minute)
	// A watch keeps the session online, so only the age of the fact counts.
	WatchStarted{}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	row, _ := f.rowOf("ann/wrk1", false)
	if row.State != "idle" || strings.Contains(row.Detail, "runs Bash") {
		t.Errorf("row = %q %q; want idle with no old fact", row.State, row.Detail)
	}
}

func TestGivenAnAnsweredBlockWhenAKeepAliveCarriesAFactOlderThanTheBlockThenTheBlockStays(t *testing.T) {
	f := given(t, member("ann/wrk1", true), member("ann/lead", false), leadRec("ann", "ann/lead", repo))
	f.after(minute)
	BlockedSet{Reason: "which design?"}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	f.after(second)
	f.mustRun("ann/lead", tell("wrk1", "the first design"))
	// The keep-alive sends again the tool that ran before the block.
	Alive{Activity: "runs Bash: tests", ActivitySecs: secs(30)}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	if row, _ := f.rowOf("ann/wrk1", false); row.State != "blocked" {
		t.Fatalf("row after an old fact = %+v; want still blocked", row)
	}
	// The end of a turn is no work either.
	Alive{Activity: wire.ActivityTurnEnded}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	if row, _ := f.rowOf("ann/wrk1", false); row.State != "blocked" {
		t.Fatalf("row after the end of a turn = %+v; want still blocked", row)
	}
	Alive{Activity: "runs Edit", ActivitySecs: secs(0)}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	if row, _ := f.rowOf("ann/wrk1", false); row.State != "busy" {
		t.Errorf("row after new work = %+v; want busy", row)
	}
}

func TestGivenABadActivityWhenAKeepAliveComesThenTheServerRefusesIt(t *testing.T) {
	f := given(t, member("ann/wrk1", true))
	c := f.caller("ann/wrk1")
	for _, q := range []wire.Alive{
		{Activity: "works", ActivitySecs: secs(-1)},
		{Activity: "runs Bash: " + strings.Repeat("x", wire.MaxStatus)},
	} {
		if _, err := (KeepAlive{Alive: q}).Check(c); !isRefused(err, wire.BadRequest) {
			t.Errorf("KeepAlive(%+v).Check = %v; want BadRequest", q, err)
		}
	}
	if _, err := (KeepAlive{Alive: wire.Alive{Activity: "works", ActivitySecs: secs(0)}}).Check(c); err != nil {
		t.Errorf("KeepAlive of a good fact = %v; want none", err)
	}
}
