// Command signedin is a Go program that calls a riff with sign-in as the
// person of this machine, with the sign-in that riff login stored: it
// opens the stored sign-in (riffclient/signin), names itself as riff
// does (riffclient/place), asks whoami, posts a message in chat (signed
// with the device key of the machine) and reads it back verified.
//
//	riff login --server http://127.0.0.1:7878
//	RIFF_SERVER=http://127.0.0.1:7878 go run ./signedin "hello from Go"
//
// With no stored sign-in for the riff it says what to run, and calls
// nothing. It is the smallest wiring of a client with sign-in; riff adds
// the flags, the texts and the colors around the same calls.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"os/user"
	"runtime"
	"strings"
	"syscall"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/local"
	"github.com/como-technologies/riff/riffclient/place"
	"github.com/como-technologies/riff/riffclient/signin"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/wire"
)

// version is the version of this program: the one of the tree, so that
// it talks with the riff-server of the same tree.
const version = "0.1.0"

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "signedin:", err)
		os.Exit(1)
	}
}

// run posts the words of args in chat of the riff of RIFF_SERVER, as the
// person of the stored sign-in, and prints what the riff says.
func run(ctx context.Context, args []string, getenv func(string) string, out io.Writer) error {
	body := strings.Join(args, " ")
	if body == "" {
		return errors.New("give the words to post in chat")
	}
	server := getenv("RIFF_SERVER")
	if server == "" {
		server = riffclient.DefaultServer
	}
	u, err := riffclient.ParseServer(server)
	if err != nil {
		return err
	}
	b := build.FromBuildInfo(version)

	// The stored sign-in: in the local folder that outlives a logout,
	// with the device key in the OS keyring when it works.
	dir, err := local.StateDir(getenv)
	if err != nil {
		return err
	}
	m, err := signin.Open(signin.Options{
		Dir:     dir,
		Server:  u,
		Client:  riffclient.New(u, riffclient.Options{Build: b}),
		Keyring: signin.KeyringFor(getenv, runtime.GOOS),
	})
	if err != nil {
		return err
	}
	stored, ok, err := m.Stored()
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("this machine has no stored sign-in for the riff at %s. Run riff login", u)
	}
	if stored.Ended {
		return signin.ErrEnded
	}

	// Each call carries the token of the sign-in and a DPoP proof of the
	// device key; a refresh happens by itself.
	c := riffclient.New(u, riffclient.Options{Build: b, Auth: m})
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	me, err := place.Name(ctx, place.Options{
		Dir: wd, SignedIn: stored.User, Getenv: getenv, Hostname: os.Hostname, Account: account,
	})
	if err != nil {
		return err
	}
	who, err := riffclient.Send(ctx, c, wire.Whoami{Me: me})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "signed in as %s (%s)\n", who.URI, stored.Email)

	posted, err := riffclient.Post(ctx, c, wire.Post{Me: me, Thread: "chat", Body: body})
	if err != nil {
		return err
	}
	// All with After: the messages after the one before the post, own
	// ones too, so the post comes first however long the thread is.
	read, err := riffclient.Send(ctx, c, wire.Read{Me: me, Thread: posted.Thread, All: true, After: posted.Seq - 1})
	if err != nil {
		return err
	}
	for _, page := range append(read.ToYou, read.Threads...) {
		for _, msg := range page.Messages {
			if msg.Seq != posted.Seq {
				continue
			}
			msg = c.Check(msg)
			verdict := "not verified"
			if msg.Verified {
				verdict = "verified"
			}
			fmt.Fprintf(out, "#%d in %s from %s: %s (%s)\n", msg.Seq, page.Thread, msg.Sender.User, msg.Body, verdict)
			return nil
		}
	}
	return fmt.Errorf("the riff did not give back #%d of %s", posted.Seq, posted.Thread)
}

// account gives the user name of the account of the process.
func account() (string, error) {
	a, err := user.Current()
	if err != nil {
		return "", err
	}
	return a.Username, nil
}
