package riffstate

import (
	"testing"

	"github.com/como-technologies/riff/riffcore/wire"
)

// serverBuild is the build of the server in the tests of the mark.
const serverBuild = "0.4.3 7213825ab1c2 2026-09-27T20:10:44Z"

func TestGivenTheRiffOfASessionWhenItsKeepAliveTellsItThenWhoMarksTheSessionThatRunsAnOldRiff(t *testing.T) {
	for _, tc := range []struct {
		name   string
		binary *wire.Binary
		update bool
	}{
		{"a lower version", &wire.Binary{Build: "0.4.0 929605821e54 2026-09-28T22:03:01Z"}, true},
		{"the same version from an older commit", &wire.Binary{Build: "0.4.3 929605821e54 2026-09-20T22:03:01Z"}, true},
		{"the build of the server", &wire.Binary{Build: serverBuild}, false},
		{"a newer version", &wire.Binary{Build: "0.5.0 929605821e54 2026-09-20T22:03:01Z"}, false},
		{"the same version from a newer commit", &wire.Binary{Build: "0.4.3 929605821e54 2026-09-29T22:03:01Z"}, false},
		{"a file replaced since the start", &wire.Binary{Build: serverBuild, Replaced: true}, true},
		{"a riff from before the mark tells none", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := givenIn(t, Options{Build: serverBuild}, member("ann/wrk1", true))
			Alive{Binary: tc.binary}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
			if row, _ := f.rowOf("ann/wrk1", false); row.Update != tc.update {
				t.Errorf("the row of a session with binary %+v has update %v; want %v", tc.binary, row.Update, tc.update)
			}
		})
	}
}

func TestGivenASessionMarkedToUpdateWhenAKeepAliveTellsNoRiffThenTheMarkStays(t *testing.T) {
	f := givenIn(t, Options{Build: serverBuild}, member("ann/wrk1", true))
	Alive{Binary: &wire.Binary{Build: "0.4.0 929605821e54 2026-09-28T22:03:01Z"}}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	Alive{Activity: "works"}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	if row, _ := f.rowOf("ann/wrk1", false); !row.Update {
		t.Errorf("a keep-alive with no binary took the mark away: %+v", row)
	}
	Alive{Binary: &wire.Binary{Build: serverBuild}}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	if row, _ := f.rowOf("ann/wrk1", false); row.Update {
		t.Errorf("a keep-alive of the new riff kept the mark: %+v", row)
	}
}

func TestGivenAKeepAliveWhenItsBinaryHoldsNoBuildThenTheServerRefusesIt(t *testing.T) {
	f := given(t, member("ann/wrk1", true))
	for _, b := range []string{"", "riff 0.4", "0.4.3 XYZ 2026-09-27T20:10:44Z"} {
		if _, err := (KeepAlive{Alive: wire.Alive{Binary: &wire.Binary{Build: b}}}).Check(f.caller("ann/wrk1")); !isRefused(err, wire.BadRequest) {
			t.Errorf("a keep-alive with binary.build %q: %v; want BadRequest", b, err)
		}
	}
	if _, err := (KeepAlive{Alive: wire.Alive{Binary: &wire.Binary{Build: serverBuild}}}).Check(f.caller("ann/wrk1")); err != nil {
		t.Errorf("a keep-alive with a build: %v", err)
	}
}
