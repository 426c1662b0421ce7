// Command embed runs a riff inside another program: the engine of
// riff-server on a directory (RIFF_DIR), served by the program's own
// HTTP server. It is the smallest wiring of riffengine; riff-server adds
// flags, the lease wait and the log tools around the same calls.
//
//	RIFF_DIR=/tmp/riff go run ./embed
//
// With RIFF_CLIENT_ID the riff has sign-in, as riff-server with
// --client-id: each call needs a token of riff login, the ID tokens of
// the provider RIFF_ISSUER (Google by default) are checked by
// riffengine/idtoken, and RIFF_OWNER names the first owner.
//
//	RIFF_DIR=/tmp/riff RIFF_CLIENT_ID=ID.apps.googleusercontent.com \
//	  RIFF_OWNER=mike@example.com go run ./embed
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
	"github.com/como-technologies/riff/riffengine/idtoken"
	"github.com/como-technologies/riff/rifflog/dir"
	"github.com/como-technologies/riff/riffstate"
)

// SignIn is the sign-in of a riff: the OpenID Connect provider, the
// OAuth client of riff login, and the email of the first owner. A zero
// ClientID is a riff with no sign-in.
type SignIn struct {
	Issuer       string
	ClientID     string
	ClientSecret string
	Owner        string
}

// signInOfEnv reads the sign-in from the env vars of riff-server's flags.
func signInOfEnv() SignIn {
	s := SignIn{Issuer: os.Getenv("RIFF_ISSUER"), ClientID: os.Getenv("RIFF_CLIENT_ID"),
		ClientSecret: os.Getenv("RIFF_CLIENT_SECRET"), Owner: os.Getenv("RIFF_OWNER")}
	if s.Issuer == "" {
		s.Issuer = "https://accounts.google.com"
	}
	return s
}

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	riffengine.SetProcsForCheckpoints()
	defer riffengine.KeepHeapFloor(riffengine.DefaultHeapFloor)()
	if err := run(ctx, os.Getenv("RIFF_DIR"), "127.0.0.1:7879", signInOfEnv()); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

// run serves a riff kept in path on addr until ctx ends.
func run(ctx context.Context, path, addr string, signIn SignIn) error {
	if path == "" {
		return errors.New("give the directory of the log in RIFF_DIR")
	}
	log := jsonlog.New(os.Stderr, slog.LevelInfo)
	r, err := open(ctx, path, log, signIn)
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
// and serves. With a ClientID the riff has sign-in: the engine keeps the
// sign-ins in signins.json beside the log, and the handler's token layer
// checks each call's token and proof, and the ID tokens of a sign-in
// with the provider.
func open(ctx context.Context, path string, log *slog.Logger, signIn SignIn) (*Riff, error) {
	store, err := dir.Open(path)
	if err != nil {
		return nil, err
	}
	me := build.FromBuildInfo("0.1.0")
	opts := riffengine.Options{StoreName: "directory " + path, Build: me, Logger: log}
	var check *idtoken.Checker
	if signIn.ClientID != "" {
		if check, err = idtoken.New(idtoken.Options{Issuer: signIn.Issuer, ClientID: signIn.ClientID}); err != nil {
			return nil, err
		}
		opts.SignIn = true
		opts.StateOptions = riffstate.Options{Build: me.String(), Owner: signIn.Owner}
	}
	e, err := riffengine.Open(ctx, store, opts)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if check == nil {
		return &Riff{Engine: e, Handler: riffengine.NewHandler(e, riffengine.NoSignIn{})}, nil
	}
	layer, err := riffengine.NewSignedIn(e, check.SignInOptions(signIn.ClientSecret, ""))
	if err != nil {
		e.Close(ctx)
		return nil, err
	}
	return &Riff{Engine: e, Handler: riffengine.NewHandler(e, layer)}, nil
}

// Close writes what waits and a last checkpoint, ends the lease, and
// stops the engine.
func (r *Riff) Close(ctx context.Context) error { return r.Engine.Close(ctx) }
