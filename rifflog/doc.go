// Package rifflog holds the log of a riff as objects in a store: the
// chunk format and its checksum chain, the proof of a write ([Written]),
// replay, checkpoints and their keep rule, the lease that names the one
// instance that writes, and the library side of the log tools (print,
// verify, cut).
//
// # Basics
//
// A record is one JSON line whose envelope starts with its position:
//
//	{"position":1234,"written_at_ms":1790000000000,"by":{...},"command":"claim","change":{"claimed":{...}}}
//
// The writer puts each group of records into one chunk, an object named
// by its first position ([ChunkName]: log/00000000000000001234.jsonl).
// The first line of a chunk is a header with the format version, the
// first position, the number of records, the checksum of the record
// lines and the chain value of the log before the chunk. A chunk is
// written once, with a create-only put, and never replaced.
//
// [Write] writes a chunk and gives a [Written], the proof that the
// positions it names are durable. [Replay] reads the chunks after a
// position in order and checks each position, each checksum and the
// chain. [WriteCheckpoint] and [LoadCheckpoint] keep the state at a
// position as an object; [Prune] applies the keep rule and deletes the
// chunks that no kept checkpoint needs. [Lease] names the instance that
// serves.
//
// # Caveats
//
// This package works on record lines as bytes plus their positions. It
// never decodes a record into its riffcore type and never applies a
// record to a state: the caller gives a function for that. It never
// reads a clock by itself except in the waits of the lease, and never
// logs. Backends live in subpackages: mem, dir (RIFF_DIR) and gcs.
package rifflog
