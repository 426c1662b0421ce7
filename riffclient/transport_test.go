package riffclient

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestGivenAnHTTP2ConnectionWhenItDiesWithNoSignThenAPingWithNoAnswerDropsItAfter15Seconds:
// the guide, "When a connection dies with no sign": an HTTP/2 ping after
// 10 s with no frame, and the connection dropped with no answer in 5 s.
// So a stream on a dead connection ends after 15 s, long before the stall
// limit of 45 s; a quiet connection that answers its pings stays.
//
// It runs in a bubble of testing/synctest: the timers of the HTTP/2
// transport run on its fake clock, and the connection is a net.Pipe
// with TLS and ALPN h2, as Cloud Run serves riff-server.
func TestGivenAnHTTP2ConnectionWhenItDiesWithNoSignThenAPingWithNoAnswerDropsItAfter15Seconds(t *testing.T) {
	for _, tt := range []struct {
		name string
		dies bool
	}{
		{name: "the connection dies: dropped after 15 s", dies: true},
		{name: "the connection lives: it stays", dies: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cert, pool := selfSigned(t)
				serverEnd, clientEnd := net.Pipe()
				conn := &silentConn{Conn: clientEnd, closed: make(chan struct{})}
				srv := &http.Server{
					Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						w.WriteHeader(http.StatusOK)
						http.NewResponseController(w).Flush()
						<-r.Context().Done()
					}),
					TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}},
				}
				l := newPipeListener(serverEnd)
				go srv.ServeTLS(l, "", "")

				tr := NewTransport()
				tr.TLSClientConfig = &tls.Config{RootCAs: pool}
				tr.DialContext = func(context.Context, string, string) (net.Conn, error) { return conn, nil }
				hc := &http.Client{Transport: tr}
				resp, err := hc.Get("https://riff.test/v1/watch")
				if err != nil {
					t.Fatalf("GET = %v", err)
				}
				if resp.ProtoMajor != 2 {
					t.Fatalf("the connection is %s; want HTTP/2", resp.Proto)
				}
				if tt.dies {
					// From now on no byte goes through, and no error comes.
					conn.dead.Store(true)
				}
				ended := make(chan error, 1)
				go func() {
					_, err := io.ReadAll(resp.Body)
					ended <- err
				}()
				time.Sleep(PingEvery + PingTimeout - time.Second)
				synctest.Wait()
				select {
				case err := <-ended:
					t.Fatalf("the stream ended after 14 s (%v); want it open until the ping has no answer", err)
				default:
				}
				time.Sleep(2 * time.Second)
				synctest.Wait()
				select {
				case err := <-ended:
					if !tt.dies {
						t.Fatalf("the stream of a live connection ended after 16 s: %v", err)
					}
					if err == nil {
						t.Fatalf("the stream of a dead connection ended with no error")
					}
				default:
					if tt.dies {
						t.Fatalf("the stream of a dead connection is open after 16 s; want it dropped after the ping of 10 s had no answer in 5 s")
					}
					// A live connection answers each ping: a minute on, the
					// stream is still open.
					time.Sleep(time.Minute)
					synctest.Wait()
					select {
					case err := <-ended:
						t.Fatalf("the stream of a live connection ended in a minute: %v", err)
					default:
					}
				}
				resp.Body.Close()
				tr.CloseIdleConnections()
				srv.Close()
				conn.Close()
				synctest.Wait()
			})
		})
	}
}

// silentConn is a connection that can die with no sign: once dead, each
// write is lost and no read gives a byte, until Close.
type silentConn struct {
	net.Conn
	dead   atomic.Bool
	once   sync.Once
	closed chan struct{}
}

func (c *silentConn) Write(p []byte) (int, error) {
	if c.dead.Load() {
		return len(p), nil
	}
	return c.Conn.Write(p)
}

func (c *silentConn) Read(p []byte) (int, error) {
	if c.dead.Load() {
		<-c.closed
		return 0, net.ErrClosed
	}
	n, err := c.Conn.Read(p)
	if c.dead.Load() {
		// The bytes of a read that started before the death are lost too.
		<-c.closed
		return 0, net.ErrClosed
	}
	return n, err
}

func (c *silentConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

// pipeListener gives one connection, then waits for Close.
type pipeListener struct {
	conns  chan net.Conn
	once   sync.Once
	closed chan struct{}
}

func newPipeListener(c net.Conn) *pipeListener {
	l := &pipeListener{conns: make(chan net.Conn, 1), closed: make(chan struct{})}
	l.conns <- c
	return l
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 443} }

// selfSigned makes a certificate of riff.test, valid at the start of the
// clock of a bubble (2000-01-01).
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "riff.test"},
		DNSNames:              []string{"riff.test"},
		NotBefore:             time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:              time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}
