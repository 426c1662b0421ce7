package riffstate

import (
	"fmt"
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

func (Pause) Kind() string  { return "pause" }
func (Resume) Kind() string { return "resume" }

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
		for _, r := range sortedRepos(v.riff.Pauses.Repos) {
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
		for _, key := range sortedLeadKeys(v.riff.Leads) {
			w := v.riff.Leads[key]
			if w.Session == posted.To[0].Session && strings.HasSuffix(key, " "+string(repo)) {
				out = append(out, w)
				break
			}
		}
	}
	return out
}

func sortedLeadKeys(m map[string]name.Who) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
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
	keys := make([]string, 0, len(r.Sessions))
	for k := range r.Sessions {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]*Session, len(keys))
	for i, k := range keys {
		out[i] = r.Sessions[k]
	}
	return out
}

func sortedRepos(m map[name.Repo]*PauseInfo) []name.Repo {
	out := make([]name.Repo, 0, len(m))
	for r := range m {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// pauseReply is the reply of a pause and a resume: the scope and the
// state of the pause_set record (or of the call, when it changed
// nothing), the sessions that it started or stopped, and the leads that
// its posts told, from the written copy.
func pauseReply(c Caller, v View, d Done, riff bool, repo name.Repo, state record.PauseState, now Now) wire.PauseReply {
	type pauseNote struct {
		scope record.Scope
		state record.PauseState
		woke  []name.Who
		told  []name.Who
	}
	var n pauseNote
	if set, ok := madeOf[record.PauseSet](d); ok {
		n = pauseNote{scope: set.Scope, state: set.State, woke: v.pauseWoke(set.Scope, set.State, now), told: v.toldLeads(d)}
	} else {
		n.scope, _ = pauseScope(c, riff, repo)
		n.state = state
	}
	reply := wire.PauseReply{Pauses: v.PausesView()}
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
				if w == c.Who() {
					continue
				}
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
		repos := sortedRepos(v.riff.Pauses.Repos)
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

// PausesView gives the pauses as the wire shows them.
func (v View) PausesView() wire.Pauses {
	var out wire.Pauses
	if p := v.riff.Pauses.Riff; p != nil {
		out.Riff = &wire.PauseInfo{By: byShort(p.By), AtMs: p.AtMs}
	}
	for _, r := range sortedRepos(v.riff.Pauses.Repos) {
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

// Hold keeps an item from the workers. Only a lead of the repository,
// the owner or an admin can; the reason has 1 to 200 characters; a hold
// names one item by its exact name.
type Hold struct {
	wire.Hold
	base
}

func (Hold) Kind() string { return "hold" }

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

func (Free) Kind() string { return "free" }

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

// SetPlan keeps the plan of a repository thread. Only a session in the
// thread, the owner or an admin can; a worker cannot.
type SetPlan struct {
	wire.SetPlan
	base
}

func (SetPlan) Kind() string { return "plan" }

func (p SetPlan) Handle(c Caller, v View, now Now) (Handled, error) {
	thread, err := v.planThread(c, p.Thread, now)
	if err != nil {
		return Handled{}, err
	}
	if len(p.Plan) > MaxNotes {
		return Handled{}, bad("a plan has at most %d bytes, not %d", MaxNotes, len(p.Plan))
	}
	return Handled{Changes: []record.Change{record.PlanSet{Thread: thread, Plan: p.Plan}}}, nil
}

// Reply: the thread of the plan_set record.
func (SetPlan) Reply(c Caller, v View, d Done, now Now) wire.TextReply {
	set, _ := madeOf[record.PlanSet](d)
	return wire.TextReply{Text: fmt.Sprintf("The plan of %s is kept.", set.Thread)}
}

func (SetPlan) Signal(c Caller) Signal { return nil }

func (v View) planThread(c Caller, given string, now Now) (name.Thread, error) {
	thread, err := v.threadOf(c, given, now)
	if err != nil {
		return "", err
	}
	if _, ok := thread.Repo(); !ok {
		return "", bad("%s is no repository thread: a plan is the plan of a repository", thread)
	}
	if c.Role < Admin && !(c.Class == record.ClassSession && v.riff.Member(thread, c.Who())) {
		return "", wire.Refuse(wire.NotAllowed, "only a session in %s, the owner or an admin sends a plan", thread)
	}
	return thread, nil
}

// PlanOff ends the plan of a thread.
type PlanOff struct {
	wire.PlanOff
	base
}

func (PlanOff) Kind() string { return "plan_off" }

func (p PlanOff) Handle(c Caller, v View, now Now) (Handled, error) {
	thread, err := v.planThread(c, p.Thread, now)
	if err != nil {
		return Handled{}, err
	}
	if v.riff.Plans[thread] == nil {
		return Handled{}, nil
	}
	return Handled{Changes: []record.Change{record.PlanEnded{Thread: thread}}}, nil
}

// Reply: the thread of the plan_ended record, or of the call when the
// thread had no plan.
func (p PlanOff) Reply(c Caller, v View, d Done, now Now) wire.TextReply {
	ended, ok := madeOf[record.PlanEnded](d)
	if !ok {
		ended.Thread, _ = v.threadOf(c, p.Thread, now)
	}
	return wire.TextReply{Text: fmt.Sprintf("%s has no plan now.", ended.Thread)}
}

// SetIdle sets the idle workers of a user, a host and a repository. Only
// a person who is an admin can.
type SetIdle struct {
	wire.SetIdle
	base
}

func (SetIdle) Kind() string      { return "set_idle" }
func (SetIdle) Needs(Caller) Role { return Admin }

func (s SetIdle) Handle(c Caller, v View, now Now) (Handled, error) {
	if err := name.CheckUser(s.User); err != nil {
		return Handled{}, bad("%v", err)
	}
	if err := name.CheckHost(s.Host); err != nil {
		return Handled{}, bad("%v", err)
	}
	if !s.Repo.InGit() {
		return Handled{}, bad("give the repository as OWNER/REPO")
	}
	if s.Count < 0 || s.Count > 64 {
		return Handled{}, bad("the idle workers are 0 to 64, not %d", s.Count)
	}
	w := record.IdleWorkers{User: s.User, Host: s.Host, Repo: s.Repo, Count: s.Count}
	if v.riff.Idle[idleKey(w)] == w {
		return Handled{}, nil
	}
	return Handled{Changes: []record.Change{record.SettingChanged{IdleWorkers: &w}}}, nil
}

func (s SetIdle) Reply(c Caller, v View, d Done, now Now) wire.TextReply {
	return wire.TextReply{Text: fmt.Sprintf("%s keeps %d idle workers on %s in %s.", s.User, s.Count, s.Host, s.Repo)}
}
