package rifflog

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// ErrNoCheckpoint: the store holds no checkpoint; a start replays the
// log from its first position.
var ErrNoCheckpoint = errors.New("no checkpoint")

// Checkpoint is the state that the log gives up to Position, as an object.
type Checkpoint struct {
	Position    uint64 `json:"position"`
	WrittenAtMs int64  `json:"written_at_ms"`
	// Build is the version of the build that wrote it (MAJOR.MINOR.PATCH).
	Build string `json:"build"`
	// Chain is the chain value of the log at Position: the chain is
	// checked from here on.
	Chain Sum `json:"chain"`
	// StateSum is the SHA-256 of State; WriteCheckpoint sets it.
	StateSum Sum `json:"state_sum"`
	// State is the encoded state; riffstate encodes and decodes it.
	State json.RawMessage `json:"state"`
}

// From is where a replay after the checkpoint starts.
func (c Checkpoint) From() From { return From{Position: c.Position, Chain: c.Chain} }

// CheckpointAt gives a checkpoint at the end of a write: its position
// and chain value come from the proof.
func CheckpointAt(w Written, atMs int64, build string, state json.RawMessage) Checkpoint {
	return Checkpoint{Position: w.Last(), WrittenAtMs: atMs, Build: build, Chain: w.Chain(), State: state}
}

// WriteCheckpoint writes c as a new object (create-only) and returns its
// name. State must be valid JSON.
func WriteCheckpoint(ctx context.Context, s Store, c Checkpoint) (string, error) {
	o, err := EncodeCheckpoint(c)
	if err != nil {
		return "", err
	}
	return o.Name, o.Put(ctx, s)
}

// CheckpointObject is a checkpoint encoded as the object that a store
// keeps: its name and its bytes, with the newline of the object.
type CheckpointObject struct {
	Name string
	Data []byte
}

// Put writes the object (create-only).
func (o CheckpointObject) Put(ctx context.Context, s Store) error {
	if err := s.Put(ctx, o.Name, o.Data); err != nil {
		return fmt.Errorf("write %s: %w", o.Name, err)
	}
	return nil
}

// EncodeCheckpoint gives the object of c that [WriteCheckpoint] writes,
// and writes nothing: its checks, the sum of its state and its bytes
// are CPU alone, which a caller may run apart from the write (the
// engine runs them at the lowest priority, and the write at that of
// the calls: docs/decisions.md, "The checkpoint maker holds no lock at
// the lowest priority"). State must be valid JSON.
func EncodeCheckpoint(c Checkpoint) (CheckpointObject, error) {
	name := CheckpointName(c.Position, c.WrittenAtMs)
	// A build that is not UTF-8 would be written as U+FFFD and never read
	// back in its canonical form.
	valid, canonical := scanJSON(c.State)
	if c.WrittenAtMs < 0 || !valid || !utf8.ValidString(c.Build) {
		return CheckpointObject{}, fmt.Errorf("write %s: bad time, build or state: %w", name, ErrInvalid)
	}
	// The state as json.Marshal writes it in the object (compact, with
	// <, >, &, U+2028 and U+2029 escaped): its sum is of those bytes. A
	// state from json.Marshal is in that form already (one scan tells),
	// and the object is then its envelope and the state, with no
	// encode of the state again (docs/performance.md, "The checkpoint
	// of a large state").
	if !canonical {
		state, err := json.Marshal(c.State)
		if err != nil {
			return CheckpointObject{}, fmt.Errorf("write %s: %w", name, err)
		}
		c.State = state
	}
	c.StateSum = sha256.Sum256(c.State)
	data, err := encodeCheckpoint(c)
	if err != nil {
		return CheckpointObject{}, fmt.Errorf("write %s: %w", name, err)
	}
	return CheckpointObject{Name: name, Data: append(data, '\n')}, nil
}

// CheckpointRoom gives the bytes of the object of c before its state:
// the room that [WriteFramedCheckpoint] wants in front of it. It does
// not depend on the state (its sum is 64 hex digits whatever it is).
func CheckpointRoom(c Checkpoint) (int, error) {
	head, err := checkpointHead(c)
	return len(head), err
}

