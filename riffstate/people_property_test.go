package riffstate

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/record"
)

// The property tests of the people: random commands of the people in a
// riff with sign-in, replayed with Apply alone, and a checkpoint at each
// position of their log.

// admitOf stands for the command admit of the token path (admit.go),
// which is no part of these tests: it gives a user its email at its
// first sign-in.
type admitOf struct {
	user string
	base
}

func (admitOf) Kind() record.Command { return record.CommandAdmit }
func (a admitOf) Handle(c Caller, v View, now Now) (Handled, error) {
	if v.riff.People.Emails[a.user] != "" {
		return Handled{}, nil
	}
	return Handled{Changes: []record.Change{record.PersonJoined{User: a.user, Email: emailOf(a.user)}}}, nil
}
func (admitOf) Reply(Caller, View, Done, Now) struct{} { return struct{}{} }

// nameOwnerOf stands for the command name_owner of the server: the owner
// of the settings in a riff that never had one.
type nameOwnerOf struct {
	email string
	base
}

func (nameOwnerOf) Kind() record.Command { return record.CommandNameOwner }
func (n nameOwnerOf) Handle(c Caller, v View, now Now) (Handled, error) {
	if v.riff.People.HadOwner {
		return Handled{}, nil
	}
	return Handled{Changes: []record.Change{record.OwnerSet{Email: n.email}}}, nil
}
func (nameOwnerOf) Reply(Caller, View, Done, Now) struct{} { return struct{}{} }

var genUsers = []string{"ann", "bob", "carl", "dan", "eve"}

// generatePeople gives n calls of the people of one seed. The clock
// moves up to 12 hours between calls, and now and then 8 or 24 days, so
// the requests for the owner role come due and the owner goes.
func generatePeople(seed uint64, n int) []call {
	rng := rand.New(rand.NewPCG(seed, seed^0x5bd1e995))
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	now := t0
	at := func() Now { return Now{Ms: now} }
	out := []call{{caller: ServerCaller(), cmd: makeRiff("01JZ8Q6V2D3M4N5P6Q7R8S9T0V"), now: at()},
		{caller: ServerCaller(), cmd: as[struct{}](nameOwnerOf{email: emailOf("ann")}), now: at()}}
	for _, user := range genUsers[:3] {
		out = append(out, call{caller: Caller{URI: uri(user), Class: record.ClassSignIn}, cmd: as[struct{}](admitOf{user: user}), now: at()})
	}
	// The callers: the owner and an admin send more than the others.
	callers := append([]string{"ann", "ann", "ann", "bob", "bob"}, genUsers...)
	for len(out) < n {
		now += rng.Int64N(12 * hour)
		switch rng.IntN(40) {
		case 0:
			now += 8 * day
		case 1:
			now += 24 * day
		}
		user := pick(callers)
		person := CallerOf(uri(user))
		session := CallerOf(uri(user + "/" + user[:1] + "001"))
		email := emailOf(pick(genUsers))
		if rng.IntN(8) == 0 {
			email = emailOf("zoe")
		}
		c := call{caller: person, now: at()}
		switch rng.IntN(16) {
		case 0, 1:
			c.caller = Caller{URI: uri(user), Class: record.ClassSignIn}
			c.cmd = as[struct{}](admitOf{user: user})
		case 2:
			c.cmd = inviteOf(email)
		case 3:
			c.cmd = removeOf(email)
		case 4:
			c.cmd = setAdminOf(email, rng.IntN(3) != 0)
		case 5:
			c.cmd = passOwnerOf(email)
		case 6:
			c.cmd = takeOwner()
		case 7:
			c.cmd = denyOwner()
		case 8:
			c.cmd = revokeOf("")
		case 9:
			c.cmd = revokeOf(email)
		case 10:
			c.caller, c.cmd = ServerCaller(), grantOwner(email)
		case 11:
			c.caller, c.cmd = ServerCaller(), endOwner(email)
		case 12:
			c.caller, c.cmd = session, post("chat", "hello from "+user)
		case 13:
			c.caller, c.cmd = session, join("chat")
		case 14:
			c.caller, c.cmd = session, register(false)
		default:
			c.caller, c.signal = session, Alive{}
		}
		out = append(out, c)
	}
	return out
}

