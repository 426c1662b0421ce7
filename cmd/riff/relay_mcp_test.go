package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/como-technologies/riff/riffclient/door"
	"github.com/como-technologies/riff/riffclient/local"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog/mem"
)

// The tests of riff relay mcp run the real riff binary as riff relay mcp,
// driven by the MCP client of the Go SDK over stdio, against a riff-server
// on loopback.

// relayTools are the tools of riff relay mcp, as issue 13 names them.
var relayTools = []string{"whoami", "who", "threads", "read", "post", "tell", "status", "blocked", "claim", "release",
	"hold", "free", "pause", "resume", "notes", "move"}

// buildRiff builds the binaries that names, once for each test, into one
// directory.
func buildRiff(t *testing.T, names ...string) string {
	t.Helper()
	return buildRiffVersion(t, "", names...)
}

// buildRiffVersion is buildRiff with the version that -ldflags sets ("" is
// the default version of each binary).
func buildRiffVersion(t *testing.T, version string, names ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("the relay tests build binaries")
	}
	pkgs := make([]string, len(names))
	for i, n := range names {
		pkgs[i] = "./" + n
	}
	return binaries(t, version, pkgs...)
}

// mcpRelay is one riff relay mcp process and the MCP client session on
// its stdio.
type mcpRelay struct {
	t       *testing.T
	cmd     *exec.Cmd
	session *mcp.ClientSession
	stderr  *syncBuffer
}

// startRelay starts riff relay mcp in dir as session, with the env of the
// end-to-end tests and env, and connects the MCP client of the Go SDK.
func startRelay(t *testing.T, bin, dir, server, session string, env ...string) *mcpRelay {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "riff"), "relay", "mcp")
	cmd.Dir = dir
	cmd.Env = append(append(riffEnv(server, session), "RIFF_HOME="+t.TempDir()), env...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "riff-test", Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to riff relay mcp: %v\n%s", err, stderr.String())
	}
	r := &mcpRelay{t: t, cmd: cmd, session: cs, stderr: stderr}
	t.Cleanup(func() {
		_ = cs.Close()
		if t.Failed() {
			t.Logf("the stderr of riff relay mcp (%s):\n%s", session, stderr.String())
		}
	})
	return r
}

// call calls a tool and gives its text and whether it is a tool error.
func (r *mcpRelay) call(tool string, args map[string]any) (string, bool) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := r.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		r.t.Fatalf("call %s: %v", tool, err)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n"), res.IsError
}

// ok calls a tool that must work, and gives its text.
func (r *mcpRelay) ok(tool string, args map[string]any) string {
	r.t.Helper()
	text, isErr := r.call(tool, args)
	if isErr {
		r.t.Fatalf("%s %v is a tool error: %s", tool, args, text)
	}
	return text
}

// TestRelayMCP runs riff relay mcp against riff-server on loopback.
func TestRelayMCP(t *testing.T) {
	bin := buildRiff(t, "riff", "riff-server")
	srv := startServer(t, bin, freePort(t), t.TempDir())
	server := srv.url()
	t.Run("tools", func(t *testing.T) { testRelayTools(t, bin, server) })
	t.Run("pages", func(t *testing.T) { testRelayPages(t, bin, server) })
	t.Run("end", func(t *testing.T) { testRelayEnd(t, bin, server) })
	t.Run("sigterm", func(t *testing.T) { testRelaySigterm(t, bin, server) })
	t.Run("fact", func(t *testing.T) { testRelayFact(t, bin, server) })
	t.Run("restart", func(t *testing.T) { testRelayRestart(t, bin, srv) })
}

// cliText runs riff as session in dir and gives its stdout with no last
// newline: the text that the tool of the same command gives.
func cliText(t *testing.T, bin, dir, server, session string, args ...string) string {
	t.Helper()
	stdout, stderr, code := runRiff(t, bin, dir, server, session, args...)
	if code != exitOK {
		t.Fatalf("riff %v = %d: %s", args, code, stderr)
	}
	return strings.TrimRight(stdout, "\n")
}

