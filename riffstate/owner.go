package riffstate

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The owner role: pass_owner, take_owner and deny_owner of a person, the
// server's grant_owner and end_owner, and the decisions of their timers
// (docs/people.md).

// The default times of the owner role; Options can set each.
const (
	// DefaultOwnerWaitMs: a request for the owner role waits 7 days.
	DefaultOwnerWaitMs = 7 * 24 * 60 * 60 * 1000
	// DefaultOwnerGoneMs: an owner with no sign of life for 30 days is
	// gone.
	DefaultOwnerGoneMs = 30 * 24 * 60 * 60 * 1000
	// DefaultOwnerWarnMs: the server warns the owner 7 days before.
	DefaultOwnerWarnMs = 7 * 24 * 60 * 60 * 1000
)

// ownerWarnStart starts the warning to the owner; the timer finds a
// warning that it posted by it.
const ownerWarnStart = "owner: no sign of life of the owner "

func orDefault(ms, def int64) int64 {
	if ms > 0 {
		return ms
	}
	return def
}

func (v View) ownerWait() int64 { return orDefault(v.opts.OwnerWaitMs, DefaultOwnerWaitMs) }
func (v View) ownerGone() int64 { return orDefault(v.opts.OwnerGoneMs, DefaultOwnerGoneMs) }

// ownerWarn is at most the time of gone: a warning comes before the end.
func (v View) ownerWarn() int64 {
	return min(orDefault(v.opts.OwnerWarnMs, DefaultOwnerWarnMs), v.ownerGone())
}

// dateOf gives a time as people read it, in UTC.
func dateOf(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04 UTC")
}

// ownerNote posts a note of the server in chat, in the chunk of its
// command: it wakes nobody, and each member reads it.
func (v View) ownerNote(text string, now Now, prior ...record.Change) record.Change {
	return v.serverPost(name.Chat, record.MessageNote, nil, text, now, prior...)
}

// oldOwnerStaysAdmin gives the records that keep the old owner an admin
// when the role leaves the person: member_invited and admin_set, each
// only when needed, before the change of the owner ("The old owner stays an
// admin", docs/people.md, is a decision of handle).
func (v View) oldOwnerStaysAdmin(old string) []record.Change {
	if old == "" {
		return nil
	}
	p := v.riff.People
	var changes []record.Change
	if !slices.Contains(p.Members, old) {
		changes = append(changes, record.MemberInvited{Email: old})
	}
	if !slices.Contains(p.Admins, old) {
		changes = append(changes, record.AdminSet{Email: old, Admin: true})
	}
	return changes
}

// PassOwner passes the owner role to a member. Only the owner can. The
// old owner stays an admin. It posts no note of the server: riff posts
// it.
type PassOwner struct {
	wire.PassOwner
	base
}

func (PassOwner) Kind() record.Command { return record.CommandPassOwner }
func (PassOwner) Needs(Caller) Role    { return Owner }

func (o PassOwner) Handle(c Caller, v View, now Now) (Handled, error) {
	email, err := ParseEmail(o.Email)
	if err != nil {
		return Handled{}, err
	}
	old := v.riff.People.Owner
	if email == old {
		return Handled{}, bad("%s is the owner already", email)
	}
	if !v.IsMember(email) {
		return Handled{}, notMember(email)
	}
	changes := v.oldOwnerStaysAdmin(old)
	return Handled{Changes: append(changes, record.OwnerSet{Email: email})}, nil
}

// Reply: the new owner, and that the old one stays an admin.
func (o PassOwner) Reply(c Caller, v View, d Done, now Now) wire.TextReply {
	set, _ := madeOf[record.OwnerSet](d)
	return wire.TextReply{Text: fmt.Sprintf("%s is the owner of the riff now. You stay an admin.", set.Email)}
}

// TakeOwner asks for the owner role. Only an admin can. In a riff with
// no owner the admin is the owner at once; else the request waits for
// the wait of the settings, and the owner can deny it until then.
type TakeOwner struct {
	wire.TakeOwner
	base
}

func (TakeOwner) Kind() record.Command { return record.CommandTakeOwner }
func (TakeOwner) Needs(Caller) Role    { return Admin }

