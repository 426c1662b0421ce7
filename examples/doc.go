// Package examples holds small programs that embed the libraries of riff.
//
// # Basics
//
//   - embed runs the engine of riff-server inside a program, on a
//     directory (RIFF_DIR): rifflog/dir, riffengine.Load, New, TakeLease,
//     MakeRiff and NewHandler behind the program's own HTTP server. Its test
//     claims over HTTP, stops, opens the same directory again and finds
//     the claim. With RIFF_CLIENT_ID (SignIn) it has sign-in: the ID
//     tokens of the provider are checked by riffengine/idtoken and each
//     call by the token layer riffengine.SignedIn; its test signs the
//     owner in at the provider of the tests (tools/oidcfake) with a DPoP
//     key, and the token works again after a restart.
//   - signedin calls a riff with sign-in as the person of this machine,
//     with the sign-in that riff login stored: riffclient/signin.Open on
//     the folder of riffclient/local.StateDir, a client whose Auth is the
//     Machine, riffclient/place.Name, then whoami, a signed post in chat
//     and its read back, verified. Its test is in cmd/riff (it needs
//     riff login, riff-server and the test provider tools/oidcfake).
//   - oidcprovider is a test OpenID Connect provider that a person runs
//     to try sign-in on one machine (docs/signin.md, "Try sign-in on
//     this machine"): the provider of the tests (tools/oidcfake) behind
//     a main, which approves each sign-in at once as the email of
//     --email, also the device flow at its page /activate. It serves
//     loopback only. The page is run as written by a test of cmd/riff.
//   - statetool runs commands on riffstate alone (riffstate.New,
//     riffstate.Run, then View.Who): no server, no log, no clock. Its
//     Example prints the rows of who.
//
// Run them with go test ./... in this folder.
//
// # Caveats
//
// embed takes the lease with no wait: it is one program on one machine.
// A riff that more than one instance can serve waits after it takes the
// lease, as riff-server does with --lease-wait.
package examples
