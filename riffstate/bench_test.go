package riffstate

import (
	"fmt"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The scale of the cost section of the store design: 36 people with 8
// live sessions each, about 24,800 direct threads with a few messages
// each, and 200 messages in each repository thread.
const (
	scalePeople   = 36
	scaleSessions = 8
	scaleRepos    = 12
	scaleDirect   = 24_800
	scaleDirectMs = 3
)

func scaleWho(p, s int) string { return fmt.Sprintf("user%02d/u%02ds%06d", p, p, s) }

func scaleRepo(p int) string { return fmt.Sprintf("o/repo%02d", p%scaleRepos) }

// scaleState builds a state at the scale of the store design, each
// session live at t0.
func scaleState(tb testing.TB) *State {
	tb.Helper()
	s := New(Options{Build: "bench"})
	var log []record.Record
	add := func(r record.Record) {
		r.Position = uint64(len(log) + 1)
		r.WrittenAtMs = t0
		log = append(log, r)
	}
	var all []name.SessionURI
	for p := range scalePeople {
		r := scaleRepo(p)
		for i := range scaleSessions {
			u := uriIn(scaleWho(p, i), r)
			all = append(all, u)
			by := u.Who().String()
			add(rec(by, "register", record.SessionStarted{Session: u, Reason: record.ReasonJoin, Worker: i > 0}))
			add(rec(by, "register", record.JoinedThread{Session: u, Thread: name.Thread(r)}))
		}
		lead := uriIn(scaleWho(p, 0), r)
		add(rec(lead.User, "lead", record.LeadSet{Session: lead, Thread: name.Thread(r)}))
	}
	seq := map[name.Thread]uint64{}
	message := func(sender name.SessionURI, thread name.Thread, body string) {
		seq[thread]++
		p := record.Posted{Thread: thread, Seq: seq[thread], Sender: sender, Type: record.MessagePlain,
			To: []selector.Selector{{Claim: "issue-1"}}}
		p.Payload = payloadOf(p, body)
		add(rec(sender.Who().String(), "post", p))
	}
	for r := range scaleRepos {
		thread := name.Thread(fmt.Sprintf("o/repo%02d", r))
		for m := range KeptMessages {
			message(all[(r+m*scaleRepos)%len(all)], thread, fmt.Sprintf("the build of wave %d is green, and the next item waits for a verify", m))
		}
	}
	for d := range scaleDirect {
		a := all[d%len(all)]
		b := all[(d/len(all)+1+d)%len(all)]
		if a.Session == b.Session {
			b = all[(d+7)%len(all)]
		}
		thread := name.DirectWith(a.Who(), b.Who())
		for m := range scaleDirectMs {
			message(a, thread, fmt.Sprintf("request: claim issue-%d, then tell me the pull request (%d)", d, m))
		}
	}
	s.Replay(log...)
	for _, u := range all {
		Called{Place: u.Place()}.Set(s.presence, u.Who(), Now{Ms: t0})
	}
	return s
}

// handleApply runs one command as the engine does: Check, Queue and
// WrittenRecords.
func handleApply[R any](tb testing.TB, s *State, cmd Command[R], c Caller, now Now) []record.Record {
	h, err := Check(s, cmd, c, now)
	if err != nil {
		tb.Fatalf("%s refused: %v", cmd.Kind(), err)
	}
	made := s.Queue(c, cmd.Kind(), "", h.Changes, now)
	s.WrittenRecords(made, now)
	return made
}

func BenchmarkClaimHandleApply(b *testing.B) {
	s := scaleState(b)
	u := uriIn(scaleWho(3, 0), scaleRepo(3))
	c := CallerOf(u)
	now := Now{Ms: t0 + second}
	claim := Claim{Claim: wire.Claim{Item: "issue-12"}}
	release := []record.Change{record.Released{Session: u, Thread: name.Thread(u.Repo), Item: "issue-12"}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if made := handleApply(b, s, claim, c, now); len(made) != 1 {
			b.Fatalf("claim made %d records", len(made))
		}
		// The release is no part of the measure: it keeps the state as
		// it was, so each claim meets the same riff.
		b.StopTimer()
		s.WrittenRecords(s.Queue(c, "release", "", release, now), now)
		b.StartTimer()
	}
}

func BenchmarkReleaseHandleApply(b *testing.B) {
	s := scaleState(b)
	u := uriIn(scaleWho(3, 0), scaleRepo(3))
	c := CallerOf(u)
	now := Now{Ms: t0 + second}
	claim := []record.Change{record.Claimed{Session: u, Thread: name.Thread(u.Repo), Item: "issue-12"}}
	release := Release{Release: wire.Release{Item: "issue-12"}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		s.WrittenRecords(s.Queue(c, "claim", "", claim, now), now)
		b.StartTimer()
		if made := handleApply(b, s, release, c, now); len(made) != 1 {
			b.Fatalf("release made %d records", len(made))
		}
	}
}

func BenchmarkPostHandleApply(b *testing.B) {
	s := scaleState(b)
	c := CallerOf(uriIn(scaleWho(3, 2), scaleRepo(3)))
	now := Now{Ms: t0 + second}
	yes := true
	post := Post{Post: wire.Post{Body: "issue-12 is merged; the next item waits for a verify",
		To: []selector.Selector{{Lead: &yes}, {Claim: "issue-12"}}}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if made := handleApply(b, s, post, c, now); len(made) != 1 {
			b.Fatalf("post made %d records", len(made))
		}
	}
}

func BenchmarkCheckpointEncode(b *testing.B) {
	s := scaleState(b)
	for key := range s.written.Sessions {
		w, _ := name.ParseWho(key)
		for _, t := range s.written.ThreadsOf(w) {
			Read{Thread: t, Seq: 1}.Set(s.presence, w, Now{Ms: t0})
		}
	}
	var size int
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		data, err := s.EncodeCheckpoint()
		if err != nil {
			b.Fatal(err)
		}
		size = len(data)
	}
	b.ReportMetric(float64(size), "bytes/checkpoint")
	b.ReportMetric(float64(len(s.written.Threads)), "threads")
}
