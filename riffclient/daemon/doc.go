// Package daemon is the riff daemon of a machine (docs/daemon.md): the
// process that runs each work item in a podman container of its own, as
// a worker session on riff-server that it registers with the person's
// sign-in, and the relay that runs claude inside that container.
//
// # Basics
//
// [Daemon.Run] is the daemon: its own session (the tag daemon, the status
// "daemon host: …"), the control socket that `riff run` and `riff daemon
// status` use ([Control]), and for each container session its socket
// (the riff tools, as that session), its keep-alive (container, each
// 10 s), its watch (each wake goes once into the input of the worker
// during its first turn; after it, the first later message of each
// sender gets the direct answer), and its end (the release, the end,
// and the container and the clone go, or the folder stays with one
// note). A new Run takes over the containers that still run.
//
// [Relay] is `riff relay -- claude` inside the container: it starts
// claude with stream-json input and output, gives it the riff tools
// through `riff relay mcp` over the session's socket, writes each wake
// into its input, and tells the daemon at the end of the first turn
// which wakes claude never saw.
//
// [Podman] builds each podman command from a list of options that a
// setting extends; [ReadSettings] reads riff.toml; [UnitText] is the
// text of the systemd user unit.
//
// # Caveats
//
// It decides no rule of the riff: riff-server does (riffstate). It never
// logs a token, a key or the body of a post. It needs git and podman on
// PATH (or the commands that [Config] names).
package daemon
