package riffstate

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Post posts a message to a thread, or with Tell a direct message.
//
// A session wakes when it is a live member of the thread (a side, for a
// direct thread) and it matches each named field of one selector. A
// selector with lead=true that matches no live session wakes each live
// session with no claim that its other fields match, when the user has
// no live lead. The sender never wakes itself. A note wakes nobody. The
// thread denials takes notes only (docs/agents.md, "the refusals": riff
// relay denied posts each refusal of auto mode there as a note), so a refusal wakes no session. A
// post with the key of a kept message of the same person is dropped.
type Post struct {
	wire.Post
	base
	// SentKind is the kind as the call sent it: the wire reads a kind
	// that this build does not know as other, and a refusal names the
	// kind that was sent.
	SentKind string `json:"-"`
	// told marks the tell of a signal (blocked, a failed step): the
	// server writes its text from the signal, so in a riff with sign-in it
	// has no signature of the caller. Only [TellLead] sets it; no call
	// over the wire can.
	told bool
}

// UnmarshalJSON reads the call, and keeps its kind as it was sent when
// this build does not know it (the wire reads it as other).
func (p *Post) UnmarshalJSON(b []byte) error {
	*p = Post{}
	if err := json.Unmarshal(b, &p.Post); err != nil {
		return err
	}
	if p.Post.Kind != record.MessageOther {
		return nil
	}
	// Only a call with a kind of another build reads the body again.
	var sent struct {
		Kind json.RawMessage `json:"kind"`
	}
	if err := json.Unmarshal(b, &sent); err != nil {
		return err
	}
	if json.Unmarshal(sent.Kind, &p.SentKind) != nil {
		p.SentKind = string(sent.Kind)
	}
	if p.SentKind == "" {
		// "kind": "" or null is no kind: a message.
		p.Post.Kind = ""
	}
	return nil
}

func (Post) Kind() record.Command { return record.CommandPost }

func (p Post) Handle(c Caller, v View, now Now) (Handled, error) {
	d, err := p.draft(c, v, now)
	if err != nil {
		return Handled{}, err
	}
	part, err := v.checkSigned(c, p, d, now)
	if err != nil {
		return Handled{}, err
	}
	if _, dropped := p.keptAs(c, v, d.thread); dropped {
		return Handled{}, nil
	}
	posted, _, err := v.post(c.URI, d.thread, d.kind, d.to, p.Body, p.Key, part, nil, now)
	if err != nil {
		return Handled{}, err
	}
	return Handled{Changes: append(v.joinsOf(posted), posted)}, nil
}

// joinsOf gives the joins of the sessions that a post to chat wakes and
// that are not in chat (a lead that a line names): each joins before the
// post, so that the post is unread for it and its next read shows it.
func (v View) joinsOf(posted record.Posted) []record.Change {
	if posted.Thread != name.Chat {
		return nil
	}
	var joins []record.Change
	for _, w := range posted.Woken {
		if s := v.riff.Session(w); s != nil && !v.riff.Member(name.Chat, w) {
			joins = append(joins, record.JoinedThread{Session: s.URI, Thread: name.Chat})
		}
	}
	return joins
}

// target gives the thread of a post and its to list: the direct thread
// with the side of a tell, or the thread that the post names.
func (p Post) target(c Caller, v View, now Now) (name.Thread, []selector.Selector, error) {
	if p.Tell != "" {
		target, err := v.tellTarget(c, p.Tell, now)
		if err != nil {
			return "", nil, err
		}
		if target.IsPerson() {
			person := true
			return name.DirectWith(c.Who(), target), []selector.Selector{{User: target.User, Person: &person}}, nil
		}
		return name.DirectWith(c.Who(), target), []selector.Selector{{Session: target.Session}}, nil
	}
	t, err := v.threadOf(c, p.Thread, now)
	if err != nil {
		return "", nil, err
	}
	if t.IsDirect() && !t.Has(c.Who()) {
		return "", nil, wire.Refuse(wire.NotAllowed, "you can post only to your own direct threads")
	}
	if err := v.checkChat(c, t); err != nil {
		return "", nil, err
	}
	return t, p.To, nil
}

