package loadtool

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// target is the server of a load: the address to dial and the value of
// the Host header.
type target struct {
	addr, host string
}

// parseBase reads the base URL of Options: http://HOST:PORT, with at
// most a "/" after it.
func parseBase(raw string) (target, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return target{}, fmt.Errorf("loadtool: the URL %q: %w", raw, err)
	}
	if u.Scheme != "http" {
		return target{}, fmt.Errorf("loadtool: the URL %q: only http://HOST:PORT is supported (no https, no other scheme)", raw)
	}
	if u.Opaque != "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return target{}, fmt.Errorf("loadtool: the URL %q: only http://HOST:PORT is supported (no user, path, query or fragment)", raw)
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil || host == "" || port == "" {
		return target{}, fmt.Errorf("loadtool: the URL %q: it needs a host and a port, as in http://127.0.0.1:7878", raw)
	}
	return target{addr: u.Host, host: u.Host}, nil
}

// maxErrBody is how much of the body of a reply other than 200 goes into
// the error.
const maxErrBody = 1024

// longAgo is the deadline that stops the calls of a connection at once
// when the context of the load ends.
var longAgo = time.Unix(1, 0)

// client is one client of a load: one keep-alive connection at a time,
// used by one goroutine only.
type client struct {
	ctx     context.Context
	target  target
	timeout time.Duration
	dialer  net.Dialer

	conn   net.Conn
	br     *bufio.Reader
	unhook func() bool // stops the AfterFunc of ctx for conn
	served int         // replies read on conn

	req     []byte // the request being sent, rebuilt for each call
	errBody []byte // the start of the body of a reply other than 200
}

func newClient(ctx context.Context, t target, timeout time.Duration) *client {
	return &client{ctx: ctx, target: t, timeout: timeout, dialer: net.Dialer{Timeout: timeout}}
}

// dial opens a new connection. When ctx ends, the deadline of the
// connection passes, which ends a call in flight.
func (c *client) dial() error {
	conn, err := c.dialer.DialContext(c.ctx, "tcp", c.target.addr)
	if err != nil {
		return err
	}
	// Go sets TCP_NODELAY on TCP connections already; say it anyway.
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	c.conn, c.served = conn, 0
	if c.br == nil {
		c.br = bufio.NewReaderSize(conn, 4096)
	} else {
		c.br.Reset(conn)
	}
	c.unhook = context.AfterFunc(c.ctx, func() { _ = conn.SetDeadline(longAgo) })
	return nil
}

// close closes the connection, if there is one; the next call dials.
func (c *client) close() {
	if c.conn == nil {
		return
	}
	c.unhook()
	_ = c.conn.Close()
	c.conn = nil
}

// call sends one POST and reads its whole reply; t0 is when the call
// started (its deadline is t0 + timeout). A reply other than 200 is an
// error with the status and the text of the body.
//
// When a connection that served calls before is found closed by the
// server before any byte of the reply (the server closed an idle
// keep-alive connection), the call is sent once more on a new
// connection; it counts once.
func (c *client) call(path string, body []byte, t0 time.Time) error {
	if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \t\r\n") {
		return fmt.Errorf("the path %q is not an absolute path with no space", path)
	}
	c.req = appendRequest(c.req[:0], c.target.host, path, body)
	for resent := false; ; resent = true {
		if c.conn == nil {
			if err := c.dial(); err != nil {
				return err
			}
		}
		reused := c.served > 0
		if err := c.conn.SetDeadline(t0.Add(c.timeout)); err != nil {
			c.close()
			return err
		}
		// After the deadline is set: an end of ctx from here on sets
		// the deadline that stops the call.
		if err := c.ctx.Err(); err != nil {
			c.close()
			return err
		}
		started, keep, err := c.roundTrip()
		if err == nil && keep {
			c.served++
			return nil
		}
		c.close()
		if err == nil {
			return nil
		}
		if reused && !started && !resent && closedByPeer(err) {
			t0 = time.Now()
			continue
		}
		return err
	}
}

