package rifflog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// FormatVersion is the version of the chunk format that this package
// writes and reads.
const FormatVersion = 1

// Sum is a SHA-256 checksum: of the record lines of a chunk, or a value
// of the chain of the log.
//
// The chain value at position n is sha256(chain(n-1) || line n), with
// the zero Sum before position 1 and the line without its newline. A
// chunk header names the chain value before its first record; a
// checkpoint names the chain value at its position. So the chain is
// checked from any position on, and a cut inside a chunk keeps it.
type Sum [sha256.Size]byte

// String gives the Sum as 64 lowercase hex digits.
func (s Sum) String() string { return hex.EncodeToString(s[:]) }

// MarshalText gives the Sum as 64 lowercase hex digits.
func (s Sum) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads exactly 64 lowercase hex digits.
func (s *Sum) UnmarshalText(b []byte) error {
	if len(b) != 2*len(s) {
		return fmt.Errorf("read checksum: %d digits, want %d", len(b), 2*len(s))
	}
	for _, c := range b {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return fmt.Errorf("read checksum: %q is not a lowercase hex digit", c)
		}
	}
	_, err := hex.Decode(s[:], b)
	return err
}

// chainer computes chain values without an allocation per record: the
// chain value before a record and its line go into one reused buffer,
// hashed by sha256.Sum256, whose result stays on the stack (a
// hash.Hash's Sum gave one allocation a record; the time is the same).
type chainer struct {
	buf []byte
}

func newChainer() *chainer { return &chainer{} }

func (c *chainer) next(prev Sum, line []byte) Sum {
	c.buf = append(append(c.buf[:0], prev[:]...), line...)
	return sha256.Sum256(c.buf)
}

// header is the first line of a chunk.
type header struct {
	Format int    `json:"format"`
	First  uint64 `json:"first"`
	Count  int    `json:"count"`
	Sum    Sum    `json:"sum"`
	Prev   Sum    `json:"prev"`
}

// The canonical form of a header is what encoding/json gives for it:
// {"format":F,"first":N,"count":C,"sum":"HEX","prev":"HEX"}. append
// writes it and readCanonicalHeader reads only it, each with no
// reflection; TestHeaderAppendIsJSONMarshal and
// FuzzReadCanonicalHeaderAgreesWithJSON hold both to encoding/json.
const (
	headerFormat = `{"format":`
	headerFirst  = `,"first":`
	headerCount  = `,"count":`
	headerSum    = `,"sum":"`
	headerPrev   = `","prev":"`
	headerEnd    = `"}`
	// headerMaxLen is the longest header: each number at its longest.
	headerMaxLen = len(headerFormat) + 20 + len(headerFirst) + 20 + len(headerCount) + 20 +
		len(headerSum) + 2*sha256.Size + len(headerPrev) + 2*sha256.Size + len(headerEnd)
)

// append appends the canonical form of h, the bytes of json.Marshal(h).
func (h header) append(b []byte) []byte {
	b = append(b, headerFormat...)
	b = strconv.AppendInt(b, int64(h.Format), 10)
	b = append(b, headerFirst...)
	b = strconv.AppendUint(b, h.First, 10)
	b = append(b, headerCount...)
	b = strconv.AppendInt(b, int64(h.Count), 10)
	b = append(b, headerSum...)
	b = hex.AppendEncode(b, h.Sum[:])
	b = append(b, headerPrev...)
	b = hex.AppendEncode(b, h.Prev[:])
	return append(b, headerEnd...)
}

