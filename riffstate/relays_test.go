package riffstate

import (
	"fmt"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// relayRun drives one state through the steps of the engine (arrival,
// check, queue, write, reply) and keeps the log that it writes, so that a
// test can start the server again from the log alone.
type relayRun struct {
	t   *testing.T
	s   *State
	log []record.Record
	now Now
}

func newRelayRun(t *testing.T) *relayRun {
	r := &relayRun{t: t, s: New(Options{Build: "test"}), now: Now{Ms: t0}}
	r.s.Loaded(r.now)
	return r
}

func (r *relayRun) after(d int64) *relayRun { r.now.Ms += d; return r }

// do runs a command of who and gives its reply.
func (r *relayRun) do(who string, cmd step) any {
	r.t.Helper()
	c := CallerOf(uri(who)).With(Admin)
	if !r.s.Knows(c) && cmd.kind() != record.CommandEnd {
		r.write(c, as[wire.RegisterReply](Arrive{}))
	}
	return cmd.reply(r.s, c, Done{Made: r.write(c, cmd)}, r.now)
}

func (r *relayRun) write(c Caller, cmd step) []record.Record {
	r.t.Helper()
	h, err := cmd.check(r.s, c, r.now)
	if err != nil {
		r.t.Fatalf("%s of %s refused: %v", cmd.kind(), c.URI, err)
	}
	made := r.s.Queue(c, cmd.kind(), "", h.Changes, r.now)
	r.s.WrittenRecords(made, r.now)
	r.log = append(r.log, made...)
	return made
}

// alive is a keep-alive of the relay of who.
func (r *relayRun) alive(who, relay string) {
	r.t.Helper()
	sig, err := KeepAlive{Alive: wire.Alive{Relay: relay}}.Check(CallerOf(uri(who)))
	if err != nil {
		r.t.Fatal(err)
	}
	sig.Set(r.s.presence, whoOf(who), r.now)
}

// restartFromLog starts the server again from its log alone (a kill -9
// with no checkpoint), at now.
func (r *relayRun) restartFromLog() {
	r.s = New(r.s.opts)
	r.s.Replay(r.log...)
	r.s.Loaded(r.now)
}

// restartFromCheckpoint starts the server again from a checkpoint of now.
func (r *relayRun) restartFromCheckpoint() {
	r.s = reload(r.t, r.s)
	r.s.Loaded(r.now)
}

// holds says whether who holds item now, as who and the board show it.
func (r *relayRun) holds(who, item string) bool {
	v := r.s.Written()
	s := v.Riff().Session(whoOf(who))
	if s == nil {
		return false
	}
	for _, ref := range v.Claims(s, r.now) {
		if string(ref.Item) == item {
			return true
		}
	}
	return false
}

func (r *relayRun) end(who, relay string) wire.EndReply {
	r.t.Helper()
	return r.do(who, endRelay(relay)).(wire.EndReply)
}

const relayL, relayM = "1111aaaa2222bbbb", "3333cccc4444dddd"

func TestGivenALiveRelayWhenASecondRelayOfTheSameSessionStartsAndEndsThenTheSessionKeepsItsClaimAndStaysInWho(t *testing.T) {
	r := newRelayRun(t)
	r.do("ann/a001", registerRelay(relayL))
	r.do("ann/a001", claim("", "issue-1"))
	r.after(20 * second)
	r.alive("ann/a001", relayL)
	r.after(20 * second)
	// claude mcp list: a second relay of the same session, which exits.
	r.do("ann/a001", registerRelay(relayM))
	r.after(second)
	if got := r.end("ann/a001", relayM); !got.GoesOn || len(got.Released) != 0 {
		t.Errorf("the end of the second relay = %+v; want goes_on and no release", got)
	}
	if !r.holds("ann/a001", "issue-1") || r.s.Written().Gone(whoOf("ann/a001"), r.now) {
		t.Fatal("the end of the second relay ended the session that the first serves")
	}
	// The live relay exits: now the end ends the session.
	r.after(30 * second)
	if got := r.end("ann/a001", relayL); got.GoesOn || len(got.Released) != 1 {
		t.Errorf("the end of the last relay = %+v; want the release of issue-1", got)
	}
	if r.holds("ann/a001", "issue-1") || !r.s.Written().Gone(whoOf("ann/a001"), r.now) {
		t.Error("the end of the last relay did not end the session")
	}
	if relays := r.s.Written().Riff().Session(whoOf("ann/a001")).Relays; len(relays) != 0 {
		t.Errorf("an ended session keeps the relays %v", relays)
	}
}

func TestGivenTwoLiveRelaysWhenTheOlderEndsFirstThenTheNewerServesTheSessionUntilItsOwnEnd(t *testing.T) {
	r := newRelayRun(t)
	r.do("ann/a001", registerRelay(relayL))
	r.do("ann/a001", claim("", "issue-1"))
	r.after(second)
	r.do("ann/a001", registerRelay(relayM))
	r.after(second)
	if got := r.end("ann/a001", relayL); !got.GoesOn || !r.holds("ann/a001", "issue-1") {
		t.Fatalf("the end of the older relay = %+v, holds %v; want goes_on and the claim", got, r.holds("ann/a001", "issue-1"))
	}
	r.after(second)
	if got := r.end("ann/a001", relayM); got.GoesOn || r.holds("ann/a001", "issue-1") {
		t.Errorf("the end of the newer relay, now the last = %+v; want the end of the session", got)
	}
}

func TestGivenARelayWithNoSignOfLifeFor3MinutesWhenAnotherRelayEndsThenTheEndEndsTheSession(t *testing.T) {
	r := newRelayRun(t)
	r.do("ann/a001", registerRelay(relayL))
	r.do("ann/a001", claim("", "issue-1"))
	// L was killed with kill -9: no end, no keep-alive.
	r.after(GoneMs - second)
	r.do("ann/a001", registerRelay(relayM))
	r.after(second)
	if got := r.end("ann/a001", relayM); got.GoesOn || len(got.Released) != 1 {
		t.Errorf("the end with the other relay gone 3 minutes = %+v; want the release of issue-1", got)
	}
}

func TestGivenARelayThatOnlyItsKeepAlivesNameWhenAnotherRelayEndsThenTheSessionGoesOn(t *testing.T) {
	r := newRelayRun(t)
	// The register of L failed (no server at its start); its keep-alives
	// came.
	r.do("ann/a001", claim("", "issue-1"))
	r.alive("ann/a001", relayL)
	r.after(30 * second)
	r.do("ann/a001", registerRelay(relayM))
	if got := r.end("ann/a001", relayM); !got.GoesOn || !r.holds("ann/a001", "issue-1") {
		t.Errorf("the end of M with L alive by its keep-alives = %+v; want goes_on", got)
	}
}

func TestGivenALiveRelayWhenTheServerStartsAgainFromItsLogOrACheckpointThenTheEndOfASecondRelayDoesNotEndTheSession(t *testing.T) {
	for _, restart := range []string{"log", "checkpoint"} {
		t.Run(restart, func(t *testing.T) {
			r := newRelayRun(t)
			r.do("ann/a001", registerRelay(relayL))
			r.do("ann/a001", claim("", "issue-1"))
			r.after(10 * second)
			start := map[string]func(){"log": r.restartFromLog, "checkpoint": r.restartFromCheckpoint}[restart]
			start()
			// The second relay comes before the first keep-alive of L
			// after the start.
			r.after(5 * second)
			r.do("ann/a001", registerRelay(relayM))
			if got := r.end("ann/a001", relayM); !got.GoesOn || !r.holds("ann/a001", "issue-1") {
				t.Fatalf("after a start from the %s the end of M = %+v; want goes_on and the claim", restart, got)
			}
			// M's end is in the log: after one more start, L's end is the
			// last, and ends the session.
			start()
			r.after(second)
			if got := r.end("ann/a001", relayL); got.GoesOn || len(got.Released) != 1 {
				t.Errorf("after a second start from the %s the end of L = %+v; want the release of issue-1", restart, got)
			}
		})
	}
}

func TestGivenAStartOfTheServerWhenARelayOfTheLogGivesNoSignFor3MinutesThenItNoLongerHoldsTheSession(t *testing.T) {
	r := newRelayRun(t)
	r.do("ann/a001", registerRelay(relayL))
	r.do("ann/a001", claim("", "issue-1"))
	r.restartFromLog()
	r.after(GoneMs)
	r.do("ann/a001", registerRelay(relayM))
	if got := r.end("ann/a001", relayM); got.GoesOn {
		t.Errorf("the end of M 3 minutes after a start with no sign of L = %+v; want the end of the session", got)
	}
}

func TestGivenAnOldClientWhenItsEndNamesNoRelayThenItEndsTheSessionAsBefore(t *testing.T) {
	r := newRelayRun(t)
	r.do("ann/a001", registerRelay(relayL))
	r.do("ann/a001", claim("", "issue-1"))
	got := r.do("ann/a001", end()).(wire.EndReply)
	if got.GoesOn || len(got.Released) != 1 || r.holds("ann/a001", "issue-1") {
		t.Errorf("an end with no relay = %+v; want the end of the session and its claims", got)
	}
	// An old client's register and keep-alive name no relay: no record.
	r2 := newRelayRun(t)
	r2.do("ann/a002", register(false))
	r2.alive("ann/a002", "")
	for _, rec := range r2.log {
		if k := rec.Change.Kind(); k == record.KindRelayStarted || k == record.KindRelayEnded {
			t.Errorf("a register with no relay wrote %s", k)
		}
	}
}

func TestGivenARelayThatIsNoWordWhenItRegistersKeepsAliveOrEndsThenItIsRefusedAndChangesNothing(t *testing.T) {
	bad := "relay with spaces\n"
	f := given(t, member("ann/a001", false))
	f.when("ann/a001", registerRelay(bad)).thenReason(wire.BadRequest, "relay", `"relay with spaces\n"`)
	f.when("ann/a001", endRelay(bad)).thenReason(wire.BadRequest, "relay")
	if _, err := (KeepAlive{Alive: wire.Alive{Relay: bad}}).Check(f.caller("ann/a001")); err == nil {
		t.Error("a keep-alive with a relay that is no word was taken")
	}
	if f.s.presence.Live(whoOf("ann/a001")).Relays != nil {
		t.Error("a refused register noted its relay")
	}
}

func TestGivenMoreRelaysThanMaxRelaysWhenOneMoreRegistersThenTheOldestEnd(t *testing.T) {
	r := newRelayRun(t)
	for i := range MaxRelays + 3 {
		r.do("ann/a001", registerRelay(fmt.Sprintf("relay%02d", i)))
	}
	relays := r.s.Written().Riff().Session(whoOf("ann/a001")).Relays
	if len(relays) != MaxRelays || relays[0] != "relay03" || relays[MaxRelays-1] != fmt.Sprintf("relay%02d", MaxRelays+2) {
		t.Errorf("the relays after %d registers = %v; want the newest %d", MaxRelays+3, relays, MaxRelays)
	}
	// A register of a relay that the riff has writes nothing.
	before := len(r.log)
	r.do("ann/a001", registerRelay("relay05"))
	if len(r.log) != before {
		t.Errorf("a second register of the same relay wrote %v", r.log[before:])
	}
}

func TestGivenAStaleRelayOfTheLogWhenANewRelayRegistersThenItsRelayEndedComesFirst(t *testing.T) {
	given(t, member("ann/a001", false), rec("ann/a001", "register", record.RelayStarted{Session: uri("ann/a001"), Relay: relayL})).
		after(GoneMs).
		when("ann/a001", registerRelay(relayM)).
		then(record.RelayEnded{Session: uri("ann/a001"), Relay: relayL}, record.RelayStarted{Session: uri("ann/a001"), Relay: relayM})
}

func TestGivenARepeatedEndOfARelayWhenItsReplyComesFromTheRecordsThenItSaysTheSameAsTheFirst(t *testing.T) {
	for _, made := range [][]record.Record{
		{{Change: record.RelayEnded{Session: uri("ann/a001"), Relay: relayM}}},
		{{Change: record.Released{Session: uri("ann/a001"), Thread: repo, Item: "issue-1"}}, {Change: record.RelayEnded{Session: uri("ann/a001"), Relay: relayL, Last: true}}},
	} {
		got := End{}.Reply(CallerOf(uri("ann/a001")), New(Options{}).Written(), Done{Made: made}, Now{Ms: t0})
		want := wire.EndReply{GoesOn: len(made) == 1}
		if len(made) == 2 {
			want.Released = []name.Item{"issue-1"}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("the reply of %v = %+v; want %+v", made, got, want)
		}
	}
}