// appendRequest formats a POST of a JSON body.
func appendRequest(b []byte, host, path string, body []byte) []byte {
	b = append(b, "POST "...)
	b = append(b, path...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, host...)
	b = append(b, "\r\nContent-Type: application/json\r\nContent-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	return append(b, body...)
}

// closedByPeer tells whether err says that the server closed the
// connection.
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// roundTrip writes c.req and reads the reply. started tells whether any
// byte of the reply came; keep whether the connection can serve the
// next call.
func (c *client) roundTrip() (started, keep bool, err error) {
	if _, err := c.conn.Write(c.req); err != nil {
		return false, false, err
	}
	var (
		code    int
		clen    int64
		chunked bool
		closing bool
	)
	for {
		line, err := c.br.ReadSlice('\n')
		if err != nil {
			if len(line) == 0 && c.br.Buffered() == 0 && !started {
				return false, false, err
			}
			return true, false, fmt.Errorf("the status line: %w", unexpected(err))
		}
		started = true
		var http10 bool
		code, http10, err = parseStatus(line)
		if err != nil {
			return true, false, err
		}
		clen, chunked, closing, err = c.readHeader(http10)
		if err != nil {
			return true, false, err
		}
		if code >= 200 {
			break
		}
		if code == 101 {
			return true, false, errors.New("status 101: a switch of protocol is not supported")
		}
		// 100 Continue and the other interim replies have no body.
	}
	keepBody := code != 200
	c.errBody = c.errBody[:0]
	switch {
	case code == 204 || code == 304:
	case chunked:
		err = c.readChunked(keepBody)
	case clen >= 0:
		err = c.take(clen, keepBody)
	default:
		// No length: the body ends with the connection.
		closing = true
		err = c.take(-1, keepBody)
	}
	if err != nil {
		return true, false, fmt.Errorf("the body of a reply with status %d: %w", code, err)
	}
	if code != 200 {
		return true, !closing, fmt.Errorf("status %d: %s", code, bytes.TrimSpace(c.errBody))
	}
	return true, !closing, nil
}

// parseStatus reads a status line: HTTP/1.x CODE [REASON].
func parseStatus(line []byte) (code int, http10 bool, err error) {
	s := trimEOL(line)
	if len(s) < 12 || string(s[:7]) != "HTTP/1." || (s[7] != '0' && s[7] != '1') || s[8] != ' ' ||
		!isDigit(s[9]) || !isDigit(s[10]) || !isDigit(s[11]) || (len(s) > 12 && s[12] != ' ') {
		return 0, false, fmt.Errorf("a malformed status line %q", s)
	}
	code = int(s[9]-'0')*100 + int(s[10]-'0')*10 + int(s[11]-'0')
	if code < 100 {
		return 0, false, fmt.Errorf("a malformed status line %q", s)
	}
	return code, s[7] == '0', nil
}

// readHeader reads the header lines of a reply up to the empty line.
// Only three matter: Content-Length (-1 when there is none),
// Transfer-Encoding (chunked or identity) and Connection (close, or
// keep-alive for HTTP/1.0).
func (c *client) readHeader(http10 bool) (clen int64, chunked, closing bool, err error) {
	clen, closing = -1, http10
	for {
		line, err := c.br.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				return 0, false, false, errors.New("a header line longer than 4096 bytes")
			}
			return 0, false, false, fmt.Errorf("the header: %w", unexpected(err))
		}
		line = trimEOL(line)
		if len(line) == 0 {
			return clen, chunked, closing, nil
		}
		i := bytes.IndexByte(line, ':')
		if i <= 0 {
			return 0, false, false, fmt.Errorf("a malformed header line %q", line)
		}
		name, value := line[:i], bytes.TrimSpace(line[i+1:])
		switch {
		case equalFold(name, "Content-Length"):
			n, ok := parseUint(value, 10)
			if !ok || (clen >= 0 && n != clen) {
				return 0, false, false, fmt.Errorf("a bad Content-Length %q", value)
			}
			clen = n
		case equalFold(name, "Transfer-Encoding"):
			switch {
			case equalFold(value, "chunked"):
				chunked = true
			case equalFold(value, "identity"):
			default:
				return 0, false, false, fmt.Errorf("the Transfer-Encoding %q is not supported", value)
			}
		case equalFold(name, "Connection"):
			for tok := range bytes.SplitSeq(value, []byte(",")) {
				tok = bytes.TrimSpace(tok)
				if equalFold(tok, "close") {
					closing = true
				} else if http10 && equalFold(tok, "keep-alive") {
					closing = false
				}
			}
		}
	}
}

// readChunked reads a chunked body and its trailer.
func (c *client) readChunked(keep bool) error {
	for {
		line, err := c.br.ReadSlice('\n')
		if err != nil {
			return fmt.Errorf("a chunk size: %w", unexpected(err))
		}
		size := trimEOL(line)
		if i := bytes.IndexByte(size, ';'); i >= 0 {
			size = size[:i] // a chunk extension
		}
		n, ok := parseUint(bytes.TrimSpace(size), 16)
		if !ok {
			return fmt.Errorf("a malformed chunk size %q", trimEOL(line))
		}
		if n == 0 {
			break
		}
		if err := c.take(n, keep); err != nil {
			return err
		}
		line, err = c.br.ReadSlice('\n')
		if err != nil {
			return fmt.Errorf("the end of a chunk: %w", unexpected(err))
		}
		if len(trimEOL(line)) != 0 {
			return fmt.Errorf("a chunk with more bytes than its size, %q", trimEOL(line))
		}
	}
	for {
		line, err := c.br.ReadSlice('\n')
		if err != nil {
			return fmt.Errorf("the trailer: %w", unexpected(err))
		}
		if len(trimEOL(line)) == 0 {
			return nil
		}
	}
}

// take reads n bytes of a body (all up to the end of the connection when
// n is -1); with keep, the first maxErrBody of them go to c.errBody.
func (c *client) take(n int64, keep bool) error {
	if keep && len(c.errBody) < maxErrBody {
		k := int64(maxErrBody - len(c.errBody))
		if n >= 0 {
			k = min(k, n)
		}
		start := len(c.errBody)
		c.errBody = append(c.errBody, make([]byte, k)...)
		got, err := io.ReadFull(c.br, c.errBody[start:])
		c.errBody = c.errBody[:start+got]
		if n < 0 && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
			return nil
		}
		if err != nil {
			return unexpected(err)
		}
		if n >= 0 {
			n -= int64(got)
		}
	}
	if n < 0 {
		_, err := io.Copy(io.Discard, c.br)
		return err
	}
	for n > 0 {
		k := int(min(n, 1<<30))
		if _, err := c.br.Discard(k); err != nil {
			return unexpected(err)
		}
		n -= int64(k)
	}
	return nil
}

// unexpected gives io.ErrUnexpectedEOF for an io.EOF in the middle of a
// reply.
func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func trimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// parseUint reads a number in base 10 or 16, of at most 15 digits.
func parseUint(s []byte, base int64) (int64, bool) {
	if len(s) == 0 || len(s) > 15 {
		return 0, false
	}
	var n int64
	for _, b := range s {
		var d int64
		switch {
		case isDigit(b):
			d = int64(b - '0')
		case base == 16 && 'a' <= b|0x20 && b|0x20 <= 'f':
			d = int64(b|0x20-'a') + 10
		default:
			return 0, false
		}
		n = n*base + d
	}
	return n, true
}

// equalFold tells whether b is s, in ASCII with no regard to case.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
