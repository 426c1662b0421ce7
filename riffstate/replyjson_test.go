package riffstate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// wireJSON is what the wire writes for a reply value: json.Encoder with
// no escape of HTML, and its newline.
func wireJSON(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Given sessions that claim and release many items in random turns
// (past the claims whose JSON is kept, minClaimsKept), that move, stop,
// start again, take the lead, and records of items that JSON escapes
// replayed among them, when the replies of claim and release are written
// as JSON from the state (AppendReply) after each call, then they are
// the bytes that the wire writes for the values of Reply, and the kept
// JSON of claims is used.
func TestGivenSessionsWithClaimsWhenTheRepliesAreWrittenThenTheyAreTheJSONOfTheirValues(t *testing.T) {
	sessions := []string{"ann/a001", "ann/a002", "bob/b001"}
	places := []name.Place{{Host: "pangolin", Repo: repo}, {Host: "pangolin", Repo: repo, Worktree: "wt-1"}, {Host: "heron", Repo: "o/other"}}
	items := make([]string, 90)
	for i := range items {
		items[i] = fmt.Sprintf("issue-%d", i)
	}
	odd := []name.Item{"a&b", "<x>", "q\"uote", "\xff"}
	compared, kept, most := 0, 0, 0
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
		s := New(Options{})
		// Some seeds release little: the claims pile up.
		releases := 57 + int(seed%3)*8
		now := Now{Ms: t0}
		makeRiff("01RIFF").run(s, ServerCaller(), now)
		resume(true, "").run(s, CallerOf(uriIn("ann", "")), now)
		// compare writes the replies of a claim and a release of item by
		// c both ways, with done as the records of the call.
		compare := func(c Caller, item string, done Done) {
			t.Helper()
			claim := Claim{Claim: wire.Claim{Item: name.Item(item)}}
			got, ok := AppendReply(nil, s, Command[wire.ClaimReply](claim), c, done, now)
			if want := wireJSON(t, Reply(s, Command[wire.ClaimReply](claim), c, done, now)); !ok || !bytes.Equal(got, want) {
				t.Fatalf("seed %d: AppendReply(claim %s of %v) = %s, %v\nwant %s", seed, item, c.Who(), got, ok, want)
			}
			release := Release{Release: wire.Release{Item: name.Item(item)}}
			got, ok = AppendReply(nil, s, Command[wire.ReleaseReply](release), c, done, now)
			if want := wireJSON(t, Reply(s, Command[wire.ReleaseReply](release), c, done, now)); !ok || !bytes.Equal(got, want) {
				t.Fatalf("seed %d: AppendReply(release %s of %v) = %s, %v\nwant %s", seed, item, c.Who(), got, ok, want)
			}
			compared += 2
			if sess := s.written.Session(c.Who()); sess != nil {
				most = max(most, len(sess.Claims))
				if s.texts.bySession[c.Who()] != nil {
					kept++
				}
			}
		}
		for i := range 600 {
			now.Ms += rng.Int64N(40 * second)
			if rng.IntN(150) == 0 {
				now.Ms += 6 * minute // the claims of the sessions end until they call again
			}
			who := sessions[rng.IntN(len(sessions))]
			u := uriIn(who, repo).At(places[rng.IntN(len(places))])
			c := CallerOf(u)
			item := items[rng.IntN(len(items))]
			switch k := rng.IntN(100); {
			case k < 55:
				claim("", item).run(s, c, now)
			case k < releases:
				release("", item).run(s, c, now)
			case k < 72:
			case k < 83 && rng.IntN(10) == 0:
				start(record.ReasonResume, false).run(s, c, now)
			case k < 86:
				lead(u.Session).run(s, CallerOf(uriIn(u.User, repo)), now)
			case k < 88:
				// A record of an old log: an item that JSON escapes.
				s.Replay(record.Record{Position: s.Position() + 1, WrittenAtMs: now.Ms, Command: "claim",
					Change: record.Claimed{Session: c.URI, Thread: repo, Item: odd[rng.IntN(len(odd))]}})
			case k < 90:
				for _, item := range odd {
					s.Replay(record.Record{Position: s.Position() + 1, WrittenAtMs: now.Ms, Command: "release",
						Change: record.Released{Session: c.URI, Thread: repo, Item: item}})
				}
			case k < 92 && rng.IntN(8) == 0:
				end().run(s, c, now)
			}
			compare(c, item, Done{})
			if i%50 == 0 {
				// A call of another caller at another place: the marks of
				// each session as the written copy holds them.
				for _, other := range sessions {
					compare(CallerOf(uriIn(other, "o/other")), item, Done{})
				}
			}
		}
	}
	if kept == 0 {
		t.Fatalf("%d replies compared, none with kept claims; want some past %d claims", compared, minClaimsKept)
	}
	t.Logf("%d replies compared, %d with kept claims, at most %d claims a session", compared, kept, most)
}

