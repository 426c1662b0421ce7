// Package riffengine holds the engine of riff-server: the one dispatch
// path of each command, the group-commit writer, the effects, the timers,
// the HTTP routes and streams, and the start and stop of an instance.
//
// It is the only code that locks the state. It never decides a rule of
// the riff: riffstate does.
//
// # Start
//
// A binary starts an instance in this order (cmd/riff-server's serve,
// and examples/embed, write it out today):
//
//  1. [Load] reads the newest checkpoint that reads and replays the
//     chunks after it into a [riffstate.State].
//  2. [New] makes the [Engine] from that state and starts its writer
//     and its timers. The engine takes commands from here on, but
//     [Engine.SetServing] (false) makes the HTTP side answer 503, and
//     [Engine.Tick] writes nothing, until step 6.
//  3. [NewHandler] makes the HTTP side ([Handler], an http.Handler) and
//     [HTTPServer] the *http.Server with the time limits of riff-server;
//     the binary listens (or, when the old instance still holds the port
//     on this machine, after step 4).
//  4. [Engine.TakeLease] takes the lease (or waits while a later revision
//     holds it), waits for the old instance to write its last checkpoint,
//     loads again what the old instance wrote meanwhile, removes the
//     leftover temporary files of killed writes, and starts the two
//     goroutines of the lease. A store with no lease (memory) skips it.
//  5. [Engine.MakeRiff] writes make_riff at the first start.
//  6. [Engine.SetServing] (true): the instance serves.
//
// # Goroutines
//
// Each goroutine below has one owner that stops it, and the engine waits
// for each of its own in a WaitGroup; [Engine.Done] closes when they all
// ended.
//
//   - The writer (started by New; owner: the engine): the one goroutine
//     that writes the log. It takes the whole queue as one chunk, writes
//     it with the lock free, and finishes its entries. At a stop it
//     writes what still waits, unless the instance failed.
//   - The timers (started by New; owner: the engine): each TimerEvery
//     they run Tick, which forgets old sessions through the one path and
//     checks whether a checkpoint is due.
//   - The checkpoint write (started by the writer or the timers, at most
//     one at a time; owner: the engine): it writes a checkpoint that was
//     encoded under the lock, then prunes the log.
//   - The prepare (started by the writer, at most one at a time; owner:
//     the engine): it makes the temporary file of the next chunk in a
//     store that can (rifflog/dir).
//   - The lease hold and its watcher (started by TakeLease; owner: the
//     engine): the hold reads the lease every 2 s and renews it, and
//     stops the instance when the lease is lost; the watcher ends the
//     hold at a stop.
//   - One goroutine that closes Done when the WaitGroup is empty.
//   - The HTTP calls and streams run on the goroutines of net/http (owner:
//     the binary's *http.Server); a stream pumps its events on the
//     goroutine of its call. [Handler.RunDenied] runs on a goroutine of
//     the binary, which cancels its context at the stop.
//
// # Locks
//
//   - Engine.mu is the lock of the state: both copies of it (pending and
//     written) and the presence, the queue of the writer, the calls that
//     wait by their call ID, whether new commands are refused (closed)
//     and the reason of a stop
//     (stopErr), the position and chain of the last written chunk, the
//     facts of /v1/server, the checkpoint counts, and the flags of the
//     goroutines that run one at a time (writing, ckpWriting, preparing).
//     No I/O runs while it is held: the writer, the checkpoint write and
//     the prepare take what they need and release it before they touch
//     the store.
//   - hub.mu guards the open streams (the watches of each session, the
//     tails of each thread). The writer sends the effects of a chunk to
//     the hub after it released Engine.mu; the two are never held
//     together.
//   - denier.mu guards the window of the denied lines of the token layer.
//   - entry.encoded (a sync.Once) encodes the records of an entry once:
//     the call that queued it does it after it released the lock, and the
//     writer does it when it takes the entry first.
//
// # Stages
//
// A command goes through one path, [Dispatch], as a value of a type for
// each stage, so that a stage cannot be skipped:
//
//   - [Authenticated]: the command with the caller that the token layer
//     proved ([Authenticate] with a [Proof]), or the server itself.
//   - check takes Engine.mu, queues the register of a caller that the
//     state does not know (an entry of its own), looks up a kept call
//     with the same call ID, and runs [riffstate.Check] (permits, handle, the signal of the
//     command) and [riffstate.State.Queue] (positions and the pending
//     copy). It returns a [Checked] with the lock still held.
//   - [Checked.queue] puts the entry in the queue of the writer and
//     releases the lock: a [Queued].
//   - The writer writes the chunk, and finish applies its records to the
//     written copy, keeps the calls with a call ID, sends the effects to
//     the hub and closes the entry: an [Applied].
//   - [Applied] makes the reply from the written copy, or gives the
//     refusal: a [Replied]. A refused command waits for the writer as
//     each command does, so no refusal reports a change that is not in
//     the log.
//
// A signal call ([Signaled]) sets a signal of the presence under the
// lock and posts the message that it gives through Dispatch; a query
// reads the written copy under the lock and does not wait for the
// writer.
//
// # Stop
//
// Every stop ends in one internal step, stop: it closes
// [Engine.Stopping] (once) and cancels the context of the writer and the
// timers; Done closes when every goroutine of the engine ended. Four
// ways lead there today:
//
//   - [Engine.Settle], for a stop signal: it refuses new commands, waits
//     until the queue is written, stops, waits for Done, closes the streams,
//     writes a last checkpoint and ends the lease.
//   - [Engine.Close], when a start fails or the HTTP server ends: it fails
//     each waiting call (503), stops and waits for Done, with no last
//     checkpoint.
//   - A chunk that fails for good (on the writer): the instance fails
//     each waiting call, stops, and closes the streams.
//   - A lease that the hold cannot keep (on the lease hold): the same.
//     When another instance took it (rifflog.ErrLeaseLost, a deploy),
//     the binary then calls [Engine.HandOver], which waits for Done and
//     writes a last checkpoint for the new instance.
//
// # Caveats
//
// The binary, not the engine, runs the start order above and chooses
// the stop; [Engine.EndLease] ends the lease of a start that took it and
// then failed. [Handler.FlushDenied] writes the last count of the denied
// lines at a stop.
package riffengine
