package riffstate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

func TestAClaimOfAFreeItemIsGranted(t *testing.T) {
	given(t, member("ann/wrk1", true)).
		when("ann/wrk1", claim("", "issue-7")).
		then(claimed("ann/wrk1", repo, "issue-7"))
}

func TestAClaimOfAHeldItemIsRefusedAsHeld(t *testing.T) {
	given(t, member("ann/wrk1", true), member("bob/bwk1", true), claimRec("ann/wrk1", repo, "issue-7")).
		when("bob/bwk1", claim("", "issue-7")).
		thenReason(wire.Held, "issue-7 is held by ann@pangolin:repo (wrk1)")
}

func TestAClaimOfAnItemThatTheCallerHoldsMakesNoRecord(t *testing.T) {
	given(t, member("ann/wrk1", true), claimRec("ann/wrk1", repo, "issue-7")).
		when("ann/wrk1", claim("", "issue-7")).
		then()
}

func TestAWorkerCannotClaimAHeldItem(t *testing.T) {
	f := given(t, member("ann/lead", false), member("ann/wrk1", true),
		holdRec("ann/lead", repo, "issue-12", "waits for the word of Mike"))
	f.when("ann/wrk1", claim("", "issue-12")).
		thenReason(wire.OnHold, "issue-12 is on hold: held by the lead since ", "UTC: waits for the word of Mike")
}

func TestAHeldItemIsGrantedWithAWarningToANonWorker(t *testing.T) {
	f := given(t, member("ann/lead", false), member("ann/mine", false),
		holdRec("ann/lead", repo, "issue-12", "waits for the word of Mike"))
	f.when("ann/mine", claim("", "issue-12")).then(claimed("ann/mine", repo, "issue-12"))
	reply, _ := f.mustRun("ann/mine", claim("", "issue-12"))
	got := reply.(wire.ClaimReply)
	if !strings.Contains(got.Warning, "held by the lead since") || !strings.Contains(got.Warning, "waits for the word of Mike") {
		t.Errorf("Claim warning = %q; want the hold", got.Warning)
	}
	if claims := got.Holder.Claims; len(claims) != 1 || claims[0] != "issue-12" {
		t.Errorf("Claim holder = %v; want the claim issue-12", got.Holder)
	}
}

func TestAHoldNamesOneItemByItsExactName(t *testing.T) {
	given(t, member("ann/wrk1", true), holdRec("ann", repo, "issue-12", "scratch")).
		when("ann/wrk1", claim("", "verify-issue-12")).
		then(claimed("ann/wrk1", repo, "verify-issue-12"))
}

func TestAHoldDoesNotEndAClaim(t *testing.T) {
	f := given(t, member("ann/wrk1", true), claimRec("ann/wrk1", repo, "issue-12"),
		holdRec("ann", repo, "issue-12", "scratch"))
	if f.riff().Holder(repo, "issue-12") == nil {
		t.Fatal("the hold ended the claim of issue-12")
	}
}

func TestAClaimInANewRiffIsRefusedAsPaused(t *testing.T) {
	given(t, rec("server", "make_riff", record.RiffMade{Riff: "r1"}),
		rec("server", "make_riff", paused(record.RiffScope(), record.Paused)),
		member("ann/wrk1", true)).
		when("ann/wrk1", claim("", "issue-7")).
		thenReason(wire.Paused, "the riff is paused (a new riff starts paused)", "riff resume --riff")
}

func TestAClaimInAPausedRepositoryNamesThePauseAndWhoSetIt(t *testing.T) {
	given(t, member("ann/wrk1", true), member("bob/blead", false),
		pauseRec("bob/blead", record.RepoScope(repo), record.Paused)).
		when("ann/wrk1", claim("", "issue-7")).
		thenReason(wire.Paused, "o/repo is paused (by the session bob/blead)", "riff resume")
}

func TestAClaimInAPausedRiffNamesWhoSetIt(t *testing.T) {
	given(t, member("ann/wrk1", true), pauseRec("bob", record.RiffScope(), record.Paused)).
		when("ann/wrk1", claim("", "issue-7")).
		thenReason(wire.Paused, "the riff is paused (by the person bob)")
}

func TestAClaimOutsideARepositoryThreadSeesOnlyThePauseOfTheRiff(t *testing.T) {
	given(t, member("ann/wrk1", true), joinRec("ann/wrk1", "chat"),
		pauseRec("ann", record.RepoScope(repo), record.Paused)).
		when("ann/wrk1", claim("chat", "tea")).
		then(claimed("ann/wrk1", "chat", "tea"))
}

