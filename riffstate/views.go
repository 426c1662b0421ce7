package riffstate

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// ReconnectMs is the grace of a watch that ended: the stream's reconnect
// bound (wire.ReconnectBound, the stall limit of the client), in which
// a watch that died comes back. A session with no open watch for it is
// offline.
const ReconnectMs = int64(wire.ReconnectBound / time.Millisecond)

// CalledMs gives the time of the last call of a session: what who shows
// as seen. A keep-alive does not change it, and after a start of the
// server it is the time of its last call before the stop (the checkpoint
// keeps it). A session with no known call (it came after the newest
// checkpoint, before a crash) has the time of its last record.
func (v View) CalledMs(s *Session) int64 {
	if l := v.presence.Live(s.URI.Who()); l != nil && l.CalledMs != 0 {
		return l.CalledMs
	}
	return s.LastMs
}

// Offline says whether a session that is not gone is offline: it has no
// open watch, so no wake reaches it ("A session is offline with no open
// watch"). A watch that ended, and the watches that a start of the
// server lost, have the reconnect bound to come back (ReconnectMs). A
// call or a keep-alive does not keep a session online, but the daemon
// keeps a container session online (it has no watch), and its own session
// too: it reads no wakes, and its keep-alives show it.
func (v View) Offline(w name.Who, now Now) bool {
	l := v.presence.Live(w)
	if l != nil && (l.Watching > 0 || l.Container || l.Daemon) {
		return false
	}
	ended := v.presence.LoadedMs
	if l != nil {
		ended = max(ended, l.WatchEndedMs)
	}
	return ended == 0 || now.Ms-ended >= ReconnectMs
}

// RunsOldRiff says whether a session runs an old riff (docs/wire.md, who:
// update): the file of its riff was replaced
// since it started, or its build is older than the server's (a lower
// version, or the same version from an older commit). A session whose
// riff told no build (a riff from before the mark) runs no old riff.
func (v View) RunsOldRiff(w name.Who) bool {
	l := v.presence.Live(w)
	if l == nil || l.Binary == nil {
		return false
	}
	if l.Binary.Replaced {
		return true
	}
	server, err := build.ParseBuild(v.opts.Build)
	if err != nil {
		return false
	}
	// The keep-alive was checked: its build parses.
	client, err := build.ParseBuild(l.Binary.Build)
	return err == nil && build.Older(server, client) == build.Client
}

// Whoami gives the URI of the caller as the riff holds it, with its
// marks, the state of the riff at its place, the pauses and the build.
func (v View) Whoami(c Caller, now Now) wire.WhoamiReply {
	reply := wire.WhoamiReply{URI: v.uriOf(c, now), Pauses: v.Pauses(), Build: v.opts.Build, Here: record.Running, Owner: v.OwnerLine(c)}
	if _, _, paused := v.Paused(c.URI.Place()); paused {
		reply.Here = record.Paused
	}
	return reply
}

// Who gives the facts of the riff and one row for each session: gone
// sessions only with all.
func (v View) Who(c Caller, all bool, now Now) wire.WhoReply {
	reply := wire.WhoReply{Pauses: v.Pauses(), Build: v.opts.Build, Rows: []wire.WhoRow{}, Owner: v.OwnerLine(c)}
	sessions := sortedSessions(v.riff)
	slices.SortStableFunc(sessions, func(a, b *Session) int {
		pa, pb := v.placeOf(a), v.placeOf(b)
		return strings.Compare(a.URI.User+" "+pa.Host+" "+string(pa.Repo)+" "+a.URI.Session,
			b.URI.User+" "+pb.Host+" "+string(pb.Repo)+" "+b.URI.Session)
	})
	for _, s := range sessions {
		row := v.row(c, s, now)
		if row.Gone && !all {
			continue
		}
		reply.Rows = append(reply.Rows, row)
	}
	switch scope, info, paused := v.Paused(c.URI.Place()); {
	case paused && scope == "the riff":
		reply.Act = "The riff is paused: nobody can claim. Run riff resume --riff."
	case paused:
		reply.Act = scope + " is paused" + byClause(info) + ": nobody can claim there. Run riff resume."
	case v.opts.SignIn && v.riff.People.Owner == "":
		reply.Act = "The riff has no owner: an admin takes the owner role with riff owner --take."
	}
	return reply
}

