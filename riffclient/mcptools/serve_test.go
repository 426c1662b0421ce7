package mcptools_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/mcptools"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// syncLog is a log of the test that Serve writes while the test reads.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncLog) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestGivenAServedSessionWhenItMovesAndItsConnectionEndsThenItRegistersKeepsAliveAtEachPlaceAndEndsOnce:
// Serve registers the session with its worker mark, runs one keep-alive
// at a time and moves it with the session, and at the end of the
// connection stops it and sends end once.
func TestGivenAServedSessionWhenItMovesAndItsConnectionEndsThenItRegistersKeepsAliveAtEachPlaceAndEndsOnce(t *testing.T) {
	var relays sync.Map // path → the relay of its body
	srv := &server{answer: func(path string, body map[string]any) (any, *wire.Refused) {
		me, _ := name.ParseURI(body["me"].(string))
		if path == "/v1/register" && body["worker"] != true {
			t.Errorf("the register of a worker has no worker mark: %v", body)
		}
		relays.Store(path, body["relay"])
		return wire.RegisterReply{URI: me}, nil
	}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	u, _ := riffclient.ParseServer(hs.URL)
	b, _ := build.ParseBuild(testBuild)
	tools := mcptools.New(mcptools.Options{
		Client: riffclient.New(u, riffclient.Options{Build: b}), Dir: "/src/app",
		Me: func(_ context.Context, dir string) (name.SessionURI, error) {
			return name.SessionURI{User: "mike", Host: "pangolin", Repo: "acme/app", Session: "a6cf2205-9a1b", Worktree: dir[strings.LastIndex(dir, "/")+1:]}, nil
		},
	})
	var mu sync.Mutex
	var live int
	var places, aliveRelays []string
	keepAlive := func(ctx context.Context, me name.SessionURI, relay string) {
		mu.Lock()
		live++
		places = append(places, me.Worktree)
		aliveRelays = append(aliveRelays, relay)
		if live > 1 {
			t.Errorf("two keep-alives at once")
		}
		mu.Unlock()
		<-ctx.Done()
		mu.Lock()
		live--
		mu.Unlock()
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "riff", Version: "test"}, nil)
	mcptools.Add(s, tools)
	st, ct := mcp.NewInMemoryTransports()
	var log syncLog
	done := make(chan error, 1)
	go func() {
		done <- tools.Serve(context.Background(), s, st, mcptools.Life{Name: "riff relay mcp", Worker: true, KeepAlive: keepAlive,
			Log: slog.New(slog.NewJSONHandler(&log, nil))})
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	if text, isErr := call(t, cs, "move", map[string]any{"worktree": "/src/app-issue-7"}); isErr {
		t.Fatalf("move = %q", text)
	}
	cs.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve = %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return at the end of its connection")
	}
	mu.Lock()
	defer mu.Unlock()
	if live != 0 || len(places) != 2 || places[0] != "app" || places[1] != "app-issue-7" {
		t.Errorf("the keep-alives ran at %v, %d still live; want app, then app-issue-7, none live after the end", places, live)
	}
	calls := srv.calls()
	if calls[0] != "/v1/register" || calls[len(calls)-1] != "/v1/end" || strings.Count(strings.Join(calls, " "), "/v1/end") != 1 {
		t.Errorf("the calls are %v; want the register first and one end last", calls)
	}
	if n := strings.Count(log.String(), "riff relay mcp ended the session"); n != 1 {
		t.Errorf("the log says the end %d times:\n%s", n, log.String())
	}
	// One relay ID, made by Serve, in the register, each keep-alive and
	// the end.
	registered, _ := relays.Load("/v1/register")
	ended, _ := relays.Load("/v1/end")
	id, _ := registered.(string)
	if len(id) != 16 || ended != registered || aliveRelays[0] != id || aliveRelays[1] != id {
		t.Errorf("the relay of the register %v, of the end %v, of the keep-alives %v; want one instance ID of 16 hex digits", registered, ended, aliveRelays)
	}
}

// TestGivenTheEndOfARelayThatAnotherServesWhenTheServerSaysGoesOnThenTheLogSaysTheSessionGoesOn:
// the end of a relay that the server answers with goes_on is not the end
// of the session, and the log says so; a relay that the caller names is
// the one of each call; two Serve runs make two relay IDs.
func TestGivenTheEndOfARelayThatAnotherServesWhenTheServerSaysGoesOnThenTheLogSaysTheSessionGoesOn(t *testing.T) {
	var mu sync.Mutex
	var ends []string
	srv := &server{answer: func(path string, body map[string]any) (any, *wire.Refused) {
		me, _ := name.ParseURI(body["me"].(string))
		if path == "/v1/end" {
			mu.Lock()
			ends = append(ends, fmt.Sprint(body["relay"]))
			mu.Unlock()
			return wire.EndReply{GoesOn: body["relay"] == "given-relay"}, nil
		}
		return wire.RegisterReply{URI: me}, nil
	}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	u, _ := riffclient.ParseServer(hs.URL)
	b, _ := build.ParseBuild(testBuild)
	for _, relay := range []string{"given-relay", "", ""} {
		tools := mcptools.New(mcptools.Options{
			Client: riffclient.New(u, riffclient.Options{Build: b}), Dir: "/src/app",
			Me: func(context.Context, string) (name.SessionURI, error) {
				return name.SessionURI{User: "mike", Host: "pangolin", Repo: "acme/app", Session: "a6cf2205-9a1b"}, nil
			},
		})
		s := mcp.NewServer(&mcp.Implementation{Name: "riff", Version: "test"}, nil)
		mcptools.Add(s, tools)
		st, ct := mcp.NewInMemoryTransports()
		var log syncLog
		done := make(chan error, 1)
		go func() {
			done <- tools.Serve(context.Background(), s, st, mcptools.Life{Name: "riff relay mcp", Relay: relay, Log: slog.New(slog.NewJSONHandler(&log, nil))})
		}()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "0"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		goesOn := strings.Contains(log.String(), "ended its relay; another relay serves the session, which goes on")
		if goesOn != (relay != "") || strings.Contains(log.String(), "ended the session") == goesOn {
			t.Errorf("relay %q: the log says:\n%s", relay, log.String())
		}
	}
	if len(ends) != 3 || ends[0] != "given-relay" || ends[1] == ends[2] || len(ends[1]) != 16 {
		t.Errorf("the ends named the relays %v; want the given one, then two new IDs", ends)
	}
}
