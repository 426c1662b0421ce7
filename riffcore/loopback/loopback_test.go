package loopback_test

import (
	"testing"

	"github.com/como-technologies/riff/riffcore/loopback"
)

// TestGivenAHostWhenAskedWhetherItIsThisMachineThenOnlyLocalhostAndLoopbackAddressesAre:
// the one rule of "this address is this machine".
func TestGivenAHostWhenAskedWhetherItIsThisMachineThenOnlyLocalhostAndLoopbackAddressesAre(t *testing.T) {
	for _, tc := range []struct {
		host string
		want bool
	}{
		{host: "localhost", want: true},
		{host: "LocalHost", want: true},
		{host: "127.0.0.1", want: true},
		{host: "127.0.0.2", want: true},
		{host: "127.255.255.254", want: true},
		{host: "::1", want: true},
		{host: "0:0:0:0:0:0:0:1", want: true},
		{host: "::ffff:127.0.0.1", want: true},
		{host: "", want: false},
		{host: "[::1]", want: false},
		{host: "127.0.0.1:7878", want: false},
		{host: "0.0.0.0", want: false},
		{host: "::", want: false},
		{host: "10.0.0.1", want: false},
		{host: "128.0.0.1", want: false},
		{host: "::2", want: false},
		{host: "localhost.example.com", want: false},
		{host: "mylocalhost", want: false},
		{host: "riff.example.com", want: false},
		{host: "127.0.0.1.nip.io", want: false},
	} {
		if got := loopback.Is(tc.host); got != tc.want {
			t.Errorf("Is(%q) = %v; want %v", tc.host, got, tc.want)
		}
	}
}
