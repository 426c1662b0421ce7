// Command riff is the command line of a person and of a session: it
// talks to riff-server with riffclient and shows the replies as the
// guide shows them.
//
// It holds flags and output only: the naming of the caller is
// riffclient/place, the sign-in of the machine riffclient/signin, the
// local folder riffclient/local. It decides no rule of the riff: the
// server does.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"os/user"
	"syscall"
	"time"

	"github.com/como-technologies/riff/riffcore/build"
	"golang.org/x/term"
)

// version is the version of this build; a release sets it with
// -ldflags "-X main.version=1.0.0". It is only read.
var version = ""

// defaultVersion is the version of a build with no -ldflags: the version
// of riff-server in the same tree.
const defaultVersion = "0.1.0"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs one riff command and gives its exit code.
func run(ctx context.Context, args []string, env func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	s := &system{
		env:      env,
		environ:  os.Environ,
		stdin:    stdin,
		stdout:   stdout,
		stderr:   stderr,
		getwd:    os.Getwd,
		hostname: os.Hostname,
		account:  accountName,
		build:    build.FromBuildInfo(versionOf()),
		loc:      time.Local,
		now:      time.Now,
		terminal: isTerminal,
	}
	testHooks(s)
	return s.run(ctx, args)
}

// isTerminal says whether w is a terminal, and its width.
func isTerminal(w io.Writer) (bool, int) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false, 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil || width <= 0 {
		width = 80
	}
	return true, width
}

// accountName gives the user name of the account of the process.
func accountName() (string, error) {
	u, err := user.Current()
	if err != nil {
		return "", err
	}
	return u.Username, nil
}

// versionOf gives the version that -ldflags set, or defaultVersion.
func versionOf() string {
	if version != "" {
		return version
	}
	return defaultVersion
}
