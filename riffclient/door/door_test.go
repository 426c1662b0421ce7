package door

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

const testBuild = "1.4.2 a1b2c3d4e5f6 2026-09-27T10:00:00Z"

var me = name.SessionURI{User: "mike", Host: "pangolin", Repo: "acme/app", Session: "a6cf2205-aaaa"}

// syncBuffer is a bytes.Buffer for many goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// wakeServer is a riff-server for a watch: each open of the stream sends
// the wakes of its turn (the last turn for each later open) and ends the
// stream, but the last turn stays open. It keeps each keep-alive.
type wakeServer struct {
	turns [][]wire.Wake
	// riffs is the riff ID of the hello line of each turn; none is "".
	riffs []string
	clear bool
	mu    sync.Mutex
	opens int
	alive []wire.Alive
}

func (s *wakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	w.Header().Set(wire.HeaderBuild, testBuild)
	switch r.URL.Path {
	case "/v1/alive":
		var a wire.Alive
		_ = json.Unmarshal(raw, &a)
		s.mu.Lock()
		s.alive = append(s.alive, a)
		clear := s.clear
		s.mu.Unlock()
		_ = json.NewEncoder(w).Encode(wire.AliveReply{Clear: clear})
	case "/v1/watch":
		s.mu.Lock()
		turn := min(s.opens, len(s.turns)-1)
		s.opens++
		s.mu.Unlock()
		enc := json.NewEncoder(w)
		riff := ""
		if turn < len(s.riffs) {
			riff = s.riffs[turn]
		}
		_ = enc.Encode(wire.Event{Type: wire.EventHello, Riff: riff})
		for _, wk := range s.turns[turn] {
			_ = enc.Encode(wire.Event{Type: wire.EventWake, Wake: &wk})
		}
		w.(http.Flusher).Flush()
		if turn == len(s.turns)-1 {
			<-r.Context().Done()
		}
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

func (s *wakeServer) openCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opens
}

func testClient(t *testing.T, h http.Handler) *riffclient.Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	b, err := build.ParseBuild(testBuild)
	if err != nil {
		t.Fatal(err)
	}
	u, err := riffclient.ParseServer(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return riffclient.New(u, riffclient.Options{Build: b, Budget: 2 * time.Second, ReconnectWait: time.Millisecond})
}

// waitFor polls until ok, for 10 s at the most.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after 10 s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func wake(thread string, seq uint64) wire.Wake {
	return wire.Wake{Thread: thread, Seq: seq, From: "ann@heron:app (1a2b)", Kind: record.MessageKind("message")}
}

// TestGivenAWakeThatComesAgainAfterABreakWhenTheWatchFollowsThenItGivesOneLine:
// the server sends a wake again at each open (a reconnect, a restart);
// the woke marks make it one line, and a new watch of the session prints
// it no more.
func TestGivenAWakeThatComesAgainAfterABreakWhenTheWatchFollowsThenItGivesOneLine(t *testing.T) {
	fake := &wakeServer{turns: [][]wire.Wake{
		{wake("acme/app", 3)},
		{wake("acme/app", 3), wake("dm:ann", 1)},
		{wake("acme/app", 3), wake("dm:ann", 1), wake("acme/app", 4)},
	}}
	files := Files{Dir: t.TempDir()}
	var out, marks syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	w := Watch{Client: testClient(t, fake), Me: me, Files: files, Follow: true, Out: &out,
		Marks: func(m string) { marks.Write([]byte(m + "\n")) }}
	go func() { done <- w.Run(ctx) }()
	want := "wake: ann@heron:app (1a2b) wrote in acme/app (message 3)\n" +
		"wake: ann@heron:app (1a2b) wrote to you in a direct message (message 1)\n" +
		"wake: ann@heron:app (1a2b) wrote in acme/app (message 4)\n"
	waitFor(t, "third line", func() bool { return out.String() == want || strings.Count(out.String(), "\n") > 3 })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v; want nil at the end of its context", err)
	}
	if out.String() != want {
		t.Errorf("the lines of the watch:\n%s\nwant:\n%s", out.String(), want)
	}
	if got := marks.String(); got != "(open)\n(reconnecting…)\n(back)\n(reconnecting…)\n(back)\n" {
		t.Errorf("marks = %q; want the open, two breaks and their ends", got)
	}
	woke, err := files.ReadWoke(me.Session)
	if err != nil || woke.Seqs["acme/app"] != 4 || woke.Seqs["dm:ann"] != 1 {
		t.Errorf("woke marks = %v, %v; want acme/app 4 and dm:ann 1", woke, err)
	}

	// A new watch with no Follow: the marks hold, so the first line is
	// the new wake, and then it ends.
	fresh := &wakeServer{turns: [][]wire.Wake{{wake("acme/app", 3), wake("dm:ann", 1), wake("acme/app", 5)}}}
	out = syncBuffer{}
	if err := (Watch{Client: testClient(t, fresh), Me: me, Files: files, Out: &out}).Run(context.Background()); err != nil {
		t.Fatalf("Run with no Follow = %v", err)
	}
	if got, want := out.String(), "wake: ann@heron:app (1a2b) wrote in acme/app (message 5)\n"; got != want {
		t.Errorf("a new watch printed %q; want only the new wake %q", got, want)
	}
}

