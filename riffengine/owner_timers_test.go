package riffengine_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/jsonlog"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/como-technologies/riff/riffstate"
)

// The timers of the owner role run as commands of the server through the
// one path, on the fake clock of the engine: a request granted after its
// wait, the warning to an owner who is silent, the end of the role of an
// owner who is gone.

const day = 24 * time.Hour

// startSignedInClock is startSignedIn on the clock c: the engine, its
// token store and its timers read c; the DPoP proofs keep the real time.
func startSignedInClock(t *testing.T, store rifflog.Store, opts riffstate.Options, c *clock) *signedRiff {
	t.Helper()
	r := &signedRiff{t: t, logs: &lines{}}
	e, err := riffengine.Open(context.Background(), store, riffengine.Options{
		StoreName: "memory", Build: serverBuild(), Logger: jsonlog.New(r.logs, slog.LevelDebug),
		NoLease: true, SignIn: true, StateOptions: opts, TimerEvery: time.Hour, Now: c.Now,
		// A write of signins.json each millisecond: a sign-in waits for
		// its write, and no test waits a real second for it.
		SignInsEvery:       time.Millisecond,
		CheckpointInterval: 100 * 365 * day,
	})
	if err != nil {
		t.Fatal(err)
	}
	r.e = e
	layer, err := riffengine.NewSignedIn(e, riffengine.SignInOptions{IDTokens: idTokens{}})
	if err != nil {
		t.Fatal(err)
	}
	r.http = httptest.NewServer(riffengine.NewHandler(e, layer))
	t.Cleanup(func() {
		r.http.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = e.Close(ctx)
	})
	return r
}

// changesAfter gives "command change" of each record of the store after
// position.
func changesAfter(t *testing.T, store rifflog.Store, position uint64) []string {
	t.Helper()
	var out []string
	for _, rec := range records(t, store) {
		if rec.Position > position {
			out = append(out, rec.Command+" "+string(rec.Change.Kind()))
		}
	}
	return out
}

func lastPosition(t *testing.T, store rifflog.Store) uint64 {
	t.Helper()
	recs := records(t, store)
	if len(recs) == 0 {
		return 0
	}
	return recs[len(recs)-1].Position
}

func peopleOf(r *signedRiff) riffstate.People {
	var p riffstate.People
	r.e.View(func(v riffstate.View, now riffstate.Now) { p = v.Riff().People })
	return p
}

func TestGivenARequestForTheOwnerRoleWhenItsWaitEndsThenTheServerGrantsItAndTheOldOwnerStaysAnAdmin(t *testing.T) {
	c := newClock()
	store := mem.New()
	r := startSignedInClock(t, store, inviteOpts, c)
	ada := r.join("ada@example.com")
	cy := r.invited(ada, "cy@example.com")
	var text wire.TextReply
	r.okAs(ada, wire.SetAdmin{}.Path(), wire.SetAdmin{Me: uri("ada"), Email: "cy@example.com", Admin: true}, &text)
	var own wire.OwnerReply
	r.okAs(cy, wire.TakeOwner{}.Path(), wire.TakeOwner{Me: uri("cy")}, &own)
	if want := c.Now().Add(7 * day).UnixMilli(); own.DueMs != want {
		t.Fatalf("take_owner = %+v; want the time 7 days on (%d)", own, want)
	}
	at := lastPosition(t, store)

	c.Add(7*day - time.Millisecond)
	r.e.Tick(context.Background())
	if got := changesAfter(t, store, at); len(got) != 0 {
		t.Fatalf("Tick before the wait wrote %q; want nothing", got)
	}
	c.Add(time.Millisecond)
	r.e.Tick(context.Background())
	want := []string{"grant_owner member_invited", "grant_owner admin_set", "grant_owner owner_set", "grant_owner posted"}
	if got := changesAfter(t, store, at); !cmp.Equal(got, want) {
		t.Fatalf("Tick at the end of the wait wrote %q; want %q", got, want)
	}
	p := peopleOf(r)
	if p.Owner != "cy@example.com" || p.Asked != "" || !slices.Contains(p.Admins, "ada@example.com") {
		t.Errorf("people after the grant: owner %q, asked %q, admins %v; want cy, none, ada an admin", p.Owner, p.Asked, p.Admins)
	}
	at = lastPosition(t, store)
	c.Add(time.Hour)
	r.e.Tick(context.Background())
	if got := changesAfter(t, store, at); len(got) != 0 {
		t.Errorf("a second Tick wrote %q; want nothing", got)
	}
}

