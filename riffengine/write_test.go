package riffengine_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/como-technologies/riff/riffstate"
)

// The tests of the one path and the writer (riffengine/doc.go,
// "Stages"; docs/store.md, "How it is tested"). Each one holds a
// chunk write with a gate, so that the order does not depend on time.

const repoThread = name.Thread("o/repo")

// holderOf gives the holder of an item in the written copy.
func (r *riff) holderOf(item name.Item) (name.Who, bool) {
	var w name.Who
	var ok bool
	r.e.View(func(v riffstate.View, now riffstate.Now) {
		if h := v.Riff().Holder(repoThread, item); h != nil {
			w, ok = h.Holder, true
		}
	})
	return w, ok
}

// claimsIn gives the claims that who shows for a session.
func claimsIn(rows []wire.WhoRow, w name.Who) []name.Item {
	for _, row := range rows {
		if row.URI.Who() == w {
			return row.URI.Claims
		}
	}
	return nil
}

func noReply(t *testing.T, c <-chan reply, what string) {
	t.Helper()
	select {
	case rep := <-c:
		t.Fatalf("%s replied %s before its write", what, rep)
	default:
	}
}

func TestARecordIsVisibleOnlyAfterItsWrite(t *testing.T) {
	g := newGate(mem.New())
	r := start(t, setup{store: g})
	r.register("ann/ann1", "bob/bob1")

	// given a claim whose chunk write waits
	g.hold()
	claimed := r.async(context.Background(), "/v1/claim", wire.Claim{Me: uri("ann/ann1"), Item: "issue-7"})
	<-g.entered

	// then no read shows it: who, whoami, and the view of the engine
	var who wire.WhoReply
	r.ok("/v1/who", wire.Who{Me: uri("bob/bob1")}, &who)
	if got := claimsIn(who.Rows, whoOf("ann/ann1")); len(got) != 0 {
		t.Errorf("who before the write shows the claims %v of ann1; want none", got)
	}
	var me wire.WhoamiReply
	r.ok("/v1/whoami", wire.Whoami{Me: uri("ann/ann1")}, &me)
	if len(me.URI.Claims) != 0 {
		t.Errorf("whoami before the write = %v; want no claim", me.URI)
	}
	if w, ok := r.holderOf("issue-7"); ok {
		t.Errorf("the written copy before the write has the holder %v", w)
	}
	noReply(t, claimed, "the claim")

	// when the write is done
	g.open()
	if rep := <-claimed; rep.status != http.StatusOK {
		t.Fatalf("claim = %s; want 200", rep)
	}

	// then each read shows it
	r.ok("/v1/who", wire.Who{Me: uri("bob/bob1")}, &who)
	if got := claimsIn(who.Rows, whoOf("ann/ann1")); !cmp.Equal(got, []name.Item{"issue-7"}) {
		t.Errorf("who after the write shows the claims %v of ann1; want [issue-7]", got)
	}
	r.ok("/v1/whoami", wire.Whoami{Me: uri("ann/ann1")}, &me)
	if !cmp.Equal(me.URI.Claims, []name.Item{"issue-7"}) {
		t.Errorf("whoami after the write = %v; want the claim issue-7", me.URI)
	}
	if w, ok := r.holderOf("issue-7"); !ok || w != whoOf("ann/ann1") {
		t.Errorf("holder after the write = %v, %v; want ann/ann1", w, ok)
	}
}

// bodies gives the bodies of the messages of a read.
func bodies(rep wire.ReadReply) []string {
	var out []string
	for _, pages := range [][]wire.ThreadPage{rep.ToYou, rep.Threads} {
		for _, p := range pages {
			for _, m := range p.Messages {
				out = append(out, m.Body)
			}
		}
	}
	return out
}

