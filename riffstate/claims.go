package riffstate

import (
	"fmt"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Claim claims an item in a thread.
//
// handle refuses a worker in MustClear (must_clear), the session of a
// riff daemon (not_allowed: it takes no claims), a claim where a
// pause stops it (paused: the reason names the pause and who set it), an
// item that a live session holds (held), and a held item to a worker
// (on_hold). Each other session gets a held item with the hold as a
// warning. The claim of an item whose holder stopped gives a released
// record for the old holder, then the claimed record.
type Claim struct {
	wire.Claim
	base
}

func (Claim) Kind() record.Command { return record.CommandClaim }

func (cl Claim) Handle(c Caller, v View, now Now) (Handled, error) {
	thread, err := v.threadOf(c, cl.Thread, now)
	if err != nil {
		return Handled{}, err
	}
	if _, err := name.ParseItem(string(cl.Item)); err != nil {
		return Handled{}, bad("%v", err)
	}
	if s := v.riff.Session(c.Who()); s != nil && s.Life == MustClear {
		return Handled{}, wire.Refuse(wire.MustClear,
			"%s released its last item: riff clears the context of a worker before its next claim. The clear comes when your turn ends",
			c.URI.Named())
	}
	if v.IsDaemon(c.Who()) {
		return Handled{}, wire.Refuse(wire.NotAllowed,
			"%s is the session of a riff daemon: it takes no claims. The daemon claims each item as the worker session of its container",
			c.URI.Named())
	}
	if scope, info, paused := v.riff.Pauses.Check(thread); paused {
		return Handled{}, wire.Refuse(wire.Paused, "%s", pausedText(scope, info, cl.Item))
	}
	var changes []record.Change
	if held := v.riff.Holder(thread, cl.Item); held != nil {
		if held.Holder == c.Who() {
			return Handled{}, nil
		}
		if !v.Stopped(held.Holder, now) {
			return Handled{}, wire.Refuse(wire.Held, "%s is held by %s", cl.Item, v.named(held.Holder))
		}
		holder := held.URI
		if s := v.riff.Session(held.Holder); s != nil {
			holder = s.URI
		}
		changes = append(changes, record.Released{Session: holder, Thread: thread, Item: cl.Item})
	}
	if hold := v.riff.Holds[claimKey(thread, cl.Item)]; hold != nil && c.Worker {
		return Handled{}, wire.Refuse(wire.OnHold, "%s", holdWarning(cl.Item, hold))
	}
	changes = append(changes, record.Claimed{Session: c.URI, Thread: thread, Item: cl.Item})
	return Handled{Changes: changes}, nil
}

// Reply: the thread of the claimed record, and the hold of the item in
// the written copy as a warning. A claim of an item that the caller
// holds already has no record and no warning.
func (cl Claim) Reply(c Caller, v View, d Done, now Now) wire.ClaimReply {
	warning, text := cl.replyTexts(c, v, d, now)
	return wire.ClaimReply{Holder: v.uriOf(c, now), Warning: warning, Text: text}
}

// AppendReply appends the JSON of the reply that Reply gives, with the
// holder's URI written straight from the written copy (replyjson.go).
func (cl Claim) AppendReply(dst []byte, c Caller, v View, d Done, now Now) []byte {
	warning, text := cl.replyTexts(c, v, d, now)
	return wire.AppendClaimReply(dst, func(dst []byte) []byte { return v.appendURIOf(dst, c, now) }, warning, text)
}

// replyTexts gives the warning and the text of the reply.
func (cl Claim) replyTexts(c Caller, v View, d Done, now Now) (warning, text string) {
	var thread name.Thread
	if claimed, ok := madeOf[record.Claimed](d); ok {
		thread = claimed.Thread
		if hold := v.riff.Holds[claimKey(thread, cl.Item)]; hold != nil {
			warning = holdWarning(cl.Item, hold)
		}
	} else {
		thread, _ = v.threadOf(c, cl.Thread, now)
	}
	return warning, "You hold " + string(cl.Item) + " in " + thread.For(c.Who()) + "."
}

// holdWarning is the text of the hold of an item: the refusal of a
// worker, and the warning of each other session that claims it.
func holdWarning(item name.Item, hold *HoldInfo) string {
	return fmt.Sprintf("%s is on hold: held by the lead since %s: %s", item, clock(hold.AtMs), hold.Reason)
}

// pausedText names the pause that stops a claim, who set it, and who can
// end it.
func pausedText(scope string, info *PauseInfo, item name.Item) string {
	by := "a new riff starts paused"
	if info != nil && info.By != nil {
		by = "by " + info.By.String()
	}
	if scope == "the riff" {
		return fmt.Sprintf("the riff is paused (%s): no claim of %s. The owner or an admin resumes it with `riff resume --riff`", by, item)
	}
	return fmt.Sprintf("%s is paused (%s): no claim of %s. Its user or its lead resumes it with `riff resume`", scope, by, item)
}

// clock gives the time of day of a time, in UTC.
func clock(ms int64) string { return time.UnixMilli(ms).UTC().Format("15:04 UTC") }

// Release releases an item that the caller holds. The last release of a
// worker by itself puts it in MustClear.
type Release struct {
	wire.Release
	base
}

func (Release) Kind() record.Command { return record.CommandRelease }

func (rl Release) Handle(c Caller, v View, now Now) (Handled, error) {
	thread, err := v.threadOf(c, rl.Thread, now)
	if err != nil {
		return Handled{}, err
	}
	held := v.riff.Holder(thread, rl.Item)
	switch {
	case held == nil:
		return Handled{}, wire.Refuse(wire.NotHolder, "you do not hold %s in %s: nobody holds it", rl.Item, thread.For(c.Who()))
	case held.Holder != c.Who():
		return Handled{}, wire.Refuse(wire.NotHolder, "you do not hold %s in %s: %s holds it", rl.Item, thread.For(c.Who()), v.named(held.Holder))
	}
	mustClear := false
	if s := v.riff.Session(c.Who()); s != nil && s.Worker && len(s.Claims) == 1 {
		mustClear = true
	}
	holder := c.URI
	if s := v.riff.Session(c.Who()); s != nil {
		holder = s.URI.At(c.URI.Place())
	}
	return Handled{
		Changes: []record.Change{record.Released{Session: holder, Thread: thread, Item: rl.Item, MustClear: mustClear}},
	}, nil
}

// Reply: the thread and the must_clear mark of the released record.
func (rl Release) Reply(c Caller, v View, d Done, now Now) wire.ReleaseReply {
	mustClear, text := rl.replyTexts(c, v, d, now)
	return wire.ReleaseReply{URI: v.uriOf(c, now), MustClear: mustClear, Text: text}
}

// AppendReply appends the JSON of the reply that Reply gives, with the
// URI written straight from the written copy (replyjson.go).
func (rl Release) AppendReply(dst []byte, c Caller, v View, d Done, now Now) []byte {
	mustClear, text := rl.replyTexts(c, v, d, now)
	return wire.AppendReleaseReply(dst, func(dst []byte) []byte { return v.appendURIOf(dst, c, now) }, mustClear, text)
}

// replyTexts gives the must_clear mark and the text of the reply.
func (rl Release) replyTexts(c Caller, v View, d Done, now Now) (mustClear bool, text string) {
	released, ok := madeOf[record.Released](d)
	if !ok {
		released.Thread, _ = v.threadOf(c, rl.Thread, now)
	}
	text = "You released " + string(rl.Item) + " in " + released.Thread.For(c.Who()) + "."
	if released.MustClear {
		text += " riff clears your context when your turn ends."
	}
	return released.MustClear, text
}

// ReleaseFor frees the claim of another session of the caller's user.
// Only the lead of the user in the repository of the thread can. The
// server posts a note in the thread, and sends a live holder a direct
// message that wakes it.
type ReleaseFor struct {
	wire.ReleaseFor
	base
}

func (ReleaseFor) Kind() record.Command { return record.CommandReleaseFor }

func (rf ReleaseFor) Handle(c Caller, v View, now Now) (Handled, error) {
	thread, err := v.threadOf(c, rf.Thread, now)
	if err != nil {
		return Handled{}, err
	}
	repo, ok := thread.Repo()
	if !ok {
		return Handled{}, bad("%s is no repository thread: a lead frees claims in the thread of its repository", thread)
	}
	// A session that no ID can be is named before the rule of who may
	// free: the caller learns what was wrong with its call.
	if err := checkIDStart(rf.Session); err != nil {
		return Handled{}, err
	}
	if lead, ok := v.LiveLead(c.URI.User, repo, now); !ok || lead.URI.Who() != c.Who() {
		return Handled{}, wire.Refuse(wire.NotAllowed,
			"only the lead of %s in %s frees the claim of another session, and %s is not the lead", c.URI.User, repo, c.URI.Named())
	}
	target, err := v.ResolveSession(rf.Session, "", now)
	if err != nil {
		return Handled{}, err
	}
	if target.URI.User != c.URI.User {
		return Handled{}, wire.Refuse(wire.OtherUser, "the session %s is of %s: a lead frees only the claims of its own user", target.URI.Named(), target.URI.User)
	}
	held := v.riff.Holder(thread, rf.Item)
	if held == nil || held.Holder != target.URI.Who() {
		return Handled{}, wire.Refuse(wire.NotHolder, "the session %s does not hold %s in %s", target.URI.Named(), rf.Item, thread)
	}
	changes := []record.Change{record.Released{Session: target.URI, Thread: thread, Item: rf.Item}}
	changes = append(changes, v.serverPost(thread, record.MessageNote, nil,
		fmt.Sprintf("the lead %s released the claim of %s of the session %s", c.URI.Named(), rf.Item, target.URI.Named()), now, changes...))
	if !v.Gone(target.URI.Who(), now) {
		changes = append(changes, v.serverDirect(target.URI, fmt.Sprintf(
			"claims: the lead released your claim %s in %s. Stop the work on the item, push it as WIP, and write the state on the issue.",
			rf.Item, thread), now, changes...))
	}
	return Handled{Changes: changes}, nil
}

// Reply: the holder and the thread of the released record.
func (rf ReleaseFor) Reply(c Caller, v View, d Done, now Now) wire.ReleaseForReply {
	released, _ := madeOf[record.Released](d)
	return wire.ReleaseForReply{
		Session: released.Session,
		// The session as the lead gave it, as riff shows it to the lead.
		Text: fmt.Sprintf("You released %s in %s for the session %s. The item is free.", rf.Item, released.Thread, rf.Session),
	}
}
