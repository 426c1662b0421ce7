package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/door"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The times of the daemon.
const (
	// OwnEvery is the time between two keep-alives of the daemon's own
	// session.
	OwnEvery = time.Minute
	// WorkerEvery is the time between two keep-alives of a container
	// session ("each 10 s in a worker").
	WorkerEvery = 10 * time.Second
	// NewRiffEvery is the time between two looks for a new riff on disk.
	NewRiffEvery = time.Minute
)

// ErrNewRiff ends [Daemon.Run] when a new riff is on disk and the daemon
// owns no session: the unit starts it again on the new riff.
var ErrNewRiff = errors.New("a new riff is on disk, and the daemon owns no session")

// NewRiffLine is the line of the log when the daemon ends for a new riff.
const NewRiffLine = "riff daemon: a new riff is on disk, and no session runs. The daemon starts again on it."

// Config is the setting of a daemon.
type Config struct {
	// Client sends each call to riff-server: with the sign-in of the
	// person (its Auth), each call as a container session carries the
	// session token of that session. Required.
	Client *riffclient.Client
	// User and Host name the sessions of the daemon. Required.
	User, Host string
	// Folder is the daemon's folder: its session, and a folder for each
	// container session (the clone, the home, the socket). Required.
	Folder string
	// Control is the path of the control socket. Required.
	Control string
	// Sockets is the folder of the socket folders of the sessions: a
	// short path (a unix socket takes at most 104 bytes), in the runtime
	// folder of the user. Empty is Folder/s.
	Sockets string
	// Riff is the static riff that each container binds at
	// /opt/riff/riff. Required.
	Riff string
	// Podman runs podman.
	Podman Podman
	// Git is the git program: "git" when empty.
	Git string
	// Home is the home of the person on the host: the sign-ins of claude
	// and gh come from it.
	Home string
	// Env are variables that each container gets as they are
	// (NAME=VALUE): the sign-ins and the settings of claude that the
	// daemon's env holds (docs/daemon.md, "The sign-ins").
	Env []string
	// Memory and CPUs cap each container (--memory, --cpus).
	Memory, CPUs string
	// ClaudeArgs are more arguments of claude in each container.
	ClaudeArgs []string
	// Pid is the process ID that the status names.
	Pid int
	// OwnEvery, WorkerEvery and NewRiffEvery change the times (tests);
	// 0 is the constant of the same name.
	OwnEvery, WorkerEvery, NewRiffEvery time.Duration
	// Replaced says whether the file of this riff was replaced since the
	// start (a new riff on disk). Nil never says so.
	Replaced func() bool
	// Log gets the lines of the daemon. Nil logs nothing.
	Log *slog.Logger
}

// Daemon is one run of the riff daemon. Its methods are safe for
// concurrent use.
type Daemon struct {
	c      Config
	folder folder
	me     name.SessionURI
	files  door.Files

	// ctx is the context of Run: each goroutine of a session ends with it.
	ctx context.Context
	wg  sync.WaitGroup

	mu       sync.Mutex
	sessions map[string]*session
	// notify gets a signal at each end of a session (the look for a new
	// riff).
	ended chan struct{}
}

// New makes a daemon; Run runs it.
func New(c Config) *Daemon {
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Git == "" {
		c.Git = "git"
	}
	if c.OwnEvery <= 0 {
		c.OwnEvery = OwnEvery
	}
	if c.WorkerEvery <= 0 {
		c.WorkerEvery = WorkerEvery
	}
	if c.NewRiffEvery <= 0 {
		c.NewRiffEvery = NewRiffEvery
	}
	if c.Sockets == "" {
		c.Sockets = c.Folder + "/s"
	}
	return &Daemon{c: c, folder: folder{c.Folder}, files: door.Files{Dir: c.Folder + "/woke"},
		sessions: map[string]*session{}, ended: make(chan struct{}, 1)}
}

// Me gives the daemon's own session (after the start of Run).
func (d *Daemon) Me() name.SessionURI {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.me
}

