// Package mcptools holds the tools of an agent session: the riff tools
// that an agent tool (Claude Code) calls over MCP, as typed methods over
// a riffclient.Client. Each method sends its call with riffclient and
// gives the text that riff prints for the same command (riffclient/render),
// with no color and each line whole; a refusal of the server is a tool
// error whose text is its reason.
//
// [Add] adds the tools to an *mcp.Server of the official MCP Go SDK;
// riff relay mcp is that server over stdio, with the keep-alive and the
// end of the session around it (docs/agents.md).
//
// It holds no rule of the riff (the server decides each), no keep-alive
// and no sign-in: the program gives the client, with its Auth, and the
// way that it names the session at a place ([Options.Me]).
package mcptools