func byClause(info *PauseInfo) string {
	if info == nil || info.By == nil {
		return ""
	}
	return " by " + info.By.String()
}

// row gives the row of a session: its role, its state (the first that
// matches wins) with the detail of that state, then what it works on and
// the facts of its presence (the activity, the step, the status).
func (v View) row(c Caller, s *Session, now Now) wire.WhoRow {
	row, first, claims, presence := v.rowParts(c, s, now)
	var detail []string
	if first != "" {
		detail = append(detail, first)
	}
	if len(claims) > 0 {
		detail = append(detail, workingOn(claims))
	}
	detail = append(detail, presence...)
	row.Detail = strings.Join(detail, "  ")
	return row
}

// rowParts gives the row of a session with no detail, and the parts of
// its detail apart: the fact of its state, its claims and the facts of
// its presence (none of the last two for a gone session). who joins
// them on one line; riff top shows one fact a line.
func (v View) rowParts(c Caller, s *Session, now Now) (row wire.WhoRow, first string, held []ClaimRef, presence []string) {
	w := s.URI.Who()
	l := v.presence.Live(w)
	marked := v.Marked(s, now)
	row = wire.WhoRow{URI: marked, You: w == c.Who(), Update: v.RunsOldRiff(w)}
	// seen is the time since the last call: a keep-alive does not change
	// it, and a start of the server keeps it (the checkpoint saves it).
	called := v.CalledMs(s)
	row.SeenMs = called
	row.Role = roleOf(marked.Lead, s.Worker, l)
	claims := v.Claims(s, now)
	activity := freshActivity(l, now)
	var state string
	var gone bool
	state, gone, first = v.stateOf(s, l, marked.Lead, len(claims) > 0, activity, called, now)
	row.State, row.Gone = state, gone
	row.Unanswered = state == "blocked" && v.Unanswered(s, now)
	if gone {
		return row, first, nil, nil
	}
	return row, first, claims, v.presenceDetail(s, l, activity, now)
}

// roleOf gives the tags of the role of a session: lead, worker,
// container, daemon, in that order. The row of the caller has You; the reader
// shows "you" before the tags.
func roleOf(lead, worker bool, l *Live) string {
	var tags []string
	if lead {
		tags = append(tags, "lead")
	}
	if worker {
		tags = append(tags, "worker")
	}
	if l != nil && l.Container {
		tags = append(tags, "container")
	}
	if l != nil && l.Daemon {
		tags = append(tags, "daemon")
	}
	return strings.Join(tags, " ")
}

// freshActivity says whether the fact of the hooks is the work of now:
// keep-alives carry it, one each minute, so a fact with no keep-alive
// for two is old.
func freshActivity(l *Live, now Now) bool {
	return l != nil && l.Activity != "" && now.Ms-l.ActivitySentMs < ActivityFreshMs
}