func TestAPostIsReadOnlyAfterItsWrite(t *testing.T) {
	g := newGate(mem.New())
	r := start(t, setup{store: g})
	r.register("ann/ann1", "bob/bob1")

	g.hold()
	posted := r.async(context.Background(), "/v1/post", wire.Post{Me: uri("ann/ann1"), Body: "the build is green"})
	<-g.entered

	var read wire.ReadReply
	r.ok("/v1/read", wire.Read{Me: uri("bob/bob1"), Thread: string(repoThread), All: true}, &read)
	if got := bodies(read); len(got) != 0 {
		t.Errorf("read before the write = %q; want no message", got)
	}
	noReply(t, posted, "the post")

	g.open()
	var p wire.PostReply
	rep := <-posted
	rep.decode(t, &p)
	if p.Seq != 1 {
		t.Errorf("post seq = %d; want 1", p.Seq)
	}
	r.ok("/v1/read", wire.Read{Me: uri("bob/bob1"), Thread: string(repoThread), All: true}, &read)
	if got := bodies(read); !cmp.Equal(got, []string{"the build is green"}) {
		t.Errorf("read after the write = %q; want the post", got)
	}
}

func TestACallDroppedWhileTheWriteWaitsIsDoneAndWakes(t *testing.T) {
	g := newGate(mem.New())
	r := start(t, setup{store: g})
	r.register("ann/ann1", "bob/bob1")
	watch := r.open("/v1/watch", wire.Watch{Me: uri("bob/bob1")})
	if ev, _ := watch.nextOf(); ev.Type != wire.EventHello {
		t.Fatalf("first line of the watch = %+v; want hello", ev)
	}

	// given a post to bob whose write waits
	g.hold()
	ctx, drop := context.WithCancel(context.Background())
	posted := r.async(ctx, "/v1/post", wire.Post{Me: uri("ann/ann1"), Tell: "bob1", Body: "are you there"})
	<-g.entered

	// when the client drops the call, and then the write ends
	drop()
	if rep := <-posted; rep.status != -1 {
		t.Fatalf("dropped call = %s; want no reply", rep)
	}
	g.open()

	// then the wake goes to the watch of bob
	ev, ok := watch.nextOf()
	if !ok || ev.Type != wire.EventWake || ev.Wake == nil {
		t.Fatalf("watch line = %+v, %v; want a wake", ev, ok)
	}
	if ev.Wake.Seq != 1 || ev.Wake.Thread != "dm:ann1" {
		t.Errorf("wake = %+v; want seq 1 in dm:ann1", *ev.Wake)
	}
	// and the written copy and the log have the message
	var read wire.ReadReply
	r.ok("/v1/read", wire.Read{Me: uri("bob/bob1"), Thread: "dm:ann1", All: true}, &read)
	if got := bodies(read); !cmp.Equal(got, []string{"are you there"}) {
		t.Errorf("read of bob = %q; want the dropped post", got)
	}
	var posts int
	for _, rec := range records(t, g) {
		if p, ok := rec.Change.(record.Posted); ok && p.Woken[0] == whoOf("bob/bob1") {
			posts++
		}
	}
	if posts != 1 {
		t.Errorf("the log has %d posts to bob; want 1", posts)
	}
}

// writtenRiff gives the riff of the written copy. Call it when no write
// runs.
func (r *riff) writtenRiff() *riffstate.Riff {
	var out *riffstate.Riff
	r.e.View(func(v riffstate.View, now riffstate.Now) { out = v.Riff() })
	return out
}

// replayed loads the store into a new state, as a start does, and gives
// its riff.
func replayed(t *testing.T, r *riff) *riffstate.Riff {
	t.Helper()
	loaded, err := riffengine.Load(context.Background(), r.store, riffstate.Options{Build: serverBuild().String()})
	if err != nil {
		t.Fatalf("Load = %v", err)
	}
	return loaded.State.Written().Riff()
}

// allFields compares unexported fields too: the riff is plain data.
// allFields compares the unexported fields too, but for the array that
// a thread's kept messages move in: memory, not state.
var allFields = cmp.Options{cmp.Exporter(func(reflect.Type) bool { return true }), cmpopts.EquateEmpty(),
	cmpopts.IgnoreFields(riffstate.Thread{}, "kept")}

