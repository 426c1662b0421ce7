// Package top holds riff top: the live table of each person and each
// session of a riff, as the guide shows it ("See what each session
// does").
//
// The table is pure: [Table] and [Render] take a [Snapshot] (one look
// of the server, what gh read of each repository, the filter and the
// order of the command line, the fault of the looks) and give its lines,
// each cut with … at the width of the terminal. They send no call, read
// no clock and run no program.
//
// [Run] is the loop of a live table: it looks at the server every 3
// seconds and after each message of the thread, reads gh each minute,
// and draws again at each resize. It does no I/O of its own either: its
// caller gives it the look, the read of gh, the clock, the draw and the
// events (cmd/riff wires them to riff-server, gh and the terminal).
//
// [Screen] puts the tables on a writer: on the alternate screen of a
// terminal, each in the place of the last, or through a pipe each
// changed table whole.
//
// It posts nothing and wakes no session: riff top only reads.
package top
