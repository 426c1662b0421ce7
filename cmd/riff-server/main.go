// Command riff-server is the one service of a riff: it holds the live
// sessions, the threads, the claims, the holds, the leads and the pauses,
// and keeps each change as a record in one log (memory, a directory with
// RIFF_DIR, or a Google Cloud Storage bucket).
//
// It only wires flags to the libraries: riffengine serves, rifflog keeps
// the log.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"cloud.google.com/go/storage"
	"github.com/peterbourgon/ff/v3"
	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/jsonlog"
	"github.com/como-technologies/riff/riffcore/loopback"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/dir"
	"github.com/como-technologies/riff/rifflog/gcs"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/como-technologies/riff/riffstate"
)

// version is the version of this build; a release sets it with
// -ldflags "-X main.version=1.0.0". It is only read.
var version = ""

// defaultVersion is the version of a build with no -ldflags and no
// module version: the version of riff in the same tree.
const defaultVersion = "0.1.0"

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	riffengine.SetProcsForCheckpoints()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// settings are the settings of riff-server: each flag has an env var
// RIFF_NAME.
type settings struct {
	listen             string
	anywhere           bool
	dir                string
	bucket             string
	checkpointEvery    int
	checkpointInterval time.Duration
	leaseWait          time.Duration
	heapFloorMB        uint64
	revision           string
	version            bool
	signIn             signInSettings
}

func (s *settings) register(fs *flag.FlagSet) {
	fs.StringVar(&s.listen, "listen", "127.0.0.1:7878", "the address to listen on (RIFF_LISTEN); a riff with no sign-in listens on loopback only, unless it has a provider (--client-id)")
	fs.BoolVar(&s.anywhere, "listen-anywhere", false, "listen on an address that is not loopback, with no sign-in: each program that reaches it can act as any session (RIFF_LISTEN_ANYWHERE)")
	fs.StringVar(&s.dir, "dir", "", "keep the log and the checkpoints as files in this directory (RIFF_DIR)")
	fs.StringVar(&s.bucket, "bucket", "", "keep the log and the checkpoints in this Google Cloud Storage bucket (RIFF_BUCKET)")
	fs.IntVar(&s.checkpointEvery, "checkpoint-every", 1000, "write a checkpoint each N records (RIFF_CHECKPOINT_EVERY)")
	fs.DurationVar(&s.checkpointInterval, "checkpoint-interval", 60*time.Minute, "write a checkpoint after this time when records came (RIFF_CHECKPOINT_INTERVAL)")
	fs.Uint64Var(&s.heapFloorMB, "heap-floor-mb", riffengine.DefaultHeapFloor>>20, "keep the heap goal of the Go collector at this many MiB or more, so a small riff is not collected dozens of times a second; 0: the runtime's default; GOGC in the environment wins (RIFF_HEAP_FLOOR_MB)")
	fs.DurationVar(&s.leaseWait, "lease-wait", 15*time.Second, "with a directory or a bucket: wait this long after taking the lease, so an old instance stops (RIFF_LEASE_WAIT)")
	fs.StringVar(&s.revision, "revision", "", "the revision number of this instance, in its lease: an instance does not take the live lease of a later revision (RIFF_REVISION; default: the number of K_REVISION on Cloud Run, else 0)")
	fs.BoolVar(&s.version, "version", false, "print the build and exit")
	s.signIn.register(fs)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var s settings
	rootFS := flag.NewFlagSet("riff-server", flag.ContinueOnError)
	s.register(rootFS)
	var from uint64
	logFS := flag.NewFlagSet("riff-server log", flag.ContinueOnError)
	logFS.Uint64Var(&from, "from", 0, "print the records from this position (default: the oldest record that the log keeps)")
	var after uint64
	var yes bool
	cutFS := flag.NewFlagSet("riff-server log cut", flag.ContinueOnError)
	cutFS.Uint64Var(&after, "after", 0, "keep the records up to this position, and delete each one after it")
	cutFS.BoolVar(&yes, "yes", false, "delete; without it, the cut only says what it would delete")
	me := build.FromBuildInfo(versionOf())

	logCmd := &ffcli.Command{
		Name:       "log",
		ShortUsage: "riff-server [--dir DIR | --bucket BUCKET] log [--from POSITION]",
		ShortHelp:  "print the records of the log as text, from a position",
		FlagSet:    logFS,
		Subcommands: []*ffcli.Command{
			{
				Name:       "verify",
				ShortUsage: "riff-server log verify",
				ShortHelp:  "read each chunk and checkpoint from the oldest kept checkpoint, and name each line that does not read",
				Exec: func(ctx context.Context, _ []string) error {
					return withStore(ctx, s, func(st rifflog.Store) error { return logVerify(ctx, st, stdout) })
				},
			},
			{
				Name:       "cut",
				ShortUsage: "riff-server log cut --after POSITION [--yes]",
				ShortHelp:  "delete each record after a position (each chunk and checkpoint after it); without --yes, nothing is deleted",
				FlagSet:    cutFS,
				Exec: func(ctx context.Context, _ []string) error {
					return withStore(ctx, s, func(st rifflog.Store) error { return logCut(ctx, st, after, yes, stdout) })
				},
			},
		},
		Exec: func(ctx context.Context, _ []string) error {
			return withStore(ctx, s, func(st rifflog.Store) error { return logPrint(ctx, st, from, stdout, stderr) })
		},
	}
	root := &ffcli.Command{
		Name:        "riff-server",
		ShortUsage:  "riff-server [flags] [log ...]",
		ShortHelp:   "the service of a riff",
		LongHelp:    "riff-server keeps the riff: with no flag, in memory on 127.0.0.1:7878.\nEach flag can come from an env var: --dir from RIFF_DIR, --bucket from RIFF_BUCKET, and so on.",
		FlagSet:     rootFS,
		Options:     []ff.Option{ff.WithEnvVarPrefix("RIFF")},
		Subcommands: []*ffcli.Command{logCmd},
		Exec: func(ctx context.Context, _ []string) error {
			if s.version {
				fmt.Fprintf(stdout, "riff-server  %s\n", me.Display())
				return nil
			}
			return serve(ctx, s, me, stderr)
		},
	}
	rootFS.SetOutput(stderr)
	logFS.SetOutput(stderr)
	cutFS.SetOutput(stderr)
	if err := root.ParseAndRun(ctx, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "riff-server: %v\n", err)
		return 1
	}
	return 0
}

