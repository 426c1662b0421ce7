// Command stages must not compile: code outside riffengine cannot make
// an Authenticated value with a caller of its choice. It differs from
// testdata/stagesok only in the line that makes the Authenticated
// value. TestCodeOutsideTheEngineCannotMakeAStage builds it.
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
	call := riffengine.Authenticated[riffstate.Claim]{cmd: claim, caller: proof.Caller()}
	replied, err := riffengine.Dispatch[riffstate.Claim, wire.ClaimReply](context.Background(), e, call)
	fmt.Println(replied.Reply.Text, err)
}
