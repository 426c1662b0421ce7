package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/como-technologies/riff/riffclient/daemon"
	"github.com/como-technologies/riff/riffclient/local"
	"github.com/como-technologies/riff/riffclient/place"
	"github.com/como-technologies/riff/riffcore/name"
)

// The commands of the riff daemon (docs/daemon.md): riff daemon
// install|status|run, and riff run ITEM. Each only wires its flags and
// env vars to riffclient/daemon.

// The env vars of the daemon: the unit keeps each one that is set at
// riff daemon install.
const (
	envPodman        = "RIFF_PODMAN"
	envPodmanOptions = "RIFF_PODMAN_OPTIONS"
	envPodmanRun     = "RIFF_PODMAN_RUN_OPTIONS"
	envDaemonRiff    = "RIFF_DAEMON_RIFF"
	envMemory        = "RIFF_SESSION_MEMORY"
	envCPUs          = "RIFF_SESSION_CPUS"
	envClaudeArgs    = "RIFF_CLAUDE_ARGS"
	// envNewRiffEvery is the time between two looks of the daemon for a
	// new riff on disk (a Go duration; a minute by default). The tests
	// shorten it.
	envNewRiffEvery = "RIFF_DAEMON_NEW_RIFF_EVERY"
)

// unitVars are the env vars that riff daemon install writes into the
// unit when they are set: the riff, the settings of the daemon, and the
// sign-ins and settings of claude that each container gets.
var unitVars = []string{"RIFF_SERVER", "RIFF_HOME", "RIFF_HOST", envPodman, envPodmanOptions, envPodmanRun,
	envDaemonRiff, envMemory, envCPUs, envClaudeArgs}

// passVars are the env vars of the daemon that each container gets as
// they are: the sign-in and the settings of claude, and of gh.
var passVars = []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "CLAUDE_CODE_OAUTH_TOKEN",
	"GH_TOKEN", "GITHUB_TOKEN", "DISABLE_TELEMETRY", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
	"DISABLE_AUTOUPDATER", "DISABLE_ERROR_REPORTING"}

// Default caps of a container session.
const (
	defaultMemory = "4g"
	defaultCPUs   = "2"
)

// daemonCommand is riff daemon, under Get started in riff --help: the
// guide's riff init installs the unit of the daemon.
func daemonCommand() command {
	return command{
		name: "daemon", usage: "daemon install | daemon status | daemon run", short: "the riff daemon: it runs items in containers",
		long: `The riff daemon of this machine runs each work item in a podman container
of its own (see docs/daemon.md).

riff daemon install   writes the systemd user unit riff.service and starts it again
riff daemon status    says whether the daemon answers, and lists its sessions
riff daemon run       runs the daemon in the foreground (the ExecStart of the unit)

Env: RIFF_PODMAN (the podman program), RIFF_PODMAN_OPTIONS (global options
of podman), RIFF_PODMAN_RUN_OPTIONS (options of each podman run),
RIFF_SESSION_MEMORY and RIFF_SESSION_CPUS (the caps, 4g and 2 by default).
`,
		subcommands: []command{
			{name: "install", usage: "install", flags: noFlags((*cli).daemonInstall)},
			{name: "status", usage: "status", flags: noFlags((*cli).daemonStatus)},
			{name: "run", usage: "run", flags: noFlags((*cli).daemonRun)},
		},
	}
}

// runCommand is riff run, under Work in the riff in riff --help.
func runCommand() command {
	return command{
		name: "run", usage: "run ITEM [--prompt TEXT]", short: "run a work item in a container of the riff daemon",
		long: `riff run ITEM, in a clone of the repository: the riff daemon of this
machine registers a worker session with your sign-in, claims ITEM for it,
makes a clone with --reference to this clone, and starts claude in a
podman container of the session image that riff.toml pins on the default
branch of origin. The session ends at the end of its first turn.

  --prompt TEXT   the first prompt of the worker (a default names the item)
`,
		flags: func(fs *flag.FlagSet) action {
			prompt := fs.String("prompt", "", "the first prompt of the worker")
			return func(c *cli, ctx context.Context, args []string) error { return c.runItem(ctx, args, *prompt) }
		},
		interspersed: true,
	}
}

