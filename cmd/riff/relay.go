package main

// The commands that an agent tool runs, not a person: riff relay and its
// words. The guide lists no heading for them, so riff --help does not
// show them; riff help relay does. docs/agents.md is the set-up that runs
// them.

// agentCommands are the commands of the hidden heading Agent sessions.
func agentCommands() []command {
	return []command{relayCommand()}
}

// relayCommand is riff relay: one word for each part of the door of an
// agent session, each from its own file.
func relayCommand() command {
	return command{
		name: "relay", usage: "relay mcp", short: "the door of an agent session: its MCP tools, its wakes and its hooks",
		long: `The commands that an agent tool runs for its session (see docs/agents.md):

riff relay mcp    the MCP server of the session over stdio: the riff tools,
                  the keep-alive, and the end when the agent tool exits

The session is --session or RIFF_SESSION; riff relay mcp also reads
CLAUDE_SESSION_ID. RIFF_KEEPALIVE_EVERY (a duration, for example 10s)
sets the time between two keep-alives: 1m by default, 10s in a worker
(RIFF_WORKER=1).
`,
		subcommands: []command{relayMCP()},
	}
}
