// Package riffengine holds the engine of riff-server: the one dispatch
// path of each command, the group-commit writer, the effects, the timers,
// the HTTP routes and streams, and the start and stop order.
//
// It is the only code that locks the state. It never decides a rule of
// the riff: riffstate does.
//
// # The token layer
//
// Every routed call, stream and the facts go through a [TokenLayer]:
// [NoSignIn] trusts the me of the body (a riff on loopback); [SignedIn]
// checks the access token (Authorization: DPoP TOKEN), the DPoP proof of
// its device key (one header; method, URL, token, time, this instance,
// seen once by its key), and that the token may act as the me of the
// body (not_you). The handler holds no rule of the tokens: it asks the
// interface, which also runs the token path (signin_http.go routes it:
// provider, sign-in, refresh, swap). The sign-in of [SignedIn] sends the
// command admit through [Dispatch] and starts the sign-in in the token
// store. The replay cache remembers only the proofs of a key that a
// token, an ID token or a refresh token proved. docs/signin.md has the
// codes and the decisions, docs/tokens.md the replay cache.
//
// # Start and stop
//
// A program starts an engine with [Open] and stops it with
// [Engine.Close], and holds only its port and HTTP server
// (cmd/riff-server, examples/embed). Open runs the start in this order,
// and a step that fails stops what the steps before it started:
//
//  1. Load: the newest checkpoint that reads (the one before it when it
//     does not), and the replay of the chunks after it ([Load]).
//  2. The engine on that state: the writer and the timers start; the
//     engine answers 503 ("riff-server starts") until step 6.
//  3. A riff with sign-in (Options.SignIn) loads signins.json into its
//     token store (riffengine/tokens); an object that does not read
//     stops the start. Then Options.Listen: the program opens its port.
//  4. The lease (not with Options.NoLease): wait while a later revision
//     holds it, take it, wait Options.LeaseWait so that the old instance
//     reads it, then load again (from the newest checkpoint when the old
//     instance wrote one in the wait, else the chunks since the load),
//     load signins.json again, remove the leftovers of killed writes,
//     and hold the lease.
//  5. Options.Leased: a program whose port the old instance held opens
//     it now.
//  6. make_riff at the first start; in a riff with sign-in, name_owner
//     for the owner of the settings (StateOptions.Owner); then the
//     engine serves.
//
// The goroutines, each with its owner, which stops it; the engine waits
// for each of its own before Done closes:
//
//   - the writer (the engine): writes the queue as chunks, one at a time;
//     at a stop it writes what waits while the instance holds the lease;
//   - the timers (the engine): forget old sessions, and a checkpoint
//     after CheckpointInterval;
//   - the checkpoint maker (the engine, at most one at a time): moves the
//     copy of the state on and encodes a checkpoint with the lock free,
//     on a thread of its own at the lowest priority (SCHED_IDLE and nice
//     19 on Linux), which ends with it: it takes the CPU that the calls
//     leave. Then it writes the checkpoint and prunes the log at the
//     priority of the calls, since those take locks that the calls and
//     the writer take. One after a checkpoint of under 5 ms of CPU runs
//     at the priority of the calls, so that a small riff under load
//     still writes one each 1,000 records. While the system holds that
//     thread back, it keeps
//     its processor of the Go runtime, so a program gives the runtime one
//     processor more than its CPUs ([SetProcsForCheckpoints], which
//     cmd/riff-server and examples/embed call);
//   - the preparer (the engine, at most one at a time): makes the file of
//     the next chunk, for a store that can ([rifflog.Preparer]);
//   - the saver of signins.json and its watcher (the engine, from the
//     first serve, in a riff with sign-in): writes the snapshot of the
//     token store when it changed, at most once a second from the end
//     of the last write, doubling the wait after a failure up to 32 s;
//     the stop and the handover write it one last time, before the last
//     checkpoint;
//   - the lease holder and its watcher (the engine, from step 4): reads
//     the lease every 2 s, and stops the instance when it reads another
//     one;
//   - the decoder of a replay (rifflog, inside Load): it ends with the
//     load;
//   - the HTTP server, the calls and streams on it (the program): the
//     engine ends the streams at its stop, and the program shuts its
//     server down;
//   - the timer of the open window of the denied lines (the denier of
//     the Handler, a time.AfterFunc): at most one, armed when a window
//     opens; each end of the window stops it, and
//     [Handler.FlushDenied] at the stop of the program ends the window
//     with no count lost.
//
// Two settings of the process are the program's, never the engine's: the
// processors of the runtime ([SetProcsForCheckpoints]) and a heap floor
// for the collector ([KeepHeapFloor], which runs in the cleanup of an
// object each collection frees, with no goroutine of its own).
// cmd/riff-server and examples/embed keep one; a program that keeps
// none collects a small riff many times a second, and replays a long
// log 5 to 9 % slower (docs/performance.md, issue 23, twelfth pass).
//
// One path stops an engine for good (stopFor): it closes the gate (no new
// command), marks why the instance stopped (each waiting call gets
// [ErrStopped]), tells each goroutine to end, and ends the streams; it
// does not wait, so that the writer (a chunk that failed for good) and
// the lease holder (the lease of another instance) call it too.
// [Engine.Stopping] closes then, and [Engine.Done] when each goroutine
// ended. Close runs that path once, by the cause:
//
//   - the engine serves (a stop signal): settle, that is wait until the
//     writer wrote each entry of the queue, stop, write a last
//     checkpoint, end the lease;
//   - the engine read the lease of another instance (a deploy): the
//     program closes its port at once, and Close writes a last
//     checkpoint for the new instance while that lease holds (none when
//     it ended or aged), within the 10 s of ctx;
//   - a chunk failed for good: Close waits and gives why, with no
//     checkpoint.
//
// A start that fails stops by the same path, with no checkpoint, and ends
// the lease when it took one. The tests build an engine on a state of
// their own with New, and run the steps of the start by themselves
// (export_test.go); a program has no such seam.
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
//     tails of each thread, the streams of each sign-in). The writer sends
//     the effects of a chunk to the hub after it released Engine.mu; the
//     two are never held together. The token store ends the streams of a
//     sign-in with its own lock held (tokens.Options.Ended), so hub.mu is
//     taken inside the lock of the store, never the other way round.
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
//     state does not know (an entry of its own), looks up an answered
//     call with the same call ID, and runs [riffstate.Check] (permits, handle, the signal of the
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
package riffengine
