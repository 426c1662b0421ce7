package riffclient

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/wire"
)

// refusingDialer refuses the first refuse dials as a port with no
// listener does (ECONNREFUSED), then dials for real; it counts each dial.
type refusingDialer struct {
	mu     sync.Mutex
	refuse int
	dials  int
}

func (d *refusingDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.dials++
	n := d.dials
	d.mu.Unlock()
	if n <= d.refuse {
		return nil, &net.OpError{Op: "dial", Net: network, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, addr)
}

func (d *refusingDialer) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.dials
}

// TestGivenAFirstConnectThatFailsWhenATailStartsThenItTriesOnceMoreAtOnce:
// "When the first connect fails, it tries once more at once" (riff chat,
// and riff tail in the same way). One refused connect: the tail opens
// with no wait. Two: it ends with the error of the reach, after two
// dials and no wait.
func TestGivenAFirstConnectThatFailsWhenATailStartsThenItTriesOnceMoreAtOnce(t *testing.T) {
	for _, tt := range []struct {
		name    string
		refuse  int
		opens   bool
		dials   int
		wantErr bool
	}{
		{name: "one refused connect: the second opens", refuse: 1, opens: true},
		{name: "two refused connects: the error, no third try", refuse: 2, dials: 2, wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeThread{t: t, reads: make(chan struct{}, 1)}
			srv := newServer(t, f.ServeHTTP)
			u, _ := url.Parse(srv.URL)
			d := &refusingDialer{refuse: tt.refuse}
			clock := newFakeClock()
			// A refused dial leaves no connection to keep: the next call dials.
			c := New(u, Options{Build: mustBuild(t, buildA), Clock: clock,
				HTTP: &http.Client{Transport: &http.Transport{DialContext: d.dial}}})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			opened := false
			err := c.Tail(ctx, wire.Tail{Thread: "acme/app"}, func(e Event) error {
				if e.Type == EventOpen {
					opened = true
					cancel()
				}
				return nil
			})
			if ctx.Err() == context.DeadlineExceeded {
				t.Fatal("the tail did not end")
			}
			var reach *ReachError
			if tt.wantErr != errors.As(err, &reach) {
				t.Fatalf("Tail = %v; want a ReachError: %v", err, tt.wantErr)
			}
			if opened != tt.opens {
				t.Errorf("the tail opened: %v; want %v", opened, tt.opens)
			}
			if tt.dials > 0 && d.count() != tt.dials {
				t.Errorf("the tail dialed %d times; want %d", d.count(), tt.dials)
			}
			if w := clock.Waits(); len(w) > 0 {
				t.Errorf("the tail waited %v before its second try; want it at once", w)
			}
		})
	}
}
