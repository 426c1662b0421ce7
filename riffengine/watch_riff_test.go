package riffengine_test

import (
	"context"
	"testing"

	"github.com/como-technologies/riff/riffcore/wire"
)

// TestGivenARiffWithAnIDWhenASessionOpensAWatchThenTheHelloLineNamesTheRiff:
// a watch keeps its woke marks for one riff, and a new riff behind the
// same address (a memory store makes one at each start) counts its
// messages from 1 again.
func TestGivenARiffWithAnIDWhenASessionOpensAWatchThenTheHelloLineNamesTheRiff(t *testing.T) {
	r := start(t, setup{})
	if err := r.e.MakeRiff(context.Background(), "01M3XA87HE06Z6M32ZJPSYSYRZ"); err != nil {
		t.Fatalf("MakeRiff = %v", err)
	}
	r.register("bob/bob1")
	w := r.open("/v1/watch", wire.Watch{Me: uri("bob/bob1")})
	if ev, ok := w.next(); !ok || ev.Type != wire.EventHello || ev.Riff != "01M3XA87HE06Z6M32ZJPSYSYRZ" {
		t.Fatalf("first line = %+v, %v; want hello with the riff ID", ev, ok)
	}
}
