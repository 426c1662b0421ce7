package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/como-technologies/riff/riffclient/denied"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/secret"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The secrets of the tests of riff relay denied, made by the tests.
var (
	testGitHubToken  = "ghp_" + strings.Repeat("x7Q", 12)
	testSessionToken = "hunter2-correct-horse-battery"
)

// deniedHookInput gives the golden input of a hook with the secrets of the
// test and the directory cwd in it.
func deniedHookInput(t *testing.T, file, cwd string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "denied", file))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.NewReplacer("{{GITHUB_TOKEN}}", testGitHubToken, "{{SESSION_TOKEN}}", testSessionToken, "{{CWD}}", cwd).Replace(string(b))
	return []byte(s)
}

// checkNoSecret fails when text holds a secret of the tests, or a part
// of one that a cut left.
func checkNoSecret(t *testing.T, what, text string) {
	t.Helper()
	for _, s := range []string{testGitHubToken, testSessionToken, testGitHubToken[:12], testSessionToken[:12]} {
		if strings.Contains(text, s) {
			t.Errorf("%s holds a secret of the session (%q):\n%s", what, s[:6]+"…", text)
		}
	}
}

// TestGivenTheHookInputsOfClaudeCodeWhenTheRelayReadsThemThenEachGivesItsRecord:
// each recorded input of the PermissionDenied hook gives the record of
// its golden file, with no secret in it.
func TestGivenTheHookInputsOfClaudeCodeWhenTheRelayReadsThemThenEachGivesItsRecord(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "denied", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no hook inputs: %v", err)
	}
	me := name.SessionURI{User: "mike", Host: "pangolin", Repo: "como-technologies/riff", Session: "25456ff6-8e0f-4a55-9f1c-3b3c1c0e7a10"}
	known := secret.FromEnv([]string{"GH_TOKEN=" + testSessionToken, "HOME=/home/mike"})
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(base, func(t *testing.T) {
			var in denied.Input
			if err := json.Unmarshal(deniedHookInput(t, filepath.Base(f), "/home/mike/riff"), &in); err != nil {
				t.Fatal(err)
			}
			if in.HookEventName != "PermissionDenied" {
				t.Fatalf("hook_event_name = %q", in.HookEventName)
			}
			rec := denied.Make(in, me, time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), known)
			line := denied.Line(rec, "lead", "issue-12")
			checkNoSecret(t, "the record", line)
			if n := utf8.RuneCountInString(rec.Input); n > denied.InputMax {
				t.Errorf("the input has %d characters; the limit is %d", n, denied.InputMax)
			}
			checkGolden(t, "denied", base, line+"\n")
		})
	}
}

