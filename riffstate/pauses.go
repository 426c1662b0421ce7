package riffstate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Pause pauses the repository of the caller, the whole riff, or a
// repository by its name. See [setPause].
type Pause struct {
	wire.Pause
	base
}

// Resume ends a pause. See [setPause].
type Resume struct {
	wire.Resume
	base
}

func (Pause) Kind() record.Command  { return record.CommandPause }
func (Resume) Kind() record.Command { return record.CommandResume }

// Needs: the whole riff and a repository by its name need an admin.
func (p Pause) Needs(Caller) Role  { return scopeRole(p.Riff, p.Repository) }
func (r Resume) Needs(Caller) Role { return scopeRole(r.Riff, r.Repository) }

func scopeRole(riff bool, repo name.Repo) Role {
	if riff || repo != "" {
		return Admin
	}
	return Member
}

func (p Pause) Handle(c Caller, v View, now Now) (Handled, error) {
	return setPause(c, v, p.Riff, p.Repository, record.Paused, now)
}

func (r Resume) Handle(c Caller, v View, now Now) (Handled, error) {
	return setPause(c, v, r.Riff, r.Repository, record.Running, now)
}

func (p Pause) Reply(c Caller, v View, d Done, now Now) wire.PauseReply {
	return pauseReply(c, v, d, p.Riff, p.Repository, record.Paused, now)
}
func (r Resume) Reply(c Caller, v View, d Done, now Now) wire.PauseReply {
	return pauseReply(c, v, d, r.Riff, r.Repository, record.Running, now)
}

// setPause sets the pause of a scope. A session pauses and resumes only
// its own repository, and only when it is the live lead there. A pause
// and a resume wake each live session that they stop or start; a session
// that another pause still stops does not wake. A pause or a resume of
// the whole riff posts one message to the lead of each repository with
// a pause of its own.
func setPause(c Caller, v View, riff bool, repo name.Repo, state record.PauseState, now Now) (Handled, error) {
	scope, err := pauseScope(c, riff, repo)
	if err != nil {
		return Handled{}, err
	}
	if c.Class == record.ClassSession {
		lead, ok := v.LiveLead(c.URI.User, c.URI.Repo, now)
		if !ok || lead.URI.Who() != c.Who() {
			return Handled{}, wire.Refuse(wire.NotAllowed, "only the lead can %s: %s is not the lead of %s. Ask your lead, or your user", verb(state), c.URI.Named(), c.URI.Repo)
		}
		if scope.Repository != "" && scope.Repository != c.URI.Repo {
			return Handled{}, wire.Refuse(wire.NotAllowed, "a lead can %s only its own repository %s", verb(state), c.URI.Repo)
		}
	}
	if currentState(v.riff.Pauses, scope) == state {
		return Handled{}, nil
	}
	changes := []record.Change{record.PauseSet{Scope: scope, State: state}}
	if scope.Riff {
		for _, r := range slices.Sorted(maps.Keys(v.riff.Pauses.Repos)) {
			info := v.riff.Pauses.Repos[r]
			for _, lead := range v.leadsIn(r, now) {
				by := "a caller"
				if info.By != nil {
					by = info.By.String()
				}
				text := fmt.Sprintf("pause: the riff is paused. The pause of %s by %s stops its workers too.", r, by)
				if state == record.Running {
					text = fmt.Sprintf("pause: the riff runs again, and %s is still paused by %s: its workers wait for its resume.", r, by)
				}
				changes = append(changes, v.serverPost(name.Thread(r), record.MessagePlain,
					[]selector.Selector{{Session: lead.URI.Session}}, text, now, changes...))
			}
		}
	}
	return Handled{Changes: changes}, nil
}

