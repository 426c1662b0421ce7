package door

// AgentSessionEnv is the env var in which Claude Code gives its session
// ID (its --session-id) to the MCP server, to each hook and to the
// command of a Monitor (seen with Claude Code 2.1.332). The
// CLAUDE_SESSION_ID that riff read before was in no process.
const AgentSessionEnv = "CLAUDE_CODE_SESSION_ID"

// SessionOf gives the session of a command of the door: given (riff:
// --session, then RIFF_SESSION), else agentID (the AgentSessionEnv of the
// agent tool), else fallback (the session_id of a hook's input, or the
// session file of a Claude Code among the parents). The agent tool's env
// comes before a hook's input so that the hooks keep the facts under the
// ID that the relay of the same agent tool reads them by.
func SessionOf(given, agentID, fallback string) string {
	for _, id := range []string{given, agentID} {
		if id != "" {
			return id
		}
	}
	return fallback
}
