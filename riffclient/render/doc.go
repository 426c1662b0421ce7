// Package render holds the texts of riff for a person and for an agent:
// the lines of each reply, the tables, the messages of a thread and the
// facts of a server, as the command line riff prints them and as the
// tools of an agent session (riffclient/mcptools) give them.
//
// A [Printer] writes them. Through a pipe (width 0) each line comes
// whole; in a terminal a line is wrapped at spaces and never cut. A part
// of a line may have a [Style] (a warning, a session): the program that
// shows the text gives each style its look with [Options.Paint] (riff
// paints colors of the terminal); with no Paint the text is plain, as an
// agent reads it.
//
// Each text of a server or of a message goes through [Clean] first, so
// that no escape sequence of another program reaches the terminal.
//
// It sends no call and reads no clock: the caller gives the replies and
// the zone of the times (docs/cli.md shows the texts).
package render
