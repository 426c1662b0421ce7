// Package riffstate holds the state of a riff and every rule of it: the
// riff (what the log gives) and the presence (memory); apply, which
// stores what a record says; each command as a type with its handle and
// its reply; the permits table; the signals and the signal calls; the
// views; the answered calls; and the checkpoint encoding.
//
// It is pure: it does no I/O, reads no clock, never logs, and iterates
// no map in map order. Time and IDs come in as values ([Now]), so the
// same state and the same command give the same changes, byte for byte.
//
// # Two copies and the presence
//
// A [State] holds two copies of the riff. The pending copy has every
// record in the queue of the writer: handle checks a command against it,
// so two commands in one chunk see each other. The written copy has only
// the records of written chunks: replies, queries and views read it, so
// nothing that a caller sees can be lost by a crash. The presence
// (places, statuses, blocks, steps, read cursors, watches) is memory: no
// record holds it, and a [Signal] is the only thing that changes it.
//
// # The stages of a command
//
// A command of a caller goes through these stages, in order. The engine
// (riffengine) runs them with its one lock and its writer between them;
// [Run] runs them in one go with no writer, for tests and tools.
//
//  1. [Check], under the lock: the caller gets its worker mark and role
//     ([State.Caller]: the role from the people of the pending copy, with
//     the admins of the settings, [View.WithRole]); a known caller gets
//     the signal [Called]; a command of the people in a riff with no
//     sign-in is refused (no_sign_in);
//     [Permits] checks the caller against the row of the kind in the
//     permits table ([Table]); Handle checks the command against the
//     pending copy; the signal of the command is set.
//  2. [State.Queue], under the same lock: the changes become records
//     (position, time, cause, command kind, call ID) and are applied to
//     the pending copy.
//  3. The writer writes the chunk. Then [State.WrittenRecords] applies
//     its records to the written copy and the presence, and gives the
//     effects (wakes, messages of a tail) that the engine sends.
//  4. [Reply], from the written copy and the records of the call ([Done]).
//
// # What Handle, Reply and Apply may do
//
// Handle reads its command, its caller, the pending view and now. It
// gives the changes ([Handled]) or a refusal (*wire.Refused with a code
// and a reason that names what was wrong). It changes nothing: not the
// view, not the presence. A refusal writes no record.
//
// Reply reads its command, its caller, the written view, the records of
// its call and now. It reads no value of Handle: a repeated call after a
// checkpoint or a replay has only the records, and gets the same reply.
//
// [Apply] only stores what a record says: it reads the record and the
// riff, no clock, no presence and no setting. It never fails: a record
// that the riff cannot take changes nothing and counts as a [Drop], so
// the replay of the log gives the written copy again.
//
// A [SignalCall] (status, blocked, step, alive, move) has no record: its
// Check checks its input and gives its [Signal], its Tell gives the text
// of a message to the lead (the engine sends it as a [Post] of the
// caller), and its Reply reads the written copy and what became of that
// message ([Told]). A query (who, read, threads, ...) is a method of
// [View]; a read gives the signals that move the read cursors.
//
// # A command is one type
//
// A command is a type that implements [Command]: its kind is a constant
// of record.Command (riffcore/record/commands.go), its role in Needs,
// its rule in Handle, its reply in Reply, its signal in Signal. The
// permits table has a row for each kind. The commands of the people are
// in members.go, owner.go and admit.go (docs/people.md).
// TestEachCommandTypeHasAKindConstantWithARowInThePermitsTable fails for
// a command whose kind is a bare string or has no row. docs/state.md
// shows the steps to add one.
package riffstate
