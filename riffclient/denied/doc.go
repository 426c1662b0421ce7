// Package denied holds the refusals of auto mode on the client side
// (docs/agents.md, "The refusals of auto mode"): the record of a
// refusal that the PermissionDenied hook of Claude Code reads ([Make]),
// its one line in the thread denials ([Line]) and the parse of that line
// ([Parse], which riff denials counts with), and the outbox where each
// record waits in the local folder until the server takes it ([Outbox]).
//
// A record holds no secret: each known secret and each text that looks
// like a token is [secret] before the record is made. The hook never
// waits for the server: it puts the record in the outbox, and a sender
// posts it ([Outbox.Send]), now or after the next refusal.
//
// It never reads the env, never starts a process (the hook of riff starts
// its sender itself), and decides no rule of the riff: the thread denials
// takes a note as any thread does.
package denied
