package riffstate

import (
	"slices"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
)

// Apply changes the riff for one record. It stores only what the record
// says: it reads the record and the riff, and no clock, no presence and
// no setting. It never fails: a record that the riff cannot take (for
// example the release of a claim that is not there) changes nothing and
// counts as a warning, and a record that this build skips counts as
// skipped.
//
// The places where apply reads the riff: the session of a record (to
// update its place and its life cycle), the holder of a claim (a claim of
// a held item, a release by another holder), the last seq of a thread (a
// post at or below it), the members of a thread (a join, and the join
// marks of the old lead at a lead_set), the sides of the direct threads
// at a forget, and the relays of a session (a relay_started of a relay
// that it has).
func Apply(r *Riff, rec record.Record) (took bool) {
	if rec.Position > r.Position {
		r.Position = rec.Position
	}
	if rec.Skipped() {
		r.Skipped++
		if r.FirstSkipped == 0 {
			r.FirstSkipped = rec.Position
		}
		// A value read as other stores nothing; the URI and the time of a
		// session that the record names stay, as for each record.
		switch c := rec.Change.(type) {
		case record.SessionStarted:
			if len(c.Session.Unknown) == 0 {
				r.touch(c.Session, rec.WrittenAtMs)
			}
		case record.Posted:
			// A message of a kind, a selector or a sender URI of a later
			// build stays in its thread, with the sessions that the
			// record says it woke: a reader shows it as a message, and
			// the seq of the thread stays right for the next post.
			r.keep(c, rec)
		}
		return false
	}
	if !r.apply(rec) {
		r.Warnings++
		return false
	}
	return true
}

func (r *Riff) apply(rec record.Record) bool {
	at := rec.WrittenAtMs
	switch c := rec.Change.(type) {
	case record.RiffMade:
		if r.ID != "" {
			return false
		}
		r.ID = c.Riff
	case record.SessionStarted:
		if c.Session.IsPerson() {
			return false
		}
		s := r.touch(c.Session, at)
		s.Worker = c.Worker
		if c.Reason.Fresh() {
			s.FreshMs = at
			if s.Life == MustClear {
				s.Life = Ready
			}
		}
	case record.SessionForgotten:
		return r.forget(c.Session.Who())
	case record.RelayStarted:
		if c.Session.IsPerson() {
			return false
		}
		s := r.touch(c.Session, at)
		if slices.Contains(s.Relays, c.Relay) {
			return false
		}
		s.Relays = append(s.Relays, c.Relay)
	case record.RelayEnded:
		if c.Session.IsPerson() {
			return false
		}
		s := r.touch(c.Session, at)
		if c.Last {
			s.Relays = nil
		} else {
			s.Relays = slices.DeleteFunc(s.Relays, func(id string) bool { return id == c.Relay })
		}
	case record.JoinedThread:
		if !c.Session.IsPerson() {
			r.touch(c.Session, at)
		}
		t := r.thread(c.Thread)
		key := c.Session.Who().String()
		if _, ok := t.Members[key]; ok {
			return false
		}
		t.Members[key] = t.LastSeq
	case record.LeftThread:
		if !c.Session.IsPerson() {
			r.touch(c.Session, at)
		}
		t := r.Threads[c.Thread]
		w := c.Session.Who()
		if t == nil {
			return false
		}
		if _, ok := t.Members[w.String()]; !ok {
			return false
		}
		delete(t.Members, w.String())
		if repo, ok := c.Thread.Repo(); ok && r.IsLead(w, repo) {
			delete(r.Leads, leadKey(w.User, repo))
		}
	case record.Posted:
		if !r.keep(c, rec) {
			return false
		}
		if !c.Sender.IsPerson() && r.Session(c.Sender.Who()) != nil {
			r.touch(c.Sender, at)
		}
	case record.Claimed:
		key := claimKey(c.Thread, c.Item)
		if r.Claims[key] != nil {
			return false
		}
		w := c.Session.Who()
		r.Claims[key] = &Holding{Holder: w, URI: c.Session.Bare(), Thread: c.Thread, Item: c.Item, AtMs: at}
		if !w.IsPerson() {
			s := r.touch(c.Session, at)
			s.Claims = append(s.Claims, ClaimRef{c.Thread, c.Item})
			s.Life = Working
		}
	case record.Released:
		key := claimKey(c.Thread, c.Item)
		w := c.Session.Who()
		if held := r.Claims[key]; held == nil || held.Holder != w {
			return false
		}
		delete(r.Claims, key)
		if !w.IsPerson() {
			s := r.touch(c.Session, at)
			// A session holds each claim once (a claimed record of a held
			// item changes nothing), and the newest goes first most often:
			// the search starts from the end, so a release of the last
			// claim of a session with 1,000 costs what it costs at one.
			for i := len(s.Claims) - 1; i >= 0; i-- {
				if ref := s.Claims[i]; ref.Item == c.Item && ref.Thread == c.Thread {
					s.Claims = slices.Delete(s.Claims, i, i+1)
					break
				}
			}
			s.ReleasedMs = at
			if len(s.Claims) == 0 {
				s.Life = Ready
				if c.MustClear {
					s.Life = MustClear
				}
			}
		}
	case record.LeadSet:
		repo, ok := c.Thread.Repo()
		if !ok || c.Session.IsPerson() {
			return false
		}
		r.touch(c.Session, at)
		r.Leads[leadKey(c.Session.User, repo)] = c.Session.Who()
		if c.Old != nil {
			r.takeJoinMarks(c.Session.Who(), *c.Old)
		}
	case record.PauseSet:
		info := &PauseInfo{By: rec.By, AtMs: at}
		if rec.Command == "make_riff" {
			info.By = nil
		}
		paused := c.State == record.Paused
		switch {
		case c.Scope.Riff && paused:
			r.Pauses.Riff = info
		case c.Scope.Riff:
			r.Pauses.Riff = nil
		case paused:
			r.Pauses.Repos[c.Scope.Repository] = info
		default:
			delete(r.Pauses.Repos, c.Scope.Repository)
		}
	case record.ItemHeld:
		r.Holds[claimKey(c.Thread, c.Item)] = &HoldInfo{Thread: c.Thread, Item: c.Item, Reason: c.Reason, By: rec.By, AtMs: at}
	case record.ItemFreed:
		key := claimKey(c.Thread, c.Item)
		if r.Holds[key] == nil {
			return false
		}
		delete(r.Holds, key)
	case record.PlanSet:
		r.Plans[c.Thread] = &Plan{Text: c.Plan, By: rec.By, AtMs: at}
	case record.PlanEnded:
		if r.Plans[c.Thread] == nil {
			return false
		}
		delete(r.Plans, c.Thread)
	case record.NotesSet:
		key := notesKey(c.User, c.Thread)
		n := r.Notes[key]
		if n == nil {
			n = &Notes{}
			r.Notes[key] = n
		}
		n.Text = c.Text
		n.History = append(n.History, NoteVersion{Text: c.Text, By: rec.By, AtMs: at})
		if over := len(n.History) - MaxNoteVersions; over > 0 {
			n.History = slices.Delete(n.History, 0, over)
		}
	case record.SettingChanged:
		if c.IdleWorkers != nil {
			r.Idle[idleKey(*c.IdleWorkers)] = *c.IdleWorkers
		}
	default:
		return r.People.apply(rec)
	}
	return true
}

