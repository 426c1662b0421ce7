package riffstate

import (
	"errors"
	"testing"

	"github.com/como-technologies/riff/riffcore/wire"
)

func TestGivenWhatBecameOfTheMessageWhenAStepRepliesThenTheReplySaysIt(t *testing.T) {
	f := given(t, member("ann/wrk1", true))
	c := f.caller("ann/wrk1")
	v := f.s.Written()
	for _, tc := range []struct {
		name string
		told Told
		want string
	}{
		{"no message", Told{}, "Your step is set."},
		{"the lead got it", Told{Sent: true}, "Your step is set. Your lead got a message."},
		{"no lead", Told{Refused: wire.Refuse(wire.BadRequest, "ann has no lead in o/repo: ask your own user")},
			"Your step is set. ann has no lead in o/repo: ask your own user."},
		{"the caller is the lead", Told{Refused: wire.Refuse(wire.BadRequest, "you are the lead of o/repo: ask your own user")},
			"Your step is set. You are the lead of o/repo: ask your own user."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (SetStep{}).Reply(c, v, tc.told, f.now).Text; got != tc.want {
				t.Errorf("SetStep.Reply(%+v) = %q; want %q", tc.told, got, tc.want)
			}
		})
	}
}

func TestGivenAStartedStepWhenItFailsThenTheMessageToTheLeadNamesTheStep(t *testing.T) {
	f := given(t, member("ann/wrk1", true))
	c := f.caller("ann/wrk1")
	for _, q := range []wire.Step{{Start: "build"}, {Fail: "tests are red"}} {
		sig, err := SetStep{Step: q}.Check(c)
		if err != nil {
			t.Fatalf("SetStep(%+v).Check = %v; want a signal", q, err)
		}
		sig.Set(f.s.presence, c.Who(), f.now)
	}
	if got, want := (SetStep{Step: wire.Step{Fail: "tests are red"}}).Tell(c, f.s.Written(), f.now), "step failed: build: tests are red"; got != want {
		t.Errorf("SetStep.Tell = %q; want %q", got, want)
	}
	if got := (SetStep{Step: wire.Step{Done: true}}).Tell(c, f.s.Written(), f.now); got != "" {
		t.Errorf("the Tell of a done step = %q; want no message", got)
	}
}

func TestGivenAStepCallWhenItGivesNotExactlyOneOfStartDoneAndFailThenItIsRefused(t *testing.T) {
	c := CallerOf(uri("ann/wrk1"))
	for _, q := range []wire.Step{{}, {Start: "build", Done: true}, {Start: "build", Fail: "red"}, {Done: true, Fail: "red"}} {
		if _, err := (SetStep{Step: q}).Check(c); !isRefused(err, wire.BadRequest) {
			t.Errorf("SetStep(%+v).Check = %v; want bad_request", q, err)
		}
	}
}

func TestGivenAStatusOfTwoLinesOrOver400CharactersWhenItIsCheckedThenItIsRefused(t *testing.T) {
	c := CallerOf(uri("ann/wrk1"))
	long := make([]rune, wire.MaxStatus+1)
	for i := range long {
		long[i] = 'é'
	}
	for _, text := range []string{"two\nlines", string(long)} {
		if _, err := (SetStatus{Status: wire.Status{Text: text}}).Check(c); !isRefused(err, wire.BadRequest) {
			t.Errorf("SetStatus(%.20q).Check = %v; want bad_request", text, err)
		}
	}
	if _, err := (SetStatus{Status: wire.Status{Text: string(long[1:])}}).Check(c); err != nil {
		t.Errorf("a status of %d characters = %v; want it set", wire.MaxStatus, err)
	}
}

// isRefused says whether err is a refusal with the code.
func isRefused(err error, code wire.Code) bool {
	var refused *wire.Refused
	return errors.As(err, &refused) && refused.Code == code
}