func TestAPausedClaimKeepsTheClaimsThatTheSessionHolds(t *testing.T) {
	f := given(t, member("ann/wrk1", true), claimRec("ann/wrk1", repo, "issue-7"),
		pauseRec("ann", record.RiffScope(), record.Paused))
	if f.riff().Holder(repo, "issue-7") == nil {
		t.Error("a pause ended the claim of issue-7")
	}
}

func TestTheLastReleaseOfAWorkerPutsItInMustClear(t *testing.T) {
	f := given(t, member("ann/wrk1", true), claimRec("ann/wrk1", repo, "issue-7"))
	f.when("ann/wrk1", release("", "issue-7")).then(released("ann/wrk1", repo, "issue-7", true))
	reply, _ := f.mustRun("ann/wrk1", release("", "issue-7"))
	if got := reply.(wire.ReleaseReply); !got.MustClear || !strings.Contains(got.Text, "riff clears your context when your turn ends") {
		t.Errorf("Release reply = %+v; want must_clear and the ask to clear", got)
	}
	if life := f.riff().Session(whoOf("ann/wrk1")).Life; life != MustClear {
		t.Errorf("life after the last release = %s; want %s", life, MustClear)
	}
}

func TestAReleaseWithAClaimLeftKeepsAWorkerWorking(t *testing.T) {
	given(t, member("ann/wrk1", true), claimRec("ann/wrk1", repo, "issue-7"), claimRec("ann/wrk1", repo, "issue-8")).
		when("ann/wrk1", release("", "issue-7")).
		then(released("ann/wrk1", repo, "issue-7", false))
}

func TestTheLastReleaseOfASessionThatIsNoWorkerLeavesItReady(t *testing.T) {
	given(t, member("ann/mine", false), claimRec("ann/mine", repo, "issue-7")).
		when("ann/mine", release("", "issue-7")).
		then(released("ann/mine", repo, "issue-7", false))
}

func TestAWorkerInMustClearCannotClaim(t *testing.T) {
	given(t, member("ann/wrk1", true), claimRec("ann/wrk1", repo, "issue-7"),
		releaseRec("ann/wrk1", repo, "issue-7", true)).
		when("ann/wrk1", claim("", "issue-8")).
		thenReason(wire.MustClear, "released its last item")
}

func TestAFreshStartEndsMustClear(t *testing.T) {
	for _, tc := range []struct {
		reason record.Reason
		want   Life
	}{
		{record.ReasonProcess, Ready},
		{record.ReasonClear, Ready},
		{record.ReasonResume, MustClear},
		{record.ReasonJoin, MustClear},
	} {
		t.Run(string(tc.reason), func(t *testing.T) {
			f := given(t, member("ann/wrk1", true), claimRec("ann/wrk1", repo, "issue-7"),
				releaseRec("ann/wrk1", repo, "issue-7", true), startRec("ann/wrk1", tc.reason, true))
			if got := f.riff().Session(whoOf("ann/wrk1")).Life; got != tc.want {
				t.Errorf("life after session_started(%s) = %s; want %s", tc.reason, got, tc.want)
			}
		})
	}
}

func TestAFreshStartKeepsItsTime(t *testing.T) {
	f := given(t, member("ann/wrk1", true), rec("ann/wrk1", "start", started("ann/wrk1", record.ReasonClear, true)))
	f.riff()
	if got := f.riff().Session(whoOf("ann/wrk1")).FreshMs; got != t0 {
		t.Errorf("FreshMs = %d; want %d", got, t0)
	}
}

func TestAClaimThatGoesAnotherWayLeavesAWorkerReady(t *testing.T) {
	f := given(t, member("ann/wrk1", true), claimRec("ann/wrk1", repo, "issue-7"),
		rec("ann/wrk1", "end", released("ann/wrk1", repo, "issue-7", false)))
	if got := f.riff().Session(whoOf("ann/wrk1")).Life; got != Ready {
		t.Errorf("life after an end = %s; want ready", got)
	}
}

func TestTheClaimOfAStoppedHolderReleasesItFirst(t *testing.T) {
	given(t, member("ann/wrk1", true), member("bob/bwk1", true), claimRec("ann/wrk1", repo, "issue-7")).
		stopped("ann/wrk1", 5*minute).
		when("bob/bwk1", claim("", "issue-7")).
		then(released("ann/wrk1", repo, "issue-7", false), claimed("bob/bwk1", repo, "issue-7"))
}

func TestTheClaimOfAHolderThatStoppedLessThan5MinutesAgoIsRefused(t *testing.T) {
	given(t, member("ann/wrk1", true), member("bob/bwk1", true), claimRec("ann/wrk1", repo, "issue-7")).
		stopped("ann/wrk1", 5*minute-1).
		when("bob/bwk1", claim("", "issue-7")).
		thenRefused(wire.Held)
}