func TestAClaimAndAReleaseInOneChunkGiveTheReplayOfTheLog(t *testing.T) {
	g := newGate(mem.New())
	r := start(t, setup{store: g})
	r.register("ann/ann1", "bob/bob1")

	// given a chunk that waits, so that the next two commands queue
	g.hold()
	first := r.async(context.Background(), "/v1/post", wire.Post{Me: uri("bob/bob1"), Body: "first"})
	<-g.entered
	claimed := r.async(context.Background(), "/v1/claim", wire.Claim{Me: uri("ann/ann1"), Item: "issue-7"})
	r.queued(1)
	released := r.async(context.Background(), "/v1/release", wire.Release{Me: uri("ann/ann1"), Item: "issue-7"})
	r.queued(2)

	// when the writer writes them
	g.open()
	for _, c := range []<-chan reply{first, claimed, released} {
		if rep := <-c; rep.status != http.StatusOK {
			t.Fatalf("call = %s; want 200", rep)
		}
	}

	// then the claim and the release are in one chunk
	cs := chunks(t, g)
	last := cs[len(cs)-1]
	var kinds []string
	for _, rec := range last {
		kinds = append(kinds, rec.Command+" "+string(rec.Change.Kind()))
	}
	if want := []string{"claim claimed", "release released"}; !cmp.Equal(kinds, want) {
		t.Errorf("the last chunk holds %q; want %q", kinds, want)
	}
	// and the written copy is the replay of the log
	if diff := cmp.Diff(replayed(t, r), r.writtenRiff(), allFields); diff != "" {
		t.Errorf("written copy differs from the replay (-replay +written):\n%s", diff)
	}
}

func TestARefusalAsHeldComesOnlyAfterTheWriteOfTheClaimThatHolds(t *testing.T) {
	g := newGate(mem.New())
	r := start(t, setup{store: g})
	r.register("ann/ann1", "bob/bob1")

	g.hold()
	annClaim := r.async(context.Background(), "/v1/claim", wire.Claim{Me: uri("ann/ann1"), Item: "issue-7"})
	<-g.entered

	// bob's claim is refused against the pending copy, and waits
	type seen struct {
		rep  reply
		puts int64
	}
	bobDone := make(chan seen, 1)
	go func() {
		rep, err := r.call(context.Background(), "/v1/claim", wire.Claim{Me: uri("bob/bob1"), Item: "issue-7"})
		if err != nil {
			rep = reply{status: -1, body: []byte(err.Error())}
		}
		bobDone <- seen{rep, g.puts.Load()}
	}()
	r.queued(1)
	putsBefore := g.puts.Load()
	select {
	case s := <-bobDone:
		t.Fatalf("bob's claim replied %s before the write of ann's claim", s.rep)
	default:
	}

	g.open()
	if rep := <-annClaim; rep.status != http.StatusOK {
		t.Fatalf("ann's claim = %s; want 200", rep)
	}
	s := <-bobDone
	if s.rep.status != http.StatusConflict || s.rep.header.Get(wire.HeaderRefused) != string(wire.Held) {
		t.Fatalf("bob's claim = %s (riff-refused %q); want 409 held", s.rep, s.rep.header.Get(wire.HeaderRefused))
	}
	if s.puts <= putsBefore {
		t.Errorf("bob's refusal came after %d chunk writes; want after the write of ann's claim (%d)", s.puts, putsBefore+1)
	}
}

