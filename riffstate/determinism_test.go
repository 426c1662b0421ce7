package riffstate

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/como-technologies/riff/riffcore/record"
)

// handle is a function of its inputs (the house rule "pure where the
// seeds say pure"): the same state and command give the same changes,
// the same reply and the same effects, byte for byte, whatever the order
// in which Go iterates a map.

func TestGivenAPauseOfTheWholeRiffThenItsPostsToTheLeadsComeInTheOrderOfTheUsers(t *testing.T) {
	var first []byte
	for run := range 50 {
		f := given(t, member("carl/lc01", false), member("ann/la01", false), member("bob/lb01", false),
			leadRec("carl", "carl/lc01", repo), leadRec("ann", "ann/la01", repo), leadRec("bob", "bob/lb01", repo),
			pauseRec("ann/la01", record.RepoScope(repo), record.Paused))
		f.when("dora", pause(true, ""))
		if f.err != nil {
			t.Fatalf("pause of the riff refused: %v", f.err)
		}
		var leads []string
		for _, c := range f.handled.Changes {
			if p, ok := c.(record.Posted); ok {
				leads = append(leads, p.To[0].Session)
			}
		}
		if fmt.Sprint(leads) != "[la01 lb01 lc01]" {
			t.Fatalf("run %d: the posts of the pause go to %v; want the leads of ann, bob, carl in that order", run, leads)
		}
		got := jsonOf(t, f.handled.Changes)
		if run == 0 {
			first = got
		} else if !bytes.Equal(first, got) {
			t.Fatalf("run %d: the changes differ from the first run:\n%s\n%s", run, first, got)
		}
	}
}

func TestGivenAPauseThenItsWakesComeInTheOrderOfTheSessions(t *testing.T) {
	var first []byte
	for run := range 50 {
		f := given(t, member("carl/c001", true), member("ann/a001", true), member("bob/b001", true), member("ann/a002", true))
		_, effects := f.mustRun("dora", pause(false, repo))
		got := jsonOf(t, effects)
		if len(effects.Wakes) != 4 {
			t.Fatalf("the pause woke %+v; want the 4 sessions", effects.Wakes)
		}
		if run == 0 {
			first = got
		} else if !bytes.Equal(first, got) {
			t.Fatalf("run %d: the effects differ from the first run:\n%s\n%s", run, first, got)
		}
	}
}

// outcome is what one call gave, as bytes: the records of the arrival
// and of the command, the reply, the effects or the refusal, and the
// views of who and the boards after it.
func outcome(t testing.TB, s *State, c call) []byte {
	t.Helper()
	var out struct {
		Arrival []record.Record
		Records []record.Record
		Reply   any
		Effects Effects
		Refused string
		Who     any
		Boards  []Board
	}
	if c.signal != nil {
		if c.caller.Class != record.ClassServer {
			c.signal.Set(s.presence, c.caller.Who(), c.now)
		}
	} else {
		if !s.Knows(c.caller) && c.cmd.kind() != "end" && c.caller.Class != record.ClassServer {
			if h, err := Check(s, Arrive{}, c.caller, c.now); err == nil {
				out.Arrival = s.Queue(c.caller, "register", "", h.Changes, c.now)
				out.Effects.add(s.WrittenRecords(out.Arrival, c.now))
			}
		}
		h, err := c.cmd.check(s, c.caller, c.now)
		if err != nil {
			out.Refused = err.Error()
		} else {
			out.Records = s.Queue(c.caller, c.cmd.kind(), "", h.Changes, c.now)
			out.Effects.add(s.WrittenRecords(out.Records, c.now))
			out.Reply = c.cmd.reply(s, c.caller, Done{Made: out.Records}, c.now)
		}
	}
	viewer := CallerOf(uri("ann/a001"))
	out.Who = s.Written().Who(viewer, true, c.now)
	out.Boards = s.Written().Boards(viewer, c.now)
	return jsonOf(t, out)
}

