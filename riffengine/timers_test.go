package riffengine_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffstate"
)

// The timers of the server run as commands of the server through the one
// path, on the clock of the engine.

// commandsAfter gives "command change" of each record after position.
func commandsAfter(t *testing.T, r *riff, position uint64) []string {
	var out []string
	for _, rec := range records(t, r.store) {
		if rec.Position > position {
			out = append(out, rec.Command+" "+string(rec.Change.Kind()))
		}
	}
	return out
}

func TestASessionIsForgottenAfterThirtyDays(t *testing.T) {
	c := newClock()
	r := start(t, setup{clock: c})
	r.register("ann/ann1", "bob/bob1")
	at := r.position()

	c.Add(29 * 24 * time.Hour)
	r.ok("/v1/alive", wire.Alive{Me: uri("bob/bob1")}, nil)
	c.Add(24*time.Hour - time.Millisecond)
	r.e.Tick(context.Background())
	if got := commandsAfter(t, r, at); len(got) != 0 {
		t.Fatalf("Tick before 30 days wrote %q; want nothing", got)
	}
	c.Add(time.Millisecond)
	r.e.Tick(context.Background())
	if got, want := commandsAfter(t, r, at), []string{"forget session_forgotten"}; !cmp.Equal(got, want) {
		t.Fatalf("Tick at 30 days wrote %q; want %q", got, want)
	}
	var known []string
	r.e.View(func(v riffstate.View, now riffstate.Now) {
		for key := range v.Riff().Sessions {
			known = append(known, key)
		}
	})
	if !cmp.Equal(known, []string{"bob/bob1"}) {
		t.Errorf("sessions after the forget = %v; want only bob/bob1, who called a day ago", known)
	}
}