// stateOf gives the state of a session, whether it is gone, and the
// detail of that state ("" with none): the first state that matches
// wins, gone, offline, paused, must clear, blocked, waiting, busy, idle.
func (v View) stateOf(s *Session, l *Live, lead, claims, activity bool, called int64, now Now) (state string, gone bool, detail string) {
	w := s.URI.Who()
	_, pauseInfo, paused := v.Paused(v.placeOf(s))
	switch {
	case v.Gone(w, now):
		if l != nil && l.Ended {
			return "gone", true, "ended"
		}
		return "gone", true, fmt.Sprintf("seen %s ago", Ago(now.Ms-called))
	case v.Offline(w, now):
		return "offline", false, fmt.Sprintf("seen %s ago", Ago(now.Ms-called))
	case paused:
		return "paused", false, "paused" + byClause(pauseInfo)
	case s.Life == MustClear:
		return "must clear", false, fmt.Sprintf("released its last item %s ago; clears its context", Ago(now.Ms-s.ReleasedMs))
	case l != nil && l.Block != nil && !lead:
		detail := fmt.Sprintf("%s (%s ago)", l.Block.Text, Ago(now.Ms-l.Block.AtMs))
		if v.Unanswered(s, now) {
			detail += "  " + NoAnswerText
		}
		return "blocked", false, detail
	case l != nil && l.Block != nil:
		// A blocked lead: "riff shows it as waiting, with your name and
		// the reason" (docs/state.md, Who); each member reads who, so the
		// name, not "you".
		return "waiting", false, fmt.Sprintf("waits for %s: %s", s.URI.User, l.Block.Text)
	case claims || (activity && wire.IsWork(l.Activity)):
		return "busy", false, ""
	}
	since := max(s.ReleasedMs, s.FreshMs)
	if since == 0 && l != nil {
		since = v.SeenMs(w)
	}
	switch {
	case lead:
		return "idle", false, fmt.Sprintf("monitoring work for %s", Ago(now.Ms-since))
	case l != nil && l.Daemon:
		// It takes no claims: idle, it hosts the containers of the
		// machine, and is not ready for work.
		return "idle", false, fmt.Sprintf("hosts containers for %s", Ago(now.Ms-since))
	case s.Worker:
		return "idle", false, fmt.Sprintf("ready for work for %s", Ago(now.Ms-since))
	}
	return "idle", false, ""
}

// workingOn gives the detail of the claims of a session: working on
// issue-7, issue-9.
func workingOn(claims []ClaimRef) string {
	var items []string
	for _, ref := range claims {
		items = append(items, itemText(ref.Item))
	}
	return "working on " + strings.Join(items, ", ")
}

// presenceDetail gives the details of the presence of a session that is
// not gone: the fresh fact of the hooks with its age, the step (or how
// it failed), and the status, each marked stale when the state of the
// session changed after it.
func (v View) presenceDetail(s *Session, l *Live, activity bool, now Now) []string {
	if l == nil {
		return nil
	}
	var detail []string
	if activity {
		detail = append(detail, activityText(l.Activity, now.Ms-l.ActivityMs))
	}
	if l.Step != nil {
		stale := ""
		if v.stale(l.Step.StartMs, s) {
			stale = " (stale)"
		}
		if l.Step.Failed != "" {
			detail = append(detail, fmt.Sprintf("%s failed %s ago: %s", l.Step.Name, Ago(now.Ms-l.Step.FailedMs), l.Step.Failed))
		} else {
			detail = append(detail, fmt.Sprintf("%s for %s%s", l.Step.Name, Ago(now.Ms-l.Step.StartMs), stale))
		}
	}
	if l.Status != nil {
		stale := ""
		if v.stale(l.Status.AtMs, s) {
			stale = " (stale)"
		}
		detail = append(detail, fmt.Sprintf("%s ago: %s%s", Ago(now.Ms-l.Status.AtMs), l.Status.Text, stale))
	}
	return detail
}

// ActivityFreshMs is how long a fact of the hooks stays the work of the
// session after the last keep-alive that carried it: two keep-alives.
const ActivityFreshMs = 120_000

// activityText shows a fact of the hooks with its age, as "The state of
// a session" does: runs Bash: run just ci for 12m, works, 5s ago between
// two tools, turn ended 5m ago.
func activityText(activity string, ageMs int64) string {
	switch {
	case strings.HasPrefix(activity, wire.ActivityRuns):
		return activity + " for " + Ago(ageMs)
	case activity == wire.ActivityBetweenTools:
		return Ago(ageMs) + " ago " + activity
	case activity == wire.ActivityTurnEnded:
		return activity + " " + Ago(ageMs) + " ago"
	}
	return activity
}

