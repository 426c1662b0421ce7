package riffstate

import (
	"fmt"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Lead names a session the lead of the caller's user in the repository
// of the session. Only a person can (permits); a worker is never the
// lead (handle). The old lead gets a direct message, and the new lead
// takes its read marks.
type Lead struct {
	wire.Lead
	base
}

func (Lead) Kind() record.Command { return record.CommandLead }

// target gives the session that a lead call names, and the repository
// that it leads: the place of the session.
func (l Lead) target(c Caller, v View, now Now) (*Session, name.Repo, error) {
	target, err := v.ResolveSession(l.Session, "", now)
	if err != nil {
		return nil, "", err
	}
	if target.URI.User != c.URI.User {
		return nil, "", wire.Refuse(wire.OtherUser, "the session %s is of %s: you name only your own lead", target.URI.Named(), target.URI.User)
	}
	if target.Worker {
		return nil, "", wire.Refuse(wire.NotAllowed, "%s is a worker: a worker cannot be the lead. Make another session the lead", target.URI.Named())
	}
	repo := target.URI.Repo
	if l := v.presence.Live(target.URI.Who()); l != nil && l.Place.Repo != "" {
		repo = l.Place.Repo
	}
	if !repo.InGit() {
		return nil, "", bad("the session %s works outside a git repository: a lead leads a repository", target.URI.Named())
	}
	return target, repo, nil
}

func (l Lead) Handle(c Caller, v View, now Now) (Handled, error) {
	target, repo, err := l.target(c, v, now)
	if err != nil {
		return Handled{}, err
	}
	thread := name.Thread(repo)
	old, hasOld := v.riff.LeadOf(c.URI.User, repo)
	if hasOld && old == target.URI.Who() {
		return Handled{}, nil
	}
	set := record.LeadSet{Session: target.URI, Thread: thread}
	changes := []record.Change{set}
	if hasOld {
		set.Old = &old
		changes[0] = set
		if s := v.riff.Session(old); s != nil {
			changes = append(changes, v.serverDirect(s.URI, fmt.Sprintf(
				"lead: you are not the lead of %s now: %s is the lead.", repo, target.URI.Named()), now))
		}
	}
	return Handled{Changes: changes}, nil
}

// Reply: the lead and the repository of the lead_set record; the old
// lead is the one that got the direct message of the server. A lead call
// that names the lead that is there has no record: the reply names it
// again from the written copy.
func (l Lead) Reply(c Caller, v View, d Done, now Now) wire.LeadReply {
	var lead, old name.SessionURI
	var repo name.Repo
	if set, ok := madeOf[record.LeadSet](d); ok {
		lead = set.Session
		repo, _ = set.Thread.Repo()
		// The old lead got a direct message when the riff knew its
		// session: the reply names it only then, as handle did.
		if _, told := madeOf[record.Posted](d); told && set.Old != nil {
			old = oldLeadOf(v, *set.Old)
		}
	} else if target, r, err := l.target(c, v, now); err == nil {
		lead, repo = target.URI, r
	}
	text := fmt.Sprintf("%s is your lead in %s now.", lead.Named(), repo)
	if !old.IsZero() {
		text += fmt.Sprintf(" %s is not the lead any more, and got a message.", old.Named())
	}
	reply := wire.LeadReply{Lead: lead, Old: old, Text: text}
	if s := v.riff.Session(lead.Who()); s != nil {
		reply.Lead = v.Marked(s, now)
	}
	return reply
}

// oldLeadOf gives the URI of the old lead of a lead_set, as the riff
// knows the session.
func oldLeadOf(v View, w name.Who) name.SessionURI {
	if s := v.riff.Session(w); s != nil {
		return s.URI
	}
	return name.SessionURI{User: w.User, Session: w.Session}
}
