package riffstate

import (
	"maps"
	"slices"
	"strings"

	"github.com/como-technologies/riff/riffcore/wire"
)

// Top gives one look of riff top: the facts of the riff as who gives
// them, each live session with the facts of its state one by one, each
// person with its tag and whether it is online, and what the riff knows
// of each board (Boards). It reads only; it gives no signal.
func (v View) Top(c Caller, _ wire.Top, now Now) (wire.TopReply, []Signal, error) {
	who := v.Who(c, false, now)
	reply := wire.TopReply{Pauses: who.Pauses, Owner: who.Owner, Build: who.Build, Rows: []wire.TopRow{}, People: []wire.TopPerson{}, Boards: []wire.TopBoard{}}
	sessions := map[string]*Session{}
	for _, s := range v.riff.Sessions {
		sessions[s.URI.Who().String()] = s
	}
	for _, row := range who.Rows {
		s := sessions[row.URI.Who().String()]
		if s == nil {
			continue
		}
		_, first, claims, facts := v.rowParts(c, s, now)
		// who says "the lead gave no answer" after the reason, on its one
		// line (riffstate blocked.go, NoAnswerText); riff top shows it on
		// a line of its own, from Unanswered.
		if row.Unanswered {
			first = strings.TrimSuffix(first, "  "+NoAnswerText)
		}
		top := wire.TopRow{WhoRow: row, First: first, Facts: facts}
		for _, ref := range claims {
			top.Claims = append(top.Claims, wire.TopClaim{Thread: string(ref.Thread), Item: ref.Item})
		}
		if l := v.presence.Live(s.URI.Who()); row.State == "blocked" && l != nil && l.Block != nil {
			top.Block = &wire.TopBlock{Reason: l.Block.Text, Waits: Ago(now.Ms - l.Block.AtMs)}
		}
		reply.Rows = append(reply.Rows, top)
	}
	// A person is online when one of its sessions is: a row of who
	// that is not offline (who gives no gone row here).
	online := map[string]bool{}
	for _, row := range who.Rows {
		if row.State != "offline" {
			online[row.URI.User] = true
		}
	}
	reply.People = v.topPeople(online, now)
	for _, b := range v.Boards(c, now) {
		board := wire.TopBoard{Repo: b.Repo, Paused: b.Paused, Claimed: b.Claimed}
		for _, h := range b.Held {
			board.Held = append(board.Held, wire.TopHeld{Item: h.Item, Reason: h.Reason})
		}
		reply.Boards = append(reply.Boards, board)
	}
	return reply, nil, nil
}

// topPeople gives the people of riff top in the order of user: each
// member of a riff with sign-in, each user with a session that the riff
// keeps, and each person that called. A person is online when one of
// its sessions is (not gone, not offline); else the line shows the time
// since its last call, of the person or of one of its sessions.
func (v View) topPeople(online map[string]bool, now Now) []wire.TopPerson {
	type person struct {
		online   bool
		calledMs int64
	}
	people := map[string]*person{}
	at := func(user string) *person {
		p := people[user]
		if p == nil {
			p = &person{}
			people[user] = p
		}
		return p
	}
	if v.opts.SignIn {
		for user, email := range v.riff.People.Emails {
			if v.IsMember(email) {
				at(user)
			}
		}
	}
	for _, s := range v.riff.Sessions {
		w := s.URI.Who()
		p := at(w.User)
		p.calledMs = max(p.calledMs, v.CalledMs(s))
		p.online = p.online || online[w.User]
	}
	for key, l := range v.presence.Lives {
		// The key of a person is its user (name.Who.String): a session's
		// has a slash.
		if strings.Contains(key, "/") {
			continue
		}
		at(key).calledMs = max(at(key).calledMs, l.CalledMs)
	}
	out := []wire.TopPerson{}
	for _, user := range slices.Sorted(maps.Keys(people)) {
		if IsServerName(user) || user == "" {
			continue
		}
		p := people[user]
		tp := wire.TopPerson{User: user, Online: p.online}
		switch v.riff.People.roleOf(user) {
		case Owner:
			tp.Tag = "owner"
		case Admin:
			tp.Tag = "admin"
		}
		if !v.opts.SignIn {
			tp.Tag = ""
		} else if email, ok := v.riff.People.Emails[user]; ok && slices.Contains(v.opts.Admins, email) && tp.Tag == "" {
			tp.Tag = "admin"
		}
		if !p.online && p.calledMs > 0 {
			tp.Seen = Ago(now.Ms - p.calledMs)
		}
		out = append(out, tp)
	}
	return out
}
