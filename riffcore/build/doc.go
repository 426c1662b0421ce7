// Package build holds what a build of riff or riff-server is, and which
// builds can talk: the version and its line, the commit and its time, the
// rule "riff-server talks with a riff of its own line and of the line
// before", and the texts that tell a person which side to update.
//
// It only parses, compares and formats. It never makes a call, reads a
// clock or prints: the binary gives its own build ([FromBuildInfo]), and
// the caller decides where a note goes.
//
// # Basics
//
// A build is a semantic version, the last commit that changed the code and
// the time of that commit. Its header form, the one each call and each
// reply carries, is
//
//	0.4.3 7213825ab1c2 2026-09-27T20:10:44Z
//
// The line of a version is its major, and its minor while the major is 0:
// 0.4.1 is on the line 0.4, and 1.2.0 is on the line 1. riff-server talks
// with a riff of its own line and of the line before ([Talks]).
//
// # Caveats
//
// The line before the line 1 is every 0.x line: the last 0 line cannot be
// known from the version 1.0.0 alone, so riff-server 1 talks with any
// riff 0.x. The line 0.0 has no line before.
//
// A version is MAJOR.MINOR.PATCH with an optional leading "v", and nothing
// more: no pre-release and no build metadata.
package build
