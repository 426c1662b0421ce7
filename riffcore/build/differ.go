package build

import "fmt"

// MismatchURL is the page of riff's user guide, "How It Works", that a
// mismatch error points to.
const MismatchURL = "https://como-technologies.github.io/riff/how-it-works.html#when-the-versions-do-not-match"

// Side is the side of a riff to update: riff-server, this riff, or
// neither.
type Side int

// The sides of a riff.
const (
	// Neither is no side: the builds are the same, or neither is older.
	Neither Side = iota
	// Server is riff-server.
	Server
	// Client is riff, on this machine.
	Client
)

// String gives "riff-server", "riff" or "neither".
func (s Side) String() string {
	switch s {
	case Server:
		return "riff-server"
	case Client:
		return "riff"
	case Neither:
		return "neither"
	default:
		return fmt.Sprintf("Side(%d)", int(s))
	}
}

// Older gives the side that runs the older build: the lower version, and
// for the same version the older commit time. Two builds of the same
// version and time have no older side.
func Older(server, client Build) Side {
	if c := server.Version.Compare(client.Version); c != 0 {
		if c < 0 {
			return Server
		}
		return Client
	}
	switch {
	case server.Time.Before(client.Time):
		return Server
	case client.Time.Before(server.Time):
		return Client
	default:
		return Neither
	}
}

// DifferWarning gives the warning that riff prints once when the builds
// differ and the versions can talk ("When the builds differ", on the
// page of MismatchURL):
//
//	riff: riff-server runs build 0.4.3 7213825ab1c2 2026-09-27T20:10:44Z; this riff runs build 0.4.0 929605821e54 2026-09-27T22:03:01Z. Update riff on this machine when you can.
//
// When riff is on the line before the server, the warning says that the next
// line of the server refuses it, and to update riff soon. Two builds
// with no older side (the same version and time, another commit) get the
// first sentence alone. DifferWarning gives "" for the same build (the same
// version and commit), and for versions that cannot talk: then
// [MismatchError] gives the text.
func DifferWarning(server, client Build) string {
	if server.Version == client.Version && server.sameCommit(client) {
		return ""
	}
	if !Talks(server.Version, client.Version) {
		return ""
	}
	warning := fmt.Sprintf("riff: riff-server runs build %s; this riff runs build %s.", server, client)
	sl, cl := server.Version.Line(), client.Version.Line()
	if cl != sl {
		return warning + fmt.Sprintf(" riff-server %s will refuse riff %s. Update riff on this machine soon.", sl.Next(), cl)
	}
	switch Older(server, client) {
	case Client:
		return warning + " Update riff on this machine when you can."
	case Server:
		return warning + " Update riff-server when you can."
	default:
		return warning
	}
}

// MismatchError gives the text of the error of each riff command when the
// versions cannot talk ("When the versions do not match", MismatchURL):
//
//	riff: this riff (0.2.0 929605821e54 2026-09-27T22:03:01Z) and its riff-server (0.4.0 7213825ab1c2 2026-09-28T20:10:44Z) do not match. riff-server 0.4 talks only with riff 0.4 and 0.3. Update riff on this machine, then start your sessions again. See https://como-technologies.github.io/riff/how-it-works.html#when-the-versions-do-not-match
//
// It names the older side to update: riff on this machine, or riff-server.
// MismatchError gives "" when the versions can talk.
func MismatchError(server, client Build) string {
	if Talks(server.Version, client.Version) {
		return ""
	}
	sl := server.Version.Line()
	lines := "riff " + sl.String()
	if before := sl.Before(); before.kind != lineNone {
		lines += " and " + before.String()
	}
	update := "Update riff on this machine"
	if Older(server, client) == Server {
		update = "Update riff-server"
	}
	return fmt.Sprintf("riff: this riff (%s) and its riff-server (%s) do not match. riff-server %s talks only with %s. %s, then start your sessions again. See %s",
		client, server, sl, lines, update, MismatchURL)
}