// WriteFramedCheckpoint is [WriteCheckpoint] of c with the state
// framed[room:], where room is [CheckpointRoom] of c: it writes the
// head of the object in framed[:room] and its end after the state, so
// that the object takes no copy of the state (a checkpoint of a large
// riff is tens of megabytes; docs/performance.md, "Issue 23, second
// pass: growth"). The bytes are those of WriteCheckpoint, which it falls
// back to when the state is not in its canonical form or the room is
// not that of the head.
func WriteFramedCheckpoint(ctx context.Context, s Store, c Checkpoint, framed []byte, room int) (string, error) {
	o, err := EncodeFramedCheckpoint(c, framed, room)
	if err != nil {
		return "", err
	}
	return o.Name, o.Put(ctx, s)
}

// EncodeFramedCheckpoint gives the object that [WriteFramedCheckpoint]
// writes, in framed itself when the state is in its canonical form, and
// writes nothing, as [EncodeCheckpoint] does.
func EncodeFramedCheckpoint(c Checkpoint, framed []byte, room int) (CheckpointObject, error) {
	name := CheckpointName(c.Position, c.WrittenAtMs)
	if room < 0 || room > len(framed) {
		return CheckpointObject{}, fmt.Errorf("write %s: the room %d is not in the frame of %d bytes: %w", name, room, len(framed), ErrInvalid)
	}
	c.State = framed[room:]
	valid, canonical := scanJSON(c.State)
	if c.WrittenAtMs < 0 || !valid || !utf8.ValidString(c.Build) {
		return CheckpointObject{}, fmt.Errorf("write %s: bad time, build or state: %w", name, ErrInvalid)
	}
	if !canonical {
		return EncodeCheckpoint(c)
	}
	c.StateSum = sha256.Sum256(c.State)
	head, err := checkpointHead(c)
	if err != nil {
		return CheckpointObject{}, fmt.Errorf("write %s: %w", name, err)
	}
	if len(head) != room {
		return EncodeCheckpoint(c)
	}
	copy(framed, head)
	return CheckpointObject{Name: name, Data: append(framed, '}', '\n')}, nil
}

// ReadCheckpoint reads and checks the checkpoint object name: its JSON,
// its state checksum, and its position and time against its name.
func ReadCheckpoint(ctx context.Context, s Store, name string) (Checkpoint, error) {
	cn, ok := parseCheckpointName(name)
	if !ok {
		return Checkpoint{}, fmt.Errorf("read checkpoint %s: %w", name, &LogError{Object: name, Kind: ErrUnreadable, Detail: "not a checkpoint name"})
	}
	return readCheckpoint(ctx, s, cn)
}

// readCheckpoint is ReadCheckpoint of a parsed name.
func readCheckpoint(ctx context.Context, s Store, cn checkpointName) (Checkpoint, error) {
	data, err := s.Get(ctx, cn.name)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("read checkpoint %s: %w", cn.name, err)
	}
	c, err := decodeCheckpoint(data)
	if err == nil && (c.Position != cn.position || c.WrittenAtMs != cn.atMs) {
		err = fmt.Errorf("position %d and time %d differ from the name", c.Position, c.WrittenAtMs)
	}
	if err != nil {
		return Checkpoint{}, fmt.Errorf("read checkpoint: %w", &LogError{Object: cn.name, Position: cn.position, Kind: ErrUnreadable, Detail: err.Error()})
	}
	return c, nil
}

// stateKey ends the envelope of a checkpoint object: State is its last
// field. In the canonical form its first match is the field itself (a
// quote inside a string of the envelope is escaped, so no string holds
// it).
var stateKey = []byte(`,"state":`)

// decodeCheckpoint reads a checkpoint object. Only the canonical form
// reads, so that no flipped bit in a key (matched without case) passes:
// the bytes of json.Marshal(c) and a newline. The envelope is decoded and
// encoded again, and the state is never decoded here (riffstate does):
// it is checked to be valid JSON, in the form that json.Marshal would
// give back unchanged (one scan, scanJSON), and of its checksum,
// the two in two goroutines joined before it returns, and taken
// without a copy of its bytes (docs/performance.md, "Goal 3"). It reads
// exactly what the decode of the whole object by encoding/json and the
// same checks read (FuzzDecodeCheckpointIsTheDecodeOfTheWholeObject).
func decodeCheckpoint(data []byte) (Checkpoint, error) {
	at := bytes.Index(data, stateKey)
	if at < 0 {
		return Checkpoint{}, errors.New("not in its canonical form: no state")
	}
	end := at + len(stateKey)
	envelope := make([]byte, 0, end+2)
	envelope = append(append(envelope, data[:end]...), "0}"...)
	var c Checkpoint
	dec := json.NewDecoder(bytes.NewReader(envelope))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Checkpoint{}, err
	}
	head, err := checkpointHead(c)
	if err != nil {
		return Checkpoint{}, err
	}
	if !bytes.Equal(head, data[:end]) || !bytes.HasSuffix(data[end:], []byte("}\n")) {
		return Checkpoint{}, errors.New("not in its canonical form")
	}
	state := data[end : len(data)-2 : len(data)-2]
	var (
		sum    Sum
		summed sync.WaitGroup
	)
	summed.Go(func() { sum = sha256.Sum256(state) })
	valid, canonical := scanJSON(state)
	summed.Wait()
	if !valid || !canonical {
		return Checkpoint{}, errors.New("not in its canonical form")
	}
	if sum != c.StateSum {
		return Checkpoint{}, errors.New("the state does not match its checksum")
	}
	c.State = state
	return c, nil
}