func TestTheSameStateAndCommandGiveTheSameChangesRepliesAndEffects(t *testing.T) {
	seeds, perSeed, runs := 120, 60, 6
	total := 0
	for seed := range uint64(seeds) {
		calls := generate(seed^0x5eed, perSeed)
		// More leads and pauses than the generator gives: a pause of the
		// whole riff then posts to several leads.
		calls = append(leadsAndPauses(), calls...)
		var want [][]byte
		for run := range runs {
			s := New(Options{Build: "test"})
			for i, c := range calls {
				got := outcome(t, s, c)
				if run == 0 {
					want = append(want, got)
					continue
				}
				if !bytes.Equal(want[i], got) {
					t.Fatalf("seed %d, call %d (%s), run %d: the outcome differs from the first run:\n%s\n%s",
						seed, i, kindOf(c), run, want[i], got)
				}
			}
		}
		total += len(calls)
	}
	if total < 8_000 {
		t.Errorf("the property ran %d calls; want at least 8,000", total)
	}
}

func kindOf(c call) string {
	if c.cmd != nil {
		return string(c.cmd.kind())
	}
	return fmt.Sprintf("%T", c.signal)
}

// leadsAndPauses gives the calls that make a lead of each user in each
// repository, a pause of each repository, and a pause and a resume of
// the whole riff, in the minute before the calls of the generator.
func leadsAndPauses() []call {
	now := Now{Ms: t0 - minute}
	var out []call
	add := func(c Caller, cmd step) {
		out = append(out, call{caller: c, cmd: cmd, now: now})
		now.Ms += second
	}
	for _, r := range genRepos {
		for _, who := range []string{"carl/c001", "ann/a001", "bob/b001"} {
			add(CallerOf(uriIn(who, r)), register(false))
			user := uriIn(who, r).User
			add(CallerOf(uriIn(user, r)), lead(uriIn(who, r).Session))
		}
		add(CallerOf(uriIn("ann", r)), pause(false, r))
	}
	add(CallerOf(uriIn("bob", repo)), pause(true, ""))
	add(CallerOf(uriIn("bob", repo)), resume(true, ""))
	add(CallerOf(uriIn("carl/c001", repo)), post("", "to each", "user=ann", "user=bob"))
	add(CallerOf(uriIn("ann/a001", repo)), postKind("", record.MessagePlain, "to the leads", "lead=true"))
	return out
}

func TestGivenManySessionsToForgetThenTheServerForgetsThemInTheOrderOfTheirKeys(t *testing.T) {
	var parts []any
	var want []string
	for i := range 12 {
		who := fmt.Sprintf("ann/s%03d", 11-i)
		parts = append(parts, member(who, true))
		want = append(want, fmt.Sprintf("ann/s%03d", i))
	}
	for run := range 20 {
		f := given(t, parts...).after(31 * day)
		var got []string
		for _, w := range f.s.Pending().ToForget(f.now) {
			got = append(got, w.String())
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("run %d: ToForget = %v; want %v", run, got, want)
		}
	}
}

func TestGivenTwoSessionsWithOneIDThenAnIDNamesTheSessionOfTheFirstKeyEachRun(t *testing.T) {
	for run := range 30 {
		f := given(t, member("bob/s001", true), member("ann/s001", true), member("carl/c001", true))
		s, err := f.s.Written().ResolveSession("s001", "", f.now)
		if err != nil || s.URI.Who() != whoOf("ann/s001") {
			t.Fatalf("run %d: ResolveSession(s001) = %v, %v; want ann/s001", run, s, err)
		}
		if got := f.s.Written().Title(whoOf("carl/c001"), "dm:c001+s001"); got != "direct with "+uri("ann/s001").Short() {
			t.Fatalf("run %d: the title of dm:c001+s001 = %q; want the session of ann", run, got)
		}
	}
}
