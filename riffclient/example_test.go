package riffclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Example sends claims to a stand-in for riff-server (an httptest
// server: riffclient depends on no server package). The first try of the
// first claim meets a server that starts (503): Send tries again, with
// the same call ID, so that the server runs the command once. The second
// claim is refused: it comes back as a *wire.Refused, never tried again.
func Example() {
	b, err := build.ParseBuild("0.4.3 7213825ab1c2 2026-09-27T20:10:44Z")
	if err != nil {
		panic(err)
	}
	var mu sync.Mutex
	var ids []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var claim wire.Claim
		if err := json.NewDecoder(r.Body).Decode(&claim); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		ids = append(ids, r.Header.Get(wire.HeaderCall))
		tries := len(ids)
		mu.Unlock()
		w.Header().Set(wire.HeaderBuild, b.String())
		switch {
		case tries == 1:
			http.Error(w, "riff-server starts", http.StatusServiceUnavailable)
		case claim.Item == "issue-12":
			holder := claim.Me
			holder.Claims = []name.Item{claim.Item}
			_ = json.NewEncoder(w).Encode(wire.ClaimReply{Holder: holder, Text: "claimed issue-12"})
		default:
			w.Header().Set(wire.HeaderRefused, string(wire.Held))
			w.WriteHeader(wire.Held.Status())
			_ = json.NewEncoder(w).Encode(map[string]string{"reason": "mike holds " + string(claim.Item)})
		}
	}))
	defer srv.Close()

	server, err := riffclient.ParseServer(srv.URL)
	if err != nil {
		panic(err)
	}
	c := riffclient.New(server, riffclient.Options{Build: b})
	me, err := name.ParseURI("riff://ann@pangolin/como-technologies/riff?session=a6cf2205")
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	reply, err := riffclient.Send(ctx, c, wire.Claim{Me: me, Item: "issue-12"})
	if err != nil {
		panic(err)
	}
	fmt.Println(reply.Text)
	fmt.Println("holder:", reply.Holder)
	mu.Lock()
	fmt.Println("tries:", len(ids), "one call ID:", ids[0] == ids[1])
	mu.Unlock()

	_, err = riffclient.Send(ctx, c, wire.Claim{Me: me, Item: "issue-13"})
	var refused *wire.Refused
	if errors.As(err, &refused) {
		fmt.Println("refused:", refused.Code, "-", refused.Reason)
	}
	// Output:
	// claimed issue-12
	// holder: riff://ann@pangolin/como-technologies/riff?session=a6cf2205&claim=issue-12
	// tries: 2 one call ID: true
	// refused: held - mike holds issue-13
}
