package riffengine_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/como-technologies/riff/riffcore/wire"
)

// Serving is read with no lock by each call; what it gives is set with
// each change of the serving facts and at the stop, so a stopped engine
// never says it serves, whatever comes after the stop.
func TestGivenAServingEngineWhenItStopsThenServingSaysWhyAndNoLaterServeUndoesIt(t *testing.T) {
	r := start(t, setup{})
	if ok, why := r.e.Serving(); !ok {
		t.Fatalf("a serving engine: Serving = false, %q", why)
	}
	r.e.SetServing(false, "the lease is not ours yet")
	if ok, why := r.e.Serving(); ok || why != "the lease is not ours yet" {
		t.Fatalf("after SetServing(false): Serving = %v, %q", ok, why)
	}
	r.e.SetServing(true, "")
	r.e.Halt(errors.New("the disk is full"))
	r.e.SetServing(true, "")
	if ok, why := r.e.Serving(); ok || why != "the disk is full" {
		t.Fatalf("after the stop and a serve: Serving = %v, %q; want false and the stop", ok, why)
	}
	got, err := r.call(context.Background(), "/v1/claim", wire.Claim{Me: uri("ann/s1"), Item: "item-1"})
	if err != nil {
		t.Fatal(err)
	}
	if got.status != http.StatusServiceUnavailable {
		t.Fatalf("a claim after the stop = %s, want 503", got)
	}
}
