package rifflog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// The log tools (Print, Verify, CutAfter) read a record line by its
// JSON shape, not as the typed record of riffcore/record, and this is
// why. They are for the operator of a log that any build may have
// written: Print shows each line as it stands, and CutAfter names every
// thread that the records it removes touch. A typed record of this build
// cannot say that: record.Decode skips the keys that this build does not
// know, reads a value of a later build as "other" (a reason, a message
// kind, a selector, a scope, a part of a session URI) and keeps a kind
// of a later build as raw JSON (record.Other); and a line that does not
// decode has no typed record at all. So text and touched read the JSON
// of the line, and nothing else of the tools reads a record. The tests
// TestGivenRecordsOfALaterBuild... show what a typed record would lose.

// Print writes the records after position from as text, one line each:
// the position, the time, the cause, the command and the kind of the
// change, then the change as JSON.
func Print(ctx context.Context, s Store, from uint64, w io.Writer) error {
	start, err := startFor(ctx, s, from)
	if err != nil {
		return fmt.Errorf("print: %w", err)
	}
	_, err = Replay(ctx, s, start, func(line []byte, pos uint64) error {
		if pos <= from {
			return nil
		}
		_, err := fmt.Fprintln(w, text(line, pos))
		return err
	})
	if err != nil {
		return fmt.Errorf("print: %w", err)
	}
	return nil
}

