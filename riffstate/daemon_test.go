package riffstate

import (
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The session of the riff daemon (docs/daemon.md, "The session of the
// daemon"; the guide, "See who is in the riff"): the tag daemon, the idle
// detail "hosts containers for 2h", no claims, never a free session of
// the lead fallback, never woken by person=true.

// daemonAlive is the keep-alive of a riff daemon for who.
func (f *fixture) daemonAlive(who string) *fixture {
	Alive{Daemon: true}.Set(f.s.presence, whoOf(who), f.now)
	return f
}

func TestGivenTheSessionOfADaemonWhenWhoListsItThenItHasTheTagDaemonAndHostsContainers(t *testing.T) {
	// The daemon starts its session as a new process at each start.
	f := given(t, startRec("ann/dmn1", record.ReasonProcess, false)).daemonAlive("ann/dmn1")
	f.after(2 * hour).daemonAlive("ann/dmn1")
	StatusSet{Text: "daemon host: pid 249637, build 3.2.0, 0 sessions"}.Set(f.s.presence, whoOf("ann/dmn1"), f.now)
	f.after(25 * second)
	row, ok := f.rowOf("ann/dmn1", false)
	if !ok {
		t.Fatal("who has no row of the daemon")
	}
	if row.Role != "daemon" || row.State != "idle" {
		t.Errorf("row = role %q state %q; want daemon, idle", row.Role, row.State)
	}
	want := "hosts containers for 2h  25s ago: daemon host: pid 249637, build 3.2.0, 0 sessions"
	if row.Detail != want {
		t.Errorf("detail = %q; want %q", row.Detail, want)
	}
}

func TestGivenTheSessionOfADaemonWhenItClaimsThenItIsRefusedAndNothingChanges(t *testing.T) {
	f := given(t, member("ann/dmn1", false)).daemonAlive("ann/dmn1")
	reason := f.when("ann/dmn1", claim("", "issue-12")).thenRefused(wire.NotAllowed)
	if !strings.Contains(reason, "takes no claims") {
		t.Errorf("reason = %q; want that a daemon takes no claims", reason)
	}
}

func TestGivenADaemonAndNoLeadWhenAPostToTheLeadFallsBackThenItWakesTheFreeSessionsButNotTheDaemon(t *testing.T) {
	f := given(t, threeMembers(), member("ann/dmn1", false)).daemonAlive("ann/dmn1")
	f.when("ann/mine", post("", "who leads?", "lead=true")).
		then(posted("ann/mine", repo, 1, record.MessagePlain, sels("lead=true"), "ann/wrk2"))
}

func TestGivenADaemonWhenAPostToThePersonComesThenItWakesNoDaemon(t *testing.T) {
	f := given(t, threeMembers(), member("ann/dmn1", false)).daemonAlive("ann/dmn1")
	f.when("bob/bwk1", post("", "it is merged", "user=ann,person=true")).
		then(posted("bob/bwk1", repo, 1, record.MessagePlain, sels("user=ann,person=true")))
	// Without person, the selector of the user wakes the daemon too (the
	// guide: "Without person, the selector user and host also wakes
	// those sessions").
	f.when("bob/bwk1", post("", "hello", "user=ann")).
		then(posted("bob/bwk1", repo, 1, record.MessagePlain, sels("user=ann"), "ann/dmn1", "ann/mine", "ann/wrk1", "ann/wrk2"))
}

func TestGivenADaemonWhenTheServerStartsAgainThenTheMarkStays(t *testing.T) {
	f := given(t, member("ann/dmn1", false)).daemonAlive("ann/dmn1").restart()
	f.s.Loaded(f.now)
	if !f.s.Written().IsDaemon(whoOf("ann/dmn1")) {
		t.Error("the daemon mark is lost at a start of the server from a checkpoint")
	}
}

func TestGivenTheSessionOfADaemonWithNoWatchWhenWhoListsItThenItIsNotOffline(t *testing.T) {
	f := given(t, startRec("ann/dmn1", record.ReasonProcess, false)).daemonAlive("ann/dmn1")
	WatchEnded{}.Set(f.s.presence, whoOf("ann/dmn1"), f.now)
	f.after(10 * minute).daemonAlive("ann/dmn1")
	row, _ := f.rowOf("ann/dmn1", false)
	if row.State != "idle" || !strings.HasPrefix(row.Detail, "hosts containers for 10m") {
		t.Errorf("row = %s %q; want idle, hosts containers for 10m", row.State, row.Detail)
	}
}
