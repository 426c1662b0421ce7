// Command riffload runs the parts of loadtool each in a process of its
// own, for the load benchmark of riff-server (cmd/riff-server/load_test.go;
// docs/performance.md, section riffengine):
//
//	riffload run -url URL -script FILE [-clients 64] [-duration 10s | -count N] [-warmup 1s]
//	riffload trivial [-listen 127.0.0.1:0] [-dir DIR [-prune-every N -prune-keep K [-prune-recycle]]] [-claims N]
//	riffload fsync -dir DIR [-count 2000]
//	riffload postgres -dir DIR [-clients 64] [-duration 10s]
//	riffload etcd -dir DIR [-clients 64] [-duration 10s] [-warmup 1s]
//
// run sends the calls of the script and prints its loadtool.Result as
// JSON on stdout. The script is a loadtool.Script: a JSON object
// {"clients": [[CALL, ...], ...]} where a CALL is {"path": "/v1/claim",
// "body": {...}}: client c sends the calls of list c mod the number of
// lists, in turn, again and again. trivial serves loadtool.Trivial
// (with -dir, loadtool.Durable on the chunks of DIR, with -prune-every
// and -prune-keep deleting the old ones as loadtool.Prune, and with
// -prune-recycle writing new chunks over their files) and prints
// "listening on URL" on stdout once it listens. fsync prints its
// loadtool.FsyncResult. postgres and etcd start a throwaway server of
// that peer in DIR on loopback, run the claim and release of the key of
// each client against it (loadtool.PostgresScript through pgbench;
// loadtool.EtcdScript through etcd's JSON gateway), stop it, and print
// the loadtool.Result; when the peer is not installed they print
// {"missing": "..."} and exit 0, so that a run of the peers skips it and
// says so. run takes -window D to give the figures of each window of D
// (loadtool.Window).
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
	"path/filepath"
	"syscall"
	"time"

	"github.com/como-technologies/riff/tools/loadtool"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: riffload run|trivial|fsync|postgres|etcd [flags]")
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
	case "postgres", "etcd":
		err = peer(os.Args[1], os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q: run, trivial, fsync, postgres or etcd", os.Args[1])
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
	window := fs.Duration("window", 0, "give the rate and latencies of each window of this length (0: none)")
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
		Duration: *duration, Warmup: *warmup, Body: body, Window: *window})
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

func trivial(args []string) error {
	fs := flag.NewFlagSet("trivial", flag.ExitOnError)
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on")
	dir := fs.String("dir", "", "answer each call once its body is in a chunk file in this directory (loadtool.Durable)")
	pruneEvery := fs.Int("prune-every", 0, "with -dir: after each this many calls, delete the old chunks as riff-server's keep rule does (riff-server: 1000, a checkpoint each 1,000 records)")
	pruneKeep := fs.Int("prune-keep", 0, "with -dir and -prune-every: the calls kept behind the newest (riff-server: 3000, its 3 kept checkpoints)")
	recycle := fs.Bool("prune-recycle", false, "with -prune-every: write new chunks over the files of the pruned ones in place of a delete and a create")
	claims := fs.Int("claims", 1, "answer each call with riff-server's reply to a claim by a session that holds this many claims (loadtool.ClaimReply)")
	_ = fs.Parse(args)
	if *claims < 1 {
		return fmt.Errorf("-claims %d: a reply holds at least 1 claim", *claims)
	}
	if *dir == "" && (*pruneEvery != 0 || *pruneKeep != 0 || *recycle) {
		return errors.New("-prune-every, -prune-keep and -prune-recycle need -dir")
	}
	reply := loadtool.ClaimReply(*claims)
	handler := loadtool.Trivial(reply)
	if *dir != "" {
		d, err := loadtool.NewDurable(*dir, reply, loadtool.Prune{Every: *pruneEvery, Keep: *pruneKeep, Recycle: *recycle})
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

// peer runs the load of a peer (postgres or etcd) in a throwaway server.
func peer(which string, args []string) error {
	fs := flag.NewFlagSet(which, flag.ExitOnError)
	dir := fs.String("dir", "", "an empty directory for the server's data")
	clients := fs.Int("clients", 64, "concurrent clients")
	duration := fs.Duration("duration", 10*time.Second, "measured time")
	warmup := fs.Duration("warmup", time.Second, "time whose calls are not measured (etcd)")
	_ = fs.Parse(args)
	if *dir == "" {
		return errors.New(which + " needs -dir")
	}
	var res loadtool.Result
	var err error
	switch which {
	case "postgres":
		var p *loadtool.Postgres
		p, err = loadtool.StartPostgres(*dir)
		if err == nil {
			res, err = p.Load(*clients, *duration)
			if serr := p.Stop(); err == nil {
				err = serr
			}
		}
	case "etcd":
		var e *loadtool.Etcd
		if err = os.MkdirAll(*dir, 0o700); err != nil {
			break
		}
		e, err = loadtool.StartEtcd(filepath.Join(*dir, "data"), filepath.Join(*dir, "etcd.log"))
		if err == nil {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			res, err = loadtool.RunScript(ctx, loadtool.EtcdScript(*clients), loadtool.Options{URL: e.URL,
				Clients: *clients, Duration: *duration, Warmup: *warmup})
			stop()
			if serr := e.Stop(); err == nil {
				err = serr
			}
		}
	}
	if errors.Is(err, loadtool.ErrPeerMissing) {
		return json.NewEncoder(os.Stdout).Encode(map[string]string{"missing": err.Error()})
	}
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}
