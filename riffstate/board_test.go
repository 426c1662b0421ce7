package riffstate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
)

func TestTheBoardShowsClaimedItemsAndHeldItemsThatNoSessionClaims(t *testing.T) {
	f := given(t,
		claimRec("ann/s1", repo, "issue-7"),
		holdRec("ann/s1", repo, "issue-8", "waits for the word of Mike"),
		holdRec("ann/s1", repo, "issue-7", "a claim keeps it"),
		claimRec("bob/s2", "o/other", "issue-1"),
	)
	got := f.s.Written().Boards(f.caller("ann/s1"), f.now)
	// bob works in o/repo: a claim of his in o/other gives no board of
	// o/other, since no live session works there.
	want := []Board{
		{Repo: repo, Claimed: []name.Item{"issue-7"}, Held: []HeldItem{{Item: "issue-8", Reason: "waits for the word of Mike"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Boards() (-want +got):\n%s", diff)
	}
}

func TestTheBoardOfAPausedRepositorySaysSo(t *testing.T) {
	f := given(t, joinRec("ann/s1", repo))
	got := f.s.Written().Boards(f.caller("ann/s1"), f.now)
	// A new riff is not paused here: given has no make_riff. A repository
	// runs until its pause.
	if len(got) != 1 || got[0].Paused {
		t.Fatalf("Boards() = %+v; want one running board", got)
	}
	f = given(t, joinRec("ann/s1", repo), pauseRec("ann", record.RepoScope(repo), record.Paused))
	got = f.s.Written().Boards(f.caller("ann/s1"), f.now)
	if len(got) != 1 || !got[0].Paused {
		t.Errorf("Boards() = %+v; want one paused board", got)
	}
}