// pauseScope gives the scope of a pause or a resume: the whole riff, a
// repository by its name, or the repository of the caller.
func pauseScope(c Caller, riff bool, repo name.Repo) (record.Scope, error) {
	switch {
	case riff:
		return record.RiffScope(), nil
	case repo != "":
		if !repo.InGit() {
			return record.Scope{}, bad("%s is no repository: give OWNER/REPO", repo)
		}
		return record.RepoScope(repo), nil
	}
	if !c.URI.Repo.InGit() {
		return record.Scope{}, bad("you work outside a git repository: name the repository with --repo OWNER/REPO, or the riff with --riff")
	}
	return record.RepoScope(c.URI.Repo), nil
}

// withScope gives the pauses p with the scope set to state.
func withScope(p Pauses, scope record.Scope, state record.PauseState, set *PauseInfo) Pauses {
	out := p
	out.Repos = make(map[name.Repo]*PauseInfo, len(p.Repos))
	for r, info := range p.Repos {
		out.Repos[r] = info
	}
	switch {
	case scope.Riff && state == record.Paused:
		out.Riff = set
	case scope.Riff:
		out.Riff = nil
	case state == record.Paused:
		out.Repos[scope.Repository] = set
	default:
		delete(out.Repos, scope.Repository)
	}
	return out
}

// pauseWoke gives the sessions that a pause_set of scope to state starts
// or stops, with the other pauses of the written copy: each session that
// is not gone, whose place the scope alone decides.
func (v View) pauseWoke(scope record.Scope, state record.PauseState, now Now) []name.Who {
	other := record.Running
	if state == record.Running {
		other = record.Paused
	}
	set := &PauseInfo{}
	after := withScope(v.riff.Pauses, scope, state, set)
	before := withScope(v.riff.Pauses, scope, other, set)
	var out []name.Who
	for _, s := range sortedSessions(v.riff) {
		w := s.URI.Who()
		if v.Gone(w, now) {
			continue
		}
		place := v.placeOf(s)
		_, _, was := pausedAt(before, place)
		_, _, is := pausedAt(after, place)
		if was != is {
			out = append(out, w)
		}
	}
	return out
}

// toldLeads gives the leads that the posts of a pause of the riff told:
// the session of the to list of each post, the lead in the repository
// of its thread.
func (v View) toldLeads(d Done) []name.Who {
	var out []name.Who
	for _, rec := range d.Made {
		posted, ok := rec.Change.(record.Posted)
		if !ok || len(posted.To) != 1 {
			continue
		}
		repo, ok := posted.Thread.Repo()
		if !ok {
			continue
		}
		for _, key := range slices.Sorted(maps.Keys(v.riff.Leads)) {
			w := v.riff.Leads[key]
			if w.Session == posted.To[0].Session && strings.HasSuffix(key, " "+string(repo)) {
				out = append(out, w)
				break
			}
		}
	}
	return out
}

func verb(state record.PauseState) string {
	if state == record.Paused {
		return "pause"
	}
	return "resume"
}

func currentState(p Pauses, scope record.Scope) record.PauseState {
	if scope.Riff {
		if p.Riff != nil {
			return record.Paused
		}
		return record.Running
	}
	if p.Repos[scope.Repository] != nil {
		return record.Paused
	}
	return record.Running
}

func pausedAt(p Pauses, place name.Place) (string, *PauseInfo, bool) {
	if place.Repo.InGit() {
		return p.Check(name.Thread(place.Repo))
	}
	return p.Check(name.Chat)
}

// placeOf gives the place of a session: its place in the presence, or
// the place of its last record.
func (v View) placeOf(s *Session) name.Place {
	if l := v.presence.Live(s.URI.Who()); l != nil && l.Place.Host != "" {
		return l.Place
	}
	return s.URI.Place()
}

// leadsIn gives the live lead of each user in repo, in the order of the
// users: the posts of a pause of the whole riff come in that order.
func (v View) leadsIn(repo name.Repo, now Now) []*Session {
	var users []string
	for key, w := range v.riff.Leads {
		if key == leadKey(w.User, repo) {
			users = append(users, w.User)
		}
	}
	slices.Sort(users)
	var out []*Session
	for _, user := range users {
		if s, ok := v.LiveLead(user, repo, now); ok {
			out = append(out, s)
		}
	}
	return out
}

