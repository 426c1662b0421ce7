package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Whoami writes the reply of whoami for me: the person or the session,
// the URI, the state of the riff, the owner and the builds, where mine is
// the build of this riff.
func Whoami(p *Printer, me name.SessionURI, r wire.WhoamiReply, mine build.Build) {
	uri := r.URI
	if uri.IsZero() {
		uri = me
	}
	var fs []Fact
	if uri.IsPerson() {
		fs = append(fs, Fact{Key: "person", Value: Clean(uri.Short())})
	} else {
		fs = append(fs, Fact{Key: "session", Value: Clean(SessionName(uri))})
	}
	fs = append(fs, Fact{Key: "uri", Value: Clean(uri.String())})
	fs = append(fs, PauseFacts(r.Pauses)...)
	// The owner line, as in who: the server gives it in a riff with
	// sign-in.
	fs = append(fs, OwnerFacts(r.Owner)...)
	fs = append(fs, BuildFacts(mine, r.Build)...)
	p.Facts(fs)
}

// Moved writes the place of a session after a move: the URI that the
// server holds (r.URI), or me when it gives none.
func Moved(p *Printer, me name.SessionURI, r wire.RegisterReply) {
	uri := r.URI
	if uri.IsZero() {
		uri = me
	}
	p.Facts([]Fact{
		{Key: "session", Value: Clean(SessionName(uri))},
		{Key: "uri", Value: Clean(uri.String())},
	})
}

// SessionName gives the short name of a session with the start of its
// ID: mike@pangolin:app#api (a6cf2205).
func SessionName(u name.SessionURI) string { return u.Short() + " (" + cutID(u.Session, 8) + ")" }

func cutID(id string, n int) string {
	if len(id) > n {
		return id[:n]
	}
	return id
}

// OwnerFacts gives the fact owner of who and whoami: the owner line of
// the server (none as a warning: the riff has no owner), and nothing in
// a riff with no sign-in.
func OwnerFacts(line string) []Fact {
	switch line {
	case "":
		return nil
	case "none":
		return []Fact{{Key: "owner", Value: "none", Style: Warn}}
	}
	return []Fact{{Key: "owner", Value: Clean(line)}}
}

// PauseFacts gives the facts riff and paused.
func PauseFacts(p wire.Pauses) []Fact {
	var fs []Fact
	if p.Riff != nil {
		v := "paused"
		if p.Riff.By != "" {
			v += " by " + Clean(p.Riff.By)
		}
		fs = append(fs, Fact{Key: "riff", Value: v, Style: Warn})
	} else {
		fs = append(fs, Fact{Key: "riff", Value: "running", Style: Good})
	}
	for _, r := range p.Repositories {
		v := Clean(string(r.Repo))
		if r.By != "" {
			v += " by " + Clean(r.By)
		}
		fs = append(fs, Fact{Key: "paused", Value: v, Style: Warn})
	}
	return fs
}

// BuildFacts gives the fact build of mine, and riff-server when the
// build of the server differs.
func BuildFacts(mine build.Build, server string) []Fact {
	fs := []Fact{{Key: "build", Value: mine.Display()}}
	sb, err := build.ParseBuild(server)
	if err != nil {
		if server != "" {
			fs = append(fs, Fact{Key: "riff-server", Value: Clean(server), Style: Warn, Extra: "a build that riff cannot read", ExtraStyle: Warn})
		}
		return fs
	}
	if sb.String() != mine.String() {
		fs = append(fs, Fact{Key: "riff-server", Value: sb.Display(), Style: Warn, Extra: "another build; the versions can talk", ExtraStyle: Warn})
	}
	return fs
}

// Who writes the reply of who: the facts of the riff, then a row for
// each session. long names each session by its full URI.
func Who(p *Printer, r wire.WhoReply, long bool, mine build.Build) {
	fs := PauseFacts(r.Pauses)
	fs = append(fs, OwnerFacts(r.Owner)...)
	fs = append(fs, BuildFacts(mine, r.Build)...)
	p.Facts(fs)
	p.Text("")
	rows := [][]Part{{Plain("SESSION"), Plain("STATE"), Plain("ROLE"), Plain("DETAIL")}}
	for _, row := range r.Rows {
		session := row.URI.Named()
		if long {
			session = row.URI.String()
		}
		role := Clean(row.Role)
		if row.You {
			role = strings.TrimSpace("you " + role)
		}
		state := Clean(row.State)
		rows = append(rows, []Part{
			Of(row.URI.Who().String(), Clean(session)),
			In(stateStyle(state), state),
			Plain(role),
			In(detailStyle(state, row.Gone), Clean(row.Detail)),
		})
	}
	p.Table(rows)
	if r.Act != "" {
		p.Line(In(Warn, Clean(r.Act)))
	}
}

func stateStyle(state string) Style {
	switch state {
	case "blocked", "failed":
		return Bad
	case "paused", "waiting":
		return Warn
	}
	return Normal
}

func detailStyle(state string, gone bool) Style {
	if gone {
		return Faint
	}
	if state == "blocked" {
		return Bad
	}
	return Normal
}