// drivePeople runs the calls as drive does: each through Run on one
// state, and through the steps with a call ID on a twin, whose records
// it gives. After each call the timers of the owner role run: a grant,
// an end and a warning when the view says that one is due.
func drivePeople(t *testing.T, calls []call) (*State, *State, []record.Record) {
	t.Helper()
	live, twin := New(signIn), New(signIn)
	live.Loaded(Now{Ms: t0})
	twin.Loaded(Now{Ms: t0})
	var made []record.Record
	for i, c := range calls {
		batch := []call{c}
		for len(batch) > 0 {
			c, batch = batch[0], batch[1:]
			if c.signal != nil {
				c.signal.Set(live.presence, c.caller.Who(), c.now)
				c.signal.Set(twin.presence, c.caller.Who(), c.now)
				continue
			}
			c.cmd.run(live, c.caller, c.now)
			made = append(made, stepOf(twin, c, fmt.Sprintf("call-%d-%d", i, len(made)))...)
			if c.caller.Class == record.ClassServer {
				continue
			}
			batch = append(batch, timers(twin.Written(), c.now)...)
		}
	}
	return live, twin, made
}

// timers gives the commands of the timers of the owner role that are
// due at now.
func timers(v View, now Now) []call {
	var out []call
	server := ServerCaller()
	if email, due := v.OwnerRequestDue(now); due {
		out = append(out, call{caller: server, cmd: grantOwner(email), now: now})
	}
	if v.OwnerGone(now) {
		out = append(out, call{caller: server, cmd: endOwner(v.riff.People.Owner), now: now})
	}
	if warn, ok := v.OwnerWarning(now); ok {
		out = append(out, call{caller: server, cmd: as[struct{}](warn), now: now})
	}
	return out
}

func TestGivenRandomCommandsOfThePeopleThenAReplayWithApplyAloneGivesTheSameRiff(t *testing.T) {
	kinds := map[record.Kind]int{}
	total := 0
	for seed := range uint64(150) {
		live, twin, made := drivePeople(t, generatePeople(seed, 60))
		replayed := NewRiff()
		for _, rec := range made {
			Apply(replayed, rec)
			kinds[rec.Change.Kind()]++
		}
		total += len(made)
		for _, c := range []struct {
			what string
			riff *Riff
		}{{"the written riff of Run", live.written}, {"the pending riff of Run", live.pending}, {"the written riff of the steps", twin.written}} {
			if !bytes.Equal(jsonOf(t, replayed), jsonOf(t, c.riff)) {
				t.Fatalf("seed %d: %s differs from the replay with Apply alone (-replay +live):\n%s", seed, c.what, cmp.Diff(replayed, c.riff, riffOpts()))
			}
		}
		if replayed.Warnings != 0 {
			t.Errorf("seed %d: the live path made %d records that apply did not take", seed, replayed.Warnings)
		}
	}
	for _, k := range []record.Kind{record.KindPersonJoined, record.KindMemberInvited, record.KindMemberRemoved, record.KindAdminSet,
		record.KindOwnerSet, record.KindOwnerAsked, record.KindOwnerDenied, record.KindOwnerEnded, record.KindSigninsEnded, record.KindPosted} {
		if kinds[k] == 0 {
			t.Errorf("the generated runs made no record of the kind %s", k)
		}
	}
	t.Logf("%d records: %v", total, kinds)
}

func TestGivenALogOfEachPeopleKindThenACheckpointAtEachPositionGivesTheWholeReplay(t *testing.T) {
	people := []record.Kind{record.KindPersonJoined, record.KindMemberInvited, record.KindMemberRemoved, record.KindAdminSet,
		record.KindOwnerSet, record.KindOwnerAsked, record.KindOwnerDenied, record.KindOwnerEnded, record.KindSigninsEnded}
	found := 0
	for seed := uint64(0); seed < 400 && found < 3; seed++ {
		_, _, made := drivePeople(t, generatePeople(seed, 150))
		kinds := map[record.Kind]bool{}
		for _, r := range made {
			kinds[r.Change.Kind()] = true
		}
		all := true
		for _, k := range people {
			all = all && kinds[k]
		}
		if !all {
			continue
		}
		found++
		checkpointAtEachPosition(t, made)
	}
	if found == 0 {
		t.Fatal("no generated log holds each kind of the people")
	}
}