// text gives one record as a line of text, from its JSON (see the top
// of this file: the typed record would drop what a later build wrote).
func text(line []byte, pos uint64) string {
	var env struct {
		WrittenAtMs int64                      `json:"written_at_ms"`
		By          json.RawMessage            `json:"by"`
		Command     string                     `json:"command"`
		Change      map[string]json.RawMessage `json:"change"`
	}
	if err := json.Unmarshal(line, &env); err != nil {
		return fmt.Sprintf("%d (does not read: %v) %s", pos, err, line)
	}
	kinds := make([]string, 0, len(env.Change))
	for k := range env.Change {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s", pos, time.UnixMilli(env.WrittenAtMs).UTC().Format(time.RFC3339Nano))
	if len(env.By) > 0 {
		fmt.Fprintf(&b, " by=%s", env.By)
	}
	fmt.Fprintf(&b, " %s", env.Command)
	for _, k := range kinds {
		fmt.Fprintf(&b, " %s %s", k, env.Change[k])
	}
	return b.String()
}

// startFor gives the replay start for a read from position from: the
// newest checkpoint at or before it whose chunks are there, else the
// start of the log.
func startFor(ctx context.Context, s Store, from uint64) (From, error) {
	cs, err := checkpointNames(ctx, s)
	if err != nil {
		return From{}, err
	}
	chunks, firsts, err := chunkNames(ctx, s)
	if err != nil {
		return From{}, err
	}
	if len(chunks) == 0 || firsts[0] == 1 {
		return From{}, nil
	}
	for i := len(cs) - 1; i >= 0; i-- {
		if cs[i].position > from || cs[i].position+1 < firsts[0] {
			continue
		}
		c, err := readCheckpoint(ctx, s, cs[i])
		if err == nil {
			return c.From(), nil
		}
	}
	return From{}, fmt.Errorf("no kept checkpoint at or before %d, and the chunks before %d are gone: %w", from, firsts[0], ErrGap)
}

// Problem is one thing that verify found.
type Problem struct {
	Object   string
	Line     int
	Position uint64
	Err      error
}

func (p Problem) String() string { return p.Err.Error() }

// Verified is the report of Verify.
type Verified struct {
	From        From // where the check started: the oldest kept checkpoint
	Chunks      int
	Records     int
	Checkpoints int
	Problems    []Problem
	// Unchecked holds the chunks after the first chain break, which
	// Verify does not check: Chunks is 0 when there is none.
	Unchecked Unchecked
}

// Unchecked names the chunks that Verify leaves after the first break
// of the chain. A break means that the log before a chunk is not the log
// that the chunk followed (most often a damaged line before it), so no
// later chain value can be checked against the start: one flipped bit
// would otherwise give a break for each later chunk.
type Unchecked struct {
	Chunks                   int
	First, Last              string // the first and last unchecked chunk
	FromPosition, ToPosition uint64 // their positions, as their names say
}

// Verify reads each chunk and each checkpoint from the oldest kept
// checkpoint on (the start of the log when it is there), and names each
// line that does not read, each gap, each repeat, each checksum that
// does not match and the first break of the chain. It goes on after a
// problem: a chunk with a problem is checked line by line, and the next
// chunk is checked from what it says. It stops at the first break of the
// chain, and counts the chunks from there in Unchecked. Each checkpoint
// must read, and its chain value must be the log's at its position.
//
// From the start of the log, missing chunks at or before the oldest kept
// checkpoint are no problem: the chunks there are behind every kept
// checkpoint, the ones that a prune deletes (a crash in the prune of the
// directory store can bring back some of them, and not others). Then the
// check starts at that checkpoint, and From says so. A gap inside a
// chunk, or after that checkpoint, is a problem as ever.
func Verify(ctx context.Context, s Store) (Verified, error) {
	var v Verified
	cs, err := checkpointNames(ctx, s)
	if err != nil {
		return v, fmt.Errorf("verify: %w", err)
	}
	chunks, firsts, err := chunkNames(ctx, s)
	if err != nil {
		return v, fmt.Errorf("verify: %w", err)
	}
	var cpProblems []Problem
	checkpoints := map[uint64][]Checkpoint{}
	for _, c := range cs {
		v.Checkpoints++
		cp, err := readCheckpoint(ctx, s, c)
		if err != nil {
			cpProblems = append(cpProblems, problemOf(err))
			continue
		}
		checkpoints[cp.Position] = append(checkpoints[cp.Position], cp)
	}
	var oldest *Checkpoint
	for _, c := range cs {
		if cps := checkpoints[c.position]; len(cps) > 0 {
			oldest = &cps[0]
			break
		}
	}
	from := From{}
	if len(chunks) > 0 && firsts[0] != 1 && oldest != nil {
		// The start of the log is gone: start at the oldest kept checkpoint.
		from = oldest.From()
	}
	w, err := verifyChunks(ctx, s, chunks, firsts, checkpoints, from)
	if err != nil {
		return v, err
	}
	if from.Position == 0 && oldest != nil && w.gapBy(oldest.Position) {
		if w, err = verifyChunks(ctx, s, chunks, firsts, checkpoints, oldest.From()); err != nil {
			return v, err
		}
	}
	v.From, v.Chunks, v.Records, v.Unchecked = w.from, w.chunks, w.records, w.unchecked
	v.Problems = append(cpProblems, w.problems...)
	return v, nil
}

// problemOf makes the Problem of an error, with the place that a
// *LogError names.
func problemOf(err error) Problem {
	var le *LogError
	p := Problem{Err: err}
	if errors.As(err, &le) {
		p.Object, p.Line, p.Position = le.Object, le.Line, le.Position
	}
	return p
}

// chunksVerified is what verifyChunks found.
type chunksVerified struct {
	from            From
	chunks, records int
	problems        []Problem
	unchecked       Unchecked
}

// gapBy says whether chunks are missing whose positions are all at or
// before position: a gap at the start of a chunk (not inside one) whose
// missing positions end by position.
func (w chunksVerified) gapBy(position uint64) bool {
	for _, p := range w.problems {
		if errors.Is(p.Err, ErrGap) && p.Line == 0 && p.Position <= position+1 {
			return true
		}
	}
	return false
}

// verifyChunks checks the chunks from a position on, and the chain value
// of each checkpoint that it passes.
func verifyChunks(ctx context.Context, s Store, chunks []string, firsts []uint64, checkpoints map[uint64][]Checkpoint, from From) (chunksVerified, error) {
	w := chunksVerified{from: from}
	add := func(err error) { w.problems = append(w.problems, problemOf(err)) }
	r := replayer{from: from, last: from.Position, chain: from.Chain, c: newChainer()}
	start, inside := startChunk(firsts, from.Position)
	r.inside = inside
	for i, name := range chunks[start:] {
		data, err := s.Get(ctx, name)
		if err != nil {
			return w, fmt.Errorf("verify: %w", err)
		}
		w.chunks++
		n, err := r.chunk(name, data, func(line []byte, pos uint64, chain Sum) error {
			if !json.Valid(line) {
				add(&LogError{Object: name, Position: pos, Kind: ErrUnreadable, Detail: "the record is not JSON"})
			}
			for _, cp := range checkpoints[pos] {
				if cp.Chain != chain {
					add(&LogError{Object: CheckpointName(cp.Position, cp.WrittenAtMs), Position: pos, Kind: ErrChain, Detail: "the checkpoint's chain value is not the log's"})
				}
			}
			return nil
		})
		w.records += n
		r.started = true
		if err == nil {
			continue
		}
		add(err)
		if errors.Is(err, ErrChain) {
			// Past a break no chain value can be checked: name the
			// chunks left, from this one, and stop.
			left := chunks[start+i:]
			w.chunks--
			w.unchecked = Unchecked{Chunks: len(left), First: left[0], Last: left[len(left)-1],
				FromPosition: firsts[start+i], ToPosition: lastPosition(ctx, s, left[len(left)-1], firsts[len(firsts)-1])}
			break
		}
		// Go on: check the lines of this chunk one by one, then take
		// the next chunk from what it says.
		lines, last, chain := salvage(name, data, &r, add)
		w.records += lines
		r.last, r.chain, r.inside = last, chain, false
	}
	return w, nil
}

// lastPosition gives the last position of a chunk as its header says, or
// its first position when the header does not read.
func lastPosition(ctx context.Context, s Store, name string, first uint64) uint64 {
	data, err := s.Get(ctx, name)
	if err != nil {
		return first
	}
	head, _, _ := bytes.Cut(data, []byte("\n"))
	var h struct {
		Count uint64 `json:"count"`
	}
	if json.Unmarshal(head, &h) != nil || h.Count == 0 {
		return first
	}
	return first + h.Count - 1
}

// salvage checks each line of a chunk that did not pass, names each one
// that does not read and each gap and repeat, and gives the position and
// chain value to go on from.
func salvage(name string, data []byte, r *replayer, add func(error)) (int, uint64, Sum) {
	last, chain := r.last, r.chain
	body := data
	if nl := bytes.IndexByte(data, '\n'); nl >= 0 {
		body = data[nl+1:]
	}
	n := 0
	for i, line := range bytes.Split(bytes.TrimSuffix(body, []byte("\n")), []byte("\n")) {
		pos, err := peekPosition(line)
		if err != nil || !json.Valid(line) {
			add(&LogError{Object: name, Line: i + 2, Position: last + 1, Kind: ErrUnreadable, Detail: "the line does not read"})
			last++
			continue
		}
		switch {
		case pos > last+1:
			add(&LogError{Object: name, Line: i + 2, Position: pos, Kind: ErrGap, Detail: fmt.Sprintf("want position %d", last+1)})
		case pos <= last:
			add(&LogError{Object: name, Line: i + 2, Position: pos, Kind: ErrRepeat, Detail: fmt.Sprintf("want position %d", last+1)})
		}
		last = pos
		chain = r.c.next(chain, line)
		n++
	}
	return n, last, chain
}

// Cut is the plan, or the report, of a cut.
type Cut struct {
	After     uint64
	Removed   [][]byte // the record lines after the position, in order
	Threads   []string // the threads those records touch
	Delete    []string // the objects the cut deletes
	Rewrite   string   // the chunk that the cut writes again with its first records ("" none)
	Done      bool     // the cut was made (yes)
	Rewritten Written  // the proof of the rewritten chunk
}

// CutAfter removes each record after position after: it deletes each
// checkpoint and each chunk after it, and writes the chunk that holds it
// again with only its records up to it. Without yes it changes nothing
// and gives the plan. It refuses (ErrLeaseHeld) while a server holds the
// lease at now, and refuses (ErrGap) a position before the oldest kept
// checkpoint when the chunks before it are gone.
//
// The order keeps a crash safe up to the rewrite: checkpoints first,
// then chunks from the newest; the rewrite deletes the chunk and puts
// it again, and a crash between the two leaves the log ending before
// that chunk (its records are in Removed and in the old object's
// versions of a bucket).
func CutAfter(ctx context.Context, s Store, after uint64, yes bool, now time.Time) (Cut, error) {
	c := Cut{After: after}
	if r, _, ok, err := ReadLease(ctx, s); err != nil {
		return c, fmt.Errorf("cut: %w", err)
	} else if ok && r.Holds(now) {
		return c, fmt.Errorf("cut: instance %s holds the lease: %w", r.Instance, ErrLeaseHeld)
	}
	start, err := startFor(ctx, s, after)
	if err != nil {
		return c, fmt.Errorf("cut: %w", err)
	}
	// Read the log from the start, and keep the records up to the
	// position for the rewrite and the ones after it for the report.
	var keep [][]byte
	var keepFirst, holder uint64
	var prev Sum
	chunks, firsts, err := chunkNames(ctx, s)
	if err != nil {
		return c, fmt.Errorf("cut: %w", err)
	}
	threads := map[string]bool{}
	_, err = Replay(ctx, s, start, func(line []byte, pos uint64) error {
		if pos <= after {
			return nil
		}
		c.Removed = append(c.Removed, bytes.Clone(line))
		touched(line, threads)
		return nil
	})
	if err != nil {
		return c, fmt.Errorf("cut: %w", err)
	}
	if after > start.Position {
		if _, err := ChainAt(ctx, s, start, after); err != nil {
			return c, fmt.Errorf("cut: %w", err)
		}
	}
	i := sort.Search(len(firsts), func(i int) bool { return firsts[i] > after })
	if i > 0 && len(c.Removed) > 0 && firsts[i-1] <= after {
		// The chunk that holds the position has records after it.
		holder = firsts[i-1]
		data, err := s.Get(ctx, chunks[i-1])
		if err != nil {
			return c, fmt.Errorf("cut: %w", err)
		}
		d, err := decodeChunk(chunks[i-1], data)
		if err != nil {
			return c, fmt.Errorf("cut: %w", err)
		}
		if d.First+uint64(len(d.lines))-1 > after {
			keepFirst, prev = d.First, d.Prev
			for _, l := range d.lines[:after-d.First+1] {
				keep = append(keep, bytes.Clone(l))
			}
			c.Rewrite = chunks[i-1]
		}
	}
	cps, err := checkpointNames(ctx, s)
	if err != nil {
		return c, fmt.Errorf("cut: %w", err)
	}
	for _, cp := range cps {
		if cp.position > after {
			c.Delete = append(c.Delete, cp.name)
		}
	}
	for j := len(chunks) - 1; j >= i; j-- {
		c.Delete = append(c.Delete, chunks[j])
	}
	for t := range threads {
		c.Threads = append(c.Threads, t)
	}
	sort.Strings(c.Threads)
	if !yes {
		return c, nil
	}
	for _, name := range c.Delete {
		if err := s.Delete(ctx, name); err != nil {
			return c, fmt.Errorf("cut: %w", err)
		}
	}
	if c.Rewrite != "" {
		if err := s.Delete(ctx, c.Rewrite); err != nil {
			return c, fmt.Errorf("cut: %w", err)
		}
		w, err := Write(ctx, s, Chunk{Prev: prev, First: keepFirst, Records: keep})
		if err != nil {
			return c, fmt.Errorf("cut: rewrite %s: %w", ChunkName(holder), err)
		}
		c.Rewritten = w
	}
	c.Done = true
	return c, nil
}

// touched adds the value of each "thread" key in a record to threads,
// from its JSON (see the top of this file: a kind of a later build has
// no type here, and its threads count too).
func touched(line []byte, threads map[string]bool) {
	var v any
	if json.Unmarshal(line, &v) != nil {
		return
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "thread" {
					threads[s] = true
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
}
