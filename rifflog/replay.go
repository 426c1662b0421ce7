package rifflog

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
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
//
// Replay reads and checks the chunks ahead of fn on goroutines of its
// own (see [ReplayDecoded]); fn runs on the goroutine of the caller, once
// a line, in log order, and only after every check of the log up to its
// line passed.
func Replay(ctx context.Context, s Store, from From, fn func(line []byte, position uint64) error) (Replayed, error) {
	return replay(ctx, s, from, func(line []byte, _ uint64, _ Sum) ([]byte, error) { return line, nil }, fn, chainInCheck)
}

// ReplayDecoded is [Replay] with a decode step that runs ahead of apply:
// one goroutine reads the chunks (the file, the header, the checksum,
// the chain value of each line), a second checks the positions and the
// chain and gives each record line to decode, and apply gets each value
// on the goroutine of the caller, in log order. A replay stops at the first problem in log order, with
// the same error as Replay with a function that decodes and applies: a
// check of a line, then its decode, then its apply. decode must not keep
// the line; it runs on another goroutine than apply, so the two share
// nothing but the values. Each goroutine has ended when ReplayDecoded
// returns.
func ReplayDecoded[T any](ctx context.Context, s Store, from From, decode func(line []byte, position uint64) (T, error), apply func(v T, position uint64) error) (Replayed, error) {
	return replay(ctx, s, from, func(line []byte, pos uint64, _ Sum) (T, error) { return decode(line, pos) }, apply, chainInRead)
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
	_, err := replay(ctx, s, from, func(_ []byte, _ uint64, chain Sum) (Sum, error) { return chain, nil },
		func(chain Sum, pos uint64) error {
			if pos == p {
				at, found = chain, true
				return errStop
			}
			return nil
		}, chainInCheck)
	if err != nil && !errors.Is(err, errStop) {
		return Sum{}, fmt.Errorf("chain at %d: %w", p, err)
	}
	if !found {
		return Sum{}, fmt.Errorf("chain at %d: the log has no such position: %w", p, ErrGap)
	}
	return at, nil
}

// A stage of a replay hands the next one batches of whole chunks of at
// least batchRecords records (fewer at the end of the log or at an
// error): one hand-over between goroutines for a few hundred records,
// not one for each chunk. Each stage runs at most ahead batches before
// the next one.
const (
	batchRecords = 512
	ahead        = 2
)

// freeBuffers is the most arrays of read chunks that a replay keeps for
// its next chunks: the apply stage gives back the arrays of each chunk
// that it applied (its bytes, on a store that reads into a buffer
// ([Appender]), its lines and their chain values to the read stage, its
// values to the check stage), and each stage takes them for a chunk, or
// makes new ones when none are free. So a replay allocates them for
// the chunks in its stages at once, not for each chunk of the log. A
// batch has at most batchRecords chunks (of a record or more each), and
// at most 2*ahead+3 batches are in the stages at once (ahead in each
// channel, one in each stage): so free holds the arrays of each chunk
// that can be in the stages.
const freeBuffers = (2*ahead + 3) * batchRecords

// spentChunk holds the arrays of a chunk that was applied, for the read
// of a later one; nothing reads them any more.
type spentChunk struct {
	buf    []byte   // the bytes of the chunk (nil when the store does not read into a buffer)
	lines  [][]byte // the lines, which the read stage clears before it reuses them
	chains []Sum
}

// readChunk is a chunk that the reader stage read and checked against
// its header and checksum, or the error that stopped it.
type readChunk struct {
	name string
	d    decodedChunk
	buf  []byte // the bytes of the chunk, which d's lines share
	err  error  // already in the form of the replay's error
}

// checkedChunk holds the values of the records of one chunk, after the
// check of their positions and chain and their decode; err is the first
// problem in the chunk, after the values.
type checkedChunk[T any] struct {
	name  string
	first uint64 // the position of vals[0]
	vals  []T
	// The arrays of the chunk (its bytes, its lines, their chain
	// values), free once vals are applied.
	buf    []byte
	lines  [][]byte
	chains []Sum
	err    error // already in the form of the replay's error
}

// chainAt says which stage of a replay hashes the chain value of each
// line: the read stage when the check stage decodes (ReplayDecoded),
// the check stage when it does nothing else (Replay, ChainAt), so that
// the work of the two goroutines is about the same either way.
type chainAt bool

