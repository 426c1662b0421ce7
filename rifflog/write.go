package rifflog

import (
	"bytes"
	"context"
	"fmt"
)

// Chunk is a group of records to write as one object.
type Chunk struct {
	// Prev is the chain value of the log before First: the Chain of the
	// Written of the chunk before, or of the replay at the start.
	Prev Sum
	// First is the position of the first record.
	First uint64
	// Records are the record lines, without newlines; record i has the
	// position First+i.
	Records [][]byte
}

// Written is the proof that the records of a chunk are durable in the
// log. Only [Write] makes one; the zero Written covers nothing.
type Written struct {
	first  uint64
	count  uint64
	chain  Sum
	object string
}

// First is the first position the write covers.
func (w Written) First() uint64 { return w.first }

// Count is the number of records the write covers.
func (w Written) Count() int { return int(w.count) }

// Last is the last position the write covers (First-1 when it covers none).
func (w Written) Last() uint64 { return w.first + w.count - 1 }

// Chain is the chain value of the log after the write: the Prev of the
// next chunk.
func (w Written) Chain() Sum { return w.chain }

// Object is the name of the chunk object, "" for a write of no record.
func (w Written) Object() string { return w.object }

// Covers says whether the write is the proof of exactly the positions
// first to first+count-1.
func (w Written) Covers(first uint64, count int) bool {
	return w.first != 0 && w.first == first && w.count == uint64(count)
}

// Write writes a chunk as one new object with a create-only put, and
// gives the proof of its write. A chunk of no record needs no object: it
// gives its Written with no I/O.
//
// Errors: ErrInvalid when a record has no valid position, another
// position than its place, a newline or bad JSON; ErrExists (from the
// store) when the name is taken: another instance writes the log; and
// each error of the store's Put. Only a nil error acknowledges.
func Write(ctx context.Context, s Store, c Chunk) (Written, error) {
	if c.First == 0 {
		return Written{}, fmt.Errorf("write chunk: first position 0: %w", ErrInvalid)
	}
	if len(c.Records) == 0 {
		return Written{first: c.First, chain: c.Prev}, nil
	}
	name := ChunkName(c.First)
	if err := checkRecords(c.First, c.Records); err != nil {
		return Written{}, fmt.Errorf("write %s: %w", name, err)
	}
	data, chain := encodeChunk(c.Prev, c.First, c.Records)
	if err := s.Put(ctx, name, data); err != nil {
		return Written{}, fmt.Errorf("write %s: %w", name, err)
	}
	return Written{first: c.First, count: uint64(len(c.Records)), chain: chain, object: name}, nil
}

func checkRecords(first uint64, records [][]byte) error {
	for i, r := range records {
		want := first + uint64(i)
		if bytes.IndexByte(r, '\n') >= 0 {
			return fmt.Errorf("record %d has a newline: %w", want, ErrInvalid)
		}
		if !validJSON(r) {
			return fmt.Errorf("record %d is not JSON: %w", want, ErrInvalid)
		}
		got, err := peekPosition(r)
		if err != nil {
			return fmt.Errorf("record %d: %v: %w", want, err, ErrInvalid)
		}
		if got != want {
			return fmt.Errorf("record %d says position %d: %w", want, got, ErrInvalid)
		}
	}
	return nil
}