func (o TakeOwner) Handle(c Caller, v View, now Now) (Handled, error) {
	if c.Email == "" {
		return Handled{}, bad("the riff knows no email of %s: a person gets one at the first riff login", c.URI.User)
	}
	p := v.riff.People
	switch {
	case p.Owner == c.Email:
		return Handled{}, bad("you are the owner of the riff already")
	case p.Owner == "":
		set := record.OwnerSet{Email: c.Email}
		note := v.ownerNote(fmt.Sprintf("owner: %s (%s) took the owner role: the riff had no owner.", c.URI.User, c.Email), now, set)
		return Handled{Changes: []record.Change{set, note}}, nil
	case p.Asked == c.Email:
		return Handled{}, nil
	case p.Asked != "":
		return Handled{}, wire.Refuse(wire.NotAllowed, "the request of %s for the owner role waits until %s; one request waits at a time", p.Asked, dateOf(p.AskedMs+v.ownerWait()))
	}
	asked := record.OwnerAsked{Email: c.Email}
	note := v.ownerNote(fmt.Sprintf("owner: %s (%s) asks for the owner role. The owner %s can deny it until %s with: riff owner --deny. After that time the role passes, and the owner stays an admin.",
		c.URI.User, c.Email, p.Owner, dateOf(now.Ms+v.ownerWait())), now, asked)
	return Handled{Changes: []record.Change{asked, note}}, nil
}

// Reply: the caller is the owner now, or the time after which its
// request is granted.
func (o TakeOwner) Reply(c Caller, v View, d Done, now Now) wire.OwnerReply {
	if _, ok := madeOf[record.OwnerSet](d); ok {
		return wire.OwnerReply{Owner: true, Text: "You are the owner of the riff now."}
	}
	due := v.riff.People.AskedMs + v.ownerWait()
	for _, rec := range d.Made {
		if _, ok := rec.Change.(record.OwnerAsked); ok {
			due = rec.WrittenAtMs + v.ownerWait()
		}
	}
	return wire.OwnerReply{DueMs: due, Text: fmt.Sprintf("Your request for the owner role waits until %s: the owner can deny it until then. After it, you are the owner.", dateOf(due))}
}

// DenyOwner ends the request for the owner role that waits. Only the
// owner can.
type DenyOwner struct {
	wire.DenyOwner
	base
}

func (DenyOwner) Kind() record.Command { return record.CommandDenyOwner }
func (DenyOwner) Needs(Caller) Role    { return Owner }

func (o DenyOwner) Handle(c Caller, v View, now Now) (Handled, error) {
	asked := v.riff.People.Asked
	if asked == "" {
		return Handled{}, bad("no request for the owner role waits")
	}
	denied := record.OwnerDenied{Email: asked}
	note := v.ownerNote(fmt.Sprintf("owner: the owner denied the request of %s for the owner role.", asked), now, denied)
	return Handled{Changes: []record.Change{denied, note}}, nil
}

func (o DenyOwner) Reply(c Caller, v View, d Done, now Now) wire.TextReply {
	denied, _ := madeOf[record.OwnerDenied](d)
	return wire.TextReply{Text: fmt.Sprintf("The request of %s for the owner role is denied.", denied.Email)}
}

// GrantOwner is the command of the server that grants the request for
// the owner role of Email after its wait. A request of a person who is
// no admin now ends with no owner role.
type GrantOwner struct {
	Email string
	base
}

func (GrantOwner) Kind() record.Command { return record.CommandGrantOwner }

func (g GrantOwner) Handle(c Caller, v View, now Now) (Handled, error) {
	p := v.riff.People
	if p.Asked == "" || p.Asked != g.Email {
		return Handled{}, bad("no request of %s for the owner role waits", g.Email)
	}
	if due := p.AskedMs + v.ownerWait(); now.Ms < due {
		return Handled{}, bad("the request of %s for the owner role waits until %s", g.Email, dateOf(due))
	}
	if v.roleOf(g.Email) < Admin || !v.IsMember(g.Email) {
		denied := record.OwnerDenied{Email: g.Email}
		note := v.ownerNote(fmt.Sprintf("owner: the request of %s for the owner role ended: the person is no admin now.", g.Email), now, denied)
		return Handled{Changes: []record.Change{denied, note}}, nil
	}
	old := p.Owner
	changes := v.oldOwnerStaysAdmin(old)
	changes = append(changes, record.OwnerSet{Email: g.Email})
	text := fmt.Sprintf("owner: %s is the owner now: the request waited its time, and the owner did not deny it.", g.Email)
	if old != "" {
		text += fmt.Sprintf(" %s stays an admin.", old)
	}
	return Handled{Changes: append(changes, v.ownerNote(text, now, changes...))}, nil
}

func (GrantOwner) Reply(Caller, View, Done, Now) struct{} { return struct{}{} }

