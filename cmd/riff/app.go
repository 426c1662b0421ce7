package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"runtime"
	"strings"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/commands"
	"github.com/como-technologies/riff/riffclient/daemon"
	"github.com/como-technologies/riff/riffclient/local"
	"github.com/como-technologies/riff/riffclient/place"
	"github.com/como-technologies/riff/riffclient/render"
	"github.com/como-technologies/riff/riffclient/signin"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/quote"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The exit codes of riff.
const (
	exitOK = 0
	// exitFail is a refusal (a held claim too) or a failure.
	exitFail = 1
	// exitUsage is a bad command line.
	exitUsage = 2
)

// system is what a run of riff gets from its process: the env, the
// streams, the clock, the directory and the build. Tests give their own.
type system struct {
	env func(string) string
	// environ gives each env var as NAME=VALUE (os.Environ); nil is none.
	environ  func() []string
	stdin    io.Reader
	stdout   io.Writer
	stderr   io.Writer
	getwd    func() (string, error)
	hostname func() (string, error)
	// account gives the user name of the account of the process
	// (os/user); nil is no account.
	account  func() (string, error)
	build    build.Build
	loc      *time.Location
	now      func() time.Time
	terminal func(io.Writer) (bool, int)
	// client sets the options of the client; tests shorten the budget.
	client func(*riffclient.Options)
	// localRiff is the URL of the riff of this machine in riff server;
	// "" is riffclient.DefaultServer. The tests set it, so that a
	// riff-server of the machine does not change their output.
	localRiff string
	// topEvery is the time between two looks of riff top; 0 is
	// top.Every. Only the test build sets it, so that a test sees that a
	// resize or a message draws the table, not the next tick.
	topEvery time.Duration
}

// environOf gives the env vars of the process, or none.
func (s *system) environOf() []string {
	if s.environ == nil {
		return nil
	}
	return s.environ()
}

// usageError is a bad command line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{msg: fmt.Sprintf(format, args...)} }

// cli is one run of riff: the system, the flags, and what it made from
// them.
type cli struct {
	*system
	g   globals
	out *render.Printer
	// errColor says that stderr takes color.
	errColor bool
	client   *riffclient.Client
	// clientOpts are the options of client: riff chat makes a client of
	// its own whose notes show above its prompt.
	clientOpts riffclient.Options
	// signin is the sign-in of this machine for the server: the Auth of
	// client. Nil when riff has no local folder for it.
	signin *signin.Machine
	// serverFrom says where the server choice comes from.
	serverFrom string
	// paint is the look of the styles of stdout; nil when it takes no
	// color. riff top and riff chat paint their own lines with it.
	paint render.Paint
	// quietNotes drops the lines of the client on stderr (the wait line,
	// the note of builds) while riff top draws a live table.
	quietNotes bool
}

func (s *system) run(ctx context.Context, args []string) int {
	c := &cli{system: s}
	err := c.dispatch(ctx, args)
	return c.finish(err)
}

// finish prints an error in the words of docs/cli.md, in red when stderr
// takes color, and gives the exit code. No Go error text reaches the
// person.
func (c *cli) finish(err error) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if errors.Is(err, errSilent) {
		return exitFail
	}
	var code *exitCodeError
	if errors.As(err, &code) {
		return code.code
	}
	errw := c.stderr
	// A bad input that commands finds is a bad command line too.
	var input *commands.InputError
	if errors.As(err, &input) {
		err = &usageError{msg: input.Msg}
	}
	var usage *usageError
	var refused *wire.Refused
	var mismatch *riffclient.MismatchError
	switch {
	case errors.As(err, &usage):
		fmt.Fprintln(errw, c.paintErr(red, "Error: "+clean(usage.msg)))
		fmt.Fprintln(errw, "Run riff --help for the commands, or riff help COMMAND.")
		return exitUsage
	case errors.As(err, &refused) && c.signInRefusal(refused) != "":
		fmt.Fprintln(errw, c.paintErr(red, "Error: "+c.signInRefusal(refused)))
		return exitFail
	case errors.As(err, &refused):
		fmt.Fprintln(errw, c.paintErr(red, "Error: "+clean(refused.Reason)))
		return exitFail
	case errors.As(err, &mismatch):
		fmt.Fprintln(errw, c.paintErr(red, clean(mismatch.Text)))
		return exitFail
	case errors.Is(err, context.Canceled):
		return 130
	}
	fmt.Fprintln(errw, c.paintErr(red, "Error: "+c.words(err)))
	return exitFail
}

