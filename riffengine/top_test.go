package riffengine_test

import (
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// POST /v1/top is one route line to riffstate's View.Top: it gives the
// rows with their claims apart, the people and the boards, and it writes
// nothing (riff top only reads).
func TestGivenAClaimWhenAPersonLooksWithTopThenTheReplyHasTheRowTheBoardAndThePeopleAndTheLogDoesNotMove(t *testing.T) {
	r := start(t, setup{})
	r.register("ann/ann1", "bob")
	r.ok("/v1/claim", wire.Claim{Me: uri("ann/ann1"), Item: "issue-7"}, nil)
	at := r.position()
	var got wire.TopReply
	r.ok(wire.Top{}.Path(), wire.Top{Me: uri("bob")}, &got)
	if r.position() != at {
		t.Errorf("a look of top moved the log from %d to %d", at, r.position())
	}
	if len(got.Rows) != 1 || got.Rows[0].URI.Who() != whoOf("ann/ann1") || len(got.Rows[0].Claims) != 1 || got.Rows[0].Claims[0].Item != "issue-7" {
		t.Errorf("rows = %+v; want ann1 with its claim issue-7", got.Rows)
	}
	repo := uri("ann/ann1").Repo
	if len(got.Boards) != 1 || got.Boards[0].Repo != repo || len(got.Boards[0].Claimed) != 1 || got.Boards[0].Claimed[0] != name.Item("issue-7") {
		t.Errorf("boards = %+v; want the board of %s with issue-7 claimed", got.Boards, repo)
	}
	var users []string
	for _, p := range got.People {
		users = append(users, p.User)
	}
	if len(users) != 2 || users[0] != "ann" || users[1] != "bob" {
		t.Errorf("people = %v; want ann, bob", users)
	}
}
