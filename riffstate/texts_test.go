package riffstate

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The small rules of the state texts (issue 11, item 8).

func TestGivenTheLeadWhenItSaysBlockedThenItWaitsForItsPersonAndSendsNoMessage(t *testing.T) {
	f := given(t, member("ann/lead", false), leadRec("ann", "ann/lead", repo))
	c := f.caller("ann/lead")
	BlockedSet{Reason: "run riff owner --take"}.Set(f.s.presence, c.Who(), f.now)
	v := f.s.Written()
	if got := v.BlockedTell(c, "run riff owner --take", f.now); got != "" {
		t.Errorf("the block of the lead tells its lead %q; want no message: the person reads its terminal", got)
	}
	want := "You wait for your person: run riff owner --take. Ask your user. The next prompt ends the wait."
	if got := v.BlockedReply(c, Told{}, f.now).Text; got != want {
		t.Errorf("the reply of riff blocked from the lead = %q; want %q", got, want)
	}
	// A reason that ends with its own mark gets no second one.
	BlockedSet{Reason: "which of two designs?"}.Set(f.s.presence, c.Who(), f.now)
	if got := v.BlockedReply(c, Told{}, f.now).Text; !strings.HasPrefix(got, "You wait for your person: which of two designs? Ask your user.") {
		t.Errorf("the reply with a question = %q", got)
	}
}

func TestGivenAWorkerWhenItSaysBlockedThenItsLeadGetsTheReason(t *testing.T) {
	f := given(t, member("ann/lead", false), member("ann/wrk1", true), leadRec("ann", "ann/lead", repo))
	c := f.caller("ann/wrk1")
	BlockedSet{Reason: "which of two designs?"}.Set(f.s.presence, c.Who(), f.now)
	v := f.s.Written()
	if got := v.BlockedTell(c, "which of two designs?", f.now); got != "blocked: which of two designs?" {
		t.Errorf("the message to the lead = %q; want blocked: which of two designs?", got)
	}
	if got, want := v.BlockedReply(c, Told{Sent: true}, f.now).Text,
		"Blocked. Your lead got a message; a message that wakes you is the answer."; got != want {
		t.Errorf("the reply of a worker = %q; want %q", got, want)
	}
}

func TestGivenAGoneSessionWhenAPauseComesThenItIsNotWoken(t *testing.T) {
	f := given(t, member("ann/wrk1", true), member("bob/bwk1", true), member("carl/cwk1", true), member("ann/wrk2", true))
	f.after(3*minute).seen("ann/wrk1", "carl/cwk1", "ann/wrk2")
	f.ended("carl/cwk1")
	// bob stopped 3 minutes ago, carl ended: both are gone.
	reply, effects := f.mustRun("ann", pause(false, repo))
	var woke []string
	for _, w := range effects.Wakes {
		woke = append(woke, w.To.String())
	}
	if want := []string{"ann/wrk1", "ann/wrk2"}; !slices.Equal(woke, want) {
		t.Errorf("the pause woke %v; want %v: no session that is gone", woke, want)
	}
	if got := reply.(wire.PauseReply).Woke; len(got) != 2 {
		t.Errorf("the reply names %v as woken; want the two live sessions", got)
	}
}

func TestGivenAMissedWakeInADirectThreadThenItNamesTheThreadDmPeer(t *testing.T) {
	f := given(t, member("ann/wrk1", true), member("bob/bwk1", true))
	_, effects := f.mustRun("ann/wrk1", tell("bwk1", "can you look at #1110?"))
	if len(effects.Wakes) != 1 || effects.Wakes[0].Wake.Thread != "dm:wrk1" {
		t.Errorf("the wake of the tell = %+v; want one in dm:wrk1", effects.Wakes)
	}
	wake, ok := f.s.Written().MissedWake(whoOf("bob/bwk1"))
	if !ok || wake.Thread != "dm:wrk1" || wake.Seq != 1 {
		t.Errorf("the missed wake of bob = %+v, %v; want seq 1 in dm:wrk1", wake, ok)
	}
}

func TestGivenAPostOfAKindThatTheServerDoesNotKnowThenTheRefusalNamesTheKindThatWasSent(t *testing.T) {
	for _, tc := range []struct{ kind, want string }{
		{`"poll"`, `"poll"`},
		{`"other"`, `"other"`},
		{`7`, `"7"`},
	} {
		var p Post
		body := `{"me":"` + uri("ann/wrk1").String() + `","kind":` + tc.kind + `,"body":"hello"}`
		if err := json.Unmarshal([]byte(body), &p); err != nil {
			t.Fatalf("decode %s: %v", body, err)
		}
		f := given(t, member("ann/wrk1", true))
		f.when("ann/wrk1", as[wire.PostReply](p)).thenReason(wire.BadRequest, "knows no message kind "+tc.want)
	}
	// A known kind and no kind read as before.
	for kind, want := range map[string]record.MessageKind{`"note"`: record.MessageNote, `""`: "", `null`: ""} {
		var p Post
		if err := json.Unmarshal([]byte(`{"me":"`+uri("ann/wrk1").String()+`","kind":`+kind+`,"body":"hi"}`), &p); err != nil {
			t.Fatal(err)
		}
		if p.Post.Kind != want || p.Me.String() != uri("ann/wrk1").String() || p.Body != "hi" {
			t.Errorf("decode of the kind %s = %+v; want the kind %q", kind, p.Post, want)
		}
	}
}