// Threads writes the reply of threads: a row for each thread with its
// last message and the count of unread ones.
func Threads(p *Printer, r wire.ThreadsReply) {
	if len(r.Threads) == 0 {
		p.Text("You have no threads.")
		return
	}
	rows := [][]Part{{Plain("THREAD"), Plain("LAST"), Plain("UNREAD")}}
	for _, t := range r.Threads {
		unread := Plain(fmt.Sprint(t.Unread))
		if t.Unread > 0 {
			unread.Style = Strong
		}
		rows = append(rows, []Part{Plain(ThreadTitle(t.Thread, t.Title)), Plain(fmt.Sprintf("#%d", t.Last)), unread})
	}
	p.Table(rows)
}

// Posted writes the reply of a post or a tell: its number, who woke, and
// a warning for each selector that no live session matches.
func Posted(p *Printer, r wire.PostReply) {
	if r.Dropped {
		p.Textf("riff dropped the post: a post with the same key came before in %s.", Clean(r.Thread))
		return
	}
	line := fmt.Sprintf("Posted #%d in %s.", r.Seq, Clean(r.Thread))
	if len(r.Woke) > 0 {
		var names []string
		for _, u := range r.Woke {
			names = append(names, Clean(u.Named()))
		}
		line += " Woke " + strings.Join(names, ", ") + "."
	}
	p.Text(line)
	for _, s := range r.Unmatched {
		p.Line(In(Warn, fmt.Sprintf("riff: no live session matches %s. The message waits in the thread.", Clean(s.String()))))
	}
}

// Claimed writes the reply of a claim: its text, and the warning of the
// server (an item on hold).
func Claimed(p *Printer, r wire.ClaimReply) {
	p.Reply(r.Text)
	if r.Warning != "" {
		p.Line(In(Warn, "riff: "+Clean(r.Warning)))
	}
}

// Notes writes the notes of a lead; with history, each old text first,
// under the time and the writer.
func Notes(p *Printer, r wire.NotesReply, history bool) {
	if history {
		for _, v := range r.History {
			p.Line(In(Faint, fmt.Sprintf("--- %s, by %s", p.time(v.AtMs).Format("2006-01-02 15:04"), Clean(v.By))))
			p.Reply(v.Text)
		}
		p.Line(In(Faint, "--- now"))
	}
	if strings.TrimSpace(r.Text) == "" {
		p.Text("The lead has no notes here. riff lead notes edit writes them.")
		return
	}
	p.Reply(strings.TrimRight(r.Text, "\n"))
}

// Ended writes the reply of a remove or a revoke: its text, and the
// number of sign-ins that the server ended.
func Ended(p *Printer, r wire.EndedReply) {
	p.Reply(r.Text)
	switch r.Ended {
	case 0:
		p.Text("No sign-in of the person was live: none ended.")
	case 1:
		p.Text("1 sign-in ended.")
	default:
		p.Textf("%d sign-ins ended.", r.Ended)
	}
}

// People writes the reply of people: the owner, a request for the owner
// role that waits, the allowed domain, then a row for each person with
// its role.
func People(p *Printer, r wire.PeopleReply) {
	var fs []Fact
	if r.Owner != nil {
		fs = append(fs, Fact{Key: "owner", Value: Clean(PersonName(*r.Owner))})
	} else {
		fs = append(fs, Fact{Key: "owner", Value: "none", Style: Warn})
	}
	if r.Asked != nil {
		// In UTC, as the server's texts and notes of the owner role.
		fs = append(fs, Fact{Key: "asks", Value: Clean(PersonName(*r.Asked)),
			Extra: fmt.Sprintf("for the owner role: it passes at %s, unless the owner runs riff owner --deny", time.UnixMilli(r.AskedDueMs).UTC().Format("2006-01-02 15:04 UTC"))})
	}
	if r.Domain != "" {
		fs = append(fs, Fact{Key: "domain", Value: Clean(r.Domain), Extra: "each person of it may join"})
	}
	p.Facts(fs)
	p.Text("")
	head := []Part{Plain("USER"), Plain("EMAIL"), Plain("ROLE")}
	if !r.Emails {
		head = []Part{Plain("USER"), Plain("ROLE")}
	}
	rows := [][]Part{head}
	add := func(person wire.Person, role string) {
		user := person.User
		if user == "" {
			user = "-"
		}
		row := []Part{Plain(Clean(user))}
		if r.Emails {
			row = append(row, Plain(Clean(person.Email)))
		}
		rows = append(rows, append(row, Plain(role)))
	}
	if r.Owner != nil {
		add(*r.Owner, "owner")
	}
	for _, person := range r.Admins {
		role := "admin"
		if person.Settings {
			role = "admin of settings"
		}
		if r.Asked != nil && r.Asked.User == person.User && r.Asked.Email == person.Email {
			role += ", asks for the owner role"
		}
		add(person, role)
	}
	for _, person := range r.Members {
		add(person, "member")
	}
	for _, person := range r.MayJoin {
		add(person, "may join")
	}
	p.Table(rows)
	if !r.Emails {
		p.Line(In(Warn, "Only a member of the riff reads the emails."))
	}
	if r.Owner == nil {
		p.Line(In(Warn, "The riff has no owner: an admin takes the owner role with riff owner --take."))
	}
}

// PersonName gives USER (EMAIL), or the one of them that the reply has.
func PersonName(p wire.Person) string {
	switch {
	case p.User != "" && p.Email != "":
		return p.User + " (" + p.Email + ")"
	case p.User != "":
		return p.User
	}
	return p.Email
}
