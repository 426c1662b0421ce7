package signin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/wire"
)

// DefaultLoginWait is the longest wait of a login for the person
// (docs/login.md, "riff login").
const DefaultLoginWait = 10 * time.Minute

// ErrNoSignIn is a login at a riff with no sign-in: it changes nothing
// (no folder, no key), and the riff works with no token.
var ErrNoSignIn = errors.New("this riff has no sign-in")

// ProviderError is a fault of the sign-in with the provider: its
// discovery, the browser or device flow, or the wait for the person. Its
// text is for a person.
type ProviderError struct{ Err error }

func (e *ProviderError) Error() string { return e.Err.Error() }
func (e *ProviderError) Unwrap() error { return e.Err }

// LoginOptions are what a login needs besides the Machine.
type LoginOptions struct {
	// Device signs in with a code on another device (RFC 8628); else the
	// browser flow with a loopback redirect.
	Device bool
	// Out gets the lines for the person: the URL to open, the code.
	Out io.Writer
	// Open opens a URL in a browser for the browser flow; nil opens
	// none (the URL is on Out).
	Open func(url string) error
	// HTTP sends the calls to the provider; nil is a client with a
	// timeout of 30 s.
	HTTP *http.Client
	// Wait is the longest wait for the person; 0 is DefaultLoginWait.
	Wait time.Duration
}

// Login is the sequence of riff login (docs/login.md): it asks the riff
// how to sign in (ErrNoSignIn when it has no sign-in), reads the
// discovery document of the issuer that the riff names, signs the
// person in with the browser or the device flow, and signs this machine
// in with the ID token (SignIn). It gives the stored sign-in.
//
// A fault of the provider or of the flow is a *ProviderError; a cancel
// of ctx during the flow is ctx's error; a refusal of the riff is the
// error of riffclient.
func (m *Machine) Login(ctx context.Context, o LoginOptions) (Stored, error) {
	provider, err := riffclient.SendProved(ctx, m.client, wire.SignInProvider{}, nil, "")
	if err != nil {
		return Stored{}, err
	}
	if !provider.SignIn {
		return Stored{}, ErrNoSignIn
	}
	if provider.Issuer == "" || provider.ClientID == "" {
		// A riff with --require-sign-in and no provider: nobody can sign
		// in, and the server says why.
		why := provider.Reason
		if why == "" {
			why = "it names no provider to sign in with (its riff-server has no --issuer and --client-id)"
		}
		return Stored{}, &ProviderError{Err: fmt.Errorf("riff cannot sign in to the riff at %s: %s", m.client.Server(), why)}
	}
	wait := o.Wait
	if wait <= 0 {
		wait = DefaultLoginWait
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	hc := o.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	ends, err := Discover(ctx, hc, provider.Issuer)
	if err != nil {
		return Stored{}, &ProviderError{Err: err}
	}
	out := o.Out
	if out == nil {
		out = io.Discard
	}
	flow := Flow{Provider: provider, Endpoints: ends, HTTP: hc, Out: out, Open: o.Open}
	var id string
	if o.Device {
		id, err = flow.Device(ctx)
	} else {
		id, err = flow.Browser(ctx)
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return Stored{}, &ProviderError{Err: fmt.Errorf("riff login waited %s for the sign-in. Run riff login again", wait)}
		}
		if errors.Is(err, context.Canceled) {
			return Stored{}, err
		}
		return Stored{}, &ProviderError{Err: err}
	}
	return m.SignIn(ctx, id)
}
