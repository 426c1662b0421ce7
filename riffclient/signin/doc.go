// Package signin is the stored sign-in of this machine (docs/login.md):
// the device key, the tokens of each riff and the lock of a refresh, in
// the local folder that outlives a logout (local.StateDir); the session
// tokens of this process; discovery of the OpenID provider; the browser
// and device flows; and [Machine.Login], the sequence of riff login.
//
// A [Machine] is the sign-in of one server as one process sees it; it is
// the riffclient.Auth of that process, so any Go program can call a riff
// with sign-in once riff login stored one (examples/signedin). It reads
// tokens.json again at each token, so that a refresh of another process,
// or a riff login in another terminal, counts at once. Session tokens
// are in memory only.
//
// The files, in SIGNIN under the folder, each with mode 0600:
//
//	key          the device key (PEM), when the keyring cannot hold it
//	tokens.json  the stored sign-ins of the machine: one per server URL,
//	             with the riff ID, the USER and email, the thumbprint of
//	             the key, the access and refresh tokens, and "ended"
//	lock         the lock of the machine (flock) for a refresh and a sign-in
//
// The keyring is an interface ([Keyring]): [OSKeyring] is the keyring of
// the OS, and a program or a test gives its own. The package checks no
// ID token (riff-server does) and never prints: the flows write their
// lines to the writer that they are given.
package signin