const (
	chainInRead  chainAt = true
	chainInCheck chainAt = false
)

// replay runs a replay as a pipeline of three stages, each in log order:
//
//   - read (a goroutine): the file, the header and the checksum of each
//     chunk, and the chain value after each of its lines from the Prev
//     of its header;
//   - check (a goroutine): the positions of each line, the Prev of each
//     chunk against the chain value of the log before it (so the chain
//     of each line), and decode of each line that comes after from;
//   - apply (the goroutine of the caller): apply of each value.
//
// A stage that meets a problem passes on what came before it and the
// error, and stops; the apply stage returns the first error it meets,
// which is the first one in log order, so the replay gives the error
// that a replay of one chunk after the other would give. Both goroutines
// have ended when replay returns.
func replay[T any](ctx context.Context, s Store, from From, decode func(line []byte, position uint64, chain Sum) (T, error), apply func(v T, position uint64) error, chain chainAt) (Replayed, error) {
	names, firsts, err := chunkNames(ctx, s)
	if err != nil {
		return Replayed{}, fmt.Errorf("replay: %w", err)
	}
	r := replayer{from: from, last: from.Position, chain: from.Chain, c: newChainer()}
	start, inside := startChunk(firsts, from.Position)
	r.inside = inside
	names = names[start:]

	pipe, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		stop()
		wg.Wait()
	}()
	read := make(chan []readChunk, ahead)
	checked := make(chan []checkedChunk[T], ahead)
	// A buffer is owned by the stage that holds its chunk, then by free.
	free := make(chan spentChunk, freeBuffers)
	freeVals := make(chan []T, freeBuffers)
	wg.Go(func() { readChunks(ctx, pipe, s, names, read, free, chain) })
	// The check stage owns r until it ends; the apply stage reads r
	// only after checked is closed.
	wg.Go(func() { checkChunks(pipe, &r, decode, read, checked, freeVals) })
	out, err := applyChunks(checked, apply, free, freeVals)
	if err != nil {
		return out, err
	}
	// checked is closed, after the last write of the check stage to r.
	// A stage stops early with no error only when ctx ends.
	if out.Chunks != len(names) {
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("replay: %w", err)
		}
		return out, fmt.Errorf("replay: the chunks ended early (%d of %d read)", out.Chunks, len(names))
	}
	if r.inside {
		return out, fmt.Errorf("replay: %w", &LogError{Object: ChunkPrefix, Position: from.Position, Kind: ErrGap,
			Detail: fmt.Sprintf("the log ends at %d, before the start position", r.last)})
	}
	out.Last, out.Chain = r.last, r.chain
	return out, nil
}

// readChunks is the read stage of a replay: it reads and decodes the
// chunks names in order, and sends them on read in batches of about
// batchRecords records. A chunk that does not read ends the stage after
// its batch, with its error in it; the end of ctx too. pipe ends when
// the replay ends. Each chunk takes the arrays of a spent one from free
// when one is there: on a store that reads into a buffer ([Appender]),
// the chunk is read into its bytes.
func readChunks(ctx, pipe context.Context, s Store, names []string, read chan<- []readChunk, free <-chan spentChunk, chain chainAt) {
	defer close(read)
	var batch []readChunk
	n := 0
	chains := newChainer()
	appender, _ := s.(Appender)
	get := func(name string, buf []byte) ([]byte, error) {
		if appender == nil {
			return s.Get(pipe, name)
		}
		return appender.GetAppend(pipe, name, buf[:0])
	}
	for i, name := range names {
		c := readChunk{name: name}
		var spent spentChunk
		select {
		case spent = <-free:
			clear(spent.lines)
		default:
		}
		if err := ctx.Err(); err != nil {
			c.err = fmt.Errorf("replay: %w", err)
		} else if c.buf, err = get(name, spent.buf); err != nil {
			c.err = fmt.Errorf("replay: read %s: %w", name, err)
		} else if c.d, err = decodeChunkInto(name, c.buf, spent.lines); err != nil {
			c.err = fmt.Errorf("replay: %w", err)
		} else if chain == chainInRead {
			c.d.chainLines(chains, spent.chains)
		}
		batch = append(batch, c)
		n += len(c.d.lines)
		if n < batchRecords && c.err == nil && i < len(names)-1 {
			continue
		}
		select {
		case read <- batch:
		case <-pipe.Done():
			return
		}
		if c.err != nil {
			return
		}
		batch, n = nil, 0
	}
}

