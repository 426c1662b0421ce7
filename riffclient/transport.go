package riffclient

import (
	"net/http"
	"time"
)

// The health check of an HTTP/2 connection (the guide, "When a
// connection dies with no sign"): a laptop that sleeps, or an address
// that changes, leaves a connection that gives no byte and no error.
const (
	// PingEvery is the time with no frame from the server after which
	// riff sends an HTTP/2 ping on the connection.
	PingEvery = 10 * time.Second
	// PingTimeout is the longest wait for the answer to that ping: then
	// riff drops the connection, and each call and stream on it fails
	// and tries again on a new one.
	PingTimeout = 5 * time.Second
)

// NewTransport gives the transport of a [Client] with no [Options.HTTP]:
// the one of net/http (HTTP/2 where the server offers it over TLS, as
// Cloud Run does, and HTTP/1.1 else, as riff-server on loopback) with the
// health check of HTTP/2: a ping after [PingEvery] with no frame, and the
// connection dropped when no answer comes in [PingTimeout]. A connection
// of HTTP/1.1 has no ping; there the stall limit of a stream (45 s) and
// the budget of a call end a dead one.
//
// It is the HTTP/2 of the standard library (http.HTTP2Config), so a
// program that imports riffclient needs no golang.org/x/net for it.
func NewTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.HTTP2 = &http.HTTP2Config{SendPingTimeout: PingEvery, PingTimeout: PingTimeout}
	return t
}