// checkpointHead gives the bytes of json.Marshal(c) before its state:
// the envelope up to "state": (State is the last field).
func checkpointHead(c Checkpoint) ([]byte, error) {
	c.State = json.RawMessage("0")
	data, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	head, ok := bytes.CutSuffix(data, []byte("0}"))
	if !ok {
		return nil, errors.New("the state is not the last field of a checkpoint")
	}
	return head, nil
}

// encodeCheckpoint gives json.Marshal(c), for a state in
// its canonical form (canonicalJSON): the envelope, the state as it is.
func encodeCheckpoint(c Checkpoint) ([]byte, error) {
	head, err := checkpointHead(c)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(head)+len(c.State)+2) // and room for the newline of the object
	out = append(out, head...)
	out = append(out, c.State...)
	return append(out, '}'), nil
}

// Loaded is the checkpoint that a start uses.
type Loaded struct {
	Checkpoint Checkpoint
	Name       string
	// Failed holds the error of each newer checkpoint that did not read.
	Failed []error
}

// LoadCheckpoint reads the newest checkpoint that reads, and falls back
// to the one before it when it does not. accept decodes the state (nil
// accepts each one); an error of accept counts as a checkpoint that does
// not read. With no checkpoint at all it returns ErrNoCheckpoint; when
// none reads it returns an error that names each one.
func LoadCheckpoint(ctx context.Context, s Store, accept func(Checkpoint) error) (Loaded, error) {
	names, err := checkpointNames(ctx, s)
	if err != nil {
		return Loaded{}, fmt.Errorf("load checkpoint: %w", err)
	}
	if len(names) == 0 {
		return Loaded{}, fmt.Errorf("load checkpoint: %w", ErrNoCheckpoint)
	}
	var l Loaded
	for i := len(names) - 1; i >= 0; i-- {
		c, err := readCheckpoint(ctx, s, names[i])
		if err == nil && accept != nil {
			if err = accept(c); err != nil {
				err = fmt.Errorf("read checkpoint %s: %w", names[i].name, err)
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return Loaded{}, fmt.Errorf("load checkpoint: %w", ctx.Err())
			}
			l.Failed = append(l.Failed, err)
			continue
		}
		l.Checkpoint, l.Name = c, names[i].name
		return l, nil
	}
	return Loaded{}, fmt.Errorf("load checkpoint: none reads: %w", errors.Join(l.Failed...))
}

// checkpointNames lists the checkpoints by position, then time. Names
// that do not parse are left out: no rule touches them.
func checkpointNames(ctx context.Context, s Store) ([]checkpointName, error) {
	names, err := s.List(ctx, CheckpointPrefix)
	if err != nil {
		return nil, fmt.Errorf("list checkpoints: %w", err)
	}
	return parseCheckpointNames(names), nil
}

// The keep rule.
const (
	KeepLast = 3  // the last checkpoints kept
	KeepDays = 30 // one checkpoint each day for this many days
)

// Keep splits checkpoint names by the keep rule: the last 3, and the
// newest of each UTC day for the 30 days up to now (the day of now
// counts). The day comes from the name. Names that are not checkpoint
// names are in neither list.
func Keep(names []string, now time.Time) (keep, drop []string) {
	k, d := keepRule(parseCheckpointNames(names), now)
	return objectNames(k), objectNames(d)
}