// serverOnly refuses a post that only the server writes: one whose
// sender has a name of the server ([ServerNames]), and one into a direct
// thread of the server (a side ~riff), whatever the user of the caller.
// So no person and no session speaks as riff@server: its notes and its
// direct messages are the server's alone (docs/people.md, "The names of
// the server").
func serverOnly(c Caller, t name.Thread) error {
	if c.Class == record.ClassServer {
		return nil
	}
	if IsServerName(c.URI.User) {
		return wire.Refuse(wire.NotAllowed, "%s is a name of riff-server itself: only riff-server posts as it. A person signs in with an email whose part before @ is another name", c.URI.User)
	}
	if a, b, ok := t.Sides(); ok {
		for _, side := range []name.Party{a, b} {
			if user, person := side.Person(); person && IsServerName(user) {
				return wire.Refuse(wire.NotAllowed, "only riff-server writes in its direct threads: riff@server reads no message. Do the step that its message names; ask your lead with riff tell lead, or a person with riff tell ~USER")
			}
		}
	}
	return nil
}

// keptAs gives the seq of the kept message of the same person with the
// key of the post: a post with such a key is dropped.
func (p Post) keptAs(c Caller, v View, thread name.Thread) (uint64, bool) {
	if p.Key == "" {
		return 0, false
	}
	if t := v.riff.Threads[thread]; t != nil {
		for _, m := range t.Messages {
			if m.Key == p.Key && m.Sender.User == c.URI.User {
				return m.Seq, true
			}
		}
	}
	return 0, false
}

// Reply: the thread, the seq and the woken sessions of the posted
// record, and the selectors of its to list that woke none of them. A
// post with no record was dropped: the reply gives the seq of the kept
// message with its key, from the written copy.
func (p Post) Reply(c Caller, v View, d Done, now Now) wire.PostReply {
	posted, ok := madeOf[record.Posted](d)
	if !ok {
		reply := wire.PostReply{Dropped: true}
		if thread, _, err := p.target(c, v, now); err == nil {
			reply.Thread = thread.For(c.Who())
			reply.Seq, _ = p.keptAs(c, v, thread)
		}
		return reply
	}
	reply := wire.PostReply{Thread: posted.Thread.For(c.Who()), Seq: posted.Seq}
	var woken []name.SessionURI
	for _, w := range posted.Woken {
		if s := v.riff.Session(w); s != nil {
			woken = append(woken, v.Marked(s, now))
		}
	}
	reply.Woke = woken
	reply.Unmatched = v.unmatched(posted, woken, now)
	return reply
}

// unmatched gives the selectors of the to list of a posted record that
// woke no session: each one that matches none of the woken sessions
// (with their marks of now), where a selector with lead=true and no live
// lead counts as matched when it woke a session with no claim (the
// fallback of [View.woken]).
func (v View) unmatched(posted record.Posted, woken []name.SessionURI, now Now) []selector.Selector {
	if posted.Type == record.MessageNote {
		return nil
	}
	var out []selector.Selector
	for _, sel := range posted.To {
		if sel.Person != nil && *sel.Person {
			// It names the terminals of a person (riff chat, riff tail):
			// each shows each line of the thread, and the server holds no
			// wake for them, so it matches no session by its rule.
			continue
		}
		matched := false
		for _, u := range woken {
			if sel.Match(u) {
				matched = true
				break
			}
		}
		if !matched && sel.Lead != nil && *sel.Lead {
			wider, ok := v.fallback(sel, posted.Thread, posted.Sender.Who(), now)
			for _, u := range woken {
				if ok && len(u.Claims) == 0 && !v.IsDaemon(u.Who()) && wider.Match(u) {
					matched = true
					break
				}
			}
		}
		if !matched {
			out = append(out, sel)
		}
	}
	return out
}