// Given a session with 20 claims whose reply was written (its claims
// kept as JSON), when a chunk of releases and claims comes before the
// next reply (a release of the last claim, which cuts it from the kept
// JSON; of another, which drops it; the last claim at its place again
// with as many claims as kept, which only the releases tell), then each reply is the JSON of its
// value, with the claims of the session.
func TestGivenKeptClaimsWhenAChunkReleasesAndClaimsThenTheReplyHasTheClaimsOfTheSession(t *testing.T) {
	type change struct {
		release bool
		item    name.Item
	}
	rel := func(item name.Item) change { return change{true, item} }
	cl := func(item name.Item) change { return change{false, item} }
	tests := []struct {
		name   string
		chunks [][]change
	}{
		{"the last released", [][]change{{rel("issue-19")}, {rel("issue-18")}, {cl("issue-19")}, {rel("issue-19")}}},
		{"a claim then the last kept released", [][]change{{cl("issue-new"), rel("issue-19")}, {rel("issue-new")}}},
		{"the last two released", [][]change{{rel("issue-19"), rel("issue-18")}, {cl("issue-18")}}},
		{"the first released", [][]change{{rel("issue-0")}, {rel("issue-19")}}},
		{"the last back at its place", [][]change{{rel("issue-19"), rel("issue-0"), cl("issue-new"), cl("issue-19")}}},
		// As many claims as kept, with the kept last one last: only the
		// release of the first tells that the kept JSON is old.
		{"the first released and the last back at its place", [][]change{{rel("issue-0"), rel("issue-19"), cl("issue-new"), cl("issue-19")}}},
		{"all released", [][]change{func() (all []change) {
			for i := range 20 {
				all = append(all, rel(name.Item(fmt.Sprintf("issue-%d", 19-i))))
			}
			return all
		}(), {cl("issue-3")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Options{})
			now := Now{Ms: t0}
			makeRiff("01RIFF").run(s, ServerCaller(), now)
			resume(true, "").run(s, CallerOf(uriIn("ann", "")), now)
			c := CallerOf(uri("ann/a001"))
			for i := range 20 {
				if _, _, err := claim("", fmt.Sprintf("issue-%d", i)).run(s, c, now); err != nil {
					t.Fatal(err)
				}
			}
			cmd := Command[wire.ClaimReply](Claim{Claim: wire.Claim{Item: "issue-19"}})
			if _, ok := AppendReply(nil, s, cmd, c, Done{}, now); !ok || s.texts.bySession[c.Who()] == nil {
				t.Fatalf("AppendReply of a session with 20 claims: ok = %v, kept = %v; want the claims kept", ok, s.texts.bySession[c.Who()] != nil)
			}
			for i, chunk := range tt.chunks {
				// One chunk: the steps of the writer, with no reply
				// between them.
				var changes []record.Change
				for _, ch := range chunk {
					if ch.release {
						changes = append(changes, record.Released{Session: c.URI, Thread: repo, Item: ch.item})
					} else {
						changes = append(changes, record.Claimed{Session: c.URI, Thread: repo, Item: ch.item})
					}
				}
				s.WrittenRecords(s.Queue(c, "claim", "", changes, now), now)
				got, _ := AppendReply(nil, s, cmd, c, Done{}, now)
				if want := wireJSON(t, Reply(s, cmd, c, Done{}, now)); !bytes.Equal(got, want) {
					t.Fatalf("AppendReply after chunk %d =\n%s\nwant %s", i, got, want)
				}
			}
		})
	}
}
