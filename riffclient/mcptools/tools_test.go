package mcptools_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/mcptools"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

const testBuild = "0.4.3 7213825ab1c2 2026-09-27T20:10:44Z"

// server is a riff-server of the tests: answer gives the reply of each
// path, or a refusal; it keeps the paths of the calls.
type server struct {
	mu     sync.Mutex
	paths  []string
	answer func(path string, body map[string]any) (any, *wire.Refused)
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	s.mu.Lock()
	s.paths = append(s.paths, r.URL.Path)
	s.mu.Unlock()
	w.Header().Set(wire.HeaderBuild, testBuild)
	reply, refused := s.answer(r.URL.Path, body)
	if refused != nil {
		w.Header().Set(wire.HeaderRefused, string(refused.Code))
		w.WriteHeader(refused.Code.Status())
		io.WriteString(w, refused.Reason)
		return
	}
	json.NewEncoder(w).Encode(reply)
}

func (s *server) calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...)
}

// connect serves the tools of o over an in-memory MCP connection, with
// a client of srv, and gives the session of the agent.
func connect(t *testing.T, srv *server, o mcptools.Options) *mcp.ClientSession {
	t.Helper()
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	u, err := riffclient.ParseServer(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := build.ParseBuild(testBuild)
	o.Client = riffclient.New(u, riffclient.Options{Build: b})
	if o.Me == nil {
		o.Me = func(_ context.Context, dir string) (name.SessionURI, error) {
			return name.SessionURI{User: "mike", Host: "pangolin", Repo: "acme/app", Session: "a6cf2205-9a1b", Worktree: filepath.Base(dir)}, nil
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "riff", Version: "test"}, &mcp.ServerOptions{Instructions: mcptools.Instructions})
	mcptools.Add(s, mcptools.New(o))
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call calls a tool and gives its text and whether it is a tool error.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

func TestGivenAClaimThatTheServerRefusesWhenTheAgentCallsItThenItIsAToolErrorWithTheReason(t *testing.T) {
	srv := &server{answer: func(string, map[string]any) (any, *wire.Refused) {
		return nil, &wire.Refused{Code: wire.Held, Reason: "issue-13 is held by mike@thelio:app (5b1e).\x1b[2J"}
	}}
	cs := connect(t, srv, mcptools.Options{Dir: "/src/app"})
	text, isErr := call(t, cs, "claim", map[string]any{"item": "issue-13"})
	if !isErr || text != "issue-13 is held by mike@thelio:app (5b1e)." {
		t.Errorf("a refused claim = %q (tool error %v); want a tool error with the reason, cleaned", text, isErr)
	}
}

func TestGivenABadInputWhenTheAgentCallsATextToolThenItIsAToolErrorThatNamesItAndNoCallGoesOut(t *testing.T) {
	srv := &server{answer: func(string, map[string]any) (any, *wire.Refused) { return wire.TextReply{Text: "ok"}, nil }}
	cs := connect(t, srv, mcptools.Options{Dir: "/src/app"})
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"claim", map[string]any{"item": ""}, "riff claim: bad item: it is empty"},
		{"hold", map[string]any{"item": "a b", "reason": "x"}, `riff plan hold: bad item "a b": it holds the character ' '`},
		{"post", map[string]any{"text": "x", "kind": "shout"}, `riff post: --kind is message, note or status, not "shout"`},
		{"status", map[string]any{"text": ""}, "riff status needs a TEXT"},
		{"pause", map[string]any{"riff": true, "repo": "acme/app"}, "riff pause takes --riff or --repo, not both"},
		{"resume", map[string]any{"repo": "app"}, `riff resume: --repo is OWNER/REPO, not "app"`},
		{"move", map[string]any{"worktree": ""}, "move needs the directory of the new place"},
	} {
		text, isErr := call(t, cs, tc.tool, tc.args)
		if !isErr || text != tc.want {
			t.Errorf("%s %v = %q (tool error %v); want the tool error %q", tc.tool, tc.args, text, isErr, tc.want)
		}
	}
	if calls := srv.calls(); len(calls) != 0 {
		t.Errorf("bad inputs sent the calls %v; want none", calls)
	}
}