// words gives the text of an error for a person: the words of
// riffclient/render for the errors of a call, else of riff's own.
func (c *cli) words(err error) string {
	var where *place.WhereError
	var gitErr *place.GitError
	var known *knownError
	switch {
	case errors.As(err, &where):
		return where.Error()
	case errors.As(err, &gitErr):
		return clean(gitErr.Error())
	}
	if text, ok := render.ErrorWords(err); ok {
		return text
	}
	if errors.As(err, &known) {
		return clean(known.Error())
	}
	server := riffclient.DefaultServer
	if c.client != nil {
		server = c.client.Server().String()
	}
	return render.UnusableReply(server)
}

// knownError is an error whose text is for a person.
type knownError struct{ msg string }

func (e *knownError) Error() string { return e.msg }

func knownf(format string, args ...any) error { return &knownError{msg: fmt.Sprintf(format, args...)} }

// paintErr colors a line of stderr.
func (c *cli) paintErr(code, s string) string {
	if !c.errColor {
		return s
	}
	return paint(code, s)
}

// setup builds what the commands use from the global flags, once they
// are parsed: the output and the client.
func (c *cli) setup() error {
	color := c.g.color
	if color == "" {
		color = "auto"
	}
	// Through a pipe the width is 0: each line comes whole.
	tty, width := c.terminal(c.stdout)
	errTTY, _ := c.terminal(c.stderr)
	if !tty {
		width = 0
	}
	var on, errOn bool
	switch color {
	case "always":
		on, errOn = true, true
	case "never":
	case "auto":
		noColor := c.env("NO_COLOR") != ""
		on, errOn = tty && !noColor, errTTY && !noColor
	default:
		return usagef("--color is auto, always or never, not %s", quote.Input(color))
	}
	opts := render.Options{Width: width, Zone: c.loc}
	if on {
		opts.Paint = paintPart
	}
	c.out, c.errColor, c.paint = render.NewPrinter(c.stdout, opts), errOn, opts.Paint

	server, from := c.g.server, "from --server"
	if env, ok := c.g.envGave["server"]; ok {
		from = "from " + env
	}
	if server == "" {
		server, from = riffclient.DefaultServer, "the riff of this machine"
	}
	u, err := riffclient.ParseServer(server)
	if err != nil {
		msg := err.Error()
		if _, rest, ok := strings.Cut(msg, ": "); ok {
			msg = rest
		}
		return knownf("riff cannot use the server %s: %s. See riff help server", quote.Input(server), msg)
	}
	c.serverFrom = from
	copts := riffclient.Options{Build: c.build, Out: &noteWriter{c: c}}
	if c.system.client != nil {
		c.system.client(&copts)
	}
	if sock := c.env(daemon.EnvSocket); sock != "" {
		// In a container of the riff daemon: each call goes through the
		// socket of the session, and the daemon sends it as the session
		// (docs/daemon.md). The container holds no sign-in.
		copts.HTTP = daemon.SocketHTTP(sock)
		c.client = riffclient.New(daemon.SocketURL, copts)
		return nil
	}
	c.signin = c.openSignIn(u, copts)
	copts.Auth = c.auth()
	c.client = riffclient.New(u, copts)
	c.clientOpts = copts
	return nil
}

