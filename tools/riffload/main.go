// Command riffload runs the parts of loadtool each in a process of its
// own, for the load benchmark of riff-server (cmd/riff-server/load_test.go;
// docs/performance.md, section riffengine):
//
//	riffload run -url URL -script FILE [-clients 64] [-duration 10s | -count N] [-warmup 1s]
//	riffload trivial [-listen 127.0.0.1:0] [-dir DIR]
//	riffload fsync -dir DIR [-count 2000]
//
// run sends the calls of the script and prints its loadtool.Result as
// JSON on stdout. The script is a loadtool.Script: a JSON object
// {"clients": [[CALL, ...], ...]} where a CALL is {"path": "/v1/claim",
// "body": {...}}: client c sends the calls of list c mod the number of
// lists, in turn, again and again. trivial serves loadtool.Trivial
// (with -dir, loadtool.Durable on the chunks of DIR) and prints
// "listening on URL" on stdout once it listens. fsync prints its
// loadtool.FsyncResult.
//
// It is in the tool module of riff (tools/, beside the server, as etcd
// has tools/benchmark): it imports nothing of the server, so that a
// load measures the server alone, and the benchmarks of the server
// import its package loadtool.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/como-technologies/riff/tools/loadtool"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: riffload run|trivial|fsync [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = run(os.Args[2:])
	case "trivial":
		err = trivial(os.Args[2:])
	case "fsync":
		err = fsync(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q: run, trivial or fsync", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "riffload:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	url := fs.String("url", "", "base URL of the server: http://HOST:PORT (the client speaks plain HTTP/1.1 only)")
	script := fs.String("script", "", "the script file (JSON)")
	clients := fs.Int("clients", 64, "concurrent clients")
	count := fs.Int("count", 0, "measured calls in all (0: use -duration)")
	duration := fs.Duration("duration", 10*time.Second, "measured time, when -count is 0")
	warmup := fs.Duration("warmup", time.Second, "time whose calls are not measured")
	_ = fs.Parse(args)
	data, err := os.ReadFile(*script)
	if err != nil {
		return err
	}
	var s loadtool.Script
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("the script %s: %w", *script, err)
	}
	body, err := s.Body()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := loadtool.Run(ctx, loadtool.Options{URL: *url, Clients: *clients, Count: *count,
		Duration: *duration, Warmup: *warmup, Body: body})
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

func trivial(args []string) error {
	fs := flag.NewFlagSet("trivial", flag.ExitOnError)
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on")
	dir := fs.String("dir", "", "answer each call once its body is in a chunk file in this directory (loadtool.Durable)")
	_ = fs.Parse(args)
	handler := loadtool.Trivial()
	if *dir != "" {
		d, err := loadtool.NewDurable(*dir)
		if err != nil {
			return err
		}
		defer d.Close()
		handler = d
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	fmt.Printf("listening on http://%s\n", ln.Addr())
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func fsync(args []string) error {
	fs := flag.NewFlagSet("fsync", flag.ExitOnError)
	dir := fs.String("dir", "", "directory on the disk to measure")
	count := fs.Int("count", 2000, "fsync rounds")
	_ = fs.Parse(args)
	if *dir == "" {
		return errors.New("fsync needs -dir")
	}
	res, err := loadtool.FsyncRate(*dir, *count)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}