func TestGivenARequestThatTheOwnerDeniedWhenItsWaitWouldEndThenTheServerGrantsNothing(t *testing.T) {
	c := newClock()
	store := mem.New()
	r := startSignedInClock(t, store, inviteOpts, c)
	ada := r.join("ada@example.com")
	cy := r.invited(ada, "cy@example.com")
	var text wire.TextReply
	r.okAs(ada, wire.SetAdmin{}.Path(), wire.SetAdmin{Me: uri("ada"), Email: "cy@example.com", Admin: true}, &text)
	var own wire.OwnerReply
	r.okAs(cy, wire.TakeOwner{}.Path(), wire.TakeOwner{Me: uri("cy")}, &own)
	r.okAs(ada, wire.DenyOwner{}.Path(), wire.DenyOwner{Me: uri("ada")}, &text)
	at := lastPosition(t, store)
	c.Add(8 * day)
	r.e.Tick(context.Background())
	if got := changesAfter(t, store, at); len(got) != 0 {
		t.Errorf("Tick after a denied request wrote %q; want nothing", got)
	}
	if p := peopleOf(r); p.Owner != "ada@example.com" {
		t.Errorf("owner = %q; want ada", p.Owner)
	}
}

func TestGivenASilentOwnerWhenTheTimeOfTheWarningComesThenOneAnnounceAndAtThirtyDaysTheRoleEnds(t *testing.T) {
	c := newClock()
	store := mem.New()
	r := startSignedInClock(t, store, inviteOpts, c)
	ada := r.join("ada@example.com")
	if rep := r.as(ada, wire.Whoami{}.Path(), whoami("ada")); rep.status != 200 {
		t.Fatalf("whoami of ada = %s", rep)
	}
	at := lastPosition(t, store)

	c.Add(23*day - time.Millisecond)
	r.e.Tick(context.Background())
	if got := changesAfter(t, store, at); len(got) != 0 {
		t.Fatalf("Tick before the warning wrote %q; want nothing", got)
	}
	c.Add(time.Millisecond)
	r.e.Tick(context.Background())
	if got, want := changesAfter(t, store, at), []string{"announce posted"}; !cmp.Equal(got, want) {
		t.Fatalf("Tick at 23 days wrote %q; want %q (the warning, no change of the people)", got, want)
	}
	recs := records(t, store)
	warning, _ := recs[len(recs)-1].Change.(record.Posted)
	if len(warning.To) != 1 || warning.To[0].User != "ada" {
		t.Errorf("the warning goes to %v; want the person ada", warning.To)
	}
	if p := peopleOf(r); p.Owner != "ada@example.com" {
		t.Fatalf("owner after the warning = %q; want ada still", p.Owner)
	}
	at = lastPosition(t, store)
	c.Add(day)
	r.e.Tick(context.Background())
	if got := changesAfter(t, store, at); len(got) != 0 {
		t.Fatalf("a Tick after the warning wrote %q; want no second warning", got)
	}

	c.Add(6*day - time.Millisecond) // 30 days less 1 ms of silence
	r.e.Tick(context.Background())
	if got := changesAfter(t, store, at); len(got) != 0 {
		t.Fatalf("Tick before 30 days wrote %q; want nothing", got)
	}
	c.Add(time.Millisecond)
	r.e.Tick(context.Background())
	want := []string{"end_owner member_invited", "end_owner admin_set", "end_owner owner_ended", "end_owner posted"}
	if got := changesAfter(t, store, at); !cmp.Equal(got, want) {
		t.Fatalf("Tick at 30 days wrote %q; want %q", got, want)
	}
	p := peopleOf(r)
	if p.Owner != "" || !slices.Contains(p.Admins, "ada@example.com") {
		t.Errorf("people after the end: owner %q, admins %v; want none, ada an admin", p.Owner, p.Admins)
	}
	at = lastPosition(t, store)
	c.Add(day)
	r.e.Tick(context.Background())
	if got := changesAfter(t, store, at); len(got) != 0 {
		t.Errorf("a Tick after the end wrote %q; want nothing", got)
	}
}