// controlSocket is the control socket of the daemon, in the local folder.
func (c *cli) controlSocket() (string, error) {
	dir, err := local.Dir(c.env)
	if err != nil {
		return "", knownf("%s", err)
	}
	return filepath.Join(dir, "daemon.sock"), nil
}

// configHome is $XDG_CONFIG_HOME, else ~/.config.
func (c *cli) configHome() (string, error) {
	if d := c.env("XDG_CONFIG_HOME"); d != "" {
		return d, nil
	}
	if h := c.env("HOME"); h != "" {
		return filepath.Join(h, ".config"), nil
	}
	return "", knownf("riff cannot find the config folder of your user: set HOME or XDG_CONFIG_HOME")
}

func (c *cli) daemonInstall(ctx context.Context, args []string) error {
	if err := noArgs(args, "daemon install"); err != nil {
		return err
	}
	cfg, err := c.configHome()
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return knownf("riff cannot find its own file: %v", err)
	}
	path := daemon.UnitPath(cfg)
	var old []string
	if b, err := os.ReadFile(path); err == nil {
		old = daemon.UnitEnv(string(b))
	}
	var add []string
	for _, v := range unitVars {
		if val := c.env(v); val != "" {
			add = append(add, v+"="+val)
		}
	}
	text := daemon.UnitText(exe, daemon.MergeEnv(old, add))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return knownf("riff cannot make the folder of the unit %s: %v", filepath.Dir(path), err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return knownf("riff cannot write the unit %s: %v", path, err)
	}
	fmt.Fprintf(c.stdout, "riff wrote the unit %s: it runs %s daemon run.\n", path, exe)
	for _, step := range [][]string{{"daemon-reload"}, {"enable", daemon.UnitName}, {"restart", daemon.UnitName}} {
		full := append([]string{"--user"}, step...)
		out, err := exec.CommandContext(ctx, "systemctl", full...).CombinedOutput()
		if err != nil {
			return knownf("riff cannot start the daemon: systemctl %s failed: %s. Run it in the foreground with riff daemon run",
				strings.Join(full, " "), strings.TrimSpace(firstLine(string(out), err)))
		}
	}
	fmt.Fprintln(c.stdout, "riff started the daemon again: systemctl --user restart riff.service. Its sessions go on.")
	fmt.Fprintln(c.stdout, "See it with riff daemon status; its log: journalctl --user -u riff.service")
	return nil
}

func firstLine(out string, err error) string {
	if strings.TrimSpace(out) == "" {
		return err.Error()
	}
	line, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	return line
}

func (c *cli) daemonStatus(ctx context.Context, args []string) error {
	if err := noArgs(args, "daemon status"); err != nil {
		return err
	}
	sock, err := c.controlSocket()
	if err != nil {
		return err
	}
	st, err := daemon.Control{Socket: sock}.Status(ctx)
	if err != nil {
		return knownf("%s. Start it with riff daemon install, or in the foreground with riff daemon run", err)
	}
	fmt.Fprintf(c.stdout, "riff daemon  answers  pid %d, build %s, session %s\n", st.Pid, st.Build, st.Session.Who().Short())
	fmt.Fprintf(c.stdout, "sessions     %d\n", len(st.Sessions))
	for _, s := range st.Sessions {
		fmt.Fprintf(c.stdout, "  %s  %s  %s  %s\n", s.Container, s.Item, s.URI.Repo, s.Phase)
	}
	return nil
}

// riffChanged says whether the file of this riff changed since the
// start: a new riff is on disk.
func riffChanged() func() bool {
	exe, err := os.Executable()
	if err != nil {
		return func() bool { return false }
	}
	first, err := os.Stat(exe)
	if err != nil {
		return func() bool { return false }
	}
	return func() bool {
		now, err := os.Stat(exe)
		if err != nil {
			return errors.Is(err, os.ErrNotExist)
		}
		return !os.SameFile(first, now) || !now.ModTime().Equal(first.ModTime()) || now.Size() != first.Size()
	}
}

