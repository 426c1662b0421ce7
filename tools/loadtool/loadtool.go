// Package loadtool drives an HTTP server with concurrent keep-alive
// clients on loopback and measures the calls per second and the
// latency of each call, for the benchmarks of riff-server
// (docs/performance.md, section riffengine). It also gives the
// ceilings that those figures are read against: a trivial handler
// (Trivial), the same handler that answers only once each body is in a
// chunk on the disk (Durable), and the raw fsync rate of a directory
// (FsyncRate).
//
// The clients of Run are not net/http's but a minimal HTTP/1.1 client
// for loopback benchmarks: one goroutine per client (and, only once the
// context of the load ends, one per connection that sets a past
// deadline to stop the call in flight); each client writes a
// pre-formatted POST in one Write on its own TCP connection and parses
// the reply from a bufio.Reader, with no allocation per call. The load
// shares the cores with the server under test, and the CPU that
// net/http's client spends on a call (a read and a write goroutine per
// connection, the handoffs between them, headers as maps) is CPU that
// the server lacks; this client spends a fraction of it, as wrk does (in
// BenchmarkServerLoad of cmd/riff-server, about 6 to 13 µs of CPU a call
// where net/http's took 27 to 45).
//
// It supports only what such a load needs: base URLs http://HOST:PORT;
// POST with a JSON body; replies whose body ends by Content-Length, by
// chunked encoding or with the connection; Connection: close (the next
// call dials again); and one resend of a call on a new connection when
// the server closed an idle keep-alive connection before any byte of
// the reply (the call counts once). It does not support https, proxies,
// redirects, compression, HTTP/2, protocol upgrades, pipelining,
// cookies, or a Transfer-Encoding other than chunked; the headers of a
// reply other than Content-Length, Transfer-Encoding and Connection, and
// a chunked trailer, are read and ignored.
//
// The program riffload (in the directory of the same name) runs each of
// them in a process of its own, so that the clients and the server
// under test do not share a Go runtime.
package loadtool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// BodyFunc gives call i of client c (i counts from 0 for each client):
// the path after the base URL and the JSON body of a POST.
type BodyFunc func(c, i int) (path string, body []byte)

// Options are the settings of one load.
type Options struct {
	// URL is the base URL of the server, http://HOST:PORT, for example
	// http://127.0.0.1:7878; nothing else is supported.
	URL string
	// Clients is the number of concurrent clients. Each sends one call
	// at a time, on its own keep-alive connection.
	Clients int
	// Count, when above 0, ends the load after that many measured calls
	// in all. Otherwise the load ends after Duration.
	Count    int
	Duration time.Duration
	// Warmup is a time at the start whose calls are sent but not
	// measured (the connections open, the server warms up).
	Warmup time.Duration
	// Body gives each call.
	Body BodyFunc
	// Timeout is the limit of one call; 0 gives 30 s.
	Timeout time.Duration
	// Window, when above 0, splits the measured time into windows of
	// this length and gives the rate and the latencies of each
	// (Result.Windows): how a load that grows the state goes over time.
	Window time.Duration
}

// Window is the part of a load whose calls ended in one window of time.
type Window struct {
	// EndS is the end of the window, in seconds from the end of the
	// warm-up.
	EndS      float64 `json:"end_s"`
	Calls     int     `json:"calls"`
	CallsPerS float64 `json:"calls_per_s"`
	P50Ms     float64 `json:"p50_ms"`
	P99Ms     float64 `json:"p99_ms"`
	P999Ms    float64 `json:"p999_ms"`
	// CallsBefore counts the measured calls that ended before the
	// window: in a load that makes a session a call, the sessions.
	CallsBefore int `json:"calls_before"`
}

// Result is what one load measured. Calls, rate and latencies count the
// measured calls only, all of which got a 200.
type Result struct {
	Clients     int     `json:"clients"`
	Calls       int     `json:"calls"`
	Seconds     float64 `json:"seconds"`
	CallsPerS   float64 `json:"calls_per_s"`
	P50Ms       float64 `json:"p50_ms"`
	P99Ms       float64 `json:"p99_ms"`
	P999Ms      float64 `json:"p999_ms"`
	MaxMs       float64 `json:"max_ms"`
	WarmupCalls int     `json:"warmup_calls"`
	// Windows are given when Options.Window is.
	Windows []Window `json:"windows,omitempty"`
}