// TestGivenARelayWhenAnAgentListsAndCallsEachToolThenEachGivesTheTextOfItsCommand
// is testRelayTools: each tool is listed with a description and an input
// schema, and gives the text of the riff command of the same name; a
// refusal of the server is a tool error with its reason.
func testRelayTools(t *testing.T, bin, server string) {
	const lead, worker = "a6cf2205-aaaa", "b7d0aa11-bbbb"
	repo := repoDir(t)
	cliText(t, bin, repo, server, "", "resume", "--riff")
	a := startRelay(t, bin, repo, server, lead)
	b := startRelay(t, bin, repo, server, worker, envWorker+"=1")
	// The lead is named by a person, once the session is known.
	a.ok("whoami", nil)
	cliText(t, bin, repo, server, "", "lead", "--session", lead[:8])

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := a.session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if len(tool.Description) < 40 {
			t.Errorf("tool %s has no description that tells an agent when to use it: %q", tool.Name, tool.Description)
		}
		if tool.InputSchema == nil {
			t.Errorf("tool %s has no input schema", tool.Name)
		}
	}
	want := slices.Clone(relayTools)
	slices.Sort(want)
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("the tools are %v, want %v", names, want)
	}

	// The text of a tool is the text of the command.
	sameIn := func(dir string, r *mcpRelay, session, tool string, args map[string]any, cmd ...string) {
		t.Helper()
		// The times of who (seen 1s ago) may tick between the two runs.
		got := normalizeTimes(r.ok(tool, args))
		if want := normalizeTimes(cliText(t, bin, dir, server, session, cmd...)); got != want {
			t.Errorf("tool %s gives\n%s\nwant the text of riff %s:\n%s", tool, got, strings.Join(cmd, " "), want)
		}
	}
	same := func(r *mcpRelay, session, tool string, args map[string]any, cmd ...string) {
		t.Helper()
		sameIn(repo, r, session, tool, args, cmd...)
	}
	same(a, lead, "whoami", nil, "whoami")
	if got := b.ok("claim", map[string]any{"item": "issue-12"}); !strings.Contains(got, "issue-12") {
		t.Errorf("claim gives %q", got)
	}
	// A refusal of the server is a tool error whose text is its reason:
	// the line that riff prints after Error:.
	text, isErr := a.call("claim", map[string]any{"item": "issue-12"})
	_, stderr, code := runRiff(t, bin, repo, server, lead, "claim", "issue-12")
	if !isErr || code != exitFail || "Error: "+text+"\n" != stderr {
		t.Errorf("claim of a held item = %q (tool error %v); riff claim says %q (exit %d)", text, isErr, stderr, code)
	}
	if got := b.ok("status", map[string]any{"text": "-v write the tests"}); got != "Your status is set." {
		t.Errorf("status gives %q", got)
	}
	same(b, worker, "who", nil, "who")
	same(b, worker, "who", map[string]any{"long": true}, "who", "--long")
	if got := b.ok("tell", map[string]any{"to": "lead", "text": "merge issue-12 now?"}); !strings.HasPrefix(got, "Posted #") {
		t.Errorf("tell lead gives %q", got)
	}
	if got := b.ok("post", map[string]any{"text": "API is ready", "to": []string{"claim=issue-12"}, "kind": "note"}); !strings.HasPrefix(got, "Posted #") {
		t.Errorf("post gives %q", got)
	}
	same(a, lead, "threads", nil, "threads")
	if got := a.ok("read", nil); !strings.Contains(got, "merge issue-12 now?") {
		t.Errorf("read of the lead does not show the tell:\n%s", got)
	}
	if got := a.ok("read", nil); got != "No unread messages." {
		t.Errorf("a second read gives %q", got)
	}
	if got := a.ok("hold", map[string]any{"item": "issue-14", "reason": "waits for the word of Mike"}); !strings.Contains(got, "on hold") {
		t.Errorf("hold gives %q", got)
	}
	text, isErr = b.call("claim", map[string]any{"item": "issue-14"})
	if !isErr {
		t.Errorf("a claim of a held item by a worker is no tool error: %q", text)
	}
	if got := a.ok("free", map[string]any{"item": "issue-14"}); !strings.Contains(got, "issue-14") {
		t.Errorf("free gives %q", got)
	}
	if got := a.ok("pause", nil); !strings.Contains(strings.ToLower(got), "pause") {
		t.Errorf("pause gives %q", got)
	}
	if got := a.ok("resume", nil); !strings.Contains(got, "running now") {
		t.Errorf("resume gives %q", got)
	}
	a.ok("notes", map[string]any{"text": "Wave 5: issue-20.\n"})
	same(a, lead, "notes", nil, "lead", "notes")
	if got := a.ok("notes", nil); got != "Wave 5: issue-20." {
		t.Errorf("notes gives %q, want the text that the lead wrote", got)
	}
	if got := b.ok("blocked", map[string]any{"reason": "which of two designs?"}); got == "" {
		t.Errorf("blocked gives no text")
	}
	if got := b.ok("release", map[string]any{"item": "issue-12"}); !strings.Contains(got, "issue-12") {
		t.Errorf("release gives %q", got)
	}
	// move: a worktree of the repository is the new place.
	wt := filepath.Join(filepath.Dir(repo), "app-issue-7")
	gitRun(t, repo, "commit", "-q", "--allow-empty", "-m", "first")
	gitRun(t, repo, "worktree", "add", "-q", wt)
	if got := b.ok("move", map[string]any{"worktree": wt}); !strings.Contains(got, "#app-issue-7") {
		t.Errorf("move gives %q, want the new worktree", got)
	}
	sameIn(wt, b, worker, "whoami", nil, "whoami")
	if got := b.ok("whoami", nil); !strings.Contains(got, "#app-issue-7") {
		t.Errorf("whoami after move gives %q, want the new place", got)
	}
	// A bad input is a tool error that names it, and changes nothing.
	if text, isErr := b.call("post", map[string]any{"text": "x", "kind": "shout"}); !isErr || !strings.Contains(text, "shout") {
		t.Errorf("a post of kind shout = %q (tool error %v)", text, isErr)
	}
}