// checkChunks is the check stage of a replay: it checks each chunk that
// comes on read against the one before it (r: positions, chain) and
// decodes its records, and sends them on checked. The first error ends
// the stage after its batch, with the error in it. The values of each
// chunk go in an array from freeVals when one is there.
func checkChunks[T any](pipe context.Context, r *replayer, decode func(line []byte, position uint64, chain Sum) (T, error), read <-chan []readChunk, checked chan<- []checkedChunk[T], freeVals <-chan []T) {
	defer close(checked)
	for batch := range read {
		outs := make([]checkedChunk[T], 0, len(batch))
		var stopped error
		for _, c := range batch {
			var vals []T
			select {
			case vals = <-freeVals:
			default:
			}
			out := checkChunk(r, c, decode, vals)
			outs = append(outs, out)
			if stopped = out.err; stopped != nil {
				break
			}
		}
		select {
		case checked <- outs:
		case <-pipe.Done():
			return
		}
		if stopped != nil {
			return
		}
	}
}

// checkChunk checks one chunk that was read and decodes its records
// after the start position, into vals when it is long enough.
func checkChunk[T any](r *replayer, c readChunk, decode func(line []byte, position uint64, chain Sum) (T, error), vals []T) checkedChunk[T] {
	out := checkedChunk[T]{name: c.name, buf: c.buf, lines: c.d.lines, chains: c.d.chains, err: c.err}
	if c.err != nil {
		return out
	}
	if cap(vals) < len(c.d.lines) {
		vals = make([]T, 0, len(c.d.lines))
	}
	out.vals = vals[:0]
	_, err := r.lines(c.name, c.d, func(line []byte, pos uint64, chain Sum) error {
		v, err := decode(line, pos, chain)
		if err != nil {
			return err
		}
		if len(out.vals) == 0 {
			out.first = pos
		}
		out.vals = append(out.vals, v)
		return nil
	})
	if err != nil {
		out.err = fmt.Errorf("replay: %w", err)
	}
	return out
}

// applyChunks is the apply stage of a replay, on the goroutine of the
// caller: it applies each checked record in order and counts the
// records and the chunks. It stops at the first error, of apply or of
// a chunk. The arrays of each chunk whose values it applied go to free,
// and its values, cleared, to freeVals, for a chunk after it: neither
// decode nor apply keeps a line, and apply gets each value as a copy.
func applyChunks[T any](checked <-chan []checkedChunk[T], apply func(v T, position uint64) error, free chan<- spentChunk, freeVals chan<- []T) (Replayed, error) {
	out := Replayed{}
	for batch := range checked {
		for _, c := range batch {
			for i, v := range c.vals {
				pos := c.first + uint64(i)
				if err := apply(v, pos); err != nil {
					return out, fmt.Errorf("replay: %w", fmt.Errorf("%s position %d: %w", c.name, pos, err))
				}
				out.Records++
			}
			if c.err != nil {
				return out, c.err
			}
			out.Chunks++
			select {
			case free <- spentChunk{buf: c.buf, lines: c.lines, chains: c.chains}:
			default:
			}
			clear(c.vals)
			select {
			case freeVals <- c.vals:
			default:
			}
		}
	}
	return out, nil
}

// startChunk gives the first chunk that a replay from position reads.
// When a chunk starts right after position, it is that chunk: the Prev
// of its header is checked against the chain value of the start, and
// the chunks before it are not read (a crash in a prune can leave some
// older ones and not others). Otherwise it is the chunk that holds
// position (inside): its records up to position are read for the chain
// only, and the chain value there is checked.
func startChunk(firsts []uint64, position uint64) (start int, inside bool) {
	start = sort.Search(len(firsts), func(i int) bool { return firsts[i] > position })
	if start < len(firsts) && firsts[start] == position+1 {
		return start, false
	}
	if start > 0 {
		return start - 1, true
	}
	return start, false
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
	return r.lines(name, d, fn)
}

// lines checks the lines of a chunk whose header and checksum are
// checked, and gives its records after from.Position to fn.
func (r *replayer) lines(name string, d decodedChunk, fn func([]byte, uint64, Sum) error) (int, error) {
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
		if d.chains != nil {
			r.chain = d.chains[i] // from d.Prev, which is r.chain at the first line (checked above)
		} else {
			r.chain = r.c.next(r.chain, line)
		}
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