// EndOwner is the command of the server that ends the role of an owner
// who is gone ([View.OwnerGone]). The old owner stays an admin: when the
// person comes back, riff owner --take makes it the owner again at once
// in a riff that still has no owner.
type EndOwner struct {
	Email string
	base
}

func (EndOwner) Kind() record.Command { return record.CommandEndOwner }

func (e EndOwner) Handle(c Caller, v View, now Now) (Handled, error) {
	p := v.riff.People
	if p.Owner == "" || p.Owner != e.Email {
		return Handled{}, bad("%s is not the owner", e.Email)
	}
	if !v.OwnerGone(now) {
		return Handled{}, bad("the owner %s gave a sign of life in the last %s", e.Email, Ago(v.ownerGone()))
	}
	changes := v.oldOwnerStaysAdmin(e.Email)
	changes = append(changes, record.OwnerEnded{Email: e.Email})
	text := fmt.Sprintf("owner: the owner role of %s ended: no sign of life for %s. The person stays an admin. %s.", e.Email, Ago(v.ownerGone()), upper(NoOwner))
	return Handled{Changes: append(changes, v.ownerNote(text, now, changes...))}, nil
}

func (EndOwner) Reply(Caller, View, Done, Now) struct{} { return struct{}{} }

func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// OwnerSeenMs gives the time of the last sign of life of the owner: the
// newest call or keep-alive of its person or of a session of its user,
// the newest record of a session of its user, and at least the start of
// the server (a stop of the server does not count against the owner).
// An owner who never signed in has only the start of the server.
func (v View) OwnerSeenMs() int64 {
	p := v.riff.People
	seen := v.presence.LoadedMs
	user := p.userOf(p.Owner)
	if user == "" {
		return seen
	}
	for key, l := range v.presence.Lives {
		if u, _, _ := strings.Cut(key, "/"); u == user {
			seen = max(seen, l.SeenMs, l.CalledMs)
		}
	}
	for _, s := range v.riff.Sessions {
		if s.URI.User == user {
			seen = max(seen, s.LastMs)
		}
	}
	return seen
}

// OwnerRequestDue gives the email of the request for the owner role
// whose wait ended at now: the timer of the server then sends
// [GrantOwner] with it.
func (v View) OwnerRequestDue(now Now) (string, bool) {
	p := v.riff.People
	if !v.opts.SignIn || p.Asked == "" || now.Ms < p.AskedMs+v.ownerWait() {
		return "", false
	}
	return p.Asked, true
}

// OwnerGone says whether the owner is gone at now: no sign of life
// ([View.OwnerSeenMs]) for the time of gone. The timer of the server then
// sends [EndOwner] with the email of the owner.
func (v View) OwnerGone(now Now) bool {
	p := v.riff.People
	return v.opts.SignIn && p.Owner != "" && now.Ms-v.OwnerSeenMs() >= v.ownerGone()
}

// OwnerWarning gives the warning to an owner whose role ends soon: once
// the owner gave no sign of life for the time of gone less the time of
// the warning, and only when no warning came since the last sign of
// life. It is an announce (a note in chat to the owner): no change of
// the people. The timer of the server sends it.
func (v View) OwnerWarning(now Now) (Announce, bool) {
	p := v.riff.People
	if !v.opts.SignIn || p.Owner == "" || v.OwnerGone(now) {
		return Announce{}, false
	}
	seen := v.OwnerSeenMs()
	if now.Ms-seen < v.ownerGone()-v.ownerWarn() {
		return Announce{}, false
	}
	if t := v.riff.Threads[name.Chat]; t != nil {
		for _, m := range t.Messages {
			if m.AtMs >= seen && m.Sender.Who() == ServerURI().Who() && m.Type == record.MessageNote && strings.HasPrefix(bodyText(m), ownerWarnStart) {
				return Announce{}, false
			}
		}
	}
	var to []selector.Selector
	if user := p.userOf(p.Owner); user != "" {
		person := true
		to = []selector.Selector{{User: user, Person: &person}}
	}
	text := fmt.Sprintf("%sfor %s: the owner role of %s ends at %s. A call of riff by the owner keeps it.",
		ownerWarnStart, Ago(now.Ms-seen), p.Owner, dateOf(seen+v.ownerGone()))
	return Announce{Thread: name.Chat, Text: text, To: to}, true
}

// bodyText gives the text of a kept message.
func bodyText(m Message) string {
	c, err := signed.Decode(m.Payload)
	if err != nil {
		return ""
	}
	return c.Body
}