// TestGivenAThreadWithMoreThanAPageWhenTheReadToolReadsThenItGivesOnePageAndSaysHowToReadOn
// is testRelayPages: the read tool gives one page; the messages to the
// session after the page come first; the page says the number to give
// to after; the next page, with all and after, gives the rest.
func testRelayPages(t *testing.T, bin, server string) {
	const session = "c9e1bb22-cccc"
	repo := repoDir(t)
	r := startRelay(t, bin, repo, server, session)
	r.ok("read", nil)
	for i := range 60 {
		cliText(t, bin, repo, server, "", "post", "--kind", "note", fmt.Sprintf("note %d", i+1))
	}
	cliText(t, bin, repo, server, "", "post", "--to", "session="+session, "Can you look at #1110?")

	first := r.ok("read", nil)
	head := "Messages to you after this page (the watch does not wake for them again):\nacme/app\n"
	if !strings.HasPrefix(first, head) || !strings.Contains(first[:strings.Index(first, "\n\n")], "Can you look at #1110?") {
		t.Errorf("the first page does not start with the message to the session:\n%s", first)
	}
	lines := strings.Split(first, "\n")
	last := lines[len(lines)-1]
	var after uint64
	if _, err := fmt.Sscanf(last, "More messages follow. Read this thread again. With all, set after to %d.", &after); err != nil {
		t.Fatalf("the last line of the first page is %q, want the line of the guide: %v\n%s", last, err, first)
	}
	if !strings.Contains(first, "note 50\n") || strings.Contains(first, "note 51\n") {
		t.Errorf("the first page is not the first 50 notes:\n%s", first)
	}
	next := r.ok("read", map[string]any{"thread": "acme/app", "all": true, "after": after})
	if !strings.Contains(next, "note 51\n") || !strings.Contains(next, "note 60\n") || strings.Contains(next, "note 50\n") ||
		strings.Contains(next, "More messages follow") {
		t.Errorf("the page after %d is not the rest:\n%s", after, next)
	}
}

