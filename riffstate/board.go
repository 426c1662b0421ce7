package riffstate

import (
	"maps"
	"slices"

	"github.com/como-technologies/riff/riffcore/name"
)

// Board is the data of the board of one repository, for a later riff
// top: the items that sessions claim now (a claim of a session that
// stopped is ended), the items that the lead holds and
// no session claims (with the reason of the hold), the plan of the
// thread, the facts that a look of the forge gave, and the pause. The
// free, verify and stuck items come from the forge, not from the riff.
type Board struct {
	Repo    name.Repo
	Paused  bool
	Claimed []name.Item
	Held    []HeldItem
	Plan    string
	Facts   []string
}

// HeldItem is an item on hold, with its reason.
type HeldItem struct {
	Item   name.Item
	Reason string
}

// Boards gives a board for each repository with a live session, and for
// the repository of the caller, in the order of OWNER/REPO.
func (v View) Boards(c Caller, now Now) []Board {
	repos := map[name.Repo]bool{}
	if c.URI.Repo.InGit() {
		repos[c.URI.Repo] = true
	}
	for _, s := range v.riff.Sessions {
		if v.Gone(s.URI.Who(), now) {
			continue
		}
		if place := v.placeOf(s); place.Repo.InGit() {
			repos[place.Repo] = true
		}
	}
	var out []Board
	for _, repo := range slices.Sorted(maps.Keys(repos)) {
		thread := name.Thread(repo)
		b := Board{Repo: repo}
		_, _, b.Paused = v.riff.Pauses.Check(thread)
		for _, h := range v.riff.Claims {
			if h.Thread == thread && v.Holds(h, now) {
				b.Claimed = append(b.Claimed, h.Item)
			}
		}
		slices.Sort(b.Claimed)
		for _, h := range v.riff.Holds {
			if h.Thread == thread && !v.Holds(v.riff.Holder(thread, h.Item), now) {
				b.Held = append(b.Held, HeldItem{Item: h.Item, Reason: h.Reason})
			}
		}
		slices.SortFunc(b.Held, func(a, b HeldItem) int {
			if a.Item < b.Item {
				return -1
			}
			if a.Item > b.Item {
				return 1
			}
			return 0
		})
		if p := v.riff.Plans[thread]; p != nil {
			b.Plan = p.Text
		}
		b.Facts = slices.Clone(v.presence.Facts[thread])
		out = append(out, b)
	}
	return out
}
