package main

import (
	"context"
	"flag"

	"github.com/como-technologies/riff/riffclient/daemon"
)

// riff relay -- claude ARGS is the entrypoint of a container of the riff
// daemon (docs/daemon.md, "Inside the container"): riffclient/daemon's
// Relay over the socket that RIFF_SOCKET names.

// relayContainer is the word -- of riff relay: the words after it are
// the command of claude. Its flags end at the first word, so the flags of
// claude pass as they are.
func relayContainer() command {
	return command{name: "--", usage: "-- CLAUDE [ARGS]", flags: relayContainerFlags}
}

// relayContainerFlags runs the relay of a container.
func relayContainerFlags(fs *flag.FlagSet) action {
	return func(c *cli, ctx context.Context, args []string) error {
		if len(args) == 0 {
			return usagef("riff relay -- needs the command of claude (in a container of the riff daemon)")
		}
		sock := c.env(daemon.EnvSocket)
		if sock == "" {
			return knownf("riff relay -- %s runs in a container of the riff daemon: %s names the socket of its session, and it is not set", args[0], daemon.EnvSocket)
		}
		code, err := daemon.Relay{Socket: sock, Claude: args, Output: c.stdout, Log: jsonLog(c.stderr)}.Run(ctx)
		if err != nil {
			return knownf("%s", err)
		}
		if code != 0 {
			return &exitCodeError{code: code}
		}
		return nil
	}
}

// exitCodeError ends riff with the exit code of the program that it ran.
type exitCodeError struct{ code int }

func (e *exitCodeError) Error() string { return "exit code" }