// TestGivenARelayWithAClaimWhenItsInputEndsThenItEndsTheSessionAndItsClaimIsFree
// is testRelayEnd: at the end of its input the relay sends end: the
// session leaves who at once, and its claim is free at once.
func testRelayEnd(t *testing.T, bin, server string) {
	const session, other = "d1f2cc33-dddd", "e2a3dd44-eeee"
	repo := repoDir(t)
	cliText(t, bin, repo, server, "", "resume", "--riff")
	r := startRelay(t, bin, repo, server, session)
	r.ok("claim", map[string]any{"item": "issue-30"})
	if _, _, code := runRiff(t, bin, repo, server, other, "claim", "issue-30"); code != exitFail {
		t.Fatalf("a claim of the item of a live session = exit %d, want 1", code)
	}
	// Close closes the input of the relay, and waits for its exit.
	if err := r.session.Close(); err != nil {
		t.Fatalf("close the MCP session: %v", err)
	}
	if n := strings.Count(r.stderr.String(), "ended the session"); n != 1 {
		t.Errorf("the relay ended the session %d times, want once:\n%s", n, r.stderr.String())
	}
	if who := cliText(t, bin, repo, server, "", "who"); strings.Contains(who, "(d1f2)") {
		t.Errorf("who still lists the ended session:\n%s", who)
	}
	if _, stderr, code := runRiff(t, bin, repo, server, other, "claim", "issue-30"); code != exitOK {
		t.Errorf("the claim of an ended session is not free: exit %d, %s", code, stderr)
	}
}