// versionOf gives the version that -ldflags set, the version of the
// module in the build info, or defaultVersion.
func versionOf() string {
	if version != "" {
		return strings.TrimPrefix(version, "v")
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return defaultVersion
}

// revisionOf gives the revision number of this instance: RIFF_REVISION
// (or --revision) when set, else the number in the name of the Cloud Run
// revision (K_REVISION riff-server-00042-abc is 42), else 0.
func revisionOf(flagValue, kRevision string) (uint64, error) {
	if flagValue != "" {
		n, err := strconv.ParseUint(flagValue, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("--revision (RIFF_REVISION) %q is not a whole number", flagValue)
		}
		return n, nil
	}
	if kRevision == "" {
		return 0, nil
	}
	// SERVICE-NNNNN-SUFFIX: the service name can hold dashes; the number
	// is the field before the last.
	fields := strings.Split(kRevision, "-")
	if len(fields) >= 3 {
		if n, err := strconv.ParseUint(fields[len(fields)-2], 10, 64); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("K_REVISION %q has no revision number (SERVICE-NNNNN-SUFFIX): set RIFF_REVISION to the number of this revision", kRevision)
}

// openStore opens the store of the settings: a bucket, a directory, or
// memory. It gives a function that closes it.
func openStore(ctx context.Context, s settings) (rifflog.Store, string, func(), error) {
	switch {
	case s.bucket != "" && s.dir != "":
		return nil, "", nil, errors.New("give --dir or --bucket, not both")
	case s.bucket != "":
		client, err := storage.NewClient(ctx)
		if err != nil {
			return nil, "", nil, fmt.Errorf("open bucket %s: %w", s.bucket, err)
		}
		return gcs.New(client, s.bucket, gcs.Options{}), "bucket " + s.bucket, func() { client.Close() }, nil
	case s.dir != "":
		if err := os.MkdirAll(s.dir, 0o700); err != nil {
			return nil, "", nil, fmt.Errorf("open directory %s: %w", s.dir, err)
		}
		st, err := dir.Open(s.dir)
		if err != nil {
			return nil, "", nil, err
		}
		return st, "directory " + s.dir, func() { _ = st.Close() }, nil
	}
	return mem.New(), "memory", func() {}, nil
}

func withStore(ctx context.Context, s settings, fn func(rifflog.Store) error) error {
	if s.bucket == "" && s.dir == "" {
		return errors.New("the log tools need --dir (RIFF_DIR) or --bucket (RIFF_BUCKET): a riff in memory keeps no log on disk")
	}
	st, _, closeStore, err := openStore(ctx, s)
	if err != nil {
		return err
	}
	defer closeStore()
	return fn(st)
}

// checkListen refuses an address that is not loopback in a riff with no
// sign-in, unless the person said so (anywhere): such a riff trusts its
// network. A riff with sign-in listens anywhere.
func checkListen(addr string, anywhere, signIn bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", addr, err)
	}
	if loopback.Is(host) || signIn || anywhere {
		return nil
	}
	return fmt.Errorf("--listen %s is not a loopback address: a riff with no sign-in trusts its network, so it listens on loopback only. Give it a provider (--client-id) to listen there with sign-in, or --listen-anywhere to listen there with no sign-in all the same", addr)
}

// serve runs the server: riffengine.Open loads, takes the lease and
// waits, loads again what the old instance wrote meanwhile, makes the
// riff at the first start, and serves; Close stops it at a stop signal
// (it settles and writes a last checkpoint) or when the engine stops on
// its own (a deploy: the port closes at once, a last checkpoint for the
// new instance, exit). serve holds only the port: it opens it after the
// load (503 until the engine serves).
//
// On one machine the old instance holds the port: then the new one takes
// the lease with its port closed, and listens after its wait, when the
// old instance has closed it.
func serve(ctx context.Context, s settings, me build.Build, stderr io.Writer) error {
	log := jsonlog.New(stderr, slog.LevelInfo)
	if err := s.signIn.check(); err != nil {
		return err
	}
	if err := checkListen(s.listen, s.anywhere, s.signIn.on()); err != nil {
		return err
	}
	if host, _, _ := net.SplitHostPort(s.listen); !loopback.Is(host) && !s.signIn.on() {
		log.Warn("riff-server listens on "+s.listen+" with no sign-in (--listen-anywhere): each program that reaches it can act as any session and any person",
			"target", "start", "listen", s.listen)
	}
	revision, err := revisionOf(s.revision, os.Getenv("K_REVISION"))
	if err != nil {
		return err
	}
	if s.heapFloorMB > 1<<20 {
		return fmt.Errorf("--heap-floor-mb %d: at most %d (1 TiB)", s.heapFloorMB, 1<<20)
	}
	defer riffengine.KeepHeapFloor(s.heapFloorMB << 20)()
	st, storeName, closeStore, err := openStore(ctx, s)
	if err != nil {
		return err
	}
	defer closeStore()
	withLease := storeName != "memory"
	p := &port{addr: s.listen, log: log, served: make(chan error, 1)}
	defer p.flushDenied()
	e, err := riffengine.Open(ctx, st, riffengine.Options{
		StoreName: storeName, Build: me, Logger: log,
		CheckpointEvery: s.checkpointEvery, CheckpointInterval: s.checkpointInterval,
		Revision: revision, SignIn: s.signIn.on(), Tokens: s.signIn.tokens(),
		StateOptions: riffstate.Options{Build: me.String(), Owner: s.signIn.ownerEmail(), AllowedDomain: s.signIn.allowedDomain, PeopleOptions: s.signIn.people()},
		NoLease:      !withLease, LeaseWait: s.leaseWait,
		Listen: func(e *riffengine.Engine) error {
			f := e.Facts()
			p.listenLine = []any{"target", "start", "store", storeName, "position", f.Position, "replay_ms", f.ReplayMs, "revision", revision}
			return p.open(e, withLease, s.signIn)
		},
		Leased: p.openWhenFree,
	})
	if err != nil {
		p.shutdown()
		if errors.Is(err, riffengine.ErrStopped) {
			return nil // a stop signal in the lease wait
		}
		return err
	}
	stopCtx := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 10*time.Second)
	}
	select {
	case <-ctx.Done():
		sctx, cancel := stopCtx()
		defer cancel()
		err := e.Close(sctx)
		p.shutdown()
		return err
	case <-e.Stopping():
		// The engine stopped on its own: another instance took the lease
		// (the calls go to it), or a chunk failed. The port closes at
		// once, beside the last checkpoint.
		sctx, cancel := stopCtx()
		defer cancel()
		closed := make(chan struct{})
		go func() {
			defer close(closed)
			_ = p.http.Shutdown(sctx)
		}()
		err := e.Close(sctx)
		<-closed
		return err
	case err := <-p.served:
		sctx, cancel := stopCtx()
		defer cancel()
		_ = e.Close(sctx)
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serve: %w", err)
	}
}

