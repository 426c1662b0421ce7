package rifflog_test

import (
	"context"
	"fmt"

	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/mem"
)

// Example writes a log of two chunks on the memory store with a
// checkpoint after the first, then starts as a server does: it loads the
// newest checkpoint and replays only the records after it.
func Example() {
	ctx := context.Background()
	s := mem.New()
	line := func(position uint64, item string) []byte {
		return fmt.Appendf(nil, `{"position":%d,"written_at_ms":1790000000000,"command":"claim","change":{"claimed":{"item":%q}}}`, position, item)
	}

	// The first chunk follows the empty log: its proof gives the chain
	// value that the next chunk and the checkpoint carry.
	var empty rifflog.Replayed
	first, err := rifflog.Write(ctx, s, empty.Next([][]byte{line(1, "issue-1"), line(2, "issue-2")}))
	if err != nil {
		panic(err)
	}
	name, err := rifflog.WriteCheckpoint(ctx, s, rifflog.CheckpointAt(first, 1790000000000, "1.0.0", []byte(`{"claims":2}`)))
	if err != nil {
		panic(err)
	}
	fmt.Println("checkpoint:", name)
	after := rifflog.Replayed{Last: first.Last(), Chain: first.Chain()}
	if _, err := rifflog.Write(ctx, s, after.Next([][]byte{line(3, "issue-3")})); err != nil {
		panic(err)
	}

	// The start: the newest checkpoint that reads, then the log after it.
	loaded, err := rifflog.LoadCheckpoint(ctx, s, nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("state at %d: %s\n", loaded.Checkpoint.Position, loaded.Checkpoint.State)
	replayed, err := rifflog.Replay(ctx, s, loaded.Checkpoint.From(), func(line []byte, position uint64) error {
		fmt.Printf("replay %d: %s\n", position, line)
		return nil
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("last:", replayed.Last, "records replayed:", replayed.Records)
	// Output:
	// checkpoint: checkpoint/00000000000000000002-1790000000000.json
	// state at 2: {"claims":2}
	// replay 3: {"position":3,"written_at_ms":1790000000000,"command":"claim","change":{"claimed":{"item":"issue-3"}}}
	// last: 3 records replayed: 1
}