func TestTwoPostsInOneChunkGetSeqsOneAndTwoAndWakeBoth(t *testing.T) {
	g := newGate(mem.New())
	r := start(t, setup{store: g})
	r.register("ann/ann1", "bob/bob1", "carl/carl1")
	watch := r.open("/v1/watch", wire.Watch{Me: uri("carl/carl1")})
	if ev, _ := watch.nextOf(); ev.Type != wire.EventHello {
		t.Fatalf("first line = %+v; want hello", ev)
	}

	g.hold()
	first := r.async(context.Background(), "/v1/register", wire.Register{Me: uri("dora/dora1")})
	<-g.entered
	to := []selector.Selector{{User: "carl"}}
	annPost := r.async(context.Background(), "/v1/post", wire.Post{Me: uri("ann/ann1"), To: to, Body: "one"})
	r.queued(1)
	bobPost := r.async(context.Background(), "/v1/post", wire.Post{Me: uri("bob/bob1"), To: to, Body: "two"})
	r.queued(2)
	g.open()
	if rep := <-first; rep.status != http.StatusOK {
		t.Fatalf("register = %s", rep)
	}
	var seqs []uint64
	for _, c := range []<-chan reply{annPost, bobPost} {
		var p wire.PostReply
		rep := <-c
		rep.decode(t, &p)
		seqs = append(seqs, p.Seq)
	}
	if !cmp.Equal(seqs, []uint64{1, 2}) {
		t.Errorf("post seqs = %v; want [1 2]", seqs)
	}

	cs := chunks(t, g)
	var inChunk []uint64
	for _, rec := range cs[len(cs)-1] {
		if p, ok := rec.Change.(record.Posted); ok {
			inChunk = append(inChunk, p.Seq)
		}
	}
	if !cmp.Equal(inChunk, []uint64{1, 2}) {
		t.Errorf("the last chunk holds the posts %v; want [1 2] in one chunk", inChunk)
	}

	var woke []uint64
	for range 2 {
		ev, ok := watch.nextOf()
		if !ok || ev.Wake == nil {
			t.Fatalf("watch line = %+v, %v; want a wake", ev, ok)
		}
		woke = append(woke, ev.Wake.Seq)
	}
	if !cmp.Equal(woke, []uint64{1, 2}) {
		t.Errorf("carl's wakes = %v; want [1 2]", woke)
	}
}

func TestRepeatedCalls(t *testing.T) {
	claim := func(who, item string) wire.Claim { return wire.Claim{Me: uri(who), Item: name.Item(item)} }
	countCall := func(t *testing.T, r *riff, call string) int {
		n := 0
		for _, rec := range records(t, r.store) {
			if rec.Call == call {
				n++
			}
		}
		return n
	}

	t.Run("a kept call gives the kept reply with riff-repeat and no second record", func(t *testing.T) {
		r := start(t, setup{})
		r.register("ann/ann1")
		var one, two wire.ClaimReply
		first := r.ok("/v1/claim", claim("ann/ann1", "issue-7"), &one, wire.HeaderCall, "call-1")
		if first.header.Get(wire.HeaderRepeat) != "" {
			t.Errorf("first try has riff-repeat %q; want none", first.header.Get(wire.HeaderRepeat))
		}
		at := r.position()
		second := r.ok("/v1/claim", claim("ann/ann1", "issue-7"), &two, wire.HeaderCall, "call-1")
		if got := second.header.Get(wire.HeaderRepeat); got != "1" {
			t.Errorf("second try has riff-repeat %q; want 1", got)
		}
		if diff := cmp.Diff(one, two); diff != "" {
			t.Errorf("kept reply differs (-first +second):\n%s", diff)
		}
		if r.position() != at || countCall(t, r, "call-1") != 1 {
			t.Errorf("position %d -> %d, %d records of call-1; want no second record", at, r.position(), countCall(t, r, "call-1"))
		}
	})

	t.Run("a second try while the first waits waits for the same entry", func(t *testing.T) {
		g := newGate(mem.New())
		r := start(t, setup{store: g})
		r.register("ann/ann1")
		g.hold()
		first := r.async(context.Background(), "/v1/claim", claim("ann/ann1", "issue-7"), wire.HeaderCall, "call-2")
		<-g.entered
		second := r.async(context.Background(), "/v1/claim", claim("ann/ann1", "issue-7"), wire.HeaderCall, "call-2")
		until(t, "the second try at the server", func() bool { return r.started("call-2") == 2 })
		if n := r.e.QueueLen(); n != 0 {
			t.Errorf("the second try queued %d entries; want none", n)
		}
		noReply(t, second, "the second try")
		g.open()
		one, two := <-first, <-second
		if one.status != http.StatusOK || two.status != http.StatusOK {
			t.Fatalf("tries = %s, %s; want 200, 200", one, two)
		}
		if got := two.header.Get(wire.HeaderRepeat); got != "1" {
			t.Errorf("second try has riff-repeat %q; want 1", got)
		}
		if n := countCall(t, r, "call-2"); n != 1 {
			t.Errorf("the log has %d records of call-2; want 1", n)
		}
	})

	t.Run("a refused first try runs handle again", func(t *testing.T) {
		r := start(t, setup{})
		r.register("ann/ann1", "bob/bob1")
		r.ok("/v1/claim", claim("bob/bob1", "issue-7"), nil)
		refused := r.post("/v1/claim", claim("ann/ann1", "issue-7"), wire.HeaderCall, "call-3")
		if refused.status != http.StatusConflict {
			t.Fatalf("first try = %s; want 409 held", refused)
		}
		r.ok("/v1/release", wire.Release{Me: uri("bob/bob1"), Item: "issue-7"}, nil)
		again := r.ok("/v1/claim", claim("ann/ann1", "issue-7"), nil, wire.HeaderCall, "call-3")
		if got := again.header.Get(wire.HeaderRepeat); got != "" {
			t.Errorf("second try has riff-repeat %q; want none: handle ran again", got)
		}
		if w, ok := r.holderOf("issue-7"); !ok || w != whoOf("ann/ann1") {
			t.Errorf("holder = %v, %v; want ann/ann1", w, ok)
		}
	})
}

