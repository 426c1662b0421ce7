package loadtool

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Given a count of claims, when the ceilings' reply is made, then it is
// the bytes of riff-server's reply to a claim by a session that holds
// that many: the JSON of wire.ClaimReply with the holder's URI and each
// of its claims, and a newline.
func TestGivenClaimsWhenTheReplyIsMadeThenItIsTheReplyOfRiffServer(t *testing.T) {
	for _, n := range []int{1, 2, 16, 1000} {
		holder := name.SessionURI{User: "u1", Host: "h", Repo: "o/repo", Session: "s0001"}
		for i := 1; i <= n; i++ {
			holder.Claims = append(holder.Claims, name.Item(fmt.Sprintf("item-%d", i)))
		}
		want, err := json.Marshal(wire.ClaimReply{Holder: holder, Text: fmt.Sprintf("You hold item-%d in o/repo.", n)})
		if err != nil {
			t.Fatal(err)
		}
		if got := ClaimReply(n); string(got) != string(want)+"\n" {
			t.Errorf("ClaimReply(%d) = %s; riff-server writes %s", n, got, want)
		}
	}
	if n := len(ClaimReply(1000)); n < 15000 {
		t.Errorf("ClaimReply(1000) is %d bytes; want the size of the pile-up's reply (over 15,000)", n)
	}
}