// tellTarget finds the other side of a tell: the live lead of the
// caller's user in its repository, a person (~USER), or a live session
// by its ID or its start.
func (v View) tellTarget(c Caller, tell string, now Now) (name.Who, error) {
	switch {
	case tell == "lead":
		repo := c.URI.Repo
		lead, ok := v.LiveLead(c.URI.User, repo, now)
		if !ok || !repo.InGit() {
			where := string(repo)
			if !repo.InGit() {
				where = "this place"
			}
			return name.Who{}, bad("%s has no lead in %s: ask your own user", c.URI.User, where)
		}
		if lead.URI.Who() == c.Who() {
			return name.Who{}, bad("you are the lead of %s: ask your own user", repo)
		}
		return lead.URI.Who(), nil
	case len(tell) > 1 && tell[0] == '~':
		if err := name.CheckUser(tell[1:]); err != nil {
			return name.Who{}, bad("%v", err)
		}
		return name.Who{User: tell[1:]}, nil
	}
	s, err := v.ResolveSession(tell, "", now)
	if err != nil {
		return name.Who{}, err
	}
	if s.URI.Who() == c.Who() {
		return name.Who{}, bad("a session cannot tell itself")
	}
	if v.Gone(s.URI.Who(), now) {
		return name.Who{}, bad("the session %s is gone: it gets no messages", s.URI.Named())
	}
	return s.URI.Who(), nil
}

// post makes a posted record of sender in thread: the next seq (after
// the posts of prior, the changes of the same command before it), the
// lead mark, the woken sessions and the payload. With no signed part the
// server makes the payload from the fields; with one (checked by
// [View.checkSigned]) it keeps its bytes unchanged, and the lead mark of
// the record is the signed one.
func (v View) post(sender name.SessionURI, thread name.Thread, kind record.MessageKind, to []selector.Selector,
	body, key string, part *signedPart, prior []record.Change, now Now) (record.Posted, []selector.Selector, error) {
	seq := uint64(1)
	if t := v.riff.Threads[thread]; t != nil {
		seq = t.LastSeq + 1
	}
	for _, ch := range prior {
		if p, ok := ch.(record.Posted); ok && p.Thread == thread && p.Seq >= seq {
			seq = p.Seq + 1
		}
	}
	lead := v.leadMark(sender, now)
	woken, unmatched := v.woken(thread, kind, to, sender.Who(), now)
	var payload []byte
	var sig string
	if part == nil {
		content, err := draft{thread: thread, to: to, kind: kind, lead: lead}.content(sender, body, now)
		if err != nil {
			return record.Posted{}, nil, err
		}
		payload, err = signed.Encode(content)
		if err != nil {
			return record.Posted{}, nil, bad("the message does not encode: %v", err)
		}
	} else {
		payload, sig, lead = part.payload, part.sig, lead && part.lead
	}
	return record.Posted{
		Thread: thread, Seq: seq, Sender: sender, Type: kind, To: to, Key: key, Lead: lead,
		Payload: payload, Sig: sig, Woken: woken,
	}, unmatched, nil
}

