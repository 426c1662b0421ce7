package riffengine_test

import (
	"testing"

	"github.com/como-technologies/riff/riffcore/wire"
)

// The replies of the signals that send a message to the lead: what
// became of the message is in the reply.

func TestGivenAWorkerWithALeadWhenItsStepFailsThenTheLeadGetsTheStepAndTheReplySaysSo(t *testing.T) {
	r := startWithLead(t)
	r.ok("/v1/step", wire.Step{Me: uri("ann/ann2"), Start: "build"}, nil)

	var rep wire.TextReply
	r.ok("/v1/step", wire.Step{Me: uri("ann/ann2"), Fail: "tests are red"}, &rep)

	if want := "Your step is set. Your lead got a message."; rep.Text != want {
		t.Errorf("the reply of a failed step = %q; want %q", rep.Text, want)
	}
	var read wire.ReadReply
	r.ok("/v1/read", wire.Read{Me: uri("ann/ann1"), All: true}, &read)
	found := false
	for _, page := range read.Threads {
		for _, m := range page.Messages {
			found = found || m.Body == "step failed: build: tests are red"
		}
	}
	if !found {
		t.Errorf("the lead read %+v; want the message step failed: build: tests are red", read.Threads)
	}
}

func TestGivenASessionWithNoLeadWhenItsStepFailsThenTheReplyGivesWhyNoMessageWent(t *testing.T) {
	r := start(t, setup{})
	r.register("ann/ann2")
	at := r.position()

	var rep wire.TextReply
	r.ok("/v1/step", wire.Step{Me: uri("ann/ann2"), Fail: "tests are red"}, &rep)

	if want := "Your step is set. ann has no lead in o/repo: ask your own user."; rep.Text != want {
		t.Errorf("the reply of a failed step with no lead = %q; want %q", rep.Text, want)
	}
	if got := commandsAfter(t, r, at); len(got) != 0 {
		t.Errorf("the failed step wrote %q; want no message", got)
	}
}

func TestGivenAWorkerWithALeadWhenItSaysBlockedThenTheReplySaysTheLeadGotAMessage(t *testing.T) {
	r := startWithLead(t)

	var rep wire.TextReply
	r.ok("/v1/blocked", wire.Blocked{Me: uri("ann/ann2"), Reason: "which of two designs?"}, &rep)

	if want := "Blocked. Your lead got a message; a message that wakes you is the answer."; rep.Text != want {
		t.Errorf("the reply of a block = %q; want %q", rep.Text, want)
	}
}

func TestGivenASessionWithNoLeadWhenItSaysBlockedThenTheReplyGivesWhyNoMessageWent(t *testing.T) {
	r := start(t, setup{})
	r.register("ann/ann2")

	var rep wire.TextReply
	r.ok("/v1/blocked", wire.Blocked{Me: uri("ann/ann2"), Reason: "which of two designs?"}, &rep)

	if want := "Blocked. ann has no lead in o/repo: ask your own user."; rep.Text != want {
		t.Errorf("the reply of a block with no lead = %q; want %q", rep.Text, want)
	}
}

// startWithLead starts a riff where ann has the sessions ann1, her lead,
// and ann2, a worker.
func startWithLead(t *testing.T) *riff {
	t.Helper()
	r := start(t, setup{})
	r.register("ann/ann1", "ann/ann2")
	r.ok("/v1/lead", wire.Lead{Me: uri("ann"), Session: "ann1"}, nil)
	return r
}