// readCanonicalHeader reads a header line in its canonical form; ok is
// false for each other line (which may still be a header that
// encoding/json reads, in another form, or none).
func readCanonicalHeader(line []byte) (h header, ok bool) {
	rest := line
	field := func(prefix string) bool {
		var cut bool
		rest, cut = bytes.CutPrefix(rest, []byte(prefix))
		return cut
	}
	digits := func() (string, bool) {
		end := 0
		if end < len(rest) && rest[end] == '-' {
			end++
		}
		for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
			end++
		}
		d := string(rest[:end])
		rest = rest[end:]
		return d, d != ""
	}
	sum := func(s *Sum) bool {
		if len(rest) < 2*len(s) || s.UnmarshalText(rest[:2*len(s)]) != nil {
			return false
		}
		rest = rest[2*len(s):]
		return true
	}
	var format, first, count string
	if !field(headerFormat) {
		return header{}, false
	}
	if format, ok = digits(); !ok || !field(headerFirst) {
		return header{}, false
	}
	if first, ok = digits(); !ok || !field(headerCount) {
		return header{}, false
	}
	if count, ok = digits(); !ok || !field(headerSum) || !sum(&h.Sum) || !field(headerPrev) || !sum(&h.Prev) || !field(headerEnd) || len(rest) != 0 {
		return header{}, false
	}
	f, err1 := strconv.Atoi(format)
	n, err2 := strconv.ParseUint(first, 10, 64)
	c, err3 := strconv.Atoi(count)
	if err1 != nil || err2 != nil || err3 != nil {
		return header{}, false
	}
	h.Format, h.First, h.Count = f, n, c
	// The numbers must be written as encoding/json writes them (no
	// leading zero, no "-0"): the line is the header's own form.
	if !bytes.Equal(h.append(make([]byte, 0, headerMaxLen)), line) {
		return header{}, false
	}
	return h, true
}

// The kinds of a [LogError]; test them with errors.Is.
var (
	// ErrGap: a position is missing.
	ErrGap = errors.New("gap")
	// ErrRepeat: a position comes again, or goes back.
	ErrRepeat = errors.New("repeat")
	// ErrChecksum: the record lines do not match the checksum of their header.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrChain: the chain value before a chunk is not the value at the
	// end of the log before it (or of the checkpoint it starts from).
	ErrChain = errors.New("chain break")
	// ErrUnreadable: a header or a line does not read.
	ErrUnreadable = errors.New("does not read")
	// ErrInvalid: a chunk or a checkpoint given to a write breaks the format.
	ErrInvalid = errors.New("invalid")
)

// LogError names the object and the position where a log goes wrong.
type LogError struct {
	Object   string // the object name
	Line     int    // the line in the object (1 is the header), 0 when not known
	Position uint64 // the position of the record, 0 when not known
	Kind     error  // ErrGap, ErrRepeat, ErrChecksum, ErrChain or ErrUnreadable
	Detail   string
}

func (e *LogError) Error() string {
	var b bytes.Buffer
	b.WriteString(e.Object)
	if e.Line > 0 {
		fmt.Fprintf(&b, " line %d", e.Line)
	}
	if e.Position > 0 {
		fmt.Fprintf(&b, " position %d", e.Position)
	}
	b.WriteString(": ")
	b.WriteString(e.Kind.Error())
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	return b.String()
}

func (e *LogError) Unwrap() error { return e.Kind }

// encodeChunk gives the bytes of a chunk and the chain value after it.
// The records must be checked. The records go once into one buffer, after
// room for the longest header; the header, known only with the sum of the
// records, then goes in at the end of that room.
func encodeChunk(prev Sum, first uint64, records [][]byte) ([]byte, Sum) {
	size := 0
	for _, r := range records {
		size += len(r) + 1
	}
	out := make([]byte, headerMaxLen+1, headerMaxLen+1+size)
	c := newChainer()
	chain := prev
	for _, r := range records {
		out = append(out, r...)
		out = append(out, '\n')
		chain = c.next(chain, r)
	}
	h := header{Format: FormatVersion, First: first, Count: len(records), Sum: sha256.Sum256(out[headerMaxLen+1:]), Prev: prev}
	var line [headerMaxLen]byte
	head := h.append(line[:0])
	start := headerMaxLen - len(head)
	copy(out[start:], head)
	out[headerMaxLen] = '\n'
	return out[start:], chain
}

// decodedChunk is a chunk whose header and checksum are checked.
type decodedChunk struct {
	header
	lines [][]byte // each record line without its newline, sharing the bytes
	// chains, when not nil, holds the chain value after each line, from
	// the Prev of the header: the read stage of a replay hashes them
	// (chainLines), so that the check stage, which the decode of each
	// record keeps busy, only compares them.
	chains []Sum
}

