// Command stagesok is the twin of testdata/stages: it differs in the one
// line that makes the Authenticated value, and it compiles. Code outside
// riffengine reaches the one path only through Authenticate with the
// proof of the token layer.
package main

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/como-technologies/riff/riffstate"
)

func main() {
	e, err := riffengine.Open(context.Background(), mem.New(), riffengine.Options{NoLease: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close(context.Background())
	me, _ := name.ParseURI("riff://ann@pangolin/o/repo?session=ann1")
	claim := riffstate.Claim{Claim: wire.Claim{Me: me, Item: "issue-7"}}
	proof, _ := riffengine.NoSignIn{}.Prove(httptest.NewRequest("POST", "/v1/claim", nil), riffengine.Token{}, me)
	call := riffengine.Authenticate(proof, claim)
	replied, err := riffengine.Dispatch[riffstate.Claim, wire.ClaimReply](context.Background(), e, call)
	fmt.Println(replied.Reply.Text, err)
}