func TestTheClaimOfAnEndedHolderReleasesItFirst(t *testing.T) {
	given(t, member("ann/wrk1", true), member("bob/bwk1", true), claimRec("ann/wrk1", repo, "issue-7")).
		ended("ann/wrk1").
		when("bob/bwk1", claim("", "issue-7")).
		then(released("ann/wrk1", repo, "issue-7", false), claimed("bob/bwk1", repo, "issue-7"))
}

func TestAfterALoadAHolderHas5MinutesToCallAgain(t *testing.T) {
	f := New(Options{})
	f.Replay(numbered(recs(member("ann/wrk1", true), member("bob/bwk1", true), claimRec("ann/wrk1", repo, "issue-7")), 1)...)
	f.Loaded(Now{Ms: t0 + day})
	bob := CallerOf(uri("bob/bwk1"))
	if _, err := Check(f, Claim{Claim: wire.Claim{Item: "issue-7"}}, bob, Now{Ms: t0 + day + 4*minute}); err == nil {
		t.Error("a claim 4 minutes after the load took the item of a session that may still call")
	}
	h, err := Check(f, Claim{Claim: wire.Claim{Item: "issue-7"}}, bob, Now{Ms: t0 + day + 5*minute})
	if err != nil || len(h.Changes) != 2 {
		t.Errorf("a claim 5 minutes after the load = %v, %v; want the release of the old holder and the claim", h.Changes, err)
	}
}

func TestAReleaseOfAnItemThatTheCallerDoesNotHoldIsRefused(t *testing.T) {
	f := given(t, member("ann/wrk1", true), member("bob/bwk1", true), claimRec("ann/wrk1", repo, "issue-7"))
	f.when("bob/bwk1", release("", "issue-7")).thenReason(wire.NotHolder, "ann@pangolin:repo (wrk1) holds it")
	f.when("bob/bwk1", release("", "issue-9")).thenReason(wire.NotHolder, "nobody holds it")
}

func TestAPersonCanClaimAndRelease(t *testing.T) {
	f := given(t)
	f.mustRun("ann", claim(repo, "issue-7"))
	if h := f.riff().Holder(repo, "issue-7"); h == nil || h.Holder != whoOf("ann") {
		t.Fatalf("holder of issue-7 = %v; want the person ann", h)
	}
	f.when("ann", release(repo, "issue-7")).then(record.Released{Session: uri("ann"), Thread: repo, Item: "issue-7"})
}

func TestAStartFreesEachClaim(t *testing.T) {
	f := given(t, member("ann/wrk1", true), claimRec("ann/wrk1", repo, "issue-7"), claimRec("ann/wrk1", repo, "issue-8"))
	f.when("ann/wrk1", start(record.ReasonProcess, true)).then(
		released("ann/wrk1", repo, "issue-7", false),
		released("ann/wrk1", repo, "issue-8", false),
		started("ann/wrk1", record.ReasonProcess, true),
		posted("riff@server", "dm:wrk1+~riff", 1, record.MessagePlain, sels("session=wrk1"), "ann/wrk1"),
	)
	if text := bodyOf(t, f.handled.Changes[3]); !strings.Contains(text, "ended your claims issue-7, issue-8. Claim the item again") {
		t.Errorf("the message of the server = %q; want the claims and the step", text)
	}
}

func TestAnEndFreesEachClaim(t *testing.T) {
	given(t, member("ann/wrk1", true), claimRec("ann/wrk1", repo, "issue-7")).
		when("ann/wrk1", end()).
		then(released("ann/wrk1", repo, "issue-7", false))
}