func TestGivenACallIDOfAnEarlierPostWhenAClaimReusesItThenItIsRefusedAndDoesNotRun(t *testing.T) {
	post := func(body string) wire.Post { return wire.Post{Me: uri("ann/ann1"), Body: body} }
	for _, restart := range []bool{false, true} {
		t.Run(fmt.Sprintf("restart %v", restart), func(t *testing.T) {
			store := mem.New()
			r := start(t, setup{store: store})
			r.register("ann/ann1", "bob/bob1")
			var first wire.PostReply
			r.ok("/v1/post", post("the first text"), &first, wire.HeaderCall, "reused-id")
			if restart {
				if err := r.e.Close(context.Background()); err != nil {
					t.Fatal(err)
				}
				r = start(t, setup{store: store})
			}
			at := r.position()
			claim := r.post("/v1/claim", wire.Claim{Me: uri("ann/ann1"), Item: "reuse-item"}, wire.HeaderCall, "reused-id")
			if claim.status != http.StatusBadRequest || claim.header.Get(wire.HeaderRefused) != string(wire.BadRequest) ||
				claim.header.Get(wire.HeaderRepeat) != "" {
				t.Fatalf("a claim with the call ID of a post = %s (riff-repeat %q); want 400 bad_request", claim, claim.header.Get(wire.HeaderRepeat))
			}
			if !strings.Contains(string(claim.body), `the call ID "reused-id" is the ID of an earlier post call`) {
				t.Errorf("refusal %q; want it to name the call ID and the earlier post", claim.body)
			}
			other := r.post("/v1/post", post("another text"), wire.HeaderCall, "reused-id")
			if other.status != http.StatusBadRequest || !strings.Contains(string(other.body), "with another body") {
				t.Errorf("a post with a reused call ID and another body = %s; want 400 that names another body", other)
			}
			if r.position() != at {
				t.Errorf("position %d -> %d; want no record of the refused calls", at, r.position())
			}
			// Another session may take the item: the refused claim holds
			// nothing.
			r.ok("/v1/claim", wire.Claim{Me: uri("bob/bob1"), Item: "reuse-item"}, nil)
			var again wire.PostReply
			rep := r.ok("/v1/post", post("the first text"), &again, wire.HeaderCall, "reused-id")
			if rep.header.Get(wire.HeaderRepeat) != "1" || again.Seq != first.Seq {
				t.Errorf("the same post again = %s; want the kept reply with seq %d", rep, first.Seq)
			}
		})
	}
}