func TestGivenAMoveThatTheServerTakesWhenTheAgentCallsAToolAfterItThenTheToolActsFromTheNewPlace(t *testing.T) {
	srv := &server{answer: func(path string, body map[string]any) (any, *wire.Refused) {
		me, _ := name.ParseURI(body["me"].(string))
		if path == "/v1/move" {
			return wire.RegisterReply{URI: me}, nil
		}
		return wire.WhoamiReply{URI: me, Here: "running", Build: testBuild}, nil
	}}
	var moved []string
	var mu sync.Mutex
	cs := connect(t, srv, mcptools.Options{Dir: "/src/app", Moved: func(me name.SessionURI, dir string) {
		mu.Lock()
		defer mu.Unlock()
		moved = append(moved, me.Worktree+" "+dir)
	}})
	if text, isErr := call(t, cs, "move", map[string]any{"worktree": "../app-issue-7"}); isErr || !strings.Contains(text, "#app-issue-7") {
		t.Fatalf("move = %q (tool error %v); want the new place", text, isErr)
	}
	if text, _ := call(t, cs, "whoami", nil); !strings.Contains(text, "#app-issue-7") {
		t.Errorf("whoami after a move = %q; want the new place", text)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(moved) != 1 || moved[0] != "app-issue-7 /src/app-issue-7" {
		t.Errorf("Moved got %v; want one call with the new place", moved)
	}
}

func TestGivenAMoveThatTheServerRefusesWhenTheAgentCallsAToolAfterItThenThePlaceStays(t *testing.T) {
	srv := &server{answer: func(path string, body map[string]any) (any, *wire.Refused) {
		me, _ := name.ParseURI(body["me"].(string))
		if path == "/v1/move" {
			return nil, &wire.Refused{Code: wire.BadRequest, Reason: "the session is gone"}
		}
		return wire.WhoamiReply{URI: me, Here: "running", Build: testBuild}, nil
	}}
	cs := connect(t, srv, mcptools.Options{Dir: "/src/app", Moved: func(name.SessionURI, string) { t.Error("Moved after a refused move") }})
	if text, isErr := call(t, cs, "move", map[string]any{"worktree": "/src/app-issue-7"}); !isErr || text != "the session is gone" {
		t.Errorf("a refused move = %q (tool error %v)", text, isErr)
	}
	if text, _ := call(t, cs, "whoami", nil); !strings.Contains(text, "#app ") {
		t.Errorf("whoami after a refused move = %q; want the old place", text)
	}
}

func TestGivenAnEndedSignInWhenTheServerRefusesTheTokenThenTheToolSaysWhatThePersonRuns(t *testing.T) {
	srv := &server{answer: func(string, map[string]any) (any, *wire.Refused) {
		return nil, &wire.Refused{Code: wire.NoToken, Reason: "the call has no token"}
	}}
	cs := connect(t, srv, mcptools.Options{Dir: "/src/app"})
	if text, isErr := call(t, cs, "status", map[string]any{"text": "tests"}); !isErr || text != "This riff has sign-in, and this machine is not signed in to it. Run riff login." {
		t.Errorf("a status with no token = %q (tool error %v); want what to run", text, isErr)
	}
	ended := errors.New("The sign-in of this machine ended. Run riff login.")
	cs = connect(t, srv, mcptools.Options{Dir: "/src/app", SignInFault: func() error { return ended }})
	if text, isErr := call(t, cs, "status", map[string]any{"text": "tests"}); !isErr || text != ended.Error() {
		t.Errorf("a status with an ended sign-in = %q (tool error %v); want the fault", text, isErr)
	}
}

func TestGivenAnErrorOfTheNamingOfTheSessionWhenAToolRunsThenItsTextIsTheWordsOfTheProgram(t *testing.T) {
	srv := &server{answer: func(string, map[string]any) (any, *wire.Refused) { return wire.TextReply{}, nil }}
	lost := errors.New("the working directory is gone")
	cs := connect(t, srv, mcptools.Options{Dir: "/src/app",
		Me:    func(context.Context, string) (name.SessionURI, error) { return name.SessionURI{}, lost },
		Words: func(err error) string { return "riff: " + err.Error() + "\nsecond line" }})
	if text, isErr := call(t, cs, "who", nil); !isErr || text != "riff: the working directory is gone" {
		t.Errorf("who with no name = %q (tool error %v); want the first line of the words", text, isErr)
	}
	cs = connect(t, srv, mcptools.Options{Dir: "/src/app",
		Me: func(context.Context, string) (name.SessionURI, error) { return name.SessionURI{}, lost }})
	if text, _ := call(t, cs, "who", nil); !strings.HasPrefix(text, "riff cannot use the reply of riff-server at http://127.0.0.1:") {
		t.Errorf("with no Words an unknown error = %q; want that the reply cannot be used", text)
	}
	if calls := srv.calls(); len(calls) != 0 {
		t.Errorf("a tool with no name sent %v", calls)
	}
}

func TestGivenAReplyWithNoTextWhenAToolEndsThenItSaysDone(t *testing.T) {
	srv := &server{answer: func(string, map[string]any) (any, *wire.Refused) { return wire.TextReply{}, nil }}
	cs := connect(t, srv, mcptools.Options{Dir: "/src/app"})
	if text, isErr := call(t, cs, "free", map[string]any{"item": "issue-12"}); isErr || text != "Done." {
		t.Errorf("free with an empty reply = %q (tool error %v); want Done.", text, isErr)
	}
}

func TestGivenTwoToolsAtOnceWhenOneMovesThenEachActsAtOnePlace(t *testing.T) {
	srv := &server{answer: func(path string, body map[string]any) (any, *wire.Refused) {
		me, _ := name.ParseURI(body["me"].(string))
		return wire.RegisterReply{URI: me}, nil
	}}
	cs := connect(t, srv, mcptools.Options{Dir: "/src/app"})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if i%2 == 0 {
				cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "move", Arguments: map[string]any{"worktree": "/src/wt"}})
				return
			}
			cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "status", Arguments: map[string]any{"text": "x"}})
		})
	}
	wg.Wait()
}
