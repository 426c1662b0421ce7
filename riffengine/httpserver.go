package riffengine

import (
	"log/slog"
	"net/http"
	"time"
)

// The times of the HTTP server: a slow or endless client cannot hold it.
// Streams set their own write deadlines and send a keep-alive line.
const (
	ReadHeaderTimeout = 5 * time.Second
	ReadTimeout       = 30 * time.Second
	IdleTimeout       = 120 * time.Second
	MaxHeaderBytes    = 16 << 10
	// KeepAlive is the time between two keep-alive lines of a stream.
	KeepAlive = 15 * time.Second
)

// HTTPServer gives an http.Server for the handler with the time limits
// of riff-server.
func HTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}
