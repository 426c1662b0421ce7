package riffstate

import (
	"slices"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The claims and the lead of a quiet session (the engine design, "The
// life cycle of a session"; the guide, "When a session ends"): no timer
// writes a release. After 5 minutes with no sign of life another session
// may take the item, and the views show the claim as ended; a session
// that comes back gets back each claim that nobody took.

func TestTheServerHasNoCommandThatEndsTheClaimsOfAQuietSession(t *testing.T) {
	// The commands of the server of 1.1.0: make_riff, announce, forget,
	// import, grant_owner, end_owner, name_owner and remind_lead (the
	// second wake of a lead); none of them ends a claim.
	if slices.Contains(record.Commands(), "expire") {
		t.Error("record.Commands() lists expire: no timer of the server ends a claim")
	}
	if err := Permits("expire", ServerCaller(), Member); err == nil {
		t.Error("Permits takes a command expire of the server")
	}
}

func TestGivenAQuietSessionWhenFiveMinutesPassThenAnotherMayTakeItsItem(t *testing.T) {
	f := given(t, member("ann/wrk1", true), member("bob/bwk1", true), claimRec("ann/wrk1", repo, "issue-7"))
	// 4:59 with no sign of life: the claim holds.
	f.stopped("ann/wrk1", 5*minute-1)
	f.when("bob/bwk1", claim("", "issue-7")).thenReason(wire.Held, "issue-7 is held by")
	// 5:00: bob takes it, with a released record for ann first.
	f.stopped("ann/wrk1", 5*minute)
	f.when("bob/bwk1", claim("", "issue-7")).
		then(released("ann/wrk1", repo, "issue-7", false), claimed("bob/bwk1", repo, "issue-7"))
	f.mustRun("bob/bwk1", claim("", "issue-7"))
	// The take-over leaves the worker Ready, not MustClear.
	if s := f.riff().Session(whoOf("ann/wrk1")); s.Life != Ready || len(s.Claims) != 0 {
		t.Errorf("ann after the take-over = %s with %v; want ready with no claim", s.Life, s.Claims)
	}
}

func TestGivenAQuietSessionWhenFiveMinutesPassThenWhoWhoamiAndTheBoardShowItsClaimAsEnded(t *testing.T) {
	f := given(t, member("ann/wrk1", true), member("bob/bwk1", true),
		claimRec("ann/wrk1", repo, "issue-7"), holdRec("ann", repo, "issue-7", "waits for the word of Mike"))
	f.stopped("ann/wrk1", 5*minute)
	f.seen("bob/bwk1")
	v := f.s.Written()
	row, ok := f.rowOf("ann/wrk1", true)
	if !ok {
		t.Fatal("who --all has no row of ann/wrk1")
	}
	if len(row.URI.Claims) != 0 || strings.Contains(row.Detail, "#7") {
		t.Errorf("who --all row of the quiet session = %s %q; want no claim", row.URI, row.Detail)
	}
	// The view of whoami, read before the session calls again.
	if got := v.Whoami(CallerOf(uri("ann/wrk1")), f.now).URI; len(got.Claims) != 0 {
		t.Errorf("whoami of the quiet session = %s; want no claim", got)
	}
	boards := v.Boards(f.caller("bob/bwk1"), f.now)
	if len(boards) != 1 || len(boards[0].Claimed) != 0 {
		t.Fatalf("boards = %+v; want one board with no claimed item", boards)
	}
	// The lead holds the item and no claim counts: it is in held.
	if held := boards[0].Held; len(held) != 1 || held[0].Item != "issue-7" {
		t.Errorf("held = %+v; want issue-7", held)
	}
	// The riff still holds the claim: nothing was written.
	if h := f.riff().Holder(repo, "issue-7"); h == nil || h.Holder != whoOf("ann/wrk1") {
		t.Errorf("holder in the riff = %+v; want ann/wrk1, with no record", h)
	}
}

func TestGivenAQuietSessionThatComesBackThenItGetsBackEachClaimThatNobodyTook(t *testing.T) {
	f := given(t, member("ann/wrk1", true), member("bob/bwk1", true),
		claimRec("ann/wrk1", repo, "issue-7"), claimRec("ann/wrk1", repo, "issue-8"))
	f.after(6 * minute).seen("bob/bwk1")
	f.mustRun("bob/bwk1", claim("", "issue-7"))

	// when ann calls again
	Seen{Place: uri("ann/wrk1").Place()}.Set(f.s.presence, whoOf("ann/wrk1"), f.now)

	// then it holds issue-8, and bob holds issue-7
	v := f.s.Written()
	if got := v.Whoami(f.caller("ann/wrk1"), f.now).URI.Claims; !slices.Equal(got, []name.Item{"issue-8"}) {
		t.Errorf("the claims of ann after it came back = %v; want [issue-8]", got)
	}
	if row, _ := f.rowOf("ann/wrk1", false); row.State != "busy" || !strings.Contains(row.Detail, "working on #8") {
		t.Errorf("who row of ann = %s %q; want busy, working on #8", row.State, row.Detail)
	}
	boards := v.Boards(f.caller("bob/bwk1"), f.now)
	if len(boards) != 1 || !slices.Equal(boards[0].Claimed, []name.Item{"issue-7", "issue-8"}) {
		t.Errorf("boards = %+v; want issue-7 and issue-8 claimed", boards)
	}
	f.when("ann/wrk1", claim("", "issue-7")).thenReason(wire.Held, "issue-7 is held by")
}

func TestGivenAStartOfTheServerThenTheClaimTimerOfEachSessionStartsAtTheLoad(t *testing.T) {
	f := given(t, member("ann/wrk1", true), member("bob/bwk1", true), claimRec("ann/wrk1", repo, "issue-7"))
	// A start an hour later: the presence is new, the claims came back
	// with the log.
	f.restart()
	f.after(hour)
	f.s.Loaded(f.now)
	f.after(5*minute - 1)
	if got := f.s.Written().Whoami(f.caller("bob/bwk1"), f.now); got.URI.Who() != whoOf("bob/bwk1") {
		t.Fatalf("whoami = %+v", got)
	}
	f.when("bob/bwk1", claim("", "issue-7")).thenReason(wire.Held, "issue-7 is held by")
	f.after(1)
	f.when("bob/bwk1", claim("", "issue-7")).
		then(released("ann/wrk1", repo, "issue-7", false), claimed("bob/bwk1", repo, "issue-7"))
}

func TestGivenALeadWithNoSignOfLifeWhenFiveMinutesPassThenItStopsCountingWithNoRecord(t *testing.T) {
	f := given(t, member("ann/lead", false), member("ann/wrk1", true), leadRec("ann", "ann/lead", repo))
	f.stopped("ann/lead", 5*minute-1)
	if _, ok := f.s.Written().LiveLead("ann", repo, f.now); !ok {
		t.Fatal("the lead does not count 4:59 after its last sign of life")
	}
	f.stopped("ann/lead", 5*minute)
	if _, ok := f.s.Written().LiveLead("ann", repo, f.now); ok {
		t.Error("the lead counts 5 minutes after its last sign of life")
	}
	f.when("ann/wrk1", tell("lead", "merge now?")).thenReason(wire.BadRequest, "ann has no lead in o/repo")
	if row, _ := f.rowOf("ann/lead", true); row.URI.Lead || strings.Contains(row.Role, "lead") {
		t.Errorf("who row of the quiet lead = %+v; want no lead mark", row)
	}
	// No record: the log still names the lead, and it counts again when
	// it comes back.
	if w, ok := f.riff().LeadOf("ann", repo); !ok || w != whoOf("ann/lead") {
		t.Errorf("the lead in the riff = %v, %v; want ann/lead", w, ok)
	}
	f.seen("ann/lead")
	if _, ok := f.s.Written().LiveLead("ann", repo, f.now); !ok {
		t.Error("the lead does not count after it came back")
	}
}