// keep keeps a message in its thread, the last KeptMessages of it: a
// message at or below the last seq of the thread changes nothing.
func (r *Riff) keep(c record.Posted, rec record.Record) bool {
	if t := r.Threads[c.Thread]; t != nil && c.Seq <= t.LastSeq {
		return false
	}
	t := r.thread(c.Thread)
	t.LastSeq = c.Seq
	t.keepMessage(Message{Posted: c, Position: rec.Position, AtMs: rec.WrittenAtMs})
	r.remember(c, rec.WrittenAtMs)
	return true
}

// keptArray is the length of the array of a thread that kept
// KeptMessages: the kept messages move in it, to its start, once in
// keptArray-KeptMessages posts.
const keptArray = 2 * KeptMessages

// keepMessage adds m to the kept messages of t and drops the oldest one
// past KeptMessages. Under KeptMessages the messages grow as a slice
// does. From then on they lie in one array of t (kept), and move in it:
// a post goes after the last kept message while the array has room, and
// when it has none, the kept messages move to its start. So a post
// costs O(1) and allocates nothing (a reslice that append grows would
// allocate a new array each KeptMessages posts, about 600 bytes a post).
// A message moves only in the array of its own thread: a clone takes
// new arrays (copyThreads), and each read of the kept messages copies
// them out under the lock of the state.
func (t *Thread) keepMessage(m Message) {
	n := len(t.Messages)
	if n < KeptMessages {
		t.Messages = append(t.Messages, m)
		return
	}
	drop := n - KeptMessages + 1 // 1, or more when more were kept
	in := t.inKept()
	if in && n < cap(t.Messages) {
		t.Messages = append(t.Messages, m)[drop:]
		return
	}
	if !in {
		t.kept = make([]Message, keptArray)
	}
	moved := copy(t.kept, t.Messages[drop:])
	t.kept[moved] = m
	// Past the kept messages the array holds those of before the move,
	// the oldest of them dropped: cleared, so that it keeps no payload
	// of a message that the thread dropped longer than it must.
	clear(t.kept[moved+1:])
	t.Messages = t.kept[:moved+1]
}

// inKept says whether the kept messages lie in the array kept: the
// messages of a thread read from a checkpoint, or copied by a clone,
// lie in an array of their own until their first move.
func (t *Thread) inKept() bool {
	if len(t.kept) == 0 || cap(t.Messages) == 0 {
		return false
	}
	return &t.Messages[:cap(t.Messages)][cap(t.Messages)-1] == &t.kept[len(t.kept)-1]
}

