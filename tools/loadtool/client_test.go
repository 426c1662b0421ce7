package loadtool

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// rawServer listens on loopback and gives each connection to serve, in
// a goroutine of its own; it gives the base URL.
func rawServer(t *testing.T, serve func(conn net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
			wg.Go(func() {
				defer conn.Close()
				serve(conn)
			})
		}
	})
	return "http://" + ln.Addr().String()
}

// readRequest reads one request of the client with net/http's parser and
// checks its form.
func readRequest(t *testing.T, br *bufio.Reader) (*http.Request, string, bool) {
	req, err := http.ReadRequest(br)
	if err != nil {
		return nil, "", false
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		t.Errorf("the body of the request: %v", err)
		return nil, "", false
	}
	if req.Method != http.MethodPost || req.Proto != "HTTP/1.1" || req.Host == "" ||
		req.Header.Get("Content-Type") != "application/json" || req.ContentLength != int64(len(body)) {
		t.Errorf("request %s %s %s, Host %q, header %v, length %d, body %q",
			req.Method, req.URL, req.Proto, req.Host, req.Header, req.ContentLength, body)
	}
	return req, string(body), true
}

func TestRunReadsChunkedReplies(t *testing.T) {
	// net/http chunks a reply that is flushed before its end.
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		_, _ = io.WriteString(w, `{"holder":`)
		w.(http.Flusher).Flush()
		_, _ = io.WriteString(w, strings.Repeat("x", 5000)+"}\n")
	}))
	defer srv.Close()
	res, err := Run(context.Background(), Options{URL: srv.URL, Clients: 3, Count: 60,
		Body: func(c, i int) (string, []byte) { return "/v1/claim", []byte(`{"c":1}`) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 60 || served.Load() != 60 {
		t.Errorf("result %+v, the server got %d calls; want 60", res, served.Load())
	}

	// A raw server with chunk extensions, upper-case hex and a trailer,
	// and the request as net/http reads it.
	var bodies sync.Map
	url := rawServer(t, func(conn net.Conn) {
		br := bufio.NewReader(conn)
		for {
			req, body, ok := readRequest(t, br)
			if !ok {
				return
			}
			bodies.Store(req.URL.Path, body)
			reply := "HTTP/1.1 200 OK\r\ntransfer-encoding: Chunked\r\n\r\n" +
				"A;ext=1\r\n0123456789\r\n1\r\nx\r\n0\r\nX-Trailer: yes\r\n\r\n"
			if _, err := io.WriteString(conn, reply); err != nil {
				return
			}
		}
	})
	res, err = Run(context.Background(), Options{URL: url, Clients: 2, Count: 40,
		Body: func(c, i int) (string, []byte) { return fmt.Sprintf("/c%d", c), []byte(fmt.Sprintf(`{"i":%d}`, i)) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 40 {
		t.Errorf("result %+v", res)
	}
	// The count is shared by the clients: one of them may send every
	// call, so only the paths that came are checked.
	got := 0
	bodies.Range(func(path, b any) bool {
		got++
		if (path != "/c0" && path != "/c1") || !strings.HasPrefix(b.(string), `{"i":`) {
			t.Errorf("the server got %q on %s", b, path)
		}
		return true
	})
	if got == 0 {
		t.Error("the raw server got no call")
	}
}

func TestRunErrorOfAChunkedReply(t *testing.T) {
	url := rawServer(t, func(conn net.Conn) {
		br := bufio.NewReader(conn)
		if _, _, ok := readRequest(t, br); ok {
			_, _ = io.WriteString(conn, "HTTP/1.1 503 Service Unavailable\r\nTransfer-Encoding: chunked\r\n\r\n"+
				"5\r\nbusy \r\n4\r\nnow\n\r\n0\r\n\r\n")
		}
	})
	_, err := Run(context.Background(), Options{URL: url, Clients: 1, Count: 5,
		Body: func(c, i int) (string, []byte) { return "/v1/claim", nil }})
	if err == nil || !strings.Contains(err.Error(), "client 0, call 0 (POST /v1/claim): status 503: busy now") {
		t.Errorf("Run = %v, want the status 503 and its text", err)
	}
}

func TestRunConnectionClose(t *testing.T) {
	var calls, conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Connection", "close")
		Trivial(ClaimReply(1)).ServeHTTP(w, r)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	res, err := Run(context.Background(), Options{URL: srv.URL, Clients: 3, Count: 90,
		Body: func(c, i int) (string, []byte) { return "/", []byte("{}") }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 90 || calls.Load() != 90 || conns.Load() != 90 {
		t.Errorf("result %+v, the server got %d calls on %d connections; want 90 on 90", res, calls.Load(), conns.Load())
	}
}

func TestRunResendsWhenTheServerClosedAnIdleConnection(t *testing.T) {
	// The server answers one call as keep-alive, then closes the
	// connection: the next call on it finds it closed and goes again
	// on a new one, and counts once.
	var calls atomic.Int64
	url := rawServer(t, func(conn net.Conn) {
		if _, _, ok := readRequest(t, bufio.NewReader(conn)); ok {
			calls.Add(1)
			_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n{}\n")
		}
	})
	res, err := Run(context.Background(), Options{URL: url, Clients: 2, Count: 50,
		Body: func(c, i int) (string, []byte) { return "/", []byte("{}") }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 50 || calls.Load() != 50 {
		t.Errorf("result %+v, the server got %d calls; want 50", res, calls.Load())
	}
}

func TestRunMalformedStatusLine(t *testing.T) {
	for _, reply := range []string{"HTTP/1.1 OK\r\n\r\n", "SSH-2.0-OpenSSH\r\n", "HTTP/2 200\r\n\r\n"} {
		url := rawServer(t, func(conn net.Conn) {
			if _, _, ok := readRequest(t, bufio.NewReader(conn)); ok {
				_, _ = io.WriteString(conn, reply)
			}
		})
		_, err := Run(context.Background(), Options{URL: url, Clients: 1, Count: 1,
			Body: func(c, i int) (string, []byte) { return "/", nil }})
		if err == nil || !strings.Contains(err.Error(), "malformed status line") {
			t.Errorf("reply %q: Run = %v, want a malformed status line", reply, err)
		}
	}
}

func TestRunBadURL(t *testing.T) {
	for _, url := range []string{"https://127.0.0.1:7878", "http://127.0.0.1", "http://127.0.0.1:",
		"127.0.0.1:7878", "http://127.0.0.1:7878/base", "http://u@127.0.0.1:7878", "ftp://h:21"} {
		_, err := Run(context.Background(), Options{URL: url, Clients: 1, Count: 1,
			Body: func(c, i int) (string, []byte) { return "/", nil }})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("loadtool: the URL %q", url)) {
			t.Errorf("URL %s: Run = %v, want an error that names it", url, err)
		}
	}
}

func TestRunCancelStopsCallsInFlight(t *testing.T) {
	// The server reads the calls and never answers: the end of the
	// context ends them.
	got := make(chan struct{}, 4)
	url := rawServer(t, func(conn net.Conn) {
		if _, _, ok := readRequest(t, bufio.NewReader(conn)); ok {
			got <- struct{}{}
			_, _ = io.Copy(io.Discard, conn)
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for range 4 {
			<-got
		}
		cancel()
	}()
	_, err := Run(ctx, Options{URL: url, Clients: 4, Count: 10,
		Body: func(c, i int) (string, []byte) { return "/", nil }})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
}

func TestRunTimeout(t *testing.T) {
	url := rawServer(t, func(conn net.Conn) { _, _ = io.Copy(io.Discard, conn) })
	_, err := Run(context.Background(), Options{URL: url, Clients: 1, Count: 1, Timeout: 50 * time.Millisecond,
		Body: func(c, i int) (string, []byte) { return "/", nil }})
	if !errors.Is(err, os.ErrDeadlineExceeded) || !strings.Contains(err.Error(), "client 0, call 0 (POST /)") {
		t.Errorf("Run = %v, want a deadline exceeded that names the call", err)
	}
}

func TestParseStatusAndHeader(t *testing.T) {
	for line, want := range map[string]int{"HTTP/1.1 200 OK\r\n": 200, "HTTP/1.0 404\n": 404, "HTTP/1.1 409 Conflict\r\n": 409} {
		if code, _, err := parseStatus([]byte(line)); err != nil || code != want {
			t.Errorf("parseStatus(%q) = %d, %v; want %d", line, code, err, want)
		}
	}
	for _, line := range []string{"HTTP/1.1 20 OK\r\n", "HTTP/1.1 2000\r\n", "HTTP/1.2 200 OK\r\n", "http/1.1 200 OK\r\n", "HTTP/1.1 099 x\r\n"} {
		if _, _, err := parseStatus([]byte(line)); err == nil {
			t.Errorf("parseStatus(%q) gave no error", line)
		}
	}
	c := &client{}
	for header, want := range map[string]struct {
		clen             int64
		chunked, closing bool
	}{
		"Content-Length: 12\r\n\r\n":                                {12, false, false},
		"content-length:0\r\nConnection: Keep-Alive, CLOSE\r\n\r\n": {0, false, true},
		"Transfer-Encoding: chunked\r\nX: y\r\n\r\n":                {-1, true, false},
	} {
		c.br = bufio.NewReader(strings.NewReader(header))
		clen, chunked, closing, err := c.readHeader(false)
		if err != nil || clen != want.clen || chunked != want.chunked || closing != want.closing {
			t.Errorf("readHeader(%q) = %d %v %v %v; want %+v", header, clen, chunked, closing, err, want)
		}
	}
	for _, header := range []string{"Content-Length: 1\r\nContent-Length: 2\r\n\r\n", "Content-Length: -1\r\n\r\n",
		"Transfer-Encoding: gzip\r\n\r\n", "no colon\r\n\r\n", "Content-Length: 1\r\n"} {
		c.br = bufio.NewReader(strings.NewReader(header))
		if _, _, _, err := c.readHeader(false); err == nil {
			t.Errorf("readHeader(%q) gave no error", header)
		}
	}
}