func TestAChunkThatFailsForGoodStopsTheInstance(t *testing.T) {
	g := newGate(mem.New())
	r := start(t, setup{store: g})
	r.register("ann/ann1", "bob/bob1", "carl/carl1")

	// given three claims in one chunk, behind a chunk that waits
	g.hold()
	first := r.async(context.Background(), "/v1/register", wire.Register{Me: uri("dora/dora1")})
	<-g.entered
	var claims []<-chan reply
	for i, who := range []string{"ann/ann1", "bob/bob1", "carl/carl1"} {
		claims = append(claims, r.async(context.Background(), "/v1/claim", wire.Claim{Me: uri(who), Item: name.Item("issue-7" + strings.Repeat("x", i))}))
		r.queued(i + 1)
	}
	g.let()
	if rep := <-first; rep.status != http.StatusOK {
		t.Fatalf("register = %s; want 200", rep)
	}

	// when the write of their chunk fails for good
	<-g.entered
	g.fail.Store(true)
	g.open()

	// then each waiting call gets 503, and so does a later call
	for _, c := range claims {
		if rep := <-c; rep.status != http.StatusServiceUnavailable {
			t.Errorf("waiting claim = %s; want 503", rep)
		}
	}
	later := r.post("/v1/claim", wire.Claim{Me: uri("ann/ann1"), Item: "issue-9"})
	if later.status != http.StatusServiceUnavailable {
		t.Errorf("later claim = %s; want 503", later)
	}
	// and the engine stops
	<-r.e.Done()
	// and each command of the chunk has a failed line at ERROR
	var failed []string
	for _, line := range r.logs.with(t, "failed") {
		if line["severity"] == "ERROR" {
			caller, _ := line["caller"].(map[string]any)
			failed = append(failed, line["command"].(string)+" "+caller["session"].(string))
		}
	}
	want := []string{"claim ann/ann1", "claim bob/bob1", "claim carl/carl1"}
	if !cmp.Equal(failed, want) {
		t.Errorf("failed lines at ERROR = %q; want %q\n%s", failed, want, r.logs)
	}
	// and GET /v1/server still answers, and says why
	resp, err := r.http.Client().Get(r.http.URL + "/v1/server")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var facts wire.ServerFacts
	if err := jsonDecode(resp, &facts); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/server = %d, %v; want 200", resp.StatusCode, err)
	}
	if facts.Serves || !strings.Contains(facts.Why, "the disk is gone") || facts.WriteErrors != 1 {
		t.Errorf("facts = serves %v, why %q, write errors %d; want not serving, why naming the error, 1", facts.Serves, facts.Why, facts.WriteErrors)
	}
}

func TestSettleWritesWhatWaitsAndALastCheckpoint(t *testing.T) {
	g := newGate(mem.New())
	r := start(t, setup{store: g})
	r.register("ann/ann1")

	// given a claim whose write waits
	g.hold()
	claimed := r.async(context.Background(), "/v1/claim", wire.Claim{Me: uri("ann/ann1"), Item: "issue-7"})
	<-g.entered

	// when the server settles (a stop signal)
	settled := make(chan error, 1)
	go func() { settled <- r.e.Close(context.Background()) }()
	until(t, "the gate to close", r.e.Closed)
	// and a command after the close is refused at once
	if _, err := riffengine.Dispatch[riffstate.Claim, wire.ClaimReply](context.Background(), r.e,
		riffengine.Authenticate(prove(t, uri("ann/ann1")), riffstate.Claim{Claim: wire.Claim{Me: uri("ann/ann1"), Item: "issue-8"}})); err == nil {
		t.Errorf("a claim after the close was taken")
	}
	g.open()

	// then the claim is written and acknowledged
	if err := <-settled; err != nil {
		t.Fatalf("Close = %v", err)
	}
	if rep := <-claimed; rep.status != http.StatusOK {
		t.Fatalf("claim = %s; want 200", rep)
	}
	last := r.position()
	if w, ok := r.holderOf("issue-7"); !ok || w != whoOf("ann/ann1") {
		t.Errorf("holder of issue-7 after settle = %v, %v; want ann/ann1", w, ok)
	}
	// and a checkpoint is at the last position, and a start from the
	// store gives the written copy
	names, err := g.List(context.Background(), rifflog.CheckpointPrefix)
	if err != nil {
		t.Fatal(err)
	}
	var at []uint64
	for _, n := range names {
		if p, _, ok := rifflog.ParseCheckpointName(n); ok {
			at = append(at, p)
		}
	}
	if len(at) == 0 || at[len(at)-1] != last {
		t.Errorf("checkpoints at %v; want one at the last position %d", at, last)
	}
	if diff := cmp.Diff(replayed(t, r), r.writtenRiff(), allFields); diff != "" {
		t.Errorf("a start after settle differs (-start +written):\n%s", diff)
	}
	// and a normal stop gives no failed line
	if failed := r.logs.with(t, "failed"); len(failed) != 0 {
		t.Errorf("settle gave failed lines: %v", failed)
	}
}
