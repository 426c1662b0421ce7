package riffengine_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
)

// The trace lines (docs/operations.md, "The lines") and the denied lines
// (docs/trace.md).

// mark is the text that no log line may hold.
const mark = "MARK-BODY-1234"

func TestNoLogLineHoldsABody(t *testing.T) {
	r := start(t, setup{})
	ann, bob, wrk := uri("ann/ann1"), uri("bob/bob1"), uri("ann/wrk1")
	r.register("ann/ann1", "bob/bob1")
	r.ok("/v1/register", wire.Register{Me: wrk, Worker: true}, nil)

	// Each routed command and signal, with marked text in each free
	// field; some accepted, some refused. Each query too.
	calls := []struct {
		path string
		body any
	}{
		{"/v1/start", wire.Start{Me: bob, Reason: "process"}},
		{"/v1/join", wire.Join{Me: bob, Thread: "chat"}},
		{"/v1/leave", wire.Leave{Me: bob, Thread: "chat"}},
		{"/v1/post", wire.Post{Me: ann, Body: mark, To: []selector.Selector{{User: "bob"}}}},
		{"/v1/post", wire.Post{Me: ann, Tell: "bob1", Body: mark + " direct", Key: mark}},
		{"/v1/post", wire.Post{Me: ann, Thread: "dm:bob1+carl1", Body: mark}},
		{"/v1/post", wire.Post{Me: ann, Tell: "nobody", Body: mark}},
		{"/v1/claim", wire.Claim{Me: ann, Item: "issue-1"}},
		{"/v1/claim", wire.Claim{Me: bob, Item: "issue-1"}},
		{"/v1/release", wire.Release{Me: bob, Item: "issue-1"}},
		{"/v1/release/for", wire.ReleaseFor{Me: bob, Item: "issue-1", Session: "ann1"}},
		{"/v1/lead", wire.Lead{Me: uri("ann"), Session: "ann1"}},
		{"/v1/hold", wire.Hold{Me: ann, Item: "issue-2", Reason: mark}},
		{"/v1/hold", wire.Hold{Me: ann, Item: "issue-3", Reason: strings.Repeat(mark, 30)}},
		{"/v1/claim", wire.Claim{Me: wrk, Item: "issue-2"}},
		{"/v1/hold", wire.Hold{Me: wrk, Item: "issue-2", Reason: mark}},
		{"/v1/free", wire.Free{Me: ann, Item: "issue-2"}},
		{"/v1/plan", wire.SetPlan{Me: ann, Plan: mark}},
		{"/v1/plan", wire.SetPlan{Me: wrk, Plan: mark}},
		{"/v1/plan/off", wire.PlanOff{Me: ann}},
		{"/v1/notes", wire.SetNotes{Me: ann, Text: mark}},
		{"/v1/notes", wire.SetNotes{Me: wrk, Text: mark}},
		{"/v1/notes", wire.SetNotes{Me: ann, Text: mark + " ghp_" + strings.Repeat("a1B2", 9)}},
		{"/v1/pause", wire.Pause{Me: ann}},
		{"/v1/resume", wire.Resume{Me: ann}},
		{"/v1/idle/set", wire.SetIdle{Me: uri("ann"), User: "ann", Host: "pangolin", Repo: "o/repo", Count: 1}},
		{"/v1/end", wire.End{Me: uri("bob/bob2")}},
		{"/v1/status", wire.Status{Me: ann, Text: mark}},
		{"/v1/status", wire.Status{Me: ann, Text: mark + "\n" + mark}},
		{"/v1/blocked", wire.Blocked{Me: ann, Reason: mark}},
		{"/v1/step", wire.Step{Me: ann, Start: mark}},
		{"/v1/step", wire.Step{Me: ann, Fail: mark}},
		{"/v1/step", wire.Step{Me: ann, Start: mark, Fail: mark}},
		{"/v1/alive", wire.Alive{Me: ann, Activity: mark}},
		{"/v1/move", wire.Move{Me: ann}},
		{"/v1/who", wire.Who{Me: ann}},
		{"/v1/whoami", wire.Whoami{Me: ann}},
		{"/v1/read", wire.Read{Me: bob, All: true}},
		{"/v1/threads", wire.Threads{Me: bob}},
		{"/v1/riff", wire.Riff{Me: bob}},
		{"/v1/idle", wire.Idle{Me: bob}},
		{"/v1/notes/read", wire.Notes{Me: bob, History: true}},
		{"/v1/claim", []byte(`{"item":"` + mark + `"}`)},
		{"/v1/claim", []byte(`{"me":"` + mark + `"}`)},
		{"/v1/post", []byte(`{"me":"` + ann.String() + `","body":"` + mark + `",`)},
	}
	refused := 0
	for _, c := range calls {
		rep := r.post(c.path, c.body)
		if rep.status != http.StatusOK {
			refused++
		}
	}
	if refused < 8 {
		t.Errorf("only %d calls were refused; the test wants refused lines to look at", refused)
	}
	lines := r.logs.String()
	if n := len(r.logs.with(t, "refused")); n == 0 {
		t.Fatalf("no refused line; the test looks at nothing:\n%s", lines)
	}
	for _, line := range strings.Split(lines, "\n") {
		if strings.Contains(line, mark) {
			t.Errorf("a log line holds the mark: %s", line)
		}
	}
}