func sortedSessions(r *Riff) []*Session {
	out := make([]*Session, 0, len(r.Sessions))
	for _, k := range slices.Sorted(maps.Keys(r.Sessions)) {
		out = append(out, r.Sessions[k])
	}
	return out
}

// pauseReply is the reply of a pause and a resume: the scope and the
// state of the pause_set record (or of the call, when it changed
// nothing), the sessions that it started or stopped, and the leads that
// its posts told, from the written copy.
func pauseReply(c Caller, v View, d Done, riff bool, repo name.Repo, state record.PauseState, now Now) wire.PauseReply {
	type pauseOutcome struct {
		scope record.Scope
		state record.PauseState
		woke  []name.Who
		told  []name.Who
	}
	var n pauseOutcome
	if set, ok := madeOf[record.PauseSet](d); ok {
		n = pauseOutcome{scope: set.Scope, state: set.State, woke: v.pauseWoke(set.Scope, set.State, now), told: v.toldLeads(d)}
	} else {
		n.scope, _ = pauseScope(c, riff, repo)
		n.state = state
	}
	reply := wire.PauseReply{Pauses: v.Pauses()}
	_, _, paused := v.Paused(c.URI.Place())
	reply.Here = record.Running
	if paused {
		reply.Here = record.Paused
	}
	names := func(ws []name.Who) []string {
		var out []string
		for _, w := range ws {
			if s := v.riff.Session(w); s != nil {
				out = append(out, s.URI.Named())
			}
		}
		return out
	}
	for _, w := range n.woke {
		if s := v.riff.Session(w); s != nil {
			reply.Woke = append(reply.Woke, v.Marked(s, now))
		}
	}
	for _, w := range n.told {
		if s := v.riff.Session(w); s != nil {
			reply.Told = append(reply.Told, v.Marked(s, now))
		}
	}
	var b strings.Builder
	subject := "The riff"
	if !n.scope.Riff {
		subject = string(n.scope.Repository)
	}
	said := "running"
	if n.state == record.Paused {
		said = "paused"
	}
	fmt.Fprintf(&b, "%s is %s now.", subject, said)
	if woke := names(n.woke); len(woke) > 0 {
		fmt.Fprintf(&b, " Woke %s.", strings.Join(woke, ", "))
	}
	for _, w := range n.told {
		if s := v.riff.Session(w); s != nil {
			fmt.Fprintf(&b, " Told the lead of %s: %s.", s.URI.Repo, s.URI.Named())
		}
	}
	if n.scope.Riff && n.state == record.Running && len(v.riff.Pauses.Repos) > 0 {
		repos := slices.Sorted(maps.Keys(v.riff.Pauses.Repos))
		parts := make([]string, len(repos))
		for i, r := range repos {
			parts[i] = string(r)
		}
		fmt.Fprintf(&b, " Still paused: %s. Its user or its lead resumes it with `riff resume`.", strings.Join(parts, ", "))
	}
	if !n.scope.Riff && n.state == record.Running && v.riff.Pauses.Riff != nil {
		b.WriteString(" The riff is still paused: the sessions wait for the resume of the riff.")
	}
	reply.Text = b.String()
	return reply
}

// Pauses gives the pauses as the wire shows them.
func (v View) Pauses() wire.Pauses {
	var out wire.Pauses
	if p := v.riff.Pauses.Riff; p != nil {
		out.Riff = &wire.PauseInfo{By: byShort(p.By), AtMs: p.AtMs}
	}
	for _, r := range slices.Sorted(maps.Keys(v.riff.Pauses.Repos)) {
		p := v.riff.Pauses.Repos[r]
		out.Repositories = append(out.Repositories, wire.RepoPause{Repo: r, PauseInfo: wire.PauseInfo{By: byShort(p.By), AtMs: p.AtMs}})
	}
	return out
}

// byShort gives a cause as whoami shows it: "the session brett/62b2".
func byShort(b *record.By) string {
	if b == nil {
		return ""
	}
	return b.String()
}