// chainLines gives d the chain value after each of its lines, from the
// Prev of its header: the values that a replay that reached the chunk
// with the chain value Prev gives its lines. A replay that reaches it
// with another chain value stops at the chunk's header (ErrChain), so
// the values are used only where they are right.
// They go in chains when it is long enough (a replay gives back the
// chains of each chunk that it applied), else in a new array.
func (d *decodedChunk) chainLines(c *chainer, chains []Sum) {
	if cap(chains) < len(d.lines) {
		chains = make([]Sum, len(d.lines))
	}
	d.chains = chains[:len(d.lines)]
	chain := d.Prev
	for i, line := range d.lines {
		chain = c.next(chain, line)
		d.chains[i] = chain
	}
}

// decodeChunk reads the header of a chunk, checks that it is in its one
// canonical form, and checks the records against the count and the
// checksum. It does not read the records' positions.
func decodeChunk(name string, data []byte) (decodedChunk, error) {
	return decodeChunkInto(name, data, nil)
}

// decodeChunkInto is decodeChunk with the array of lines when it is
// long enough: a replay gives back the lines of each chunk it applied.
func decodeChunkInto(name string, data []byte, lines [][]byte) (decodedChunk, error) {
	bad := func(line int, format string, args ...any) (decodedChunk, error) {
		return decodedChunk{}, &LogError{Object: name, Line: line, Kind: ErrUnreadable, Detail: fmt.Sprintf(format, args...)}
	}
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		return bad(1, "no header line")
	}
	h, ok := readCanonicalHeader(data[:nl])
	if !ok {
		// Not the canonical form: encoding/json says what is wrong.
		// (Into a header of its own: the one of the canonical form stays
		// on the stack.)
		var read header
		dec := json.NewDecoder(bytes.NewReader(data[:nl]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&read); err != nil {
			return bad(1, "header: %v", err)
		}
		// encoding/json matches keys without case and skips spaces: only
		// the one canonical form is a header, so no flipped bit reads.
		if canon, _ := json.Marshal(read); !bytes.Equal(canon, data[:nl]) {
			return bad(1, "header is not in its canonical form")
		}
		h = read
	}
	if h.Format != FormatVersion {
		return bad(1, "format %d, this build reads format %d", h.Format, FormatVersion)
	}
	if first, ok := ParseChunkName(name); ok && first != h.First {
		return bad(1, "header says first position %d, the name says %d", h.First, first)
	}
	body := data[nl+1:]
	if sha256.Sum256(body) != h.Sum {
		return decodedChunk{}, &LogError{Object: name, Position: h.First, Kind: ErrChecksum, Detail: "the record lines do not match the checksum of the header"}
	}
	if len(body) > 0 && body[len(body)-1] != '\n' {
		return bad(0, "the last line has no newline")
	}
	if cap(lines) < h.Count {
		lines = make([][]byte, 0, h.Count)
	}
	d := decodedChunk{header: h, lines: lines[:0]}
	for len(body) > 0 {
		i := bytes.IndexByte(body, '\n')
		d.lines = append(d.lines, body[:i:i])
		body = body[i+1:]
	}
	if len(d.lines) != h.Count {
		return bad(0, "%d record lines, the header says %d", len(d.lines), h.Count)
	}
	return d, nil
}

const positionPrefix = `{"position":`

// peekPosition reads the position of a record line. The fast path reads
// an envelope that starts with {"position":N; any other order of keys
// goes through encoding/json.
func peekPosition(line []byte) (uint64, error) {
	if rest, ok := bytes.CutPrefix(line, []byte(positionPrefix)); ok {
		end := 0
		for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
			end++
		}
		if end > 0 && end < len(rest) && (rest[end] == ',' || rest[end] == '}') && (end == 1 || rest[0] != '0') {
			if n, err := strconv.ParseUint(string(rest[:end]), 10, 64); err == nil {
				return n, nil
			}
		}
	}
	var env struct {
		Position *uint64 `json:"position"`
	}
	if err := json.Unmarshal(line, &env); err != nil {
		return 0, fmt.Errorf("read position: %w", err)
	}
	if env.Position == nil {
		return 0, errors.New("read position: no position")
	}
	return *env.Position, nil
}