// TestGivenAWatchThatFollowsWhenANewRiffStartsBehindTheSameAddressThenItsWakesFromSeq1GiveLines:
// a memory store makes a new riff at each start, whose messages count
// from 1 again: the woke marks of the old riff must not drop them, in
// the watch that runs over the restart and in a new watch after it.
func TestGivenAWatchThatFollowsWhenANewRiffStartsBehindTheSameAddressThenItsWakesFromSeq1GiveLines(t *testing.T) {
	fake := &wakeServer{
		turns: [][]wire.Wake{{wake("dm:ann", 3)}, {wake("dm:ann", 1), wake("dm:ann", 2)}},
		riffs: []string{"riff-before", "riff-after"},
	}
	files := Files{Dir: t.TempDir()}
	var out syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- (Watch{Client: testClient(t, fake), Me: me, Files: files, Follow: true, Out: &out}).Run(ctx)
	}()
	line := func(n string) string {
		return "wake: ann@heron:app (1a2b) wrote to you in a direct message (message " + n + ")\n"
	}
	want := line("3") + line("1") + line("2")
	waitFor(t, "the lines of the new riff", func() bool { return out.String() == want || strings.Count(out.String(), "\n") > 3 })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
	if out.String() != want {
		t.Errorf("the lines of the watch over a new riff:\n%s\nwant:\n%s", out.String(), want)
	}

	// A new watch, with the marks of riff-after in the local folder, at
	// a third riff: its seq 1 is a new message.
	third := &wakeServer{turns: [][]wire.Wake{{wake("dm:ann", 1)}}, riffs: []string{"riff-third"}}
	out = syncBuffer{}
	if err := (Watch{Client: testClient(t, third), Me: me, Files: files, Out: &out}).Run(context.Background()); err != nil {
		t.Fatalf("Run of a new watch = %v", err)
	}
	if got := out.String(); got != line("1") {
		t.Errorf("a new watch at a new riff printed %q; want %q", got, line("1"))
	}
	if woke, err := files.ReadWoke(me.Session); err != nil || woke.Riff != "riff-third" || woke.Seqs["dm:ann"] != 1 {
		t.Errorf("woke marks = %v, %v; want riff-third with dm:ann 1", woke, err)
	}
}