// Run runs the daemon until ctx ends (nil), or until a new riff is on
// disk while it owns no session ([ErrNewRiff]). Its end stops no
// container and ends no session: the next daemon takes them over.
func (d *Daemon) Run(ctx context.Context) error {
	if err := os.MkdirAll(d.c.Folder, 0o700); err != nil {
		return fmt.Errorf("make the folder of the daemon: %w", err)
	}
	id, err := d.folder.ownSession()
	if err != nil {
		return err
	}
	// The defers run in turn: the control server closes, ctx ends (each
	// goroutine of the daemon ends with it), then the wait for them.
	defer d.wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	d.mu.Lock()
	d.ctx = ctx
	d.me = name.SessionURI{User: d.c.User, Host: d.c.Host, Repo: name.NoRepo, Session: id}
	d.mu.Unlock()
	ln, err := listenUnix(d.c.Control)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: d.controlHandler(), BaseContext: func(net.Listener) context.Context { return ctx }}
	d.wg.Go(func() { _ = srv.Serve(ln) })
	defer srv.Close()

	// The daemon's own session: a new process of the same session.
	if _, err := riffclient.Send(ctx, d.c.Client, wire.Start{Me: d.me, Reason: record.ReasonProcess}); err != nil {
		d.c.Log.Warn("riff daemon cannot start its session on riff-server; it tries again with its keep-alives", "session", id, "error", err.Error())
	}
	d.takeOver(ctx)
	d.tellStatus(ctx)
	d.wg.Go(func() { d.keepOwnAlive(ctx) })
	d.c.Log.Info("riff daemon runs", "session", id, "control", d.c.Control, "pid", d.c.Pid)

	look := time.NewTicker(d.c.NewRiffEvery)
	defer look.Stop()
	told := false
	for {
		select {
		case <-ctx.Done():
			d.stopAll()
			return nil
		case <-look.C:
		case <-d.ended:
		}
		if d.c.Replaced == nil || !d.c.Replaced() {
			continue
		}
		n := d.count()
		if n == 0 {
			d.c.Log.Info(NewRiffLine)
			d.stopAll()
			return ErrNewRiff
		}
		if !told {
			// Once: the daemon waits for the end of its last session.
			told = true
			d.c.Log.Info(fmt.Sprintf("riff daemon: a new riff is on disk. The daemon runs %s. It starts again on the new riff after its last session.", plural(n, "session", "sessions")))
		}
	}
}

// count gives the number of the container sessions that the daemon owns.
func (d *Daemon) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.sessions)
}

// stopAll stops the goroutines of each session, and ends none of them.
func (d *Daemon) stopAll() {
	d.mu.Lock()
	all := make([]*session, 0, len(d.sessions))
	for _, s := range d.sessions {
		all = append(all, s)
	}
	d.mu.Unlock()
	for _, s := range all {
		s.stop()
	}
}

// keepOwnAlive sends the keep-alives of the daemon's own session: the
// daemon mark and the riff of this process.
func (d *Daemon) keepOwnAlive(ctx context.Context) {
	t := time.NewTicker(d.c.OwnEvery)
	defer t.Stop()
	for {
		replaced := d.c.Replaced != nil && d.c.Replaced()
		_, _ = riffclient.Send(ctx, d.c.Client, wire.Alive{Me: d.me, Daemon: true,
			Binary: &wire.Binary{Build: d.c.Client.Build().String(), Replaced: replaced}})
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// tellStatus sets the status of the daemon's session: "daemon host: pid
// N, build X, N sessions".
func (d *Daemon) tellStatus(ctx context.Context) {
	n := d.count()
	word := "sessions"
	if n == 1 {
		word = "session"
	}
	text := fmt.Sprintf("daemon host: pid %d, build %s, %d %s", d.c.Pid, d.c.Client.Build().Version, n, word)
	if _, err := riffclient.Send(ctx, d.c.Client, wire.Status{Me: d.me, Text: text}); err != nil && ctx.Err() == nil {
		d.c.Log.Warn("riff daemon cannot set its status", "error", err.Error())
	}
}

// takeOver takes over each container session of the folder: a container
// that runs gets its socket, keep-alive, watch and end again; one that
// stopped while no daemon ran gets its end.
func (d *Daemon) takeOver(ctx context.Context) {
	kept, err := d.folder.kept()
	if err != nil {
		d.c.Log.Warn("riff daemon cannot read its sessions", "error", err.Error())
		return
	}
	for _, k := range kept {
		s := d.newSession(k)
		if err := s.serve(); err != nil {
			d.c.Log.Warn("riff daemon cannot open the socket of a session it takes over", "session", k.URI.Session, "error", err.Error())
		}
		d.c.Log.Info("riff daemon takes over a session", "session", k.URI.Session, "container", k.Container)
		s.live()
	}
}

// listenUnix listens on the socket at path, in a folder of mode 0700. A
// socket file that no process answers is removed first; one that
// answers is another daemon, and an error.
func listenUnix(path string) (net.Listener, error) {
	if len(path) > maxSocketPath {
		return nil, fmt.Errorf("the path of the socket %s has %d bytes, more than the %d of a unix socket: set RIFF_HOME to a shorter folder", path, len(path), maxSocketPath)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("make the folder of the socket %s: %w", path, err)
	}
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		c.Close()
		return nil, fmt.Errorf("another riff daemon answers on %s: stop it first, or run riff daemon install to start the unit again", path)
	}
	_ = os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen on the socket %s: %w", path, err)
	}
	_ = os.Chmod(path, 0o600)
	return ln, nil
}

// maxSocketPath is the longest path of a unix socket on Linux and BSD.
const maxSocketPath = 104
