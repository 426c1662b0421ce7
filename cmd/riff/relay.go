package main

// relayCommand is riff relay: the door of an agent session, for its agent
// tool, not for a person. So riff --help, which lists the commands that
// people use (docs/cli.md), does not list it; riff help relay shows it. Each subcommand is one function of its own file.
func relayCommand() command {
	return command{
		name: "relay", usage: "relay SUBCOMMAND", short: "the door of an agent session (for its agent tool)",
		long: `The commands that an agent tool runs for its session (see docs/agents.md):
  riff relay mcp                the MCP server of the session over stdio: the riff tools,
                                the keep-alive, and the end when the agent tool exits
  riff relay watch [--follow]   one line for each message that wakes the session
  riff relay hook               the hooks of the agent tool: keeps the newest fact of the session
  riff relay prompt             the UserPromptSubmit hook of a lead: a prompt ends its wait
  riff relay denied             the PermissionDenied hook: posts a refusal of auto mode
                                to the thread denials, and never waits for riff-server
  riff relay -- claude ARGS     the entrypoint of a container of the riff daemon: claude
                                with stream-json, the tools through the socket of the
                                session (RIFF_SOCKET), the wakes of its first turn (docs/daemon.md)

The session is --session, else RIFF_SESSION, else CLAUDE_CODE_SESSION_ID
(the session ID that Claude Code gives to its MCP server, its hooks and
the command of a Monitor), else the session_id of a hook's input (for
the watch: the session file of the Claude Code that runs it).
RIFF_KEEPALIVE_EVERY (a duration, for example 10s) sets the time between
two keep-alives: 1m by default, 10s in a worker (RIFF_WORKER=1). riff
relay mcp keeps its log lines in relay.log of the local folder as well as
on stderr (at most 1 MiB, then relay.log.1).
`,
		subcommands: relaySubcommands(),
	}
}

// relaySubcommands are the words of riff relay.
func relaySubcommands() []command {
	return []command{relayMCP(), relayWatch(), relayHook(), relayPrompt(), relayDenied(), relayContainer()}
}
