// Package riffclient is the client of riff-server: one generic call
// function ([Send]) with call IDs, retries within a budget, build checks,
// and streams that reconnect ([Client.Tail], [Client.Watch]).
//
// It never decides a rule of the riff. It writes only two kinds of lines
// for a person, to the writer that its caller gives ([Options.Out]): the
// line (waits for riff-server…) and the warning of "When the builds
// differ".
// Every other outcome comes back as a value or an error.
//
// # Basics
//
// A call is one wire type of riffcore/wire. [Send] posts it as JSON to its
// path under the server URL, with the header riff-call (one call ID for
// all the tries of the call) and riff-build (the build of this riff), and
// decodes the reply type that the call names:
//
//	c := riffclient.New(server, riffclient.Options{Build: b})
//	reply, err := riffclient.Send(ctx, c, wire.Claim{Me: me, Item: "issue-12"})
//
// A call has a budget of 60 seconds from its first try. After no reply, a
// cut connection, 502, 503 or 429 it tries again with the same call ID,
// after a wait that grows from 0.25 s to 5 s. A refusal is never tried
// again: it comes back as a *[wire.Refused].
//
// # Sign-in
//
// With [Options.Auth], each try of each call and each open of a stream
// carries `Authorization: DPoP TOKEN` (the token of [Auth.Token] for the
// caller of the call) and a new DPoP proof of the device key for the URL
// of the try. A refusal bad_token goes to [Auth.Refused]; one more try
// follows when it says so. A fault of the Auth before a try (a lost
// sign-in) is an [*AuthError]: no request goes out, and a stream says it
// once and tries again every 5 s. The calls of the token path go with
// [SendProved]: a proof and no token (a sign-in, a refresh), or the person
// token (a swap); a sign-in and its provider pass the build check.
//
// # Caveats
//
// A refused connect is tried again only when this Client got a reply from
// the server before: a new command cannot tell a server that starts from
// no server, so it fails at once with [*ReachError].
//
// The budget and the waits run on [Options.Clock]; one try runs on the real
// time (the HTTP transport has no other clock).
//
// With no [Options.HTTP] the transport is [NewTransport]: an HTTP/2
// connection (over TLS, as Cloud Run serves) gets a ping after 10 s with
// no frame, and is dropped when the ping has no answer in 5 s. riff-server
// on loopback speaks HTTP/1.1, which has no ping.
//
// # The packages beside it
//
// riffclient/render holds the texts of the replies for a person and for
// an agent; riffclient/commands what each command of riff that makes one
// call does; riffclient/mcptools the tools of an agent session over MCP;
// riffclient/top the live table of riff top, and riffclient/forge what it
// reads of GitHub through gh; riffclient/chat riff chat, the chat of the
// people in a terminal; riffclient/earlier the earlier work on an item in
// the clone (git only).
// A program that imports riffclient alone builds none of them.
package riffclient
