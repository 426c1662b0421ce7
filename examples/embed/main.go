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
	"github.com/como-technologies/riff/riffcore/jsonlog"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog/dir"
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
	log := jsonlog.New(os.Stderr, slog.LevelInfo)
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

// open opens the riff kept in path: riffengine.Open loads the log (the
// newest checkpoint, then the chunks after it), takes the lease with no
// wait (one program on one machine), makes the riff at the first start,
// and serves.
func open(ctx context.Context, path string, log *slog.Logger) (*Riff, error) {
	if err := os.MkdirAll(path, 0o700); err != nil {
		return nil, err
	}
	store, err := dir.Open(path)
	if err != nil {
		return nil, err
	}
	e, err := riffengine.Open(ctx, store, riffengine.Options{
		StoreName: "directory " + path, Build: build.FromBuildInfo("0.1.0"), Logger: log,
	})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return &Riff{Engine: e, Handler: riffengine.NewHandler(e, riffengine.NoSignIn{})}, nil
}

// Close writes what waits and a last checkpoint, ends the lease, and
// stops the engine.
func (r *Riff) Close(ctx context.Context) error { return r.Engine.Close(ctx) }