// stale says whether a step or a status set at atMs is stale: the state
// of the session changed after it (a claim, a release, a pause, a
// resume), or the server started after it.
func (v View) stale(atMs int64, s *Session) bool {
	if v.presence.LoadedMs > atMs {
		return true
	}
	for _, ref := range s.Claims {
		if h := v.riff.Holder(ref.Thread, ref.Item); h != nil && h.AtMs > atMs {
			return true
		}
	}
	if s.ReleasedMs > atMs {
		return true
	}
	place := v.placeOf(s)
	if v.presence.PauseChangedMs > atMs || v.presence.RepoPauseMs[place.Repo] > atMs {
		return true
	}
	return false
}

// itemText shows issue-6 as #6, and each other item as it is.
func itemText(item name.Item) string {
	if n, ok := strings.CutPrefix(string(item), "issue-"); ok {
		return "#" + n
	}
	return string(item)
}

// Ago gives a duration in milliseconds as people read it: 5s, 4m, 2h,
// 3d.
func Ago(ms int64) string {
	s := max(ms/1000, 0)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm", s/60)
	case s < 86400:
		return fmt.Sprintf("%dh", s/3600)
	}
	return fmt.Sprintf("%dd", s/86400)
}

// Threads lists the threads of the caller: its direct threads first.
func (v View) Threads(c Caller, now Now) wire.ThreadsReply {
	reply := wire.ThreadsReply{Threads: []wire.ThreadInfo{}}
	for _, t := range v.threadsFor(c) {
		th := v.riff.Threads[t]
		info := wire.ThreadInfo{Thread: t.For(c.Who()), Title: v.title(c.Who(), t), Last: th.LastSeq}
		cursor := cursorIn(v.riff, v.presence, c.Who(), t)
		for _, m := range th.Messages {
			if m.Seq > cursor && m.Sender.Who() != c.Who() {
				info.Unread++
			}
		}
		reply.Threads = append(reply.Threads, info)
	}
	return reply
}

// threadsOf gives the threads of who: its direct threads first, then
// the others, each in name order.
func (v View) threadsOf(w name.Who) []name.Thread {
	all := v.riff.ThreadsOf(w)
	slices.SortStableFunc(all, func(a, b name.Thread) int {
		switch {
		case a.IsDirect() && !b.IsDirect():
			return -1
		case !a.IsDirect() && b.IsDirect():
			return 1
		}
		return strings.Compare(string(a), string(b))
	})
	return all
}

// threadsFor gives the threads of c that it may read: with no chat for
// a caller who is not a member.
func (v View) threadsFor(c Caller) []name.Thread {
	all := v.threadsOf(c.Who())
	if v.checkChat(c, name.Chat) != nil {
		all = slices.DeleteFunc(all, func(t name.Thread) bool { return t == name.Chat })
	}
	return all
}

// title gives the title of a direct thread for who: direct with the
// other side.
func (v View) title(w name.Who, t name.Thread) string {
	peer, ok := t.Peer(w)
	if !ok {
		return ""
	}
	if user, person := peer.Person(); person {
		if user == ServerURI().User {
			return "direct with riff@server"
		}
		return "direct with " + user
	}
	if s := v.sessionWithID(string(peer)); s != nil {
		return "direct with " + s.URI.Short()
	}
	return "direct with a session that is gone"
}

// sessionWithID gives the session with the ID id, or nil. Of two
// sessions with one ID (of two users) it gives the one of the first key,
// so that the same state gives the same session whatever the order of the
// map.
func (v View) sessionWithID(id string) *Session {
	var found *Session
	var foundKey string
	for key, s := range v.riff.Sessions {
		if s.URI.Session == id && (found == nil || key < foundKey) {
			found, foundKey = s, key
		}
	}
	return found
}

