package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os/exec"
	"runtime"
	"strings"

	"github.com/como-technologies/riff/riffclient/local"
	"github.com/como-technologies/riff/riffclient/signin"
)

// loginCommand is riff login, under Get started.
func loginCommand() command {
	return command{
		name: "login", usage: "login [--device]", short: "sign this machine in to the riff",
		long: `Signs this machine in to the riff that riff uses, with the sign-in provider
of the riff (Google, say). riff prints a URL: open it in a browser and sign
in. riff opens a browser by itself when the machine has a display (or
BROWSER names one). On a machine with no browser, or with --device, riff
prints a URL and a code to enter on any other device.

Then riff sends the ID token of the provider and the public key of this
machine (its device key) to the riff, and keeps the tokens of the riff
beside the key. A riff with no sign-in needs no riff login: riff says so
and changes nothing. riff login works also when the versions of riff and
riff-server do not match.

  --device   sign in with a code on another device (the device flow)
`,
		flags: func(fs *flag.FlagSet) action {
			device := fs.Bool("device", false, "sign in with a code on another device")
			return func(c *cli, ctx context.Context, args []string) error { return c.login(ctx, args, *device) }
		},
		interspersed: true,
	}
}

func (c *cli) login(ctx context.Context, args []string, device bool) error {
	if err := noArgs(args, "login"); err != nil {
		return err
	}
	if c.signin == nil {
		_, err := local.StateDir(c.env)
		return knownf("riff cannot keep a sign-in on this machine: %s", err)
	}
	open, display := c.browser()
	k, err := c.signin.Login(ctx, signin.LoginOptions{Device: device || !display, Out: c.stdout, Open: open})
	var provider *signin.ProviderError
	switch {
	case errors.Is(err, signin.ErrNoSignIn):
		c.out.Textf("The riff at %s has no sign-in: riff works with it as it is.", c.serverURL())
		return nil
	case errors.As(err, &provider):
		return knownf("%s", provider.Err)
	case err != nil:
		return err
	}
	who := k.User
	if k.Email != "" {
		who = k.Email + " (" + k.User + ")"
	}
	c.out.Textf("Signed in to the riff at %s as %s.", c.serverURL(), who)
	return nil
}

// browser gives the opener of a URL in a browser, and whether the
// machine has one: BROWSER (a program, also a terminal browser), else
// open on macOS, the handler of URLs on Windows, xdg-open with a display
// on Linux and BSD. With none, riff login uses the device flow.
func (c *cli) browser() (func(string) error, bool) {
	var prog []string
	if b := c.env("BROWSER"); b != "" {
		// BROWSER may list programs with ':'; riff takes the first.
		first, _, _ := strings.Cut(b, ":")
		prog = strings.Fields(first)
	} else {
		switch runtime.GOOS {
		case "darwin":
			prog = []string{"open"}
		case "windows":
			prog = []string{"rundll32", "url.dll,FileProtocolHandler"}
		default:
			if c.env("DISPLAY") == "" && c.env("WAYLAND_DISPLAY") == "" {
				return nil, false
			}
			prog = []string{"xdg-open"}
		}
	}
	if len(prog) == 0 {
		return nil, false
	}
	return func(url string) error {
		// It runs to its end: a terminal browser holds the terminal while
		// the person signs in; xdg-open and open return at once.
		cmd := exec.Command(prog[0], append(prog[1:], url)...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = c.stdin, io.Discard, io.Discard
		if tty, _ := c.terminal(c.stdout); tty {
			cmd.Stdout, cmd.Stderr = c.stdout, c.stderr
		}
		return cmd.Run()
	}, true
}
