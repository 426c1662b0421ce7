// Package door is the door of an agent session on the client side: what
// the agent tool runs beside a session so that its riff knows it is live
// and what it does, and wakes it (docs/agents.md).
//
//   - [KeepAlive] sends a keep-alive of the session each minute, with the
//     newest fact of its hooks and the build of this riff.
//   - [Watch] writes one line for each message that wakes the session
//     (the Monitor of Claude Code wakes it at each line), and keeps the
//     woke marks that make one message one line across reconnects,
//     restarts and new watches.
//   - [Files.Hook] and [HookFact] turn the input of a hook of Claude Code
//     into the fact of the session, and answer the Stop hook of a worker
//     that riff asks to clear its context.
//   - [Prompt] is the UserPromptSubmit hook of a lead: a keep-alive with
//     the prompt, so that the wait of the lead ends.
//   - [SessionOf] names the session of a command of the door from the
//     given ID, the CLAUDE_CODE_SESSION_ID of the agent tool
//     ([AgentSessionEnv]) and its own last source.
//   - [LogFile] is the bounded file of the log lines of the relays in the
//     local folder ([RelayLog]), and [Tee] writes a line to it and to
//     stderr.
//
// The files of each session (the fact, the ask to clear, the woke marks)
// are in the local folder of riff ([Files]); the folder itself, its place
// and its modes, is not this package's. The refusals of auto mode are
// riffclient/denied.
//
// It never decides a rule of the riff: the server decides what a fact
// means. It never reads the env, never writes to a terminal by itself
// (the caller gives the writer of the wake lines and the functions that
// get the lines for a person), and starts no goroutine that outlives the
// call that started it.
package door
