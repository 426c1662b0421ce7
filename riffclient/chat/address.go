package chat

import (
	"fmt"
	"slices"
	"strings"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/wire"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// Lead is one live lead of the riff: its user and its repository.
type Lead struct {
	User string
	Repo name.Repo
}

// LeadsOf gives the live leads of a who reply, by user and repository.
func LeadsOf(r wire.WhoReply) []Lead {
	var leads []Lead
	for _, row := range r.Rows {
		if row.Gone || !row.URI.Lead || row.URI.IsPerson() || !row.URI.Repo.InGit() {
			continue
		}
		l := Lead{User: row.URI.User, Repo: row.URI.Repo}
		if !slices.Contains(leads, l) {
			leads = append(leads, l)
		}
	}
	slices.SortFunc(leads, func(a, b Lead) int {
		if c := strings.Compare(a.User, b.User); c != 0 {
			return c
		}
		return strings.Compare(string(a.Repo), string(b.Repo))
	})
	return leads
}

// CannotSend is a line that the chat does not send: no lead, or two
// leads, fit a name of it. Its text names the leads that it found.
type CannotSend struct{ Text string }

func (c *CannotSend) Error() string { return c.Text }

// Resolve gives the to list of a line of the person me, from the live
// leads of the riff:
//
//   - a line with no name wakes each lead of me; with no lead of me it
//     wakes nobody (a line to all);
//   - @lead wakes each lead of me, @USER each lead of USER;
//   - @lead:REPO and @USER:REPO wake the one lead in REPO, OWNER/REPO or
//     the name after the slash.
//
// When no lead fits a name, or two leads fit a repository name, it gives
// a *[CannotSend] and no to list: nothing is sent.
func Resolve(me string, names []Name, leads []Lead) ([]selector.Selector, error) {
	yes := true
	if len(names) == 0 {
		for _, l := range leads {
			if l.User == me {
				return []selector.Selector{{User: me, Lead: &yes}}, nil
			}
		}
		return nil, nil
	}
	var to []selector.Selector
	seen := map[string]bool{}
	for _, n := range names {
		user := n.User
		if n.Lead {
			user = me
		}
		var fits []Lead
		for _, l := range leads {
			if l.User != user {
				continue
			}
			if n.Repo == "" || string(l.Repo) == n.Repo || (!strings.Contains(n.Repo, "/") && l.Repo.Name() == n.Repo) {
				fits = append(fits, l)
			}
		}
		sel := selector.Selector{User: user, Lead: &yes}
		switch {
		case len(fits) == 0 && n.Repo == "":
			return nil, &CannotSend{Text: sprintf("riff: cannot send the line: %s has no lead. Type the line again with another name, or with no name.", user)}
		case len(fits) == 0 && strings.Contains(n.Repo, "/"):
			return nil, &CannotSend{Text: sprintf("riff: cannot send the line: %s has no lead in %s.%s", user, n.Repo, leadsOfUser(user, leads))}
		case len(fits) == 0:
			return nil, &CannotSend{Text: sprintf("riff: cannot send the line: %s has no lead in a repository with the name %s.%s", user, n.Repo, leadsOfUser(user, leads))}
		case n.Repo != "" && len(fits) > 1:
			repos := make([]string, len(fits))
			for i, l := range fits {
				repos[i] = string(l.Repo)
			}
			return nil, &CannotSend{Text: sprintf("riff: cannot send the line: %s has %d leads in a repository with the name %s: %s. Use OWNER/REPO.",
				user, len(fits), n.Repo, strings.Join(repos, ", "))}
		case n.Repo != "":
			sel.Repo = fits[0].Repo
		}
		if key := sel.String(); !seen[key] {
			seen[key] = true
			to = append(to, sel)
		}
	}
	return to, nil
}

// leadsOfUser names the leads of user, after a line that found none in
// a repository: " Its leads: acme/app, acme/docs." or nothing.
func leadsOfUser(user string, leads []Lead) string {
	var repos []string
	for _, l := range leads {
		if l.User == user {
			repos = append(repos, string(l.Repo))
		}
	}
	if len(repos) == 0 {
		return ""
	}
	return " The leads of " + user + " are in " + strings.Join(repos, ", ") + "."
}
