package riffengine

import (
	"github.com/como-technologies/riff/riffstate"
)

// MaxDropLines is the most warning lines for the records that the state
// did not take, in one start: a log of a later build, or a log with many
// such records, does not flood the log. Past it, one line gives the count,
// and GET /v1/server counts each one.
const MaxDropLines = 20

// dropLines counts the warning lines of the drops of this start. The lock
// of the engine guards it.
type dropLines struct {
	logged   int
	unlogged uint64
	// toldMore is set when the line that gives the count of the drops
	// past MaxDropLines was written.
	toldMore bool
}

// takeDropsLocked takes the drops of the state for the log. The lock is
// held.
func (e *Engine) takeDropsLocked() []riffstate.Drop { return e.state.TakeDrops() }

// logDrops writes one warning line with the position for each record
// that the state did not take, at most MaxDropLines in a start; after
// them, when more came, one line with their count. replayed says that
// the drops end a replay or a catch-up: the count line comes then. It
// takes the lock for the counts, and logs with the lock free.
func (e *Engine) logDrops(drops []riffstate.Drop, replayed bool) {
	e.mu.Lock()
	warnings, skipped := e.state.Dropped()
	var lines []riffstate.Drop
	for _, d := range drops {
		if e.drops.logged < MaxDropLines {
			e.drops.logged++
			lines = append(lines, d)
		} else {
			e.drops.unlogged++
		}
	}
	// The state keeps at most MaxDrops between two takes: the others are
	// in its counts only.
	seen := uint64(e.drops.logged) + e.drops.unlogged
	if total := warnings + skipped; total > seen {
		e.drops.unlogged += total - seen
	}
	more := e.drops.unlogged
	tell := more > 0 && !e.drops.toldMore && (replayed || e.drops.logged >= MaxDropLines)
	if tell {
		e.drops.toldMore = true
	}
	e.mu.Unlock()
	for _, d := range lines {
		if d.Skipped {
			e.log.Warn("a record of a kind or a value that this build does not know is skipped",
				"position", d.Position, "kind", string(d.Kind), "command", d.Command)
			continue
		}
		e.log.Warn("a record that the state cannot take changes nothing",
			"position", d.Position, "kind", string(d.Kind), "command", d.Command)
	}
	if tell {
		e.log.Warn("more records that the state did not take have no line of their own: GET /v1/server counts each one",
			"unlogged", more, "lines", MaxDropLines, "warnings", warnings, "skipped", skipped)
	}
}
