package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	mf "github.com/como-technologies/riff/tools/messagesfake"
)

// The prompts of the test: each plan of the stand-in answers one.
const (
	promptTake = "Take issue-7 of riff, say so, and watch for your wakes."
	promptPush = "Push the tag v3.2.0."
	tellText   = "Please say hi in the thread."
)

var (
	sessionRE = regexp.MustCompile(`session=([0-9a-f-]{36})`)
	taskRE    = regexp.MustCompile(`Monitor started \(task ([A-Za-z0-9_-]+)`)
)

// TestGivenTheAgentsPageWhenClaudeCodeFollowsItThenTheSessionWorks runs
// docs/agents.md as written with the real Claude Code CLI, whose model is
// the stand-in Messages API (tools/messagesfake) on loopback: the folder
// trusted and the files of the page, riff on the PATH, no variable
// exported. Claude Code must offer the 16 tools of riff as
// mcp__riff__NAME with riff's schemas behind ToolSearch; claim and post
// give the CLI's texts; the facts of the hooks reach `riff who --long`
// (a claim held at Stop: busy, "turn ended"); a second relay of the
// session that exits leaves the session and its claim; a tell wakes the
// Monitor of `riff relay watch --follow` into a <task-notification>; the
// end at exit frees the claim; in auto mode a refusal of the classifier
// runs the PermissionDenied hook and feeds `riff denials`, and the riff
// tools need no classifier.
func TestGivenTheAgentsPageWhenClaudeCodeFollowsItThenTheSessionWorks(t *testing.T) {
	t.Parallel()
	page := readAgentsPage(t)
	if testing.Short() {
		t.Skip("the test with Claude Code builds binaries and installs Claude Code")
	}
	claude := claudeCode(t)
	bin := buildRiff(t, "riff", "riff-server")
	srv := startServer(t, bin, freePort(t), t.TempDir())

	// The set-up of the page: the files of the repository, the trust of
	// the folder in the home of Claude Code.
	repo, err := filepath.EvalSymlinks(repoDir(t))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	riffHome := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".mcp.json"), page.mcp, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".claude", "settings.json"), page.settings, 0o644); err != nil {
		t.Fatal(err)
	}
	page.trustFolder(t, home, repo)

	// A person of the machine: mike in the repository, no session.
	person := []string{"RIFF_HOME=" + riffHome, "CLAUDE_CODE_SESSION_ID="}
	riff := func(args ...string) string {
		t.Helper()
		out, errOut, code := runRiffEnv(t, bin, repo, srv.url(), "", person, args...)
		if code != 0 {
			t.Fatalf("riff %v: exit %d\n%s%s", args, code, out, errOut)
		}
		return out
	}
	riff("resume", "--riff")

	golden := goldenTools(t)
	riffTools := make([]string, 0, len(relayTools))
	for _, name := range relayTools {
		riffTools = append(riffTools, "mcp__riff__"+name)
	}
	agent := &mf.Agent{
		// A model loads all the tools of riff with one ToolSearch.
		Search: func(tool string) string {
			if strings.HasPrefix(tool, "mcp__riff__") {
				return "select:" + strings.Join(riffTools, ",")
			}
			return "select:" + tool
		},
		Other: func(r *mf.Request) mf.Reply {
			if mf.IsClassifier(r) {
				// The rules of the test: a push of a tag is a deploy.
				if strings.Contains(r.Seen(), "git push") {
					return mf.Verdict(90, "Production Deploy")
				}
				return mf.Verdict(5, "")
			}
			return mf.Reply{Text: "ok"}
		},
		Plans: []mf.Plan{
			{Name: "take", When: func(p string) bool { return strings.Contains(p, promptTake) }, Steps: []mf.Step{
				{Tool: "mcp__riff__whoami"},
				{Tool: "mcp__riff__claim", Input: mf.Fixed(map[string]any{"item": "issue-7"})},
				{Tool: "mcp__riff__post", Input: mf.Fixed(map[string]any{"text": "I take issue-7."})},
				{Tool: "Monitor", Input: mf.Fixed(map[string]any{"command": page.monitor, "description": "the wakes of riff", "timeout_ms": 600000})},
			}, Text: "I hold issue-7 and watch for wakes."},
			{Name: "wake", When: func(p string) bool {
				return strings.Contains(p, "<task-notification>") && strings.Contains(p, "wake: ")
			}, Steps: []mf.Step{
				{Tool: "mcp__riff__read"},
				{Tool: "TaskStop", Input: func(r *mf.Request, _ []mf.Call) map[string]any {
					m := taskRE.FindStringSubmatch(r.Seen())
					if m == nil {
						return map[string]any{"task_id": "no Monitor task in the conversation"}
					}
					return map[string]any{"task_id": m[1]}
				}},
			}, Text: "I read the message and stopped the watch."},
			{Name: "push", When: func(p string) bool { return strings.Contains(p, promptPush) }, Steps: []mf.Step{
				{Tool: "mcp__riff__whoami"},
				{Tool: "Bash", Input: mf.Fixed(map[string]any{"command": "git push origin v3.2.0", "description": "Push the tag"}), Refused: true},
			}, Text: "The push was refused."},
		},
	}
	fake, err := mf.New(mf.Options{Script: agent.Script()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fake.Close() })

	// The env of Claude Code: no variable of a session. PATH has riff
	// (the page: riff on your PATH) and git. RIFF_KEEPALIVE_EVERY is the
	// cadence of the test in place of a minute.
	// The temp folder of Claude Code (its notes of each session, the
	// sockets of its children) is the test's: short, as a socket path must
	// be.
	tmp, err := os.MkdirTemp("", "cc-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(tmp) })
	env := []string{
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"TMPDIR=" + tmp,
		"HOME=" + home, "USER=mike", "TERM=dumb",
		"RIFF_HOST=pangolin", "RIFF_SERVER=" + srv.url(), "RIFF_HOME=" + riffHome, testLocalEnv + "=http://127.0.0.1:1",
		keepAliveEnv + "=1s",
		"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
		"ANTHROPIC_BASE_URL=" + fake.URL(), "ANTHROPIC_API_KEY=sk-ant-test-not-a-key",
	}
	dump := func(run *claudeRun) {
		if t.Failed() {
			t.Logf("the agent's errors: %q", agent.Errors())
			if run != nil {
				t.Logf("the output of claude:\n%s", run.out.String())
			}
			for i, r := range fake.Requests() {
				turn := r.Turn()
				t.Logf("request %d (%s, %d tools): %q", i+1, r.Model, len(r.Tools), lastLines(turn.Prompt, 2))
				for _, c := range turn.Calls {
					t.Logf("  %s %s -> error %v: %q", c.Name, c.Input, c.IsError, c.Result)
				}
			}
		}
	}

	// The approval: the folder is trusted and the page enables the server.
	list := exec.Command(claude, "mcp", "list")
	list.Dir, list.Env = repo, env
	mcpList, err := list.CombinedOutput()
	if err != nil || !strings.Contains(string(mcpList), "riff: riff relay mcp - ✔ Connected") {
		t.Errorf("claude mcp list with the set-up of the page: %v\n%s\nwant riff Connected (approved)", err, mcpList)
	}

	debugLog := filepath.Join(t.TempDir(), "debug.log")
	run := startClaude(t, claude, repo, env, "-p", "--debug-file", debugLog, promptTake)
	defer dump(run)
	var take mf.Turn
	waitFor(t, 90*time.Second, "Claude Code runs the plan of the prompt (the riff tools, then a Monitor)", func() (bool, string) {
		for _, r := range fake.Requests() {
			if turn := r.Turn(); strings.Contains(turn.Prompt, promptTake) && len(turn.Calls) > 0 && turn.Calls[len(turn.Calls)-1].Name == "Monitor" && turn.Calls[len(turn.Calls)-1].Done {
				take = turn
				return true, ""
			}
		}
		if !run.running() || len(agent.Errors()) > 0 {
			t.Fatalf("claude stopped the plan: exited %v, the agent's errors %q", !run.running(), agent.Errors())
		}
		return false, run.out.String()
	})

	if errs := agent.Errors(); len(errs) > 0 {
		t.Fatalf("the plan of the prompt failed in Claude Code: %q", errs)
	}

	// The tools offered: deferred behind ToolSearch, then each with the
	// description and schema of riff.
	reqs := fake.Requests()
	first := reqs[0]
	for _, r := range reqs {
		if len(r.Tools) > 0 {
			first = r
			break
		}
	}
	deferred := strings.Join(first.Deferred(), "\n") + "\n"
	for _, name := range riffTools {
		if tool, offered := first.Tool(name); offered && !tool.DeferLoading {
			t.Errorf("the first request offers %s with no ToolSearch", name)
		}
		if !strings.Contains(deferred, name+"\n") {
			t.Errorf("the first request does not name the deferred tool %s; it defers:\n%s", name, deferred)
		}
	}
	if take.Calls[0].Name != mf.ToolSearch {
		t.Errorf("the first call of the turn is %s; want ToolSearch", take.Calls[0].Name)
	}
	last := reqs[len(reqs)-1]
	for _, name := range relayTools {
		tool, ok := last.Tool("mcp__riff__" + name)
		if !ok {
			t.Errorf("after ToolSearch, Claude Code offers no tool mcp__riff__%s", name)
			continue
		}
		want := golden[name]
		if tool.Description != want.Description {
			t.Errorf("mcp__riff__%s has the description %q; riff gives %q", name, tool.Description, want.Description)
		}
		if d := sameJSON(want.InputSchema, tool.InputSchema); d != "" {
			t.Errorf("mcp__riff__%s has a schema other than riff's (-riff +offered):\n%s", name, d)
		}
	}
	if len(golden) != 16 || len(relayTools) != 16 {
		t.Errorf("riff has %d tools in its golden list and %d in the test; want 16", len(golden), len(relayTools))
	}

	// The CLI's texts, and the session that Claude Code named.
	results := map[string]mf.Call{}
	for _, c := range take.Calls {
		results[c.Name] = c
	}
	m := sessionRE.FindStringSubmatch(results["mcp__riff__whoami"].Result)
	if m == nil {
		t.Fatalf("whoami gave no session: %q", results["mcp__riff__whoami"].Result)
	}
	session := m[1]
	// whoami ran before the claim: its first line (the session) is the
	// CLI's.
	cli := riff("--session", session, "whoami")
	if tool := results["mcp__riff__whoami"].Result; strings.SplitN(tool, "\n", 2)[0] != strings.SplitN(cli, "\n", 2)[0] || !strings.Contains(tool, "\nriff     running\n") {
		t.Errorf("whoami gave\n%s\nriff whoami of the session prints\n%s", tool, cli)
	}
	if got := results["mcp__riff__claim"].Result; got != "You hold issue-7 in acme/app." {
		t.Errorf("claim gave %q; want the CLI's text", got)
	}
	if got := results["mcp__riff__post"].Result; got != "Posted #1 in acme/app." {
		t.Errorf("post gave %q; want the CLI's text", got)
	}
	if out := run.out.String(); strings.Contains(out, "Ignoring") {
		t.Errorf("claude dropped a part of the settings of the page:\n%s", out)
	}

	// The facts of the hooks: the turn ended with a claim held.
	row := func() string {
		for _, line := range strings.Split(riff("who", "--long"), "\n") {
			if strings.Contains(line, "session="+session) {
				return line
			}
		}
		return ""
	}
	waitFor(t, 30*time.Second, "riff who --long shows the fact of the Stop hook of the session that holds issue-7", func() (bool, string) {
		r := row()
		return strings.Contains(r, "claim=issue-7") && strings.Contains(r, " busy ") && strings.Contains(r, "turn ended"), r
	})

	// Two relays of one session: a second riff relay mcp of the session
	// (as a restart of the stdio server by Claude Code, or a claude that
	// resumes the session in another shell) starts and exits; the live
	// session keeps its row and its claim.
	second := exec.Command(filepath.Join(bin, "riff"), "relay", "mcp")
	second.Dir = repo
	second.Env = append(append([]string(nil), env...), "CLAUDE_CODE_SESSION_ID="+session)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: claudeCodeVersion}, nil).Connect(ctx, &mcp.CommandTransport{Command: second}, nil)
	if err != nil {
		t.Fatalf("start a second riff relay mcp of the session: %v", err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
	if err != nil || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "session="+session) {
		t.Errorf("the second relay is not the session %s: %v %+v", session, err, res)
	}
	_ = cs.Close()
	if r := row(); !strings.Contains(r, "claim=issue-7") {
		t.Errorf("a second relay of the session exited, and the live session lost its row or its claim: %q", r)
	}

	// The wake: a tell of the person comes to the Monitor as a
	// <task-notification>, and the session reads it.
	told := time.Now()
	riff("tell", session[:8], tellText)
	var wake mf.Turn
	var woke time.Duration
	waitFor(t, 60*time.Second, "the tell wakes the Monitor into a <task-notification>", func() (bool, string) {
		for _, r := range fake.Requests() {
			if turn := r.Turn(); strings.Contains(turn.Prompt, "<task-notification>") && strings.Contains(turn.Prompt, "wake: ") {
				if woke == 0 {
					woke = time.Since(told)
				}
				if len(turn.Calls) > 0 && turn.Calls[0].Name == "mcp__riff__read" && turn.Calls[0].Done {
					wake = turn
					return true, ""
				}
			}
		}
		return false, run.out.String()
	})
	t.Logf("the tell came to the model as a <task-notification> %s after riff tell", woke.Round(time.Millisecond))
	if !strings.Contains(wake.Prompt, "direct message") {
		t.Errorf("the <task-notification> has no wake line of a direct message:\n%s", wake.Prompt)
	}
	if !strings.Contains(wake.Calls[0].Result, tellText) {
		t.Errorf("read after the wake gave %q; want the tell %q", wake.Calls[0].Result, tellText)
	}

	// The end at exit: TaskStop ends the Monitor, -p ends, and the claim
	// is free.
	run.wait(t, 60*time.Second)
	waitFor(t, 10*time.Second, "the end at the exit of Claude Code frees issue-7", func() (bool, string) {
		r := row()
		return !strings.Contains(r, "claim=issue-7"), r
	})
	t.Logf("issue-7 was free %s after claude exited", time.Since(run.exited).Round(time.Millisecond))
	hooksRan(t, debugLog, "riff relay hook", "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")

	// The relay's last line, which Claude Code no longer keeps once its
	// server is gone, is in relay.log of the local folder.
	waitFor(t, 10*time.Second, "relay.log has the end of the session", func() (bool, string) {
		raw, _ := os.ReadFile(filepath.Join(riffHome, "state", "relay.log"))
		for _, line := range strings.Split(string(raw), "\n") {
			if strings.Contains(line, "ended the session") && strings.Contains(line, session) {
				return true, ""
			}
		}
		return false, string(raw)
	})
	if errs := agent.Errors(); len(errs) > 0 {
		t.Errorf("the stand-in could not follow its plan: %q", errs)
	}

	// Auto mode: the riff tools run with no classifier call; a push that
	// the classifier refuses runs the PermissionDenied hook of the page.
	// With a stand-in, Claude Code asks the classifier itself
	// (CLAUDE_CODE_AUTO_MODE_SERVER=0), not the server.
	before := len(fake.Requests())
	autoLog := filepath.Join(t.TempDir(), "debug.log")
	auto := startClaude(t, claude, repo, append(append([]string(nil), env...), "CLAUDE_CODE_AUTO_MODE_SERVER=0"), "-p", "--permission-mode", "auto", "--debug-file", autoLog, promptPush)
	auto.wait(t, 90*time.Second)
	hooksRan(t, autoLog, "riff relay denied", "PermissionDenied")
	var classified []string
	var pushed bool
	for _, r := range fake.Requests()[before:] {
		if mf.IsClassifier(r) {
			classified = append(classified, mf.ClassifiedAction(r))
			continue
		}
		for _, c := range r.Turn().Calls {
			if c.Name == "Bash" && c.Done {
				pushed = true
				if !c.IsError || !strings.Contains(c.Result, "denied by the Claude Code auto mode classifier") {
					t.Errorf("the push in auto mode gave %q; want the refusal of the classifier", c.Result)
				}
			}
		}
	}
	if !pushed {
		t.Errorf("the push in auto mode was not called\n%s", auto.out.String())
	}
	for _, action := range classified {
		if !strings.Contains(action, `"Bash"`) {
			t.Errorf("auto mode asked the classifier about %s; want only the push (a riff tool is allowed by the page)", action)
		}
	}
	if len(classified) == 0 {
		t.Errorf("auto mode asked no classifier about the push")
	}
	waitFor(t, 30*time.Second, "riff denials counts the refusal", func() (bool, string) {
		out := riff("denials")
		return strings.Contains(out, `reason="[Production Deploy]" tool=Bash head="git push"`), out
	})
	if errs := agent.Errors(); len(errs) > 0 {
		t.Errorf("the stand-in could not follow its plan: %q", errs)
	}

	// The interactive start of a person: no trust dialog, no approval of
	// the riff server, and /mcp shows it connected with its 16 tools.
	if shown := interactiveStart(t, claude, repo, home, env); shown != "" && !regexp.MustCompile(`✔ riff\s+16 tools`).MatchString(shown) {
		t.Errorf("/mcp of the interactive claude does not show riff connected with 16 tools:\n%s", shown)
	}
}

// hookRE is the line of the debug log of Claude Code 2.1.332 for a hook
// that ran: "Hooks: PreToolUse:Bash [riff relay hook] finished with
// status 0 (21ms)".
var hookRE = regexp.MustCompile(`Hooks: (\w+)(?::\S*)? \[([^\]]+)\] finished with status (\d+)`)

// hooksRan checks in the debug log of a claude that command ran as the
// hook of each event, and that each hook of riff exited 0.
func hooksRan(t *testing.T, debugLog, command string, events ...string) {
	t.Helper()
	raw, err := os.ReadFile(debugLog)
	if err != nil {
		t.Errorf("the debug log of claude: %v", err)
		return
	}
	ran := map[string]bool{}
	for _, m := range hookRE.FindAllStringSubmatch(string(raw), -1) {
		if !strings.HasPrefix(m[2], "riff ") {
			continue
		}
		if m[3] != "0" {
			t.Errorf("the %s hook %q exited %s", m[1], m[2], m[3])
		}
		if m[2] == command {
			ran[m[1]] = true
		}
	}
	for _, e := range events {
		if !ran[e] {
			t.Errorf("the debug log of claude has no %s hook %q that ran; it ran %v", e, command, ran)
		}
	}
}
