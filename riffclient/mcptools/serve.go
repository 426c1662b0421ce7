package mcptools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// EndBudget is the longest wait for the end of a session after its
// connection ends: the agent tool waits for its MCP server to exit.
const EndBudget = 10 * time.Second

// Life is what an agent session does around its tools while they serve:
// the register, the keep-alive and the end (docs/agents.md, "What riff
// relay mcp does").
type Life struct {
	// Name names the program in the lines of the log ("riff relay mcp").
	Name string
	// Worker registers the session with the worker mark.
	Worker bool
	// Relay is the instance ID of this relay, named in its register, its
	// keep-alives and its end: the end of one relay does not end a session
	// that another live relay of it serves (claude mcp list starts a
	// second relay of the session, which exits at once). Serve makes one
	// when it is empty (NewRelayID).
	Relay string
	// KeepAlive sends the keep-alives of the session me, from the relay,
	// until ctx ends (door's keep-alive in riff). Serve runs it from the
	// register to the end, and again at the new place after each move.
	// Nil sends none.
	KeepAlive func(ctx context.Context, me name.SessionURI, relay string)
	// Log gets what the agent cannot be told: a register or an end that
	// failed, and the end. Nil logs nothing.
	Log *slog.Logger
	// Hosted: the riff daemon of a container owns the register, the
	// keep-alive and the end of the session (docs/daemon.md), so Serve
	// serves the tools only.
	Hosted bool
}

// Serve serves the tools of t on s over transport, as one agent
// session: it registers the session, keeps it alive at its place, and
// when the connection ends (the end of the input, or ctx: the agent tool
// stops its server with SIGINT or SIGTERM) it ends the session once,
// within EndBudget. With no server, the tools say that the server does
// not answer, and the keep-alive tries again. It gives an error only
// when the session cannot be named.
func (t *Tools) Serve(ctx context.Context, s *mcp.Server, transport mcp.Transport, l Life) error {
	log := l.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	me, err := t.Me(ctx)
	if err != nil {
		return err
	}
	if l.Hosted {
		return s.Run(ctx, transport)
	}
	relay := l.Relay
	if relay == "" {
		if relay, err = NewRelayID(); err != nil {
			return err
		}
	}
	if _, err := riffclient.Send(ctx, t.o.Client, wire.Register{Me: me, Worker: l.Worker, Relay: relay}); err != nil {
		log.Warn(l.Name+" cannot register the session", "session", me.Session, "relay", relay, "error", t.words(err))
	}
	var run func(ctx context.Context, me name.SessionURI)
	if l.KeepAlive != nil {
		run = func(ctx context.Context, me name.SessionURI) { l.KeepAlive(ctx, me, relay) }
	}
	k := &keeper{ctx: ctx, run: run}
	k.start(me)
	t.mu.Lock()
	t.onMove = k.move
	t.mu.Unlock()
	err = s.Run(ctx, transport)
	t.mu.Lock()
	t.onMove = nil
	t.mu.Unlock()
	k.end()
	// A kill -9 gives no end: the 3-minute rule of the server applies.
	endCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), EndBudget)
	defer cancel()
	if me, err := t.Me(endCtx); err == nil {
		reply, err := riffclient.Send(endCtx, t.o.Client, wire.End{Me: me, Relay: relay})
		switch {
		case err != nil:
			log.Warn(l.Name+" cannot end the session", "session", me.Session, "relay", relay, "error", t.words(err))
		case reply.GoesOn:
			log.Info(l.Name+" ended its relay; another relay serves the session, which goes on", "session", me.Session, "relay", relay)
		default:
			log.Info(l.Name+" ended the session", "session", me.Session, "relay", relay)
		}
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		log.Warn(l.Name+": the MCP connection ended with an error", "error", err.Error())
	}
	return nil
}

// NewRelayID makes the instance ID of a relay: 16 random hex digits.
func NewRelayID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("riff cannot make the instance ID of its relay: %s", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// keeper owns the keep-alive of a session: one goroutine at a time, from
// its start to its stop, which waits for it.
type keeper struct {
	ctx context.Context
	run func(ctx context.Context, me name.SessionURI)

	// moving holds the stop and the start of one move together: two moves
	// at once leave one keep-alive.
	moving sync.Mutex
	// ended: the session ended, and a move that comes late starts no
	// keep-alive.
	ended  bool
	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

// start starts the keep-alive of me.
func (k *keeper) start(me name.SessionURI) {
	if k.run == nil {
		return
	}
	ctx, cancel := context.WithCancel(k.ctx)
	done := make(chan struct{})
	k.mu.Lock()
	k.cancel, k.done = cancel, done
	k.mu.Unlock()
	go func() {
		defer close(done)
		k.run(ctx, me)
	}()
}

// stop stops the keep-alive and waits until it is done.
func (k *keeper) stop() {
	k.mu.Lock()
	cancel, done := k.cancel, k.done
	k.cancel, k.done = nil, nil
	k.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// move moves the keep-alive to the session me at its new place.
func (k *keeper) move(me name.SessionURI) {
	k.moving.Lock()
	defer k.moving.Unlock()
	if k.ended {
		return
	}
	k.stop()
	k.start(me)
}

// end stops the keep-alive for good.
func (k *keeper) end() {
	k.moving.Lock()
	defer k.moving.Unlock()
	k.ended = true
	k.stop()
}
