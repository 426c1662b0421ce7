package rifflog

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The prefixes of the objects of a log.
const (
	ChunkPrefix      = "log/"
	CheckpointPrefix = "checkpoint/"
	// LeaseName is the object of the lease.
	LeaseName = "lease"
	// SignInsName is the object of the sign-ins of a riff with sign-in
	// (riffengine/tokens), a swapped object like the lease.
	SignInsName = "signins.json"
)

// ChunkName is the object name of the chunk whose first position is first.
func ChunkName(first uint64) string {
	return fmt.Sprintf("log/%020d.jsonl", first)
}

// ParseChunkName returns the first position of a chunk object name.
func ParseChunkName(name string) (uint64, bool) {
	s, ok := strings.CutPrefix(name, ChunkPrefix)
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, ".jsonl")
	if !ok || len(s) != 20 {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 {
		return 0, false
	}
	return n, true
}

// CheckpointName is the object name of a checkpoint at position, written
// at atMs (milliseconds since the Unix epoch).
func CheckpointName(position uint64, atMs int64) string {
	return fmt.Sprintf("checkpoint/%020d-%d.json", position, atMs)
}

// ParseCheckpointName returns the position and the write time of a
// checkpoint object name.
func ParseCheckpointName(name string) (position uint64, atMs int64, ok bool) {
	c, ok := parseCheckpointName(name)
	return c.position, c.atMs, ok
}

// checkpointName is a checkpoint object name with what it says: each
// rule of the checkpoints (the load, the keep rule, prune, verify, cut)
// takes these, so that a name is parsed once, in parseCheckpointName.
type checkpointName struct {
	name     string
	position uint64
	atMs     int64
}

// parseCheckpointName is the one parse of a checkpoint object name: the
// name that CheckpointName gives, and no other.
func parseCheckpointName(name string) (checkpointName, bool) {
	s, ok := strings.CutPrefix(name, CheckpointPrefix)
	if !ok {
		return checkpointName{}, false
	}
	s, ok = strings.CutSuffix(s, ".json")
	if !ok {
		return checkpointName{}, false
	}
	p, t, ok := strings.Cut(s, "-")
	if !ok || len(p) != 20 {
		return checkpointName{}, false
	}
	position, err := strconv.ParseUint(p, 10, 64)
	if err != nil {
		return checkpointName{}, false
	}
	atMs, err := strconv.ParseInt(t, 10, 64)
	if err != nil || atMs < 0 || strconv.FormatInt(atMs, 10) != t {
		return checkpointName{}, false // a sign or a leading zero: not a name CheckpointName gives
	}
	return checkpointName{name: name, position: position, atMs: atMs}, true
}

// parseCheckpointNames parses names and sorts the checkpoints by
// position, then time. Names that do not parse are left out: no rule
// touches them.
func parseCheckpointNames(names []string) []checkpointName {
	var out []checkpointName
	for _, n := range names {
		if c, ok := parseCheckpointName(n); ok {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b checkpointName) int {
		return cmp.Or(cmp.Compare(a.position, b.position), cmp.Compare(a.atMs, b.atMs))
	})
	return out
}

// checkpointDay is the UTC day of a checkpoint name's write time.
func checkpointDay(atMs int64) string {
	return time.UnixMilli(atMs).UTC().Format(time.DateOnly)
}