func (c *cli) daemonRun(ctx context.Context, args []string) error {
	if err := noArgs(args, "daemon run"); err != nil {
		return err
	}
	o := c.placeOptions(".", "")
	user, err := place.User(o)
	if err != nil {
		return knownf("%s", err)
	}
	host, err := place.Host(o)
	if err != nil {
		return knownf("%s", err)
	}
	state, err := local.StateDir(c.env)
	if err != nil {
		return knownf("%s", err)
	}
	sock, err := c.controlSocket()
	if err != nil {
		return err
	}
	runtime, err := local.Dir(c.env)
	if err != nil {
		return knownf("%s", err)
	}
	podman := daemon.Podman{Command: c.env(envPodman)}
	if podman.Global, err = daemon.ParseOptions(envPodmanOptions, c.env(envPodmanOptions)); err != nil {
		return knownf("%s", err)
	}
	if podman.Run, err = daemon.ParseOptions(envPodmanRun, c.env(envPodmanRun)); err != nil {
		return knownf("%s", err)
	}
	claudeArgs, err := daemon.ParseOptions(envClaudeArgs, c.env(envClaudeArgs))
	if err != nil {
		return knownf("%s", err)
	}
	riff := c.env(envDaemonRiff)
	if riff == "" {
		if riff, err = os.Executable(); err != nil {
			return knownf("riff cannot find its own file: %v", err)
		}
	}
	var pass []string
	for _, v := range passVars {
		if val := c.env(v); val != "" {
			pass = append(pass, v+"="+val)
		}
	}
	var look time.Duration
	if v := c.env(envNewRiffEvery); v != "" {
		if look, err = time.ParseDuration(v); err != nil || look <= 0 {
			return knownf("%s is a time such as 10s or 1m, not %q", envNewRiffEvery, v)
		}
	}
	memory, cpus := orDefault(c.env(envMemory), defaultMemory), orDefault(c.env(envCPUs), defaultCPUs)
	d := daemon.New(daemon.Config{
		Client: c.client, User: user, Host: host, Folder: filepath.Join(state, "daemon"), Control: sock,
		Sockets: filepath.Join(runtime, "s"),
		Riff:    riff, Podman: podman, Home: c.env("HOME"), Env: pass, Memory: memory, CPUs: cpus,
		ClaudeArgs: claudeArgs, Pid: os.Getpid(), Replaced: riffChanged(), Log: jsonLog(c.stderr), NewRiffEvery: look,
	})
	err = d.Run(ctx)
	if errors.Is(err, daemon.ErrNewRiff) {
		return nil
	}
	if err != nil {
		return knownf("%s", err)
	}
	return nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func (c *cli) runItem(ctx context.Context, args []string, prompt string) error {
	if len(args) != 1 {
		return usagef("riff run needs one work item, such as issue-12")
	}
	item, err := name.ParseItem(args[0])
	if err != nil {
		return usagef("riff run: %v", err)
	}
	dir, err := c.workDir()
	if err != nil {
		return err
	}
	main, err := mainClone(ctx, dir)
	if err != nil {
		return err
	}
	sock, err := c.controlSocket()
	if err != nil {
		return err
	}
	reply, err := daemon.Control{Socket: sock}.Run(ctx, daemon.RunRequest{Main: main, Item: item, Prompt: prompt})
	var na *daemon.NoAnswerError
	if errors.As(err, &na) {
		return knownf("%s. Start it with riff daemon install, or in the foreground with riff daemon run", err)
	}
	if err != nil {
		return knownf("%s", err)
	}
	short := reply.URI.Who().Short()
	fmt.Fprintf(c.stdout, "riff run: the session %s works on %s in the container %s.\n", reply.URI.Named(), item, reply.Container)
	fmt.Fprintf(c.stdout, "  image  %s\n  clone  %s\n", reply.Image, reply.Clone)
	fmt.Fprintf(c.stdout, "See it with riff who; tell it with riff tell %s \"…\" during its first turn.\n", short)
	return nil
}

// mainClone gives the main clone of the repository of dir: the top of
// its main work tree, also from a linked worktree.
func mainClone(ctx context.Context, dir string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "--path-format=absolute", "--git-common-dir").Output()
	if err != nil {
		return "", knownf("riff run needs a clone of the repository: %s is in none", dir)
	}
	common := strings.TrimSpace(string(out))
	if filepath.Base(common) != ".git" {
		return "", knownf("riff run needs a clone with a work tree: %s is in a bare repository", dir)
	}
	return filepath.Dir(common), nil
}
