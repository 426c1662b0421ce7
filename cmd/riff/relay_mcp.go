package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/daemon"
	"github.com/como-technologies/riff/riffclient/door"
	"github.com/como-technologies/riff/riffclient/local"
	"github.com/como-technologies/riff/riffclient/mcptools"
	"github.com/como-technologies/riff/riffclient/place"
	"github.com/como-technologies/riff/riffcore/jsonlog"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// riff relay mcp is the MCP server of one agent session over stdio: the
// tools of riffclient/mcptools over one client that all tools share, the
// keep-alive of the session, and its end when the agent tool exits.
// docs/agents.md is its set-up.

// The env vars of riff relay mcp.
const (
	// envWorker marks the session a worker: it registers with the worker
	// mark, and sends a keep-alive each 10 s.
	envWorker = "RIFF_WORKER"
)

// madeSessionLine is the log line of a relay that made its session ID.
// No name of an env var stands before a colon or an equals sign in it:
// the redaction of Claude Code takes the word after "NAME:" for a secret
// and the line read "…: [REDACTED] made one".
const madeSessionLine = "riff relay mcp made a new session ID, because neither --session nor the env vars RIFF_SESSION and " + door.AgentSessionEnv +
	" named one; the hooks of the agent tool do not reach its keep-alive (see docs/agents.md)"

// workerKeepAliveEvery is the time between two keep-alives of a worker
// ("a keep-alive each minute (each 10 s in a worker)", docs/agents.md);
// door.Every is the minute of every other session.
const workerKeepAliveEvery = 10 * time.Second

func relayMCP() command {
	return command{name: "mcp", usage: "mcp", flags: noFlags((*cli).relayMCP), interspersed: true}
}

// relay is one run of riff relay mcp: the session, its place and the
// local folder, and the cli whose client the tools share.
type relay struct {
	c      *cli
	log    *slog.Logger
	local  string
	worker bool
	every  time.Duration
	// dir is the working directory of the session at the start.
	dir string
}

func (c *cli) relayMCP(ctx context.Context, args []string) error {
	if err := noArgs(args, "relay mcp"); err != nil {
		return err
	}
	// The agent tool closes the stderr of its server with the connection:
	// a line after it must not end the relay by SIGPIPE before its end
	// reached the server. The write fails, and the line is in the file.
	signal.Ignore(syscall.SIGPIPE)
	log := jsonLog(c.relayLogOut())
	// The lines of the client (the wait line, the note of different
	// builds) go to the log as JSON lines, as each other line of stderr.
	opts := riffclient.Options{Build: c.build, Out: logLines{log}}
	if c.system.client != nil {
		c.system.client(&opts)
	}
	// The sign-in of the machine: the tools, the keep-alive and the end
	// carry the session token of this process.
	opts.Auth = c.auth()
	sock := c.env(daemon.EnvSocket)
	if sock != "" {
		// In a container of the riff daemon: the tools go through the
		// socket of the session (docs/daemon.md).
		opts.HTTP, opts.Auth = daemon.SocketHTTP(sock), nil
	}
	c.client = riffclient.New(c.client.Server(), opts)
	r, err := c.newRelay(log)
	if err != nil {
		return err
	}
	tools := mcptools.New(mcptools.Options{
		Client: c.client, Dir: r.dir, Me: c.sessionAt,
		Words: c.words, SignInFault: c.signInFault(), Zone: c.loc, Earlier: c.earlierLine, EarlierOfClone: c.earlierOfClone,
	})
	server := mcp.NewServer(&mcp.Implementation{Name: "riff", Version: c.build.Display()}, &mcp.ServerOptions{Instructions: mcptools.Instructions})
	if sock != "" {
		mcptools.AddContainer(server, tools)
	} else {
		mcptools.Add(server, tools)
	}
	return tools.Serve(ctx, server, &mcp.IOTransport{Reader: io.NopCloser(c.stdin), Writer: nopWriteCloser{c.stdout}}, mcptools.Life{
		Name: "riff relay mcp", Worker: r.worker, Log: log, Hosted: sock != "",
		KeepAlive: func(ctx context.Context, me name.SessionURI, relay string) {
			desk := r.leadDesk()
			onAlive := r.onAlive(me.Session)
			door.KeepAlive{Client: c.client, Me: me, Files: door.Files{Dir: r.local}, Every: r.every, Relay: relay, LeadWake: desk.LeadWake,
				OnReply: func(reply wire.AliveReply) { onAlive(reply); desk.Unanswered(ctx, reply.Unanswered) }}.Run(ctx)
		},
	})
}

