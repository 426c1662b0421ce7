// Package cmd holds the two binaries of riff: cmd/riff, the command line
// of a person and a session, and cmd/riff-server, the service. Each binary
// only wires flags to the libraries.
package cmd
