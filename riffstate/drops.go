package riffstate

import "github.com/como-technologies/riff/riffcore/record"

// Drop is a record that the written copy did not take: a record of a
// kind or a value that this build does not know (skipped), or one that
// the riff cannot take, for example the release of a claim that is not
// there (a warning). It changes nothing; the server logs a warning with
// its position (the store design, "apply" and "The records").
type Drop struct {
	Position uint64
	// Kind is the kind of its change as it came; Command the command
	// that wrote it.
	Kind    record.Kind
	Command string
	Skipped bool
}

// MaxDrops is the most drops that the state keeps between two takes of
// the engine; the counts go on past it.
const MaxDrops = 100

// drops are the records of the written copy that it did not take since
// the state was made: their counts, and the first MaxDrops of them since
// the last take.
type drops struct {
	list              []Drop
	warnings, skipped uint64
}

// add counts a record of the written copy that Apply did not take.
func (d *drops) add(rec record.Record) {
	drop := Drop{Position: rec.Position, Command: rec.Command, Skipped: rec.Skipped()}
	if rec.Change != nil {
		drop.Kind = rec.Change.Kind()
	}
	if drop.Skipped {
		d.skipped++
	} else {
		d.warnings++
	}
	if len(d.list) < MaxDrops {
		d.list = append(d.list, drop)
	}
}

// Dropped gives the counts of the records that the written copy did not
// take since the state was made (the replay of a start, then each
// written chunk): warnings (the riff could not take them) and skipped
// (a kind or a value of a later build).
func (s *State) Dropped() (warnings, skipped uint64) {
	return s.dropped.warnings, s.dropped.skipped
}

// TakeDrops gives the drops since the last take, at most MaxDrops, and
// forgets them: the engine logs each one.
func (s *State) TakeDrops() []Drop {
	out := s.dropped.list
	s.dropped.list = nil
	return out
}
