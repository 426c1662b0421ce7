// Package mcptools holds the tools of an agent session: the riff tools
// that an agent tool (Claude Code) calls over MCP, as typed methods over
// a riffclient.Client. Each method runs what the riff command of its name
// runs after its parser (riffclient/commands) and gives the text that riff
// prints for it (riffclient/render),
// with no color and each line whole; a refusal of the server is a tool
// error whose text is its reason.
//
// [Add] adds the tools to an *mcp.Server of the official MCP Go SDK, and
// [Tools.Serve] serves them as one session: the register, a keep-alive
// that follows the place of the session, and one end when the
// connection ends ([Life]). riff relay mcp is that server over stdio
// (docs/agents.md).
//
// It holds no rule of the riff (the server decides each), and neither
// the keep-alive nor the sign-in itself: the program gives the client,
// with its Auth, the way that it names the session at a place
// ([Options.Me]) and the keep-alive to run ([Life.KeepAlive]).
package mcptools