// TestGivenAFactInTheLocalFolderWhenTheRelaySendsItsKeepAliveThenWhoShowsIt
// is testRelayFact: the keep-alive carries the newest fact that the hooks
// keep in the local folder, and who shows it.
func testRelayFact(t *testing.T, bin, server string) {
	const session = "b5d6aa77-cdcd"
	repo := repoDir(t)
	home := t.TempDir()
	startRelay(t, bin, repo, server, session, keepAliveEnv+"=50ms", "RIFF_HOME="+home)
	dir, err := local.Dir(func(k string) string { return map[string]string{"RIFF_HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	if err := (door.Files{Dir: dir}).WriteFact(session, door.Fact{Activity: "runs Bash: run the tests of the store"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		who := cliText(t, bin, repo, server, "", "who")
		if strings.Contains(who, "runs Bash: run the tests of the store") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("who does not show the fact of the local folder in 20 s:\n%s", who)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestGivenARelayWhenTheAgentToolStopsItWithSIGTERMThenItEndsTheSession
// is testRelaySigterm: Claude Code stops a stdio server with SIGINT, then
// SIGTERM; that is the end of the session too, once.
func testRelaySigterm(t *testing.T, bin, server string) {
	const session = "a4c5ff66-abab"
	repo := repoDir(t)
	r := startRelay(t, bin, repo, server, session)
	r.ok("whoami", nil)
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = r.session.Wait()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(r.stderr.String(), "ended the session") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := strings.Count(r.stderr.String(), "ended the session"); n != 1 {
		t.Errorf("after SIGTERM the relay ended the session %d times, want once:\n%s", n, r.stderr.String())
	}
	if who := cliText(t, bin, repo, server, "", "who"); strings.Contains(who, "(a4c5)") {
		t.Errorf("who still lists the session after SIGTERM:\n%s", who)
	}
}

// TestGivenARelayThatGotAReplyWhenTheServerRestartsThenItsToolsGoOn is
// testRelayRestart: a refused connect after a reply is tried again
// within the budget, so a tool called while the server restarts works.
func testRelayRestart(t *testing.T, bin string, srv *riffServer) {
	const session = "f3b4ee55-ffff"
	repo := repoDir(t)
	r := startRelay(t, bin, repo, srv.url(), session)
	r.ok("whoami", nil)
	srv.stop()
	done := make(chan struct{})
	var text string
	var isErr bool
	go func() {
		defer close(done)
		text, isErr = r.call("status", map[string]any{"text": "after the restart"})
	}()
	// The call waits for the server: it is refused until the start.
	time.Sleep(300 * time.Millisecond)
	srv.start()
	<-done
	if isErr || text != "Your status is set." {
		t.Errorf("a tool during a restart = %q (tool error %v), want it to go on", text, isErr)
	}
}

// fakeClock is the clock of an engine in the test: it moves only when
// the test moves it.
type fakeClock struct{ ms atomic.Int64 }

func (f *fakeClock) now() time.Time      { return time.UnixMilli(f.ms.Load()) }
func (f *fakeClock) add(d time.Duration) { f.ms.Add(d.Milliseconds()) }

// clockServer is the engine of riff-server with a clock of the test,
// serving its HTTP handler on loopback. It counts the keep-alives.
type clockServer struct {
	clock  *fakeClock
	e      *riffengine.Engine
	url    string
	alives atomic.Int64
}

// startClockServer starts an engine in memory whose clock the test moves.
// riff-server takes no clock, so the time rules of the server (3 minutes
// to gone) run here with no wait of minutes.
func startClockServer(t *testing.T) *clockServer {
	return startClockServerAt(t, time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), 0)
}

// startClockServerAt starts an engine in memory on a clock of the test
// that starts at start. timerEvery is how often its timers look (0: the
// engine's own); a test that runs them itself (Engine.Tick) gives a long
// one.
func startClockServerAt(t *testing.T, start time.Time, timerEvery time.Duration) *clockServer {
	t.Helper()
	cs := &clockServer{clock: &fakeClock{}}
	cs.clock.ms.Store(start.UnixMilli())
	e, err := riffengine.Open(context.Background(), mem.New(), riffengine.Options{StoreName: "memory",
		Build: build.FromBuildInfo(defaultVersion), NoLease: true, Logger: slog.New(slog.DiscardHandler),
		Now: cs.clock.now, TimerEvery: timerEvery})
	if err != nil {
		t.Fatal(err)
	}
	cs.e = e
	h := riffengine.NewHandler(e, riffengine.NoSignIn{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if r.URL.Path == "/v1/alive" {
			cs.alives.Add(1)
		}
	})}
	var wg sync.WaitGroup
	wg.Go(func() { _ = hs.Serve(ln) })
	t.Cleanup(func() {
		_ = hs.Close()
		wg.Wait()
		_ = e.Close(context.Background())
	})
	cs.url = "http://" + ln.Addr().String()
	return cs
}

// waitAlives waits until the server has handled n more keep-alives than
// from.
func (cs *clockServer) waitAlives(t *testing.T, from, n int64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for cs.alives.Load() < from+n {
		if time.Now().After(deadline) {
			t.Fatalf("the relay sent %d keep-alives in 20 s, want %d", cs.alives.Load()-from, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestGivenARelayWithNoToolCallWhenFourMinutesPassThenItsKeepAliveKeepsTheSessionLive:
// with no tool call, the keep-alive alone keeps the session in who past
// the 3 minutes of the server; after a kill -9 (no end) the session is in
// who for 3 minutes, then gone.
func TestGivenARelayWithNoToolCallWhenFourMinutesPassThenItsKeepAliveKeepsTheSessionLive(t *testing.T) {
	bin := buildRiff(t, "riff")
	cs := startClockServer(t)
	const session = "a1b2c3d4-1111"
	repo := repoDir(t)
	live := func() bool {
		return strings.Contains(cliText(t, bin, repo, cs.url, "", "who"), "(a1b2)")
	}
	r := startRelay(t, bin, repo, cs.url, session, keepAliveEnv+"=20ms")
	cs.waitAlives(t, 0, 1)
	if !live() {
		t.Fatal("who does not list the session of the relay")
	}
	// Four minutes in steps of 30 s; after each step, two keep-alives
	// reach the server at the new time.
	for range 8 {
		cs.clock.add(30 * time.Second)
		cs.waitAlives(t, cs.alives.Load(), 2)
	}
	if !live() {
		t.Fatal("after 4 minutes with keep-alives and no tool call, who does not list the session")
	}
	// A kill -9 gives no end: the session stays for 3 minutes after its
	// last sign of life, then it is gone.
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = r.session.Close()
	if strings.Contains(r.stderr.String(), "ended the session") {
		t.Errorf("a killed relay ended its session:\n%s", r.stderr.String())
	}
	cs.clock.add(2 * time.Minute)
	if !live() {
		t.Error("2 minutes after a kill -9, who no longer lists the session: the kill sent an end")
	}
	cs.clock.add(90 * time.Second)
	if live() {
		t.Error("3.5 minutes after a kill -9, who still lists the session")
	}
}

// TestGivenAWorkerInMustClearWhenItsKeepAliveIsAskedToClearThenTheAskIsInTheLocalFolder:
// the reply of a keep-alive that asks a worker in MustClear to clear is
// kept in the local folder (door.Files.Clear), for the Stop hook.
func TestGivenAWorkerInMustClearWhenItsKeepAliveIsAskedToClearThenTheAskIsInTheLocalFolder(t *testing.T) {
	bin := buildRiff(t, "riff")
	cs := startClockServer(t)
	const session = "b2c3d4e5-2222"
	repo := repoDir(t)
	cliText(t, bin, repo, cs.url, "", "resume", "--riff")
	home := t.TempDir()
	r := startRelay(t, bin, repo, cs.url, session, keepAliveEnv+"=20ms", envWorker+"=1", "RIFF_HOME="+home)
	state := filepath.Join(home, "state")
	asked := func() bool { ask, _ := (door.Files{Dir: state}).Clear(session); return ask }
	r.ok("claim", map[string]any{"item": "issue-40"})
	from := cs.alives.Load()
	cs.waitAlives(t, from, 2)
	if asked() {
		t.Fatalf("a worker with a claim has an ask to clear")
	}
	// The release of its last claim puts the worker in MustClear.
	r.ok("release", map[string]any{"item": "issue-40"})
	deadline := time.Now().Add(20 * time.Second)
	for {
		if asked() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no ask to clear in %s after the release of the last claim of a worker", state)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestGivenTheEnvOfAnAgentToolWhenTheRelayStartsThenRiffSessionWinsOverClaudeCodeSessionID:
// --session and RIFF_SESSION win; CLAUDE_CODE_SESSION_ID (the ID that
// Claude Code gives to its MCP server) counts when neither is set; the
// CLAUDE_SESSION_ID that no process had counts no more; with none, the
// relay makes an ID and says so in its log.
func TestGivenTheEnvOfAnAgentToolWhenTheRelayStartsThenRiffSessionWinsOverClaudeCodeSessionID(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, flag string
		env        map[string]string
		want       string
	}{
		{name: "flag", flag: "f1f1f1f1", env: map[string]string{"RIFF_SESSION": "r2r2r2r2", door.AgentSessionEnv: "c3c3c3c3"}, want: "f1f1f1f1"},
		{name: "RIFF_SESSION", env: map[string]string{"RIFF_SESSION": "r2r2r2r2", door.AgentSessionEnv: "c3c3c3c3"}, want: "r2r2r2r2"},
		{name: "CLAUDE_CODE_SESSION_ID", env: map[string]string{door.AgentSessionEnv: "c3c3c3c3-0000-4a5b-8c9d-0e1f2a3b4c5d"}, want: "c3c3c3c3-0000-4a5b-8c9d-0e1f2a3b4c5d"},
		{name: "CLAUDE_SESSION_ID", env: map[string]string{"CLAUDE_SESSION_ID": "d4d4d4d4"}},
		{name: "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := func(k string) string {
				if k == "RIFF_HOME" {
					return dir
				}
				return tc.env[k]
			}
			var log strings.Builder
			c := &cli{system: &system{env: env, getwd: func() (string, error) { return dir, nil }}}
			c.g.session = tc.flag
			c.g.fromEnv(env)
			r, err := c.newRelay(jsonLog(&log))
			if err != nil {
				t.Fatal(err)
			}
			got := r.c.g.session
			switch {
			case tc.want != "" && got != tc.want:
				t.Errorf("the session is %q, want %q", got, tc.want)
			case tc.want == "" && (got == "" || got == tc.env["CLAUDE_SESSION_ID"] || !strings.Contains(log.String(), `"severity":"WARNING"`)):
				t.Errorf("with no session ID the relay has %q and logs %q; want a new ID and a warning", got, log.String())
			}
		})
	}
}
