package main

// relayCommand is the group riff relay: the door of an agent session,
// one subcommand from each file relay_*.go. It is hidden from riff
// --help, which lists the commands that people use; riff help relay
// shows it.
//
// This branch holds only its own entry (relayDenied); the other
// subcommands (mcp, watch, hook, prompt) come with their branches.
func relayCommand() command {
	return command{
		name: "relay", usage: "relay denied", short: "the door of an agent session (hooks of the agent tool)",
		long: `The commands that an agent tool runs for its session, each with its own
help:

  riff relay denied   the PermissionDenied hook: posts a refusal of auto mode
                      to the thread denials, and never waits for riff-server
`,
		subcommands: []command{relayDenied()},
		hidden:      true,
	}
}
