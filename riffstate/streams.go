package riffstate

import (
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The reads of the streams of the engine (a tail, a watch): the thread
// that a tail names, what it sends first, and how a wake and a message
// are named for the session that gets them.

// Title gives the title of a thread for who: "direct with ..." for a
// direct thread, empty for each other thread.
func (v View) Title(w name.Who, t name.Thread) string { return v.title(w, t) }

// MissedWake gives the wake of the newest unread message that woke who,
// from the written copy, for a watch that opens.
func (v View) MissedWake(w name.Who) (wire.Wake, bool) {
	s := &State{written: v.riff, presence: v.presence, opts: *v.opts}
	return s.MissedWake(w)
}

// TailThread gives the thread that a tail of c names (given, or the
// default thread of c). A caller tails a direct thread only when it is
// one of its two sides.
func (v View) TailThread(c Caller, given string, now Now) (name.Thread, error) {
	t, err := v.threadOf(c, given, now)
	if err != nil {
		return t, err
	}
	if t.IsDirect() && !t.Has(c.Who()) {
		return t, wire.Refuse(wire.NotAllowed, "you can tail only your own direct threads")
	}
	if err := v.checkChat(c, t); err != nil {
		return t, err
	}
	return t, nil
}

// MessagesAfter gives the kept messages of the thread t after the seq
// after, each with the name of the thread for w: what a tail that opens
// with after sends first, from the written copy.
func (v View) MessagesAfter(w name.Who, t name.Thread, after uint64) []wire.Message {
	var kept []wire.Message
	if th := v.riff.Threads[t]; th != nil {
		for _, m := range th.Messages {
			if m.Seq > after {
				kept = append(kept, MessageFor(w, t, MessageOf(m, *v.opts)))
			}
		}
	}
	return kept
}

// WakeFor names the thread of a wake as the woken session w names it:
// dm:PEER for a direct thread, as in each wake of a watch.
func WakeFor(w name.Who, wake wire.Wake) wire.Wake {
	if t, err := name.ParseThread(wake.Thread); err == nil {
		wake.Thread = t.For(w)
	}
	return wake
}

// MessageFor names the thread t of a message as w names it, for a tail.
func MessageFor(w name.Who, t name.Thread, m wire.Message) wire.Message {
	m.Thread = t.For(w)
	return m
}
