package riffstate

import (
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// ThreadOf gives the thread that a call of c names (given), or the
// default thread of c: the rule that each command uses, for the queries
// and streams of the engine.
func (v View) ThreadOf(c Caller, given string, now Now) (name.Thread, error) {
	return v.threadOf(c, given, now)
}

// Title gives the title of a thread for who: "direct with ..." for a
// direct thread, empty for each other thread.
func (v View) Title(w name.Who, t name.Thread) string { return v.title(w, t) }

// MissedWake gives the wake of the newest unread message that woke who,
// from the written copy, for a watch that opens.
func (v View) MissedWake(w name.Who) (wire.Wake, bool) {
	s := &State{written: v.riff, presence: v.presence, opts: v.opts}
	return s.MissedWake(w)
}