// port is the HTTP side of serve: the listener and the HTTP server of
// the engine, which serve owns and shuts down.
type port struct {
	addr       string
	log        *slog.Logger
	listenLine []any
	server     *riffengine.Handler
	http       *http.Server
	served     chan error
	// taken is true when another process held the port at the load: the
	// port opens after the lease wait.
	taken bool
}

// open opens the port after the load, with the engine that answers 503
// until it serves. With a lease, a port that the old instance holds
// opens after the wait (openWhenFree).
func (p *port) open(e *riffengine.Engine, withLease bool, signIn signInSettings) error {
	var layer riffengine.TokenLayer = riffengine.NoSignIn{}
	if signIn.on() {
		l, err := signIn.layer(e)
		if err != nil {
			return err
		}
		layer = l
	}
	p.server = riffengine.NewHandler(e, layer)
	p.http = riffengine.HTTPServer(p.server, p.log)
	ln, err := net.Listen("tcp", p.addr)
	p.taken = withLease && errors.Is(err, syscall.EADDRINUSE)
	switch {
	case p.taken:
		p.log.Info("the port is taken: riff-server takes the lease and listens after its wait, when the instance there has stopped",
			"target", "start", "listen", p.addr)
	case err != nil:
		return fmt.Errorf("listen: %w", err)
	default:
		p.serve(ln)
	}
	return nil
}

