package riffstate

import (
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/google/go-cmp/cmp"
)

// top runs the view of riff top for a caller of the fixture.
func (f *fixture) top(who string) wire.TopReply {
	f.t.Helper()
	reply, signals, err := f.s.Written().Top(f.caller(who), wire.Top{}, f.now)
	if err != nil || len(signals) != 0 {
		f.t.Fatalf("Top(%s) = %v, %d signals; want a reply and no signal (riff top only reads)", who, err, len(signals))
	}
	return reply
}

func topRowOf(r wire.TopReply, who string) (wire.TopRow, bool) {
	for _, row := range r.Rows {
		if row.URI.Who() == whoOf(who) {
			return row, true
		}
	}
	return wire.TopRow{}, false
}

// The guide, "See what each session does": a session line has one line
// for each fact of the detail of its state; the blocked line has the
// reason and the time that it waits.
func TestGivenABlockedWorkerWithAClaimAndAStatusWhenTopLooksThenEachFactOfItsDetailComesApart(t *testing.T) {
	f := given(t, member("ann/wrk1", true), claimRec("ann/wrk1", repo, "issue-8"))
	WatchStarted{}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	StatusSet{Text: "tests"}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	BlockedSet{Reason: "which of two designs?"}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)
	f.after(32 * minute).seen("ann/wrk1")
	row, ok := topRowOf(f.top("bob"), "ann/wrk1")
	if !ok {
		t.Fatal("top has no row of ann/wrk1")
	}
	want := wire.TopRow{
		WhoRow: row.WhoRow,
		First:  "which of two designs? (32m ago)",
		Claims: []wire.TopClaim{{Thread: repo, Item: "issue-8"}},
		Facts:  []string{"32m ago: tests"},
		Block:  &wire.TopBlock{Reason: "which of two designs?", Waits: "32m"},
	}
	if diff := cmp.Diff(want, row); diff != "" {
		t.Errorf("top row (-want +got):\n%s", diff)
	}
	// who shows the same facts on one line.
	if who, _ := f.rowOf("ann/wrk1", false); who.Detail != "which of two designs? (32m ago)  working on #8  32m ago: tests" {
		t.Errorf("who detail = %q", who.Detail)
	}
}

// A gone session has no row in top; its person stays, offline with the
// time since its last call.
func TestGivenASessionThatIsGoneWhenTopLooksThenItHasNoRowAndItsPersonIsOfflineWithTheTimeOfItsLastCall(t *testing.T) {
	f := given(t, member("ann/wrk1", true), member("bob/bwk1", true))
	WatchStarted{}.Set(f.s.presence, whoOf("bob/bwk1"), f.now)
	f.after(60 * minute).seen("bob/bwk1")
	got := f.top("bob")
	if _, ok := topRowOf(got, "ann/wrk1"); ok {
		t.Error("top shows a gone session")
	}
	want := []wire.TopPerson{{User: "ann", Seen: "1h"}, {User: "bob", Online: true}}
	if diff := cmp.Diff(want, got.People); diff != "" {
		t.Errorf("people (-want +got):\n%s", diff)
	}
}

// The board of a repository: the claims of live sessions, the holds that
// no session claims with their reason, and the pause.
func TestGivenClaimsHoldsAndAPauseWhenTopLooksThenTheBoardHasThemAndNoHeldItemThatASessionClaims(t *testing.T) {
	f := given(t, member("ann/wrk1", true), claimRec("ann/wrk1", repo, "issue-7"),
		holdRec("ann", repo, "issue-11", "VmLck reading at 19:40 UTC"),
		holdRec("ann", repo, "issue-7", "a hold of a claimed item"),
		pauseRec("bob", record.RepoScope(repo), record.Paused))
	got := f.top("bob").Boards
	want := []wire.TopBoard{{Repo: name.Repo(repo), Paused: true, Claimed: []name.Item{"issue-7"},
		Held: []wire.TopHeld{{Item: "issue-11", Reason: "VmLck reading at 19:40 UTC"}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("boards (-want +got):\n%s", diff)
	}
}

// The guide, "See what each session does": the red line of a blocked
// session in riff top says "the lead gave no answer" when so. top gives
// the mark apart (Unanswered) and the reason with no such tail, so that
// the line shows it once, on a line of its own.
func TestGivenAnUnansweredBlockWhenTopLooksThenTheRowIsUnansweredAndItsReasonHasNoTail(t *testing.T) {
	f := blockedTeam(t)
	f.after(15*minute).keepAlive("ann/wrk1", "ann/lead")
	f.remindAll()
	f.after(15*minute).keepAlive("ann/wrk1", "ann/lead")
	row, ok := topRowOf(f.top("ann"), "ann/wrk1")
	if !ok {
		t.Fatal("top has no row of ann/wrk1")
	}
	if !row.Unanswered || row.Block == nil || row.Block.Reason != "which of two designs?" {
		t.Errorf("top row = %+v, block %+v; want unanswered with the reason of the block", row, row.Block)
	}
	if strings.Contains(row.First, NoAnswerText) || !strings.HasPrefix(row.First, "which of two designs?") {
		t.Errorf("top first fact = %q; want the reason with no %q", row.First, NoAnswerText)
	}
	if who, _ := f.rowOf("ann/wrk1", false); !strings.Contains(who.Detail, NoAnswerText) {
		t.Errorf("who detail = %q; want %q on its one line", who.Detail, NoAnswerText)
	}
}
