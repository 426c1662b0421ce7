// Command embed runs a riff inside another program: the engine of
// riff-server on a directory (RIFF_DIR), served by the program's own
// HTTP server. It is the smallest wiring of riffengine; riff-server adds
// flags, the lease wait and the log tools around the same calls.
//
//	RIFF_DIR=/tmp/riff go run ./embed
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog/dir"
	"github.com/como-technologies/riff/riffstate"
)

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	if err := run(ctx, os.Getenv("RIFF_DIR"), "127.0.0.1:7879"); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

// run serves a riff kept in path on addr until ctx ends.
func run(ctx context.Context, path, addr string) error {
	if path == "" {
		return errors.New("give the directory of the log in RIFF_DIR")
	}
	log := riffengine.NewLogger(os.Stderr, slog.LevelInfo)
	r, err := open(ctx, path, log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		r.Close(ctx)
		return err
	}
	srv := riffengine.HTTPServer(r.Handler, log)
	go srv.Serve(ln)
	fmt.Fprintf(os.Stderr, "embed serves a riff on http://%s\n", ln.Addr())
	<-ctx.Done()
	err = r.Close(context.Background())
	srv.Shutdown(context.Background())
	return err
}

// Riff is an engine on a directory and its HTTP handler.
type Riff struct {
	Engine  *riffengine.Engine
	Handler http.Handler
}

// open loads the log in path (the newest checkpoint, then the chunks
// after it), takes the lease with no wait (one program on one machine),
// makes the riff at the first start, and serves.
func open(ctx context.Context, path string, log *slog.Logger) (*Riff, error) {
	if err := os.MkdirAll(path, 0o700); err != nil {
		return nil, err
	}
	store, err := dir.Open(path)
	if err != nil {
		return nil, err
	}
	me := build.FromBuildInfo("0.1.0")
	opts := riffstate.Options{Build: me.String()}
	loaded, err := riffengine.Load(ctx, store, opts)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	e := riffengine.New(loaded.State, loaded.Replayed, riffengine.Options{
		Store: store, StoreName: "directory " + path, Build: me, Logger: log,
		StateOptions: opts, LoadedCheckpoint: loaded.CheckpointName,
	})
	if err := e.TakeLease(ctx, riffengine.NewInstanceID(), 0); err != nil {
		e.Close(err)
		return nil, err
	}
	if err := e.MakeRiff(ctx, riffengine.NewInstanceID()); err != nil {
		e.Close(err)
		return nil, err
	}
	e.SetServing(true, "")
	return &Riff{Engine: e, Handler: riffengine.NewHandler(e, riffengine.NoSignIn{})}, nil
}

// Close writes what waits and a last checkpoint, then stops the engine.
func (r *Riff) Close(ctx context.Context) error { return r.Engine.Settle(ctx) }
