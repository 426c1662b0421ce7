// Package signin is the sign-in of this machine, as riff keeps it in its
// local folder (the folder that outlives a logout, local.KeptDir): the
// device key, the tokens of each riff, the lock of a refresh, the session
// tokens of this process, and the sign-in flows of riff login.
//
// The files, in SIGNIN under the folder, each with mode 0600:
//
//	key          the device key (PEM), when the OS keyring cannot hold it
//	tokens.json  the sign-ins of the machine: one per server URL, with the
//	             riff ID, the USER and email, the thumbprint of the key,
//	             the access and refresh tokens, and "ended"
//	lock         the lock of the machine (flock) for a refresh and a sign-in
//
// A [Machine] is the sign-in of one server as one process sees it; it is
// the riffclient.Auth of that process. It reads tokens.json again at each
// token, so that a refresh of another process, or a riff login in another
// terminal, counts at once. Session tokens are in memory only.
package signin