// newRelay finds the session, the local folder and the time between two
// keep-alives.
func (c *cli) newRelay(log *slog.Logger) (*relay, error) {
	worker := isTrue(c.env(envWorker))
	every := door.Every
	if worker {
		every = workerKeepAliveEvery
	}
	every, err := keepAliveInterval(c.env, every)
	if err != nil {
		return nil, err
	}
	id, made, err := mcptools.SessionID(c.g.session, c.env(door.AgentSessionEnv))
	if err != nil {
		return nil, knownf("%s", err)
	}
	c.g.session = id
	if made {
		log.Warn(madeSessionLine, "session", id)
	}
	dir, err := local.Dir(c.env)
	if err != nil {
		return nil, knownf("%s", err)
	}
	wd, err := c.workDir()
	if err != nil {
		return nil, err
	}
	return &relay{c: c, log: log, local: dir, worker: worker, every: every, dir: wd}, nil
}

// isTrue says whether the value of an env var turns a mark on.
func isTrue(v string) bool {
	b, err := strconv.ParseBool(v)
	return err == nil && b
}

// sessionAt gives the URI of the session of the relay at the place of
// dir, or the error that says that dir was removed.
func (c *cli) sessionAt(ctx context.Context, dir string) (name.SessionURI, error) {
	if _, err := os.Stat(dir); err != nil {
		return name.SessionURI{}, &place.WhereError{Dir: dir}
	}
	return c.meAt(ctx, dir, c.g.session)
}

// onAlive keeps the ask to clear of each reply of the keep-alive in the
// local folder (door.Files.SetClear), and removes it when the server no
// longer asks: the Stop hook (riff relay hook) gives it to the agent tool.
func (r *relay) onAlive(session string) func(wire.AliveReply) {
	return func(reply wire.AliveReply) {
		if err := (door.Files{Dir: r.local}).SetClear(session, reply.Clear); err != nil {
			r.log.Warn("riff relay mcp cannot keep the ask to clear in the local folder", "error", err.Error())
		}
	}
}

// nopWriteCloser is the output of the MCP connection: the stdout of riff,
// which the connection does not close.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// logLines writes each line that it gets as a line of the log.
type logLines struct{ log *slog.Logger }

func (l logLines) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		l.log.Info(line)
	}
	return len(p), nil
}

// relayLogOut is where the log of riff relay mcp goes: the file of the
// relays in the local folder (door.RelayLog, bounded), then stderr. The
// agent tool keeps stderr only while it is connected, so the file is
// written first, and a stderr that is gone does not stop it. With no
// local folder the log is on stderr only, and says why.
func (c *cli) relayLogOut() io.Writer {
	dir, err := local.StateDir(c.env)
	if err != nil {
		jsonLog(c.stderr).Warn("riff relay mcp keeps its log on stderr only: " + err.Error())
		return c.stderr
	}
	return door.Tee(door.RelayLog(dir), c.stderr)
}

// jsonLog is the log of riff relay mcp on stderr: the JSON lines with
// severity of riff-server (riffcore/jsonlog), which the agent tool keeps
// in the log of its MCP server.
func jsonLog(w io.Writer) *slog.Logger { return jsonlog.New(w, slog.LevelInfo) }