// Read gives a page of the unread messages of each thread of the caller
// (each kept message with all), direct threads first, and the signals
// that move its cursors: the caller of Read sets them in the presence.
// ToYou holds each unread message after a page that woke the caller.
func (v View) Read(c Caller, q wire.Read, now Now) (wire.ReadReply, []Signal, error) {
	w := c.Who()
	var threads []name.Thread
	if q.Thread != "" {
		t, err := v.threadOf(c, q.Thread, now)
		if err != nil {
			return wire.ReadReply{}, nil, err
		}
		if t.IsDirect() && !t.Has(w) {
			return wire.ReadReply{}, nil, wire.Refuse(wire.NotAllowed, "you can read only your own direct threads")
		}
		if err := v.checkChat(c, t); err != nil {
			return wire.ReadReply{}, nil, err
		}
		if v.riff.Threads[t] == nil {
			return wire.ReadReply{Threads: []wire.ThreadPage{}}, nil, nil
		}
		threads = []name.Thread{t}
	} else {
		threads = v.threadsFor(c)
	}
	reply := wire.ReadReply{Threads: []wire.ThreadPage{}}
	var signals []Signal
	var woken uint64
	for _, t := range threads {
		th := v.riff.Threads[t]
		cursor := cursorIn(v.riff, v.presence, w, t)
		page := wire.ThreadPage{Thread: t.For(w), Title: v.title(w, t), Messages: []wire.Message{}}
		after := q.After
		if q.Thread == "" {
			after = 0
		}
		if len(th.Messages) > 0 && after > 0 && th.Messages[0].Seq > after+1 {
			page.Lost = th.Messages[0].Seq - after - 1
		}
		var shown, covered uint64
		var rest []Message
		for _, m := range th.Messages {
			if m.Seq <= after || (!q.All && m.Seq <= cursor) {
				continue
			}
			own := m.Sender.Who() == w
			if len(page.Messages) == PageSize {
				if !q.All && own {
					continue
				}
				page.More = true
				rest = append(rest, m)
				continue
			}
			covered = m.Seq
			if !q.All && own {
				continue
			}
			page.Messages = append(page.Messages, MessageOf(m, *v.opts))
			shown = m.Seq
		}
		if shown > 0 {
			page.Last = shown
		}
		if covered > 0 {
			signals = append(signals, Read{Thread: t, Seq: covered, All: q.All})
		}
		if page.More {
			var mine []wire.Message
			for _, m := range rest {
				if wokeOf(&m, w) && m.Seq > cursor {
					mine = append(mine, MessageOf(m, *v.opts))
					woken = max(woken, m.Position)
				}
			}
			if len(mine) > 0 {
				reply.ToYou = append(reply.ToYou, wire.ThreadPage{Thread: t.For(w), Title: page.Title, Messages: mine})
			}
		}
		if len(page.Messages) > 0 || q.Thread != "" || page.Lost > 0 {
			reply.Threads = append(reply.Threads, page)
		}
	}
	if woken > 0 {
		signals = append(signals, WakeSeen{Position: woken})
	}
	return reply, signals, nil
}

// WakeSeen says that a read showed the messages that woke the session up
// to a position: the next watch does not wake for them again.
type WakeSeen struct{ Position uint64 }

func (s WakeSeen) Set(p *Presence, w name.Who, now Now) {
	l := p.live(w)
	if s.Position > l.WakeSeen {
		l.WakeSeen = s.Position
	}
}

// Idle lists the settings of the idle workers.
func (v View) Idle() wire.IdleReply {
	reply := wire.IdleReply{Settings: []record.IdleWorkers{}}
	keys := make([]string, 0, len(v.riff.Idle))
	for k := range v.riff.Idle {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		reply.Settings = append(reply.Settings, v.riff.Idle[k])
	}
	return reply
}
