package riffclient

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/google/go-cmp/cmp"
)

// TestGivenNoReplyWhenACallTriesAgainThenItsWaitGrowsFromAQuarterSecondTo5SecondsWithinTheBudget:
// the guide, "How long a command waits for the server": the wait grows
// from a quarter of a second to 5 seconds, and the budget of 60 s stays
// the end of the call (its last wait is cut to what is left).
func TestGivenNoReplyWhenACallTriesAgainThenItsWaitGrowsFromAQuarterSecondTo5SecondsWithinTheBudget(t *testing.T) {
	c, clock, _, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	_, err := Send(context.Background(), c, wire.Who{})
	var noReply *NoReplyError
	if !errors.As(err, &noReply) {
		t.Fatalf("Send(who) = %v; want *NoReplyError", err)
	}
	// 0.25 + 0.5 + 1 + 2 + 4 = 7.75 s, then 10 waits of 5 s (57.75 s),
	// then the 2.25 s that the budget has left.
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}
	for range 10 {
		want = append(want, 5*time.Second)
	}
	want = append(want, 2250*time.Millisecond)
	if diff := cmp.Diff(want, clock.Waits()); diff != "" {
		t.Errorf("the waits between the tries (-want +got):\n%s", diff)
	}
}

// TestGivenAStreamThatBreaksWhenItOpensAgainThenItsWaitGrowsTo5Seconds:
// a watch or a tail that cannot open waits as a call does.
func TestGivenAStreamThatBreaksWhenItOpensAgainThenItsWaitGrowsTo5Seconds(t *testing.T) {
	c, clock, _, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clock.onSleep = func(n int) {
		if n == 8 {
			cancel()
		}
	}
	if err := c.Watch(ctx, wire.Watch{}, func(Event) error { return nil }); err != nil {
		t.Fatalf("Watch = %v; want nil at the end of ctx", err)
	}
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second,
		5 * time.Second, 5 * time.Second, 5 * time.Second}
	if diff := cmp.Diff(want, clock.Waits()); diff != "" {
		t.Errorf("the waits between the opens (-want +got):\n%s", diff)
	}
}
