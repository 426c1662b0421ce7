// Command oidcprovider is a test OpenID Connect provider that a person
// runs to try sign-in on one machine (docs/signin.md, "Try sign-in on
// this machine"): riff-server checks its ID tokens, and riff login signs
// in with it, in the browser flow or the device flow, as the one email
// that it is given.
//
//	go run ./examples/oidcprovider --email ada@example.com
//	riff-server --issuer http://127.0.0.1:7879 --client-id riff --owner ada@example.com
//	riff login
//
// It approves each sign-in at once, with no password: a browser that
// opens the URL of riff login comes back signed in, and the device flow
// is approved when its URL (/activate?user_code=CODE) is opened, in a
// browser or with curl. It is the provider of the tests
// (tools/oidcfake) behind a main.
//
// # Caveats
//
// Never give it to a riff that other people use: whoever reaches its
// port signs in as the email. Its key lives in memory, so the ID tokens
// of a run do not check after a restart of it; riff-server reads the
// keys again by itself.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/mail"
	"os"
	"os/signal"
	"syscall"

	"github.com/como-technologies/riff/riffcore/loopback"
	"github.com/como-technologies/riff/tools/oidcfake"
)

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "oidcprovider:", err)
		os.Exit(2)
	}
}

// run serves the provider until ctx ends.
func run(ctx context.Context, args []string, out, errOut io.Writer) error {
	fs := flag.NewFlagSet("oidcprovider", flag.ContinueOnError)
	fs.SetOutput(errOut)
	listen := fs.String("listen", "127.0.0.1:7879", "the loopback address to serve on")
	clientID := fs.String("client-id", "riff", "the OAuth client of riff login (riff-server --client-id)")
	email := fs.String("email", "", "the email of each sign-in (needed)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("it takes no argument, only flags: %q", fs.Arg(0))
	}
	if *email == "" {
		return errors.New("--email is needed: the email of each sign-in, for example --email ada@example.com")
	}
	if a, err := mail.ParseAddress(*email); err != nil || a.Address != *email {
		return fmt.Errorf("--email %q is no email", *email)
	}
	if err := onLoopback(*listen); err != nil {
		return err
	}
	p, err := oidcfake.New(oidcfake.Options{ClientID: *clientID, Addr: *listen, Activate: true})
	if err != nil {
		return err
	}
	defer p.Close()
	p.SetNext(oidcfake.Identity{Email: *email})
	fmt.Fprintf(out, "oidcprovider serves %s (client ID %s): each sign-in is %s, at once.\n", p.Issuer(), p.ClientID(), *email)
	fmt.Fprintf(out, "Start riff-server with: riff-server --issuer %s --client-id %s --owner %s\n", p.Issuer(), p.ClientID(), *email)
	<-ctx.Done()
	return nil
}

// onLoopback refuses an address that other machines reach: whoever
// reaches the provider signs in as the email.
func onLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: %w", addr, err)
	}
	if !loopback.Is(host) {
		return fmt.Errorf("--listen %s is not a loopback address: whoever reaches the provider signs in as its email, so it serves this machine only", addr)
	}
	return nil
}