// Run runs the load and gives its result. The first call that fails
// (an error of the transport or a status other than 200) ends the load
// with an error that names it.
func Run(ctx context.Context, o Options) (Result, error) {
	if o.Clients <= 0 || o.Body == nil || o.URL == "" {
		return Result{}, errors.New("loadtool: URL, Clients and Body are needed")
	}
	if o.Count <= 0 && o.Duration <= 0 {
		return Result{}, errors.New("loadtool: a Count or a Duration is needed")
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	t, err := parseBase(o.URL)
	if err != nil {
		return Result{}, err
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		next   atomic.Int64
		warm   atomic.Int64
		lat    = make([][]time.Duration, o.Clients)
		endsAt = make([][]time.Duration, o.Clients) // with a Window: the end of each call after from
		ends   = make([]time.Time, o.Clients)
		start  = time.Now()
		from   = start.Add(o.Warmup)
		until  = from.Add(o.Duration)
		wg     sync.WaitGroup
		errMu  sync.Mutex
		first  error
		failed = func(err error) {
			errMu.Lock()
			if first == nil {
				first = err
			}
			errMu.Unlock()
			cancel(err)
		}
	)
	for c := range o.Clients {
		wg.Go(func() {
			cl := newClient(ctx, t, timeout)
			defer cl.close()
			for i := 0; ctx.Err() == nil; i++ {
				t0 := time.Now()
				measured := !t0.Before(from)
				if measured {
					if o.Count > 0 {
						if next.Add(1) > int64(o.Count) {
							return
						}
					} else if !t0.Before(until) {
						return
					}
				}
				path, body := o.Body(c, i)
				if err := cl.call(path, body, t0); err != nil {
					if ctx.Err() == nil {
						failed(fmt.Errorf("client %d, call %d (POST %s): %w", c, i, path, err))
					}
					return
				}
				if measured {
					now := time.Now()
					lat[c] = append(lat[c], now.Sub(t0))
					ends[c] = now
					if o.Window > 0 {
						endsAt[c] = append(endsAt[c], now.Sub(from))
					}
				} else {
					warm.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if first != nil {
		return Result{}, first
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	end := from
	for _, t := range ends {
		if t.After(end) {
			end = t
		}
	}
	var windows []Window
	if o.Window > 0 {
		windows = byWindow(lat, endsAt, o.Window)
	}
	all := slices.Concat(lat...)
	if len(all) == 0 {
		return Result{}, errors.New("loadtool: no call was measured")
	}
	slices.Sort(all)
	took := end.Sub(from)
	return Result{
		Windows:     windows,
		P999Ms:      ms(Quantile(all, 0.999)),
		Clients:     o.Clients,
		Calls:       len(all),
		Seconds:     took.Seconds(),
		CallsPerS:   float64(len(all)) / took.Seconds(),
		P50Ms:       ms(Quantile(all, 0.50)),
		P99Ms:       ms(Quantile(all, 0.99)),
		MaxMs:       ms(all[len(all)-1]),
		WarmupCalls: int(warm.Load()),
	}, nil
}

// byWindow puts each measured call into the window of its end and
// gives the figures of each window.
func byWindow(lat, endsAt [][]time.Duration, w time.Duration) []Window {
	var per [][]time.Duration
	for c := range lat {
		for k, at := range endsAt[c] {
			n := int(at / w)
			for len(per) <= n {
				per = append(per, nil)
			}
			per[n] = append(per[n], lat[c][k])
		}
	}
	windows := make([]Window, 0, len(per))
	before := 0
	for n, l := range per {
		slices.Sort(l)
		windows = append(windows, Window{EndS: (time.Duration(n+1) * w).Seconds(), Calls: len(l),
			CallsPerS: float64(len(l)) / w.Seconds(), P50Ms: ms(Quantile(l, 0.5)), P99Ms: ms(Quantile(l, 0.99)),
			P999Ms: ms(Quantile(l, 0.999)), CallsBefore: before})
		before += len(l)
	}
	return windows
}

// Quantile gives the q quantile (0 to 1) of sorted latencies, by the
// nearest rank below.
func Quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(q*float64(len(sorted)-1))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

// ClaimReply is the reply of riff-server to a claim by a session that
// then holds claims items, in its form: the holder's URI with each of
// its claims, and the text. Trivial and Durable write it, so that a
// ceiling writes the bytes that riff-server writes (the pile-up load:
// at 1,000 claims a reply of about 18 KB).
func ClaimReply(claims int) []byte {
	b := []byte(`{"holder":"riff://u1@h/o/repo?session=s0001`)
	for i := 1; i <= max(claims, 0); i++ {
		b = fmt.Appendf(b, `\u0026claim=item-%d`, i)
	}
	return fmt.Appendf(b, `","text":"You hold item-%d in o/repo."}`+"\n", max(claims, 1))
}

// Trivial is the ceiling of net/http: a handler that reads the body and
// writes reply, with no other work.
func Trivial(reply []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(reply)))
		_, _ = w.Write(reply)
	})
}

// FsyncResult is the raw rate of durable small writes in a directory.
type FsyncResult struct {
	Fsyncs    int     `json:"fsyncs"`
	Seconds   float64 `json:"seconds"`
	PerS      float64 `json:"fsyncs_per_s"`
	P50Ms     float64 `json:"p50_ms"`
	P99Ms     float64 `json:"p99_ms"`
	Directory string  `json:"directory"`
}

// FsyncRate measures, count times in turn, what a chunk of the
// directory store costs the disk at least: create a new file in dir,
// write 300 bytes, fsync it, close it, fsync the directory. The files
// stay in dir.
func FsyncRate(dir string, count int) (FsyncResult, error) {
	data := bytes.Repeat([]byte("x"), 300)
	d, err := os.Open(dir)
	if err != nil {
		return FsyncResult{}, err
	}
	defer d.Close()
	lat := make([]time.Duration, 0, count)
	start := time.Now()
	for i := range count {
		t0 := time.Now()
		err := writeNewFile(filepath.Join(dir, fmt.Sprintf("%020d", i)), data)
		if err == nil {
			err = d.Sync()
		}
		if err != nil {
			return FsyncResult{}, err
		}
		lat = append(lat, time.Since(t0))
	}
	took := time.Since(start)
	slices.Sort(lat)
	return FsyncResult{Fsyncs: count, Seconds: took.Seconds(), PerS: float64(count) / took.Seconds(),
		P50Ms: ms(Quantile(lat, 0.5)), P99Ms: ms(Quantile(lat, 0.99)), Directory: dir}, nil
}

// writeNewFile creates the file path, which must not exist, writes data
// to it, flushes it and closes it.
func writeNewFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