// auth gives the Auth of the client: the sign-in of this machine when it
// stores one for the server (also one that ended, so that each command
// says so), else none: a client with no Auth sends no token and checks
// no signature, as a riff with no sign-in wants.
func (c *cli) auth() riffclient.Auth {
	if c.signin == nil || !c.signin.HasSignIn() {
		return nil
	}
	return c.signin
}

// openSignIn gives the sign-in of this machine for the server at u, with
// a client of the token path made from opts. With no local folder riff
// has no sign-in, and the command goes on with no token.
func (c *cli) openSignIn(u *url.URL, opts riffclient.Options) *signin.Machine {
	dir, err := local.StateDir(c.env)
	if err != nil {
		return nil
	}
	opts.Out = nil
	m, err := signin.Open(signin.Options{
		Dir:     dir,
		Server:  u,
		Client:  riffclient.New(u, opts),
		Keyring: signin.KeyringFor(c.env, runtime.GOOS),
		Now:     c.now,
	})
	if err != nil {
		return nil
	}
	return m
}

// signInRefusal gives the text of a refusal of the token layer, for a
// person: the fault of the sign-in of this machine, or what to run; ""
// when the reason of the server says it.
func (c *cli) signInRefusal(r *wire.Refused) string {
	text, _ := render.SignInRefusal(r, c.signInFault())
	return text
}

// signInFault gives the fault of the sign-in of this machine, for the
// texts of render; nil with no sign-in.
func (c *cli) signInFault() func() error {
	if c.signin == nil {
		return nil
	}
	return c.signin.Fault
}

// noteWriter writes the lines of the client to stderr: the wait line, and
// the note of different builds in yellow.
type noteWriter struct{ c *cli }

func (n *noteWriter) Write(p []byte) (int, error) {
	if n.c.quietNotes {
		return len(p), nil
	}
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if strings.HasPrefix(line, "riff:") {
			line = n.c.paintErr(yellow, line)
		}
		fmt.Fprintln(n.c.stderr, line)
	}
	return len(p), nil
}

// me gives the URI of the caller: the session of --session or
// RIFF_SESSION, else the person, at the place of the working directory.
func (c *cli) me(ctx context.Context) (name.SessionURI, error) {
	dir, err := c.workDir()
	if err != nil {
		return name.SessionURI{}, err
	}
	return c.meAt(ctx, dir, c.g.session)
}

// meAt gives the URI of the caller at the place of dir: the session of
// session, else the person (place.Name). A hook of an agent tool names
// both in its input.
func (c *cli) meAt(ctx context.Context, dir, session string) (name.SessionURI, error) {
	u, err := place.Name(ctx, c.placeOptions(dir, session))
	var pe *place.Error
	if errors.As(err, &pe) {
		return name.SessionURI{}, knownf("%s", pe.Msg)
	}
	return u, err
}

// placeOptions gives what names the caller at dir: the process, and the
// USER of the stored sign-in of this machine for the riff.
func (c *cli) placeOptions(dir, session string) place.Options {
	o := place.Options{Dir: dir, Session: session, Getenv: c.env, Hostname: c.hostname, Account: c.account}
	if c.signin != nil {
		if k, ok, err := c.signin.Stored(); err == nil && ok && !k.Ended {
			o.SignedIn = k.User
		}
	}
	return o
}

// workDir gives the working directory, or the error that it was removed.
func (s *system) workDir() (string, error) { return place.WorkDir(s.getwd, s.env) }

// serverURL gives the URL of the server as the person named it.
func (c *cli) serverURL() *url.URL { return c.client.Server() }

// lostSignIn gives the text of a fault of the sign-in of this machine
// for a person or a session (docs/login.md, "A lost sign-in"), and
// whether err is one: the Auth gave no token, or the riff refused the
// token or its lack.
func (c *cli) lostSignIn(err error) (string, bool) {
	return render.LostSignIn(err, c.signInFault())
}
