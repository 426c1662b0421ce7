// Package loopback holds the one rule of riff for "this address is this
// machine": a riff-server with no sign-in listens only there, `riff`
// takes the riff there as the riff of this machine, and a browser
// sign-in redirects only there. See docs/decisions.md, "This machine".
//
// It reads only the text of a host: it never resolves a name or opens a
// socket.
package loopback

import (
	"net/netip"
	"strings"
)

// Is says whether host names this machine: the name localhost (in any
// case), or an IP address of the loopback range (127.0.0.0/8, ::1, and
// an IPv4 address of that range mapped into IPv6). host is a host
// without a port, as url.URL.Hostname and net.SplitHostPort give it
// ("::1", not "[::1]"). Another name is not this machine even when it
// resolves there: a name can resolve elsewhere tomorrow.
func Is(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