func TestOnlyTheLeadReleasesForAnotherSessionOfItsUser(t *testing.T) {
	base := recs(member("ann/lead", false), member("ann/wrk1", true), member("ann/wrk2", true),
		leadRec("ann", "ann/lead", repo), claimRec("ann/wrk1", repo, "issue-12"))
	t.Run("the lead", func(t *testing.T) {
		f := given(t, base).when("ann/lead", releaseFor("", "issue-12", "wrk1"))
		f.then(
			released("ann/wrk1", repo, "issue-12", false),
			posted("riff@server", repo, 1, record.MessageNote, nil),
			posted("riff@server", "dm:wrk1+~riff", 1, record.MessagePlain, sels("session=wrk1"), "ann/wrk1"),
		)
		if got := bodyOf(t, f.handled.Changes[1]); !strings.Contains(got, "the lead ann@pangolin:repo (lead) released the claim of issue-12 of the session ann@pangolin:repo (wrk1)") {
			t.Errorf("the note of the server = %q; want the lead, the item and the session", got)
		}
		if got := bodyOf(t, f.handled.Changes[2]); !strings.Contains(got, "the lead released your claim issue-12") {
			t.Errorf("the message to the holder = %q", got)
		}
	})
	t.Run("a session that is not the lead", func(t *testing.T) {
		given(t, base).when("ann/wrk2", releaseFor("", "issue-12", "wrk1")).
			thenReason(wire.NotAllowed, "only the lead of ann in o/repo frees the claim of another session")
	})
	t.Run("a person in a shell", func(t *testing.T) {
		given(t, base).when("ann", releaseFor(repo, "issue-12", "wrk1")).
			thenReason(wire.NotAllowed, "a person cannot send the command release_for")
	})
	t.Run("a lead that works in another repository", func(t *testing.T) {
		given(t, base).whenIn("ann/lead", "o/other", releaseFor(repo, "issue-12", "wrk1")).
			thenRefused(wire.NotAllowed)
	})
	t.Run("a gone holder gets no message", func(t *testing.T) {
		given(t, base).stopped("ann/wrk1", 3*minute).when("ann/lead", releaseFor("", "issue-12", "wrk1")).
			then(released("ann/wrk1", repo, "issue-12", false), posted("riff@server", repo, 1, record.MessageNote, nil))
	})
}

// TestGivenAStartOfTheIDWhenTheLeadReleasesForASessionThenTheReplyNamesTheSessionAsGiven:
// the guide's "riff release issue-12 --session 068a2cc2" replies "for the
// session 068a2cc2".
func TestGivenAStartOfTheIDWhenTheLeadReleasesForASessionThenTheReplyNamesTheSessionAsGiven(t *testing.T) {
	f := given(t, member("ann/lead", false), member("ann/wrk1abcd", true), leadRec("ann", "ann/lead", repo),
		claimRec("ann/wrk1abcd", repo, "issue-12"))
	reply, _ := f.mustRun("ann/lead", releaseFor("", "issue-12", "wrk1ab"))
	r, ok := reply.(wire.ReleaseForReply)
	if !ok {
		t.Fatalf("reply = %T", reply)
	}
	want := "You released issue-12 in o/repo for the session wrk1ab. The item is free."
	if r.Text != want {
		t.Errorf("reply = %q; want %q", r.Text, want)
	}
}

func TestALeadReleasesForOnlyTheSessionsOfItsUser(t *testing.T) {
	given(t, member("ann/lead", false), member("bob/bwk1", true), leadRec("ann", "ann/lead", repo),
		claimRec("bob/bwk1", repo, "issue-12")).
		when("ann/lead", releaseFor("", "issue-12", "bwk1")).
		thenRefused(wire.OtherUser)
}

func TestReleaseForOfAnItemThatTheSessionDoesNotHoldIsRefused(t *testing.T) {
	given(t, member("ann/lead", false), member("ann/wrk1", true), leadRec("ann", "ann/lead", repo)).
		when("ann/lead", releaseFor("", "issue-12", "wrk1")).
		thenRefused(wire.NotHolder)
}

func TestAReleaseForWithAStartOfTheIDOfThreeCharactersIsRefused(t *testing.T) {
	given(t, member("ann/lead", false), member("ann/wrk1", true), leadRec("ann", "ann/lead", repo)).
		when("ann/lead", releaseFor("", "issue-12", "wrk")).
		thenReason(wire.BadRequest, "at least 4 characters")
}

// Given a session that claims and releases items in random turns, when
// the records are applied, then its claims are those of a model that
// appends each claim and deletes each release wherever it is (the search
// of a release from the end finds the one claim of its item).
func TestGivenRandomClaimsAndReleasesWhenAppliedThenTheClaimsAreInTheOrderOfTheirClaims(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	r := NewRiff()
	me := uri("ann/a001")
	var model []ClaimRef
	for i := range 3000 {
		ref := ClaimRef{Thread: name.Thread(genThreads[rng.IntN(2)]), Item: name.Item(fmt.Sprintf("issue-%d", rng.IntN(40)))}
		held := slices.Contains(model, ref)
		var change record.Change = record.Claimed{Session: me, Thread: ref.Thread, Item: ref.Item}
		if rng.IntN(2) == 0 {
			change = record.Released{Session: me, Thread: ref.Thread, Item: ref.Item}
			if held {
				model = slices.DeleteFunc(model, func(c ClaimRef) bool { return c == ref })
			}
		} else if !held {
			model = append(model, ref)
		}
		Apply(r, record.Record{Position: uint64(i + 1), WrittenAtMs: t0, Change: change})
		var got []ClaimRef
		if s := r.Session(me.Who()); s != nil {
			got = s.Claims
		}
		if !slices.Equal(got, model) {
			t.Fatalf("after %d records: claims %v; want %v", i+1, got, model)
		}
	}
}
