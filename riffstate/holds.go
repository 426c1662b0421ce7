package riffstate

import (
	"fmt"
	"strings"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Hold keeps an item from the workers. Only a lead of the repository,
// the owner or an admin can; the reason has 1 to 200 characters; a hold
// names one item by its exact name.
type Hold struct {
	wire.Hold
	base
}

func (Hold) Kind() record.Command { return record.CommandHold }

func (h Hold) Handle(c Caller, v View, now Now) (Handled, error) {
	thread, err := v.repoThread(c, h.Thread, "hold", now)
	if err != nil {
		return Handled{}, err
	}
	if _, err := name.ParseItem(string(h.Item)); err != nil {
		return Handled{}, bad("%v", err)
	}
	if n := len([]rune(strings.TrimSpace(h.Reason))); n < 1 || n > MaxHoldReason {
		return Handled{}, bad("a hold needs a reason of 1 to %d characters, not %d", MaxHoldReason, n)
	}
	return Handled{Changes: []record.Change{record.ItemHeld{Thread: thread, Item: h.Item, Reason: strings.TrimSpace(h.Reason)}}}, nil
}

// Reply: the thread of the item_held record.
func (h Hold) Reply(c Caller, v View, d Done, now Now) wire.TextReply {
	held, _ := madeOf[record.ItemHeld](d)
	return wire.TextReply{Text: fmt.Sprintf("%s in %s is on hold now: no worker can claim it. `riff plan free %s` frees it.", h.Item, held.Thread, h.Item)}
}

// repoThread checks that the caller may hold, free or plan in a
// repository thread: a live lead of it, the owner or an admin.
func (v View) repoThread(c Caller, given, what string, now Now) (name.Thread, error) {
	thread, err := v.threadOf(c, given, now)
	if err != nil {
		return "", err
	}
	repo, ok := thread.Repo()
	if !ok {
		return "", bad("%s is no repository thread: %s names an item of a repository", thread, what)
	}
	if c.Role >= Admin {
		return thread, nil
	}
	if lead, ok := v.LiveLead(c.URI.User, repo, now); ok && lead.URI.Who() == c.Who() {
		return thread, nil
	}
	return "", wire.Refuse(wire.NotAllowed, "only a lead of %s, the owner or an admin can %s an item", repo, what)
}

// Free ends the hold of an item.
type Free struct {
	wire.Free
	base
}

func (Free) Kind() record.Command { return record.CommandFree }

func (f Free) Handle(c Caller, v View, now Now) (Handled, error) {
	thread, err := v.repoThread(c, f.Thread, "free", now)
	if err != nil {
		return Handled{}, err
	}
	if v.riff.Holds[claimKey(thread, f.Item)] == nil {
		return Handled{}, nil
	}
	return Handled{Changes: []record.Change{record.ItemFreed{Thread: thread, Item: f.Item}}}, nil
}

// Reply: the thread of the item_freed record; a free with no record
// found no hold.
func (f Free) Reply(c Caller, v View, d Done, now Now) wire.TextReply {
	freed, held := madeOf[record.ItemFreed](d)
	if !held {
		thread, _ := v.threadOf(c, f.Thread, now)
		return wire.TextReply{Text: fmt.Sprintf("%s in %s has no hold: a worker can claim it.", f.Item, thread)}
	}
	return wire.TextReply{Text: fmt.Sprintf("%s in %s is free of its hold: a worker can claim it.", f.Item, freed.Thread)}
}