// takeJoinMarks gives the new lead the join marks of the old lead in
// each thread that both joined, when they are older: the new lead takes
// the read marks of the old one (the presence copies the read cursors in
// [Presence.Applied]), so a join after the old lead's read does not hide
// the messages that the old lead did not read.
func (r *Riff) takeJoinMarks(lead, old name.Who) {
	for _, t := range r.Threads {
		mine, ok := t.Members[lead.String()]
		theirs, both := t.Members[old.String()]
		if ok && both && theirs < mine {
			t.Members[lead.String()] = theirs
		}
	}
}

// touch gives the session of u, made Ready when the riff does not know
// it, at the place of u and with the time of the record.
func (r *Riff) touch(u name.SessionURI, at int64) *Session {
	w := u.Who()
	s := r.Sessions[w.String()] // a lookup allocates no key
	if s == nil {
		s = &Session{Life: Ready}
		r.Sessions[w.String()] = s
	}
	s.URI = u.Bare()
	if at > s.LastMs {
		s.LastMs = at
	}
	return s
}

func (r *Riff) thread(n name.Thread) *Thread {
	t := r.Threads[n]
	if t == nil {
		t = &Thread{Name: n, Members: map[string]uint64{}}
		r.Threads[n] = t
	}
	return t
}

// forget drops a session, its places in the threads, its claims, its
// leads, and each direct thread whose two sides are gone.
func (r *Riff) forget(w name.Who) bool {
	key := w.String()
	if r.Sessions[key] == nil {
		return false
	}
	delete(r.Sessions, key)
	for k, c := range r.Claims {
		if c.Holder == w {
			delete(r.Claims, k)
		}
	}
	for k, lead := range r.Leads {
		if lead == w {
			delete(r.Leads, k)
		}
	}
	for n, t := range r.Threads {
		delete(t.Members, key)
		if a, b, ok := n.Sides(); ok && r.gone(a) && r.gone(b) {
			delete(r.Threads, n)
		}
	}
	return true
}

// gone says whether a side of a direct thread is no session of the riff.
// A person is no session.
func (r *Riff) gone(p name.Party) bool {
	if _, person := p.Person(); person {
		return true
	}
	for _, s := range r.Sessions {
		if s.URI.Session == string(p) {
			return false
		}
	}
	return true
}

// ended keeps the position of an end of the sign-ins of email, for the
// email and for its user.
func (p *People) ended(email string, position uint64) {
	p.Ended[email] = position
	if user := p.userOf(email); user != "" {
		if p.EndedUsers == nil {
			p.EndedUsers = map[string]uint64{}
		}
		p.EndedUsers[user] = position
	}
}

func (p *People) apply(rec record.Record) bool {
	if p.Emails == nil {
		p.Emails = map[string]string{}
	}
	if p.Ended == nil {
		p.Ended = map[string]uint64{}
	}
	switch c := rec.Change.(type) {
	case record.PersonJoined:
		p.Emails[c.User] = c.Email
	case record.MemberInvited:
		if slices.Contains(p.Members, c.Email) {
			return false
		}
		p.Members = append(p.Members, c.Email)
		p.Removed = slices.DeleteFunc(p.Removed, func(m string) bool { return m == c.Email })
	case record.MemberRemoved:
		// A member of the log, or a person whom the allowed domain let
		// in (who has a user and no member record).
		if !slices.Contains(p.Members, c.Email) && p.userOf(c.Email) == "" {
			return false
		}
		p.Members = slices.DeleteFunc(p.Members, func(m string) bool { return m == c.Email })
		p.Admins = slices.DeleteFunc(p.Admins, func(m string) bool { return m == c.Email })
		if !slices.Contains(p.Removed, c.Email) {
			p.Removed = append(p.Removed, c.Email)
		}
		p.ended(c.Email, rec.Position)
	case record.AdminSet:
		has := slices.Contains(p.Admins, c.Email)
		switch {
		case c.Admin && !has:
			p.Admins = append(p.Admins, c.Email)
		case !c.Admin && has:
			p.Admins = slices.DeleteFunc(p.Admins, func(m string) bool { return m == c.Email })
		default:
			return false
		}
	case record.OwnerSet:
		p.Owner, p.HadOwner = c.Email, true
		p.Asked, p.AskedMs = "", 0
	case record.OwnerAsked:
		p.Asked, p.AskedMs = c.Email, rec.WrittenAtMs
	case record.OwnerDenied:
		if p.Asked != c.Email {
			return false
		}
		p.Asked, p.AskedMs = "", 0
	case record.OwnerEnded:
		if p.Owner != c.Email {
			return false
		}
		p.Owner = ""
	case record.SigninsEnded:
		p.ended(c.Email, rec.Position)
	default:
		return false
	}
	return true
}
