package door

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/wire"
)

// TestGivenAKeepAliveInFlightWhenItsContextEndsThenRunReturnsOnlyAfterTheServerAnsweredIt:
// the relay sends its end after Run returns; a keep-alive cut off on the
// way could reach the server after that end and mark the relay live for
// 3 minutes, so Run lets the one in flight finish.
func TestGivenAKeepAliveInFlightWhenItsContextEndsThenRunReturnsOnlyAfterTheServerAnsweredIt(t *testing.T) {
	arrived, release, answered := make(chan struct{}), make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-release
		_ = json.NewEncoder(w).Encode(wire.AliveReply{})
		close(answered)
	})
	client := testClient(t, h)
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // before the close of the server, which waits for the handler
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		KeepAlive{Client: client, Me: me, Every: time.Hour, Relay: "5b1e0c7a9d3f2e41"}.Run(ctx)
	}()
	<-arrived
	cancel()
	select {
	case <-done:
		t.Fatal("Run returned while its keep-alive was still at the server")
	case <-time.After(50 * time.Millisecond):
	}
	free()
	<-done
	select {
	case <-answered:
	default:
		t.Fatal("Run returned before the server answered its keep-alive")
	}
}