// woken gives the sessions that a message wakes, in a stable order, and
// the selectors that matched no session.
func (v View) woken(thread name.Thread, kind record.MessageKind, to []selector.Selector, sender name.Who, now Now) ([]name.Who, []selector.Selector) {
	if kind == record.MessageNote || len(to) == 0 {
		return nil, nil
	}
	type candidate struct {
		who name.Who
		uri name.SessionURI
		// leadOnly is a live lead that is not in the thread chat: only a
		// selector with lead=true wakes it (it joins chat with the post).
		leadOnly bool
	}
	var candidates []candidate
	in := map[name.Who]bool{}
	add := func(s *Session, leadOnly bool) {
		w := s.URI.Who()
		if w == sender || in[w] || v.Gone(w, now) {
			return
		}
		// Only a member reads chat, so a message there wakes no other.
		if thread == name.Chat && !v.CallerIsMember(CallerOf(s.URI)) {
			return
		}
		in[w] = true
		candidates = append(candidates, candidate{w, v.Marked(s, now), leadOnly})
	}
	if a, b, ok := thread.Sides(); ok {
		for _, side := range []name.Party{a, b} {
			if _, person := side.Person(); person {
				continue
			}
			for _, s := range v.riff.Sessions {
				if s.URI.Session == string(side) {
					add(s, false)
				}
			}
		}
	} else if t := v.riff.Threads[thread]; t != nil {
		for key := range t.Members {
			if s := v.riff.Sessions[key]; s != nil {
				add(s, false)
			}
		}
	}
	if thread == name.Chat {
		// The lead answers its person in chat (docs/cli.md, riff chat): a
		// line to the leads wakes each live lead that it names, also one
		// that never joined chat.
		for _, key := range slices.Sorted(maps.Keys(v.riff.Leads)) {
			if s := v.riff.Session(v.riff.Leads[key]); s != nil {
				if _, live := v.LiveLead(s.URI.User, s.URI.Repo, now); live {
					add(s, true)
				}
			}
		}
	}
	slices.SortFunc(candidates, func(a, b candidate) int { return compareWho(a.who, b.who) })
	woke := map[name.Who]bool{}
	var unmatched []selector.Selector
	for _, sel := range to {
		matched := false
		leadSel := sel.Lead != nil && *sel.Lead
		for _, cand := range candidates {
			if (leadSel || !cand.leadOnly) && sel.Match(cand.uri) {
				woke[cand.who], matched = true, true
			}
		}
		if !matched && leadSel {
			if wider, ok := v.fallback(sel, thread, sender, now); ok {
				for _, cand := range candidates {
					if !cand.leadOnly && len(cand.uri.Claims) == 0 && !v.IsDaemon(cand.who) && wider.Match(cand.uri) {
						woke[cand.who], matched = true, true
					}
				}
			}
		}
		if !matched {
			unmatched = append(unmatched, sel)
		}
	}
	var out []name.Who
	for _, cand := range candidates {
		if woke[cand.who] {
			out = append(out, cand.who)
		}
	}
	return out, unmatched
}

// fallback gives the selector that a selector with lead=true wakes in
// place of the lead, when its user has no live lead in the repository:
// each live session with no claim that the other fields match; with no
// other field, each free session of the user. The session of a riff
// daemon is never a free session: it takes no work (see IsDaemon).
func (v View) fallback(sel selector.Selector, thread name.Thread, sender name.Who, now Now) (selector.Selector, bool) {
	user := sel.User
	if user == "" {
		user = sender.User
	}
	repo := sel.Repo
	if repo == "" {
		repo, _ = thread.Repo()
	}
	if _, ok := v.LiveLead(user, repo, now); ok {
		return selector.Selector{}, false
	}
	wider := sel.Without()
	if wider.IsEmpty() {
		wider.User = user
	}
	return wider, true
}

func compareWho(a, b name.Who) int {
	if a.User != b.User {
		if a.User < b.User {
			return -1
		}
		return 1
	}
	switch {
	case a.Session < b.Session:
		return -1
	case a.Session > b.Session:
		return 1
	}
	return 0
}

// serverPost makes a posted record of the server in a thread.
func (v View) serverPost(thread name.Thread, kind record.MessageKind, to []selector.Selector, text string, now Now, prior ...record.Change) record.Posted {
	posted, _, _ := v.post(ServerURI(), thread, kind, to, text, "", nil, prior, now)
	return posted
}

// serverDirect makes a direct message of the server to a session: it
// wakes the session.
func (v View) serverDirect(to name.SessionURI, text string, now Now, prior ...record.Change) record.Posted {
	thread := name.DirectWith(ServerURI().Who(), to.Who())
	sel := []selector.Selector{{Session: to.Session}}
	return v.serverPost(thread, record.MessagePlain, sel, text, now, prior...)
}

// IsDaemon says whether the session w is the session of a riff daemon
// (a keep-alive with the daemon mark): it runs the sessions in
// containers and takes no claims, so no lead fallback wakes it.
func (v View) IsDaemon(w name.Who) bool {
	l := v.presence.Live(w)
	return l != nil && l.Daemon
}
