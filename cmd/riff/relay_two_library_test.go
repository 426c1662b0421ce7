package main

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/door"
	"github.com/como-technologies/riff/riffclient/mcptools"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// libraryRelay is one agent session served by the libraries alone, as
// another program (a daemon) would: mcptools.Serve with door's
// keep-alive, over an in-memory MCP connection, against an engine.
type libraryRelay struct {
	t    *testing.T
	cs   *mcp.ClientSession
	done chan error
	log  *syncBuffer
}

func startLibraryRelay(t *testing.T, server string, me name.SessionURI) *libraryRelay {
	t.Helper()
	u, err := riffclient.ParseServer(server)
	if err != nil {
		t.Fatal(err)
	}
	client := riffclient.New(u, riffclient.Options{Build: build.FromBuildInfo(defaultVersion)})
	tools := mcptools.New(mcptools.Options{Client: client, Dir: "/src/app",
		Me: func(context.Context, string) (name.SessionURI, error) { return me, nil }})
	s := mcp.NewServer(&mcp.Implementation{Name: "riff", Version: "test"}, nil)
	mcptools.Add(s, tools)
	st, ct := mcp.NewInMemoryTransports()
	r := &libraryRelay{t: t, done: make(chan error, 1), log: &syncBuffer{}}
	// The first keep-alive goes at once, on a goroutine of its own: the
	// test waits for its reply, so that a move of the clock comes after it.
	alive := make(chan struct{})
	var once sync.Once
	go func() {
		r.done <- tools.Serve(context.Background(), s, st, mcptools.Life{Name: "relay", Log: slog.New(slog.NewJSONHandler(r.log, nil)),
			KeepAlive: func(ctx context.Context, me name.SessionURI, relay string) {
				door.KeepAlive{Client: client, Me: me, Every: time.Hour, Relay: relay,
					OnReply: func(wire.AliveReply) { once.Do(func() { close(alive) }) }}.Run(ctx)
			}})
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.cs = cs
	t.Cleanup(func() { _ = cs.Close() })
	select {
	case <-alive:
	case <-time.After(20 * time.Second):
		t.Fatal("the relay sent no keep-alive")
	}
	return r
}

// end closes the connection, as the agent tool does at its exit, and
// gives the log of the relay.
func (r *libraryRelay) end() string {
	r.t.Helper()
	_ = r.cs.Close()
	select {
	case err := <-r.done:
		if err != nil {
			r.t.Fatalf("Serve = %v", err)
		}
	case <-time.After(20 * time.Second):
		r.t.Fatal("Serve did not return at the end of its connection")
	}
	return r.log.String()
}

// TestGivenTwoRelaysOfTheLibrariesForOneSessionWhenTheSecondEndsThenTheFirstKeepsTheSessionUntilItsEndOr3MinutesOfSilence:
// mcptools.Serve twice for one session against the engine of riff-server
// (on the clock of the test): the end of the second relay leaves the
// session and its claim; the end of the first then ends it. With the
// first relay silent for 3 minutes, the end of the second ends the
// session.
func TestGivenTwoRelaysOfTheLibrariesForOneSessionWhenTheSecondEndsThenTheFirstKeepsTheSessionUntilItsEndOr3MinutesOfSilence(t *testing.T) {
	cs := startClockServer(t)
	client := testClient(t, cs.url)
	person := name.SessionURI{User: "mike", Host: "pangolin"}
	if _, err := riffclient.Send(context.Background(), client, wire.Resume{Me: person, Riff: true}); err != nil {
		t.Fatal(err)
	}
	for _, silent := range []bool{false, true} {
		me := name.SessionURI{User: "mike", Host: "pangolin", Repo: "acme/app", Session: map[bool]string{false: "11b1a111-0001", true: "22b2a222-0002"}[silent]}
		item := map[bool]string{false: "issue-51", true: "issue-52"}[silent]
		first := startLibraryRelay(t, cs.url, me)
		if _, err := riffclient.Send(context.Background(), client, wire.Claim{Me: me, Item: name.Item(item)}); err != nil {
			t.Fatal(err)
		}
		if silent {
			cs.clock.add(3*time.Minute + time.Second)
		}
		second := startLibraryRelay(t, cs.url, me)
		log := second.end()
		held := strings.Contains(cliWho(t, client, person), item)
		if !silent && (!held || !strings.Contains(log, "another relay serves the session")) {
			t.Fatalf("the end of the second relay: claim held %v, log:\n%s\nwant the session and its claim to go on", held, log)
		}
		if silent && (held || !strings.Contains(log, "ended the session")) {
			t.Fatalf("the end of the second relay, the first silent for 3 minutes: claim held %v, log:\n%s\nwant the end of the session", held, log)
		}
		if !silent {
			if log := first.end(); !strings.Contains(log, "ended the session") || strings.Contains(cliWho(t, client, person), item) {
				t.Errorf("the end of the first relay, the last: log\n%s\nwant the end of the session and its claim", log)
			}
		}
	}
}

// cliWho gives the URIs of the live sessions, with their claims.
func cliWho(t *testing.T, client *riffclient.Client, me name.SessionURI) string {
	t.Helper()
	reply, err := riffclient.Send(context.Background(), client, wire.Who{Me: me})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, row := range reply.Rows {
		b.WriteString(row.URI.String() + "\n")
	}
	return b.String()
}