func TestGivenASinceWhenRiffDenialsReadsItThenItTakesANumberAndAUnit(t *testing.T) {
	for in, want := range map[string]time.Duration{"30s": 30 * time.Second, "5m": 5 * time.Minute, "2h": 2 * time.Hour, "7d": 7 * 24 * time.Hour, "1w": 7 * 24 * time.Hour} {
		if got, err := parseSince(in); err != nil || got != want {
			t.Errorf("parseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "7", "d", "0d", "-1d", "7y", "1.5h", "7 d"} {
		if _, err := parseSince(bad); err == nil {
			t.Errorf("parseSince(%q) gave no error", bad)
		}
	}
}

// TestGivenAnInputThatIsNoHookWhenTheRelayReadsItThenItSaysWhatWasWrongAndKeepsNothing:
// exit 1 is an error of a hook that does not block Claude Code; the text
// names what was wrong, and the outbox holds no record.
func TestGivenAnInputThatIsNoHookWhenTheRelayReadsItThenItSaysWhatWasWrongAndKeepsNothing(t *testing.T) {
	home := t.TempDir()
	run := inProcess(repoDir(t), "http://127.0.0.1:1")
	for _, tc := range []struct{ stdin, want string }{
		{"not json", "the input is no JSON object"},
		{`{"session_id":"25456ff6-aaaa","hook_event_name":"PermissionDenied"}`, "the input has no tool_name"},
		{`{"hook_event_name":"PermissionDenied","tool_name":"Bash","tool_input":{"command":"ls"}}`, "needs the session of the agent tool"},
	} {
		stdout, stderr, code := run(t, golden{stdin: tc.stdin, env: map[string]string{"RIFF_HOME": home}}, []string{"relay", "denied"})
		if code != exitFail || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("riff relay denied < %q = %d, %q, %q; want exit 1 and %q", tc.stdin, code, stdout, stderr, tc.want)
		}
	}
	if waiting, err := (denied.Outbox{Dir: filepath.Join(home, "state")}).Waiting(); err != nil || len(waiting) != 0 {
		t.Errorf("the outbox holds %v, %v; want nothing", waiting, err)
	}
}

// TestGivenTheSetUpOfAgentsMdWhenClaudeCodeRunsItsHookThenItIsRiffRelayDenied:
// the hook that docs/agents.md gives to copy is the PermissionDenied hook
// and runs riff relay denied.
func TestGivenTheSetUpOfAgentsMdWhenClaudeCodeRunsItsHookThenItIsRiffRelayDenied(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "agents.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "### The set-up")
	if !ok {
		t.Fatal("docs/agents.md has no set-up of riff relay denied")
	}
	_, block, _ := strings.Cut(rest, "```json\n")
	block, _, _ = strings.Cut(block, "```")
	var settings hookSettings
	if err := json.Unmarshal([]byte(block), &settings); err != nil {
		t.Fatalf("the settings of docs/agents.md are no JSON: %v\n%s", err, block)
	}
	denied := settings.Hooks["PermissionDenied"]
	if len(denied) != 1 || len(denied[0].Hooks) != 1 || denied[0].Hooks[0].Type != "command" {
		t.Fatalf("the settings hold %+v; want one command hook of PermissionDenied", settings.Hooks)
	}
	words := strings.Fields(denied[0].Hooks[0].Command)
	if len(words) != 3 || words[0] != "riff" {
		t.Fatalf("the hook runs %q; want riff relay denied", denied[0].Hooks[0].Command)
	}
	top, ok := (&cli{system: &system{}}).commands()[words[1]]
	if !ok {
		t.Fatalf("riff has no command %q", words[1])
	}
	if sub, ok := subcommand(top, words[2]); !ok || sub.flags == nil {
		t.Errorf("riff %s has no subcommand %q that runs", words[1], words[2])
	}
}

// TestGivenMoreRecordsThanOnePageWhenRiffDenialsCountsThenItReadsEachPageAndSaysWhatTheServerNoLongerKeeps:
// riff denials reads the pages of the thread with after, counts each
// record, and says when the first kept message is not the first of the
// thread.
func TestGivenMoreRecordsThanOnePageWhenRiffDenialsCountsThenItReadsEachPageAndSaysWhatTheServerNoLongerKeeps(t *testing.T) {
	var afters []uint64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(wire.HeaderBuild, testBuild)
		var q wire.Read
		if r.URL.Path != "/v1/read" || json.NewDecoder(r.Body).Decode(&q) != nil || q.Thread != "denials" || !q.All {
			http.Error(w, "unexpected call", http.StatusBadRequest)
			return
		}
		afters = append(afters, q.After)
		page := wire.ThreadPage{Thread: "denials"}
		from, to := uint64(101), uint64(150)
		if q.After > 0 {
			from, to = q.After+1, 300
		}
		for seq := from; seq <= to; seq++ {
			rec := denied.Record{Me: name.SessionURI{User: "ann", Host: "kiwi", Repo: "acme/web", Session: "a0000001-0000"}, Reason: "production-deploy", Tool: "Bash", Head: "git push", Input: fmt.Sprintf("git push %d", seq)}
			page.Messages = append(page.Messages, wire.Message{Thread: "denials", Seq: seq, AtMs: int64(seq) * 1000, Kind: record.MessageNote, Body: denied.Line(rec, "worker", "-")})
		}
		page.Messages = append(page.Messages, wire.Message{Thread: "denials", Seq: to + 1, Kind: record.MessageNote, Body: "a note that is no record"})
		page.More, page.Last = q.After == 0, to+1
		_ = json.NewEncoder(w).Encode(wire.ReadReply{Threads: []wire.ThreadPage{page}})
	}))
	defer srv.Close()
	stdout, stderr, code := inProcess(repoDir(t), srv.URL)(t, golden{}, []string{"denials"})
	if code != exitOK || stderr != "" {
		t.Fatalf("riff denials = %d, %q", code, stderr)
	}
	if len(afters) != 2 || afters[0] != 0 || afters[1] != 151 {
		t.Errorf("riff denials read after %v; want 0, then 151", afters)
	}
	for _, want := range []string{
		"199 refusals of auto mode.\n",
		"riff-server keeps the last 200 messages of the thread denials: older records are not counted.\n",
		"By reason\n  199  production-deploy\n",
		"The last 20\n",
		": git push 281\n", ": git push 300\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("riff denials shows no %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, ": git push 280\n") {
		t.Errorf("riff denials shows more than the last 20:\n%s", stdout)
	}
}