// TestGivenAGateWhenTheStreamBreaksThenTheWatchConnectsAgainOnlyOnceTheGateOpens:
// the test option holds the watch away from the server, so that a test
// posts while it is away.
func TestGivenAGateWhenTheStreamBreaksThenTheWatchConnectsAgainOnlyOnceTheGateOpens(t *testing.T) {
	fake := &wakeServer{turns: [][]wire.Wake{{}, {wake("acme/app", 2)}}}
	gate := make(chan struct{})
	gated := make(chan struct{}, 4)
	var out syncBuffer
	w := Watch{Client: testClient(t, fake), Me: me, Files: Files{Dir: t.TempDir()}, Out: &out,
		Gate: func(ctx context.Context) error {
			gated <- struct{}{}
			select {
			case <-gate:
			case <-ctx.Done():
			}
			return nil
		}}
	done := make(chan error, 1)
	go func() { done <- w.Run(context.Background()) }()
	select {
	case <-gated:
	case err := <-done:
		t.Fatalf("Run = %v before the gate opened; want the watch held at its gate", err)
	}
	if n := fake.openCount(); n != 1 {
		t.Fatalf("opens while the gate is shut = %d; want 1", n)
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
	if n := fake.openCount(); n != 2 || out.String() != "wake: ann@heron:app (1a2b) wrote in acme/app (message 2)\n" {
		t.Errorf("after the gate: %d opens and %q; want 2 and the wake", n, out.String())
	}
}

// TestGivenAWorkerThatRiffAsksToClearWhenItsKeepAliveRunsThenTheAskIsInTheFilesAndTheFactIsCarried:
// the keep-alive carries the fact of the hooks with its age, and the
// watch keeps the ask to clear of the reply for the Stop hook.
func TestGivenAWorkerThatRiffAsksToClearWhenItsKeepAliveRunsThenTheAskIsInTheFilesAndTheFactIsCarried(t *testing.T) {
	fake := &wakeServer{turns: [][]wire.Wake{{}}, clear: true}
	files := Files{Dir: t.TempDir()}
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	if err := files.WriteFact(me.Session, Fact{Activity: "runs Bash: run the tests", ActivityAtMs: at.UnixMilli()}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var asked bool
	k := KeepAlive{Client: testClient(t, fake), Me: me, Files: files, Every: time.Hour, Relay: "5b1e0c7a9d3f2e41",
		Now:     func() time.Time { return at.Add(90 * time.Second) },
		OnReply: func(r wire.AliveReply) { asked = r.Clear; cancel() }}
	k.Run(ctx)
	if !asked {
		t.Fatal("the keep-alive got no reply with the ask to clear")
	}
	fake.mu.Lock()
	a := fake.alive[0]
	fake.mu.Unlock()
	if a.Activity != "runs Bash: run the tests" || a.ActivitySecs == nil || *a.ActivitySecs != 90 || a.Binary == nil || a.Binary.Build != testBuild || a.Relay != "5b1e0c7a9d3f2e41" {
		t.Errorf("keep-alive = %+v; want the fact 90 s old, the build of the client and its relay", a)
	}

	w := Watch{Client: testClient(t, fake), Me: me, Files: files, Follow: true, Out: io.Discard}
	wctx, wcancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	waitFor(t, "ask to clear in the files", func() bool { ask, _ := files.Clear(me.Session); return ask })
	wcancel()
	<-done
}

// TestGivenTheHooksOfATurnWhenTheyRunThenTheFactFollowsAndAStopAnswersTheAskOnce:
// a tool, its end, a prompt and a stop give their facts; a riff tool is
// no work; the Stop hook answers an ask to clear once, and a fresh
// context clears the fact and the ask.
func TestGivenTheHooksOfATurnWhenTheyRunThenTheFactFollowsAndAStopAnswersTheAskOnce(t *testing.T) {
	files := Files{Dir: t.TempDir()}
	s := me.Session
	hook := func(in HookInput, nowMs int64) *StopAnswer {
		t.Helper()
		answer, err := files.Hook(in, s, nowMs)
		if err != nil {
			t.Fatalf("Hook(%s) = %v", in.HookEventName, err)
		}
		return answer
	}
	fact := func() Fact {
		t.Helper()
		f, err := files.ReadFact(s)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	bash := json.RawMessage(`{"command":"go test ./... # \u001b[31m","description":"run the \u001b[31mtests\n now"}`)
	hook(HookInput{HookEventName: "PreToolUse", ToolName: "Bash", ToolInput: bash}, 10)
	if f := fact(); f.Activity != "runs Bash: run the tests now" || f.ActivityAtMs != 10 || f.Tool != "Bash" {
		t.Errorf("fact after PreToolUse of Bash = %+v; want its description, cleaned, never its command", f)
	}
	hook(HookInput{HookEventName: "PreToolUse", ToolName: RiffToolPrefix + "blocked"}, 20)
	hook(HookInput{HookEventName: "PostToolUse", ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"riff status x"}`)}, 25)
	if f := fact(); f.Activity != "runs Bash: run the tests now" || !f.Blocked {
		t.Errorf("fact after the riff tools = %+v; want the Bash work still, and blocked", f)
	}
	hook(HookInput{HookEventName: "UserPromptSubmit"}, 30)
	if f := fact(); f.Activity != wire.ActivityWorks || f.PromptAtMs != 30 || f.Blocked {
		t.Errorf("fact after a prompt = %+v; want works, the prompt and no block", f)
	}
	// A model finds the riff tools with ToolSearch, calls one, and stops
	// its Monitor with TaskStop: none of it is work.
	for i, tool := range []string{"ToolSearch", RiffToolPrefix + "claim", "TaskStop"} {
		hook(HookInput{HookEventName: "PreToolUse", ToolName: tool, ToolInput: json.RawMessage(`{"query":"select:mcp__riff__claim"}`)}, int64(31+2*i))
		hook(HookInput{HookEventName: "PostToolUse", ToolName: tool}, int64(32+2*i))
	}
	if f := fact(); f.Activity != wire.ActivityWorks || f.ActivityAtMs != 30 {
		t.Errorf("fact after ToolSearch, a riff tool and TaskStop = %+v; want works since the prompt (no work)", f)
	}
	if answer := hook(HookInput{HookEventName: "Stop"}, 40); answer != nil {
		t.Errorf("Stop with no ask answered %+v; want none", answer)
	}
	if err := files.SetClear(s, true); err != nil {
		t.Fatal(err)
	}
	if answer := hook(HookInput{HookEventName: "Stop", StopHookActive: true}, 45); answer != nil {
		t.Errorf("Stop after a Stop hook answered %+v; want none", answer)
	}
	if answer := hook(HookInput{HookEventName: "Stop"}, 50); answer == nil || *answer != (StopAnswer{Decision: "block", Reason: ClearReason}) {
		t.Errorf("Stop with an ask answered %+v; want the block with the reason", answer)
	}
	if answer := hook(HookInput{HookEventName: "Stop"}, 55); answer != nil {
		t.Errorf("a second Stop answered %+v; want one answer for each ask", answer)
	}
	if f := fact(); f.Activity != wire.ActivityTurnEnded || f.TurnEndedAtMs != 55 {
		t.Errorf("fact after Stop = %+v; want turn ended", f)
	}
	if err := files.SetClear(s, true); err != nil {
		t.Fatal(err)
	}
	hook(HookInput{HookEventName: "SessionStart", Source: "clear"}, 60)
	if ask, _ := files.Clear(s); ask || fact() != (Fact{}) {
		t.Errorf("after a clear: ask %v, fact %+v; want no ask and no fact", ask, fact())
	}
	if _, err := files.Hook(HookInput{HookEventName: "Stop"}, "../x", 70); err == nil {
		t.Error("Hook of the session ../x = nil; want an error and no file")
	}
}

// TestGivenAPromptWhenTheLeadWaitsThenTheKeepAliveCarriesThePromptNow:
// the prompt hook keeps the prompt in the fact and sends it.
func TestGivenAPromptWhenTheLeadWaitsThenTheKeepAliveCarriesThePromptNow(t *testing.T) {
	fake := &wakeServer{turns: [][]wire.Wake{{}}}
	files := Files{Dir: t.TempDir()}
	Prompt(context.Background(), testClient(t, fake), files, me, 5_000)
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if len(fake.alive) != 1 || fake.alive[0].PromptSecs == nil || *fake.alive[0].PromptSecs != 0 || fake.alive[0].Activity != wire.ActivityWorks {
		t.Fatalf("keep-alives = %+v; want one with a prompt now", fake.alive)
	}
	if f, _ := files.ReadFact(me.Session); f.PromptAtMs != 5_000 {
		t.Errorf("fact = %+v; want the prompt kept", f)
	}
}

// TestGivenAWakeWhenItIsALineThenItNamesItsPlaceAndHoldsNoEscape: the
// line of the Monitor, with the text of the server cleaned.
func TestGivenAWakeWhenItIsALineThenItNamesItsPlaceAndHoldsNoEscape(t *testing.T) {
	for _, tt := range []struct {
		w    wire.Wake
		want string
	}{
		{wire.Wake{}, "wake: a pause changed: run riff whoami"},
		{wire.Wake{Thread: "chat", Seq: 2, From: "ann\x1b[31m", Kind: record.MessageStatus}, "wake: ann asks for your status in chat (message 2)"},
		{wire.Wake{Thread: "dm:ann", Seq: 3, From: "ann", Kind: record.MessageStatus}, "wake: ann asks for your status in a direct message (message 3)"},
		{wire.Wake{Thread: "dm:ann", Seq: 4, From: "ann"}, "wake: ann wrote to you in a direct message (message 4)"},
		{wire.Wake{Thread: "acme/\napp", Seq: 5, From: "ann"}, "wake: ann wrote in acme/ app (message 5)"},
	} {
		if got := WakeLine(tt.w); got != tt.want {
			t.Errorf("WakeLine(%+v) = %q; want %q", tt.w, got, tt.want)
		}
	}
}