func TestDeniedLinesHaveALimitAndOneDroppedLine(t *testing.T) {
	c := newClock()
	r := start(t, setup{clock: c})

	// given 150 calls with no token in one window
	for range 150 {
		if rep := r.post("/v1/claim", wire.Claim{Item: "issue-7"}); rep.status != http.StatusUnauthorized {
			t.Fatalf("call with no me = %s; want 401", rep)
		}
	}
	// then 80 denied lines, and no dropped line yet
	denied := r.logs.with(t, "denied")
	if len(denied) != riffengine.DeniedMax-riffengine.DeniedReserved {
		t.Errorf("%d denied lines; want %d", len(denied), riffengine.DeniedMax-riffengine.DeniedReserved)
	}
	if d := denied[0]; d["code"] != "no_token" || d["path"] != "/v1/claim" || d["proved"] != false {
		t.Errorf("denied line = %v; want code no_token, path /v1/claim, proved false", d)
	}
	if n := len(r.logs.with(t, "dropped")); n != 0 {
		t.Errorf("%d dropped lines in the window; want none yet", n)
	}

	// when the window ends, the next refused call writes one dropped line
	c.Add(riffengine.DeniedInterval)
	r.post("/v1/claim", wire.Claim{Item: "issue-7"})
	dropped := r.logs.with(t, "dropped")
	if len(dropped) != 1 {
		t.Fatalf("%d dropped lines; want 1:\n%s", len(dropped), r.logs)
	}
	got := dropped[0]
	want := map[string]any{"severity": "WARNING", "count": 70.0, "counts": map[string]any{"no_token": 70.0}, "result": "dropped"}
	for k, v := range want {
		if !cmp.Equal(got[k], v) {
			t.Errorf("dropped line %s = %v; want %v", k, got[k], v)
		}
	}
	if n := len(r.logs.with(t, "denied")); n != 81 {
		t.Errorf("%d denied lines after the new window; want 81", n)
	}
	// and a stop ends the window too: no count is lost
	for range 100 {
		r.post("/v1/claim", wire.Claim{Item: "issue-7"})
	}
	r.srv.FlushDenied()
	dropped = r.logs.with(t, "dropped")
	if len(dropped) != 2 || dropped[1]["count"] != 21.0 {
		t.Errorf("dropped lines after the flush = %v; want a second one with count 21", dropped)
	}
}

func TestDeniedLinesAreTimedByTheClockOfTheEngine(t *testing.T) {
	c := newClock()
	r := start(t, setup{clock: c})
	for range 90 {
		r.post("/v1/claim", wire.Claim{Item: "issue-7"})
	}
	c.Add(riffengine.DeniedInterval - time.Millisecond)
	r.post("/v1/claim", wire.Claim{Item: "issue-7"})
	if n := len(r.logs.with(t, "dropped")); n != 0 {
		t.Errorf("a dropped line before the end of the window")
	}
}
