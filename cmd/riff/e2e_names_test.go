package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/tools/oidcfake"
)

// The names of the people with the real binaries (docs/people.md): the
// owner's email keeps its user name against a person of the allowed
// domain, a removal frees a name, no person signs in or is invited as
// the server, no session writes into a direct thread of the server, and
// an email with a character that is not visible is refused.

// refusedLogin runs riff login as email, which the riff must refuse, and
// gives its stderr.
func (m *teamMachine) refusedLogin(ctx context.Context, p *oidcfake.Provider, email string) string {
	m.t.Helper()
	stdout, stderr, code := m.login(ctx, p, email)
	if code != exitFail {
		m.t.Errorf("%s: riff login as %q = exit %d; want 1 (refused)\n--- stdout\n%s--- stderr\n%s", m.host, email, code, stdout, stderr)
	}
	return stderr
}

func TestGivenAnOwnerEmailAndAnAllowedDomainWhenAPersonOfTheDomainWithTheOwnersNameSignsInFirstThenTheNameStaysTheOwnersAndNoPersonSpeaksAsTheServer(t *testing.T) {
	bin := buildRiff(t, "riff", "riff-server")
	p := newProvider(t)
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	s := startSignInServer(t, bin, t.TempDir(), p, "--owner", "boss@gmail.test", "--allowed-domain", "corp.test")
	var script strings.Builder
	boss := newTeamMachine(t, bin, s.url(), "pangolin", &script)
	corp := newTeamMachine(t, bin, s.url(), "thelio", &script)
	ann := newTeamMachine(t, bin, s.url(), "heron", &script)

	// The first sign-in of boss@corp.test does not take the owner's name.
	wantIn(t, "riff login of boss@corp.test", corp.refusedLogin(ctx, p, "boss@corp.test"),
		"the user boss of this riff is kept for the owner, boss@gmail.test, who did not sign in yet: sign in with another email, whose part before @ is not boss")
	boss.signIn(ctx, p, "boss@gmail.test", "boss")
	wantIn(t, "riff whoami of the owner", boss.ok("whoami"), "owner   boss (boss@gmail.test)\n")

	// ann@corp.test joins by the domain; the owner invites ann@home.test,
	// whose sign-in says what an admin does.
	corp.signIn(ctx, p, "ann@corp.test", "ann")
	boss.ok("invite", "ann@home.test")
	wantIn(t, "riff login of ann@home.test", ann.refusedLogin(ctx, p, "ann@home.test"),
		"the user ann of this riff has the email ann@corp.test, so ann@home.test cannot join as ann: an admin frees the name with riff remove ann@corp.test")
	// The owner removes the person that the domain let in: the sign-in
	// ends, the domain lets the email in no more, and the name is free.
	wantIn(t, "riff remove of a person of the domain", boss.ok("remove", "ann@corp.test"),
		"ann@corp.test is no member of the riff now", "1 sign-in ended.\n")
	if got := corp.refused("whoami"); got != lostSignIn {
		t.Errorf("the removed person's command: %q; want %q", got, lostSignIn)
	}
	wantIn(t, "riff login of the removed ann@corp.test", corp.refusedLogin(ctx, p, "ann@corp.test"), "ann@corp.test is not a member of this riff")
	ann.signIn(ctx, p, "ann@home.test", "ann")
	if people := boss.ok("people"); !strings.Contains(people, "ann@home.test") || strings.Contains(people, "ann@corp.test") {
		t.Errorf("riff people after the name was freed:\n%s; want ann@home.test and no ann@corp.test", people)
	}

	// No person is the server: not by an invite, not by the domain.
	wantIn(t, "riff invite riff@outside.test", boss.refused("invite", "riff@outside.test"),
		"Error: riff@outside.test would join as the user riff, and riff is a name of riff-server itself (riff@server): no person can have it. Invite another email of the person, whose part before @ is not riff")
	wantIn(t, "riff login of riff@corp.test", corp.refusedLogin(ctx, p, "riff@corp.test"),
		"riff@corp.test would sign in as the user riff, and riff is a name of riff-server itself (riff@server): no person can have it")
	// No session writes into its direct thread with the server.
	const session = "a5e55104-0000-names"
	ann.ok("--session", session, "status", "works")
	wantIn(t, "riff tell ~riff of a session", ann.refused("--session", session, "tell", "~riff", "claims: stop the work"),
		"only riff-server writes in its direct threads: riff@server reads no message")
	wantIn(t, "riff post -t dm:~riff of a person", ann.refused("post", "-t", "dm:~riff", "hello"), "only riff-server writes in its direct threads")

	// An email with a character that is not visible is no look-alike.
	wantIn(t, "riff login of an email with U+200B", corp.refusedLogin(ctx, p, "boss\u200b@corp.test"),
		`the email "boss\u200b@corp.test" holds U+200B, a character that is not visible`)
	wantIn(t, "riff invite of an email with U+200B", boss.refused("invite", "ann\u200b@home.test"), "holds U+200B, a character that is not visible")
	if strings.Contains(s.log.String(), "@corp.test") || strings.Contains(s.log.String(), "@gmail.test") {
		t.Errorf("a log line of riff-server holds an email:\n%s", s.log.String())
	}
}

func TestGivenARiffWithSignInAndNoOwnerAndNoAdminsWhenTheFirstPersonOfTheDomainSignsInThenThatPersonIsTheOwner(t *testing.T) {
	bin := buildRiff(t, "riff", "riff-server")
	p := newProvider(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	s := startSignInServer(t, bin, t.TempDir(), p, "--owner", "", "--allowed-domain", "corp.test")
	var script strings.Builder
	ada := newTeamMachine(t, bin, s.url(), "pangolin", &script)
	bob := newTeamMachine(t, bin, s.url(), "heron", &script)
	ada.signIn(ctx, p, "ada@corp.test", "ada")
	wantIn(t, "riff whoami of the first person", ada.ok("whoami"), "owner   ada (ada@corp.test)\n")
	wantIn(t, "chat after the first sign-in", ada.ok("read", "-t", "chat", "--all"),
		"owner: ada (ada@corp.test) is the owner: the first person who signed in to a riff that had no owner and no admin.")
	// The second person is a member; the owner invites and makes admins.
	bob.signIn(ctx, p, "bob@corp.test", "bob")
	wantIn(t, "riff whoami of the second person", bob.ok("whoami"), "owner   ada (ada@corp.test)\n")
	wantIn(t, "riff admin add by the first owner", ada.ok("admin", "add", "bob@corp.test"), "bob@corp.test is a member and an admin of the riff now.")
	// A restart keeps the owner.
	s.restart()
	wantIn(t, "riff people after a restart", bob.ok("people"), "owner   ada (ada@corp.test)\n", "bob   bob@corp.test  admin\n")
}
