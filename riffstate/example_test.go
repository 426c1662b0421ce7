package riffstate_test

import (
	"errors"
	"fmt"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffstate"
)

// ExampleRun shows the sync path of a state with no writer: a new riff
// is paused, so a claim is refused until a person resumes the riff.
func ExampleRun() {
	now := riffstate.Now{Ms: 1_790_000_000_000}
	s := riffstate.New(riffstate.Options{Build: "example"})
	if _, _, err := riffstate.Run(s, riffstate.MakeRiff{ID: "01JZ8Q6V2D3M4N5P6Q7R8S9T0V"}, riffstate.ServerCaller(), now); err != nil {
		panic(err)
	}

	mike, _ := name.ParseURI("riff://mike@pangolin/como-technologies/riff?session=a6cf2205")
	session := riffstate.CallerOf(mike)
	registered, _, _ := riffstate.Run(s, riffstate.Register{Register: wire.Register{Me: mike}}, session, now)
	fmt.Println("registered:", registered.URI)

	claim := riffstate.Claim{Claim: wire.Claim{Me: mike, Item: "issue-12"}}
	_, _, err := riffstate.Run(s, claim, session, now)
	var refused *wire.Refused
	if errors.As(err, &refused) {
		fmt.Println("refused:", refused.Code)
	}

	person := riffstate.CallerOf(name.SessionURI{User: "mike", Host: "pangolin", Repo: "como-technologies/riff"})
	resumed, _, _ := riffstate.Run(s, riffstate.Resume{Resume: wire.Resume{Riff: true}}, person, now)
	fmt.Println(resumed.Text)

	granted, _, _ := riffstate.Run(s, claim, session, now)
	fmt.Println(granted.Text)
	fmt.Println("holder:", granted.Holder)
	// Output:
	// registered: riff://mike@pangolin/como-technologies/riff?session=a6cf2205
	// refused: paused
	// The riff is running now. Woke mike@pangolin:riff (a6cf).
	// You hold issue-12 in como-technologies/riff.
	// holder: riff://mike@pangolin/como-technologies/riff?session=a6cf2205&claim=issue-12
}
