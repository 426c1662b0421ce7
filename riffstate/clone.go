package riffstate

import (
	"maps"
	"slices"
)

// A replay gives the pending copy and the written copy the same records,
// so a state that has only replayed keeps the two copies as one riff and
// applies each record once; the first change of another kind gives the
// pending copy a riff of its own, a clone (docs/decisions.md, "One riff
// for both copies until the first call").

// clone gives a copy of r that shares nothing that Apply changes in
// place: each map, each slice and each value behind a pointer of the
// riff is new. It shares only what comes from a record and that nothing
// changes in place: strings, the *record.By of a record, the marks of a
// session URI, and the contents of a kept message (its selectors,
// payload and woken sessions), as copyThreads does.
// TestGivenARiffWhenItIsClonedThenItSharesNothingThatChanges walks the
// whole riff to hold it.
func (r *Riff) clone() *Riff {
	c := *r
	c.Sessions = cloneValues(r.Sessions, func(s Session) Session {
		s.Claims = slices.Clone(s.Claims)
		s.Relays = slices.Clone(s.Relays)
		return s
	})
	c.Threads = copyThreads(r.Threads)
	c.Claims = cloneValues(r.Claims, same[Holding])
	c.Leads = maps.Clone(r.Leads)
	if r.Pauses.Riff != nil {
		p := *r.Pauses.Riff
		c.Pauses.Riff = &p
	}
	c.Pauses.Repos = cloneValues(r.Pauses.Repos, same[PauseInfo])
	c.Holds = cloneValues(r.Holds, same[HoldInfo])
	c.Plans = cloneValues(r.Plans, same[Plan])
	c.Notes = cloneValues(r.Notes, func(n Notes) Notes {
		n.History = slices.Clone(n.History)
		return n
	})
	c.Idle = maps.Clone(r.Idle)
	c.People = r.People.clone()
	c.Signed = maps.Clone(r.Signed)
	return &c
}

// clone gives a copy of the people that shares no map and no slice.
func (p People) clone() People {
	p.Emails = maps.Clone(p.Emails)
	p.Members = slices.Clone(p.Members)
	p.Admins = slices.Clone(p.Admins)
	p.Ended = maps.Clone(p.Ended)
	p.EndedUsers = maps.Clone(p.EndedUsers)
	p.Removed = slices.Clone(p.Removed)
	return p
}

// cloneValues gives a map with the same keys as m whose values are new
// pointers to copies of the values, each copied by copyValue; a nil
// value stays nil, and a nil map stays nil.
func cloneValues[K comparable, V any](m map[K]*V, copyValue func(V) V) map[K]*V {
	if m == nil {
		return nil
	}
	out := make(map[K]*V, len(m))
	for k, v := range m {
		if v == nil {
			out[k] = nil
			continue
		}
		c := copyValue(*v)
		out[k] = &c
	}
	return out
}

// same is the copy of a value with nothing in it that changes in place.
func same[V any](v V) V { return v }
