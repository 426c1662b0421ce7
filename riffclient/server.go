package riffclient

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/como-technologies/riff/riffcore/loopback"
)

// DefaultServer is the riff of this machine: the server that riff uses
// with no --server and no RIFF_SERVER.
const DefaultServer = "http://127.0.0.1:7878"

// DefaultPort is the port of a server value with no port.
const DefaultPort = "7878"

// ParseServer reads a value of --server or RIFF_SERVER: a URL, HOST or
// HOST:PORT. With no scheme it uses http://; an http URL with no port
// uses port 7878 (an https URL keeps the port of https). An IPv6 address
// takes brackets with a port: ::1, [::1] and [::1]:7878 are all
// http://[::1]:7878. The URL may have a path, under which the calls go;
// it has no query, fragment or user.
func ParseServer(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("parse server: it is empty; give a URL, HOST or HOST:PORT")
	}
	if !strings.Contains(s, "://") {
		host := s
		path := ""
		if i := strings.IndexByte(s, '/'); i >= 0 {
			host, path = s[:i], s[i:]
		}
		if strings.Count(host, ":") > 1 && !strings.HasPrefix(host, "[") {
			// A bare IPv6 address.
			host = "[" + host + "]"
		}
		s = "http://" + host + path
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("parse server %q: %w", s, err)
	}
	switch u.Scheme {
	case "http", "https":
	default:
		return nil, fmt.Errorf("parse server %q: the scheme is %q; riff talks http or https", s, u.Scheme)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return nil, fmt.Errorf("parse server %q: a server URL has no user, query or fragment", s)
	}
	host, port := u.Hostname(), u.Port()
	if host == "" {
		return nil, fmt.Errorf("parse server %q: it names no host", s)
	}
	if strings.HasSuffix(u.Host, ":") {
		return nil, fmt.Errorf("parse server %q: the port is empty", s)
	}
	if port == "" && u.Scheme == "http" {
		port = DefaultPort
	}
	if port != "" {
		u.Host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		u.Host = "[" + host + "]"
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// IsLocal says whether u is the riff of this machine: its host is
// localhost or a loopback address (riffcore/loopback). Two such URLs with
// the same scheme, port and path are one riff.
func IsLocal(u *url.URL) bool { return loopback.Is(u.Hostname()) }
