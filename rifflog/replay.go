package rifflog

import (
	"context"
	"errors"
	"fmt"
	"sort"
)

// From is where a replay starts: after Position, whose chain value is
// Chain. The zero From is the start of the log.
type From struct {
	Position uint64
	Chain    Sum
}

// Replayed tells where a replay ended.
type Replayed struct {
	Last    uint64 // the last position of the log (From.Position when no record came)
	Chain   Sum    // the chain value at Last: the Prev of the next chunk
	Chunks  int    // the chunks read
	Records int    // the records given to the function
}

// Next is the chunk that follows the replayed log, with records.
func (r Replayed) Next(records [][]byte) Chunk {
	return Chunk{Prev: r.Chain, First: r.Last + 1, Records: records}
}

// chunkNames lists the chunk objects in log order with their first positions.
func chunkNames(ctx context.Context, s Store) ([]string, []uint64, error) {
	names, err := s.List(ctx, ChunkPrefix)
	if err != nil {
		return nil, nil, fmt.Errorf("list chunks: %w", err)
	}
	firsts := make([]uint64, len(names))
	for i, name := range names {
		first, ok := ParseChunkName(name)
		if !ok {
			return nil, nil, &LogError{Object: name, Kind: ErrUnreadable, Detail: "not a chunk name"}
		}
		firsts[i] = first
	}
	return names, firsts, nil
}

// Replay reads the chunks after from.Position in log order and gives
// each record line and its position to fn. It checks that each position
// is the last plus one, each chunk against its checksum, and the chain
// from the chain value of from on. The first problem stops it with a
// *LogError that names the chunk and the position (its Kind is ErrGap,
// ErrRepeat, ErrChecksum, ErrChain or ErrUnreadable); an error of fn
// stops it too, wrapped. The line that fn gets is valid only during the
// call.
func Replay(ctx context.Context, s Store, from From, fn func(line []byte, position uint64) error) (Replayed, error) {
	return replay(ctx, s, from, func(line []byte, pos uint64, _ Sum) error { return fn(line, pos) })
}

// errStop ends a replay early without an error.
var errStop = errors.New("stop")

// ChainAt gives the chain value at position p, replaying from from.
func ChainAt(ctx context.Context, s Store, from From, p uint64) (Sum, error) {
	if p == from.Position {
		return from.Chain, nil
	}
	var at Sum
	found := false
	_, err := replay(ctx, s, from, func(_ []byte, pos uint64, chain Sum) error {
		if pos == p {
			at, found = chain, true
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return Sum{}, fmt.Errorf("chain at %d: %w", p, err)
	}
	if !found {
		return Sum{}, fmt.Errorf("chain at %d: the log has no such position: %w", p, ErrGap)
	}
	return at, nil
}

func replay(ctx context.Context, s Store, from From, fn func(line []byte, position uint64, chain Sum) error) (Replayed, error) {
	names, firsts, err := chunkNames(ctx, s)
	if err != nil {
		return Replayed{}, fmt.Errorf("replay: %w", err)
	}
	r := replayer{from: from, last: from.Position, chain: from.Chain, c: newChainer()}
	// Start at the chunk that holds from.Position when it is still
	// there: its records up to the position are read for the chain only.
	start := sort.Search(len(firsts), func(i int) bool { return firsts[i] > from.Position })
	if start > 0 {
		start--
		r.inside = true
	}
	out := Replayed{}
	for _, name := range names[start:] {
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("replay: %w", err)
		}
		data, err := s.Get(ctx, name)
		if err != nil {
			return out, fmt.Errorf("replay: read %s: %w", name, err)
		}
		n, err := r.chunk(name, data, fn)
		out.Records += n
		if err != nil {
			return out, fmt.Errorf("replay: %w", err)
		}
		out.Chunks++
	}
	if r.inside {
		return out, fmt.Errorf("replay: %w", &LogError{Object: ChunkPrefix, Position: from.Position, Kind: ErrGap,
			Detail: fmt.Sprintf("the log ends at %d, before the start position", r.last)})
	}
	out.Last, out.Chain = r.last, r.chain
	return out, nil
}

// replayer holds the checks of a replay from one chunk to the next.
type replayer struct {
	from    From
	inside  bool // the first chunk holds from.Position: its chain is checked at that position
	started bool // a chunk was read
	last    uint64
	chain   Sum
	c       *chainer
}

// chunk checks one chunk and gives its records after from.Position to fn.
func (r *replayer) chunk(name string, data []byte, fn func([]byte, uint64, Sum) error) (int, error) {
	d, err := decodeChunk(name, data)
	if err != nil {
		return 0, err
	}
	defer func() { r.started = true }()
	if r.inside && !r.started {
		r.last, r.chain = d.First-1, d.Prev
	} else {
		if err := r.follows(name, d.First); err != nil {
			return 0, err
		}
		if d.Prev != r.chain {
			return 0, &LogError{Object: name, Line: 1, Position: d.First, Kind: ErrChain,
				Detail: fmt.Sprintf("the chunk starts after chain value %s, the log before it ends with %s", d.Prev, r.chain)}
		}
	}
	given := 0
	for i, line := range d.lines {
		pos, err := peekPosition(line)
		if err != nil {
			return given, &LogError{Object: name, Line: i + 2, Position: r.last + 1, Kind: ErrUnreadable, Detail: err.Error()}
		}
		if err := r.follows(name, pos); err != nil {
			err.(*LogError).Line = i + 2
			return given, err
		}
		r.last = pos
		r.chain = r.c.next(r.chain, line)
		if r.inside {
			if pos < r.from.Position {
				continue
			}
			r.inside = false
			if r.chain != r.from.Chain {
				return given, &LogError{Object: name, Line: i + 2, Position: pos, Kind: ErrChain,
					Detail: fmt.Sprintf("the chain value here is %s, the start says %s", r.chain, r.from.Chain)}
			}
			continue
		}
		if err := fn(line, pos, r.chain); err != nil {
			return given, fmt.Errorf("%s position %d: %w", name, pos, err)
		}
		given++
	}
	return given, nil
}

// follows checks that pos comes right after the last position.
func (r *replayer) follows(name string, pos uint64) error {
	switch {
	case pos == r.last+1:
		return nil
	case pos > r.last+1:
		return &LogError{Object: name, Position: pos, Kind: ErrGap, Detail: fmt.Sprintf("want position %d", r.last+1)}
	default:
		return &LogError{Object: name, Position: pos, Kind: ErrRepeat, Detail: fmt.Sprintf("want position %d", r.last+1)}
	}
}