// flushDenied ends the open window of the denied lines at the stop,
// after the port closed (each stop path closes it before serve returns),
// when the port was made.
func (p *port) flushDenied() {
	if p.server != nil {
		p.server.FlushDenied()
	}
}

// openWhenFree opens, after the lease wait, a port that was taken at
// the load.
func (p *port) openWhenFree(ctx context.Context) error {
	if !p.taken {
		return nil
	}
	ln, err := listenWhenFree(ctx, p.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	p.serve(ln)
	return nil
}

func (p *port) serve(ln net.Listener) {
	go func() { p.served <- p.http.Serve(ln) }()
	p.log.Info("riff-server listens on http://"+ln.Addr().String(), p.listenLine...)
}

// shutdown closes the port, when it opened, and waits up to 5 s for the
// calls in flight.
func (p *port) shutdown() {
	if p.http == nil {
		return
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = p.http.Shutdown(sctx)
}

// portWait is how long a new instance tries to listen on a port that the
// old instance holds: the old one closes it when it reads the new lease
// (each 2 s), and exits at most 10 s later.
const portWait = 15 * time.Second

// listenWhenFree listens on addr, and tries again while another process
// holds it, for at most portWait.
func listenWhenFree(ctx context.Context, addr string) (net.Listener, error) {
	deadline := time.Now().Add(portWait)
	for {
		ln, err := net.Listen("tcp", addr)
		if err == nil || !errors.Is(err, syscall.EADDRINUSE) {
			return ln, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s is still taken %s after the lease wait: another program holds it: %w", addr, portWait, err)
		}
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}