// keepRule is Keep of checkpoints sorted by position, then time.
func keepRule(cs []checkpointName, now time.Time) (keep, drop []checkpointName) {
	oldest := now.UTC().AddDate(0, 0, -(KeepDays - 1)).Format(time.DateOnly)
	seenDay := map[string]bool{}
	kept := make([]bool, len(cs))
	for i := len(cs) - 1; i >= 0; i-- {
		day := checkpointDay(cs[i].atMs)
		switch {
		case i >= len(cs)-KeepLast:
			kept[i] = true
		case day >= oldest && !seenDay[day]:
			kept[i] = true
		}
		seenDay[day] = true
	}
	for i, c := range cs {
		if kept[i] {
			keep = append(keep, c)
		} else {
			drop = append(drop, c)
		}
	}
	return keep, drop
}

// objectNames gives the object name of each checkpoint.
func objectNames(cs []checkpointName) []string {
	var names []string
	for _, c := range cs {
		names = append(names, c.name)
	}
	return names
}

// Pruned names the objects that Prune deleted.
type Pruned struct {
	Checkpoints []string
	Chunks      []string
}

// Prune deletes the checkpoints that the keep rule drops, then each
// chunk that every kept checkpoint is past (a chunk whose last position
// is at most the oldest kept checkpoint's), oldest first. With no
// checkpoint it deletes no chunk; no rule deletes a chunk by age, and
// the newest chunk always stays.
func Prune(ctx context.Context, s Store, now time.Time) (Pruned, error) {
	var p Pruned
	cs, err := checkpointNames(ctx, s)
	if err != nil {
		return p, fmt.Errorf("prune: %w", err)
	}
	keep, drop := keepRule(cs, now)
	for _, c := range drop {
		if err := s.Delete(ctx, c.name); err != nil {
			return p, fmt.Errorf("prune: %w", err)
		}
		p.Checkpoints = append(p.Checkpoints, c.name)
	}
	if len(keep) == 0 {
		return p, nil
	}
	oldest := keep[0].position
	chunks, firsts, err := chunkNames(ctx, s)
	if err != nil {
		return p, fmt.Errorf("prune: %w", err)
	}
	var gone []string
	for i := 0; i+1 < len(chunks); i++ {
		if firsts[i+1]-1 > oldest {
			break
		}
		gone = append(gone, chunks[i])
	}
	if b, ok := s.(BatchDeleter); ok && len(gone) > 0 {
		// One flush for all: a checkpoint each 1,000 records leaves tens
		// of chunks behind the oldest kept one, and a flush of the
		// directory for each costs as much as the write of a chunk.
		if err := b.DeleteAll(ctx, gone); err != nil {
			return p, fmt.Errorf("prune: %w", err)
		}
		p.Chunks = gone
		return p, nil
	}
	for _, name := range gone {
		if err := s.Delete(ctx, name); err != nil {
			return p, fmt.Errorf("prune: %w", err)
		}
		p.Chunks = append(p.Chunks, name)
	}
	return p, nil
}

// MayCheckpoint says whether a build may write a checkpoint at position,
// and why not. firstSkipped is the position of the first record the
// build skipped or read with a value other (0: none); newestBuild is the
// build of the newest checkpoint in the store ("" when there is none).
func MayCheckpoint(build, newestBuild string, firstSkipped, position uint64) (bool, string) {
	if firstSkipped != 0 && position >= firstSkipped {
		return false, fmt.Sprintf("record %d was skipped: this build writes no checkpoint past it", firstSkipped)
	}
	if newestBuild == "" {
		return true, ""
	}
	c, err := compareVersions(newestBuild, build)
	if err != nil {
		return false, fmt.Sprintf("the newest checkpoint has a build that does not read (%v)", err)
	}
	if c > 0 {
		return false, fmt.Sprintf("the newest checkpoint comes from the later build %s", newestBuild)
	}
	return true, ""
}

// compareVersions compares two MAJOR.MINOR.PATCH versions (a leading v
// and a suffix after - or + are allowed; the suffix is not compared).
func compareVersions(a, b string) (int, error) {
	pa, err := parseVersion(a)
	if err != nil {
		return 0, err
	}
	pb, err := parseVersion(b)
	if err != nil {
		return 0, err
	}
	for i := range pa {
		if pa[i] != pb[i] {
			if pa[i] < pb[i] {
				return -1, nil
			}
			return 1, nil
		}
	}
	return 0, nil
}

func parseVersion(v string) ([3]uint64, error) {
	var out [3]uint64
	s := strings.TrimPrefix(v, "v")
	if i := strings.IndexAny(s, "-+"); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return out, fmt.Errorf("version %q is not MAJOR.MINOR.PATCH", v)
	}
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return out, fmt.Errorf("version %q is not MAJOR.MINOR.PATCH", v)
		}
		out[i] = n
	}
	return out, nil
}
