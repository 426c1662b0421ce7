package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/tools/oidcfake"
)

// The team riff with the real binaries: riff-server with sign-in and
// the OpenID provider of the tests, and riff on three machines (each its
// own RIFF_HOME and HOME), each command through a pipe with few env
// vars, as a person runs them.

// teamMachine is one machine of a person: its local folder and host.
type teamMachine struct {
	t      *testing.T
	bin    string
	server string
	home   string
	host   string
	dir    string
	// label names the machine in the transcript.
	label string
	// script keeps the transcript of each command of each machine, for
	// the golden file testdata/team/scenario.golden.
	script *strings.Builder
}

func newTeamMachine(t *testing.T, bin, server, host string, script *strings.Builder) *teamMachine {
	return &teamMachine{t: t, bin: bin, server: server, home: t.TempDir(), host: host, label: host, dir: repoDir(t), script: script}
}

// env is the whole env of riff on the machine: no USER (the sign-in
// names the user), no display and no D-Bus (the device flow, the key in
// its file), and the riff of this machine at an address with no riff.
func (m *teamMachine) env() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + m.home, "RIFF_HOME=" + m.home, "RIFF_SERVER=" + m.server,
		"RIFF_HOST=" + m.host, testLocalEnv + "=http://127.0.0.1:1"}
}

// riff runs one command on the machine through a pipe: each output is
// whole (no … of a cut).
func (m *teamMachine) riff(args ...string) (stdout, stderr string, code int) {
	m.t.Helper()
	cmd := exec.Command(filepath.Join(m.bin, "riff"), args...)
	cmd.Dir, cmd.Env = m.dir, m.env()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		exit, ok := err.(*exec.ExitError)
		if !ok {
			m.t.Fatalf("run riff %v: %v", args, err)
		}
		code = exit.ExitCode()
	}
	checkNoCut(m.t, m.host+": riff "+strings.Join(args, " "), out.String()+errOut.String())
	norm := func(s string) string {
		return normalizeFacts(normalizeTimes(strings.ReplaceAll(s, m.server, "http://SERVER")))
	}
	m.script.WriteString("# " + m.label + "\n" + transcript(args, norm(out.String()), norm(errOut.String()), code, nil) + "\n")
	return out.String(), errOut.String(), code
}

// ok runs a command that must work, and gives its stdout.
func (m *teamMachine) ok(args ...string) string {
	m.t.Helper()
	stdout, stderr, code := m.riff(args...)
	if code != exitOK {
		m.t.Fatalf("%s: riff %s = exit %d\n--- stdout\n%s--- stderr\n%s", m.host, strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout
}

// refused runs a command that the riff must refuse (exit 1), and gives
// its stderr.
func (m *teamMachine) refused(args ...string) string {
	m.t.Helper()
	stdout, stderr, code := m.riff(args...)
	if code != exitFail {
		m.t.Errorf("%s: riff %s = exit %d; want 1 (refused)\n--- stdout\n%s--- stderr\n%s", m.host, strings.Join(args, " "), code, stdout, stderr)
	}
	return stderr
}

// login runs riff login --device on the machine, with the provider
// approving the code as email, and gives the exit code and the output.
func (m *teamMachine) login(ctx context.Context, p *oidcfake.Provider, email string) (stdout, stderr string, code int) {
	m.t.Helper()
	p.SetNext(oidcfake.Identity{Email: email})
	approved := make(chan error, 1)
	go func() {
		code, err := p.WaitDevice(ctx)
		if err == nil {
			err = p.Approve(code)
		}
		approved <- err
	}()
	stdout, stderr, code = runLogin(m.t, m.bin, m.env(), func(string) {}, "--device")
	if err := <-approved; err != nil {
		m.t.Fatal(err)
	}
	return stdout, stderr, code
}

// signIn runs riff login as email, which must work.
func (m *teamMachine) signIn(ctx context.Context, p *oidcfake.Provider, email, user string) {
	m.t.Helper()
	stdout, stderr, code := m.login(ctx, p, email)
	if want := "Signed in to the riff at " + m.server + " as " + email + " (" + user + ").\n"; code != exitOK || !strings.HasSuffix(stdout, want) {
		m.t.Fatalf("%s: riff login as %s = exit %d\n--- stdout\n%s--- stderr\n%s", m.host, email, code, stdout, stderr)
	}
}

// copyFolder copies the local folder of the machine to a new machine on
// the same host: a copy of its sign-in, as a thief or a backup keeps it.
func (m *teamMachine) copyFolder() *teamMachine {
	m.t.Helper()
	c := &teamMachine{t: m.t, bin: m.bin, server: m.server, home: m.t.TempDir(), host: m.host, label: m.label + " (a copy of its folder)", dir: m.dir, script: m.script}
	if out, err := exec.Command("cp", "-a", filepath.Join(m.home, "state"), c.home).CombinedOutput(); err != nil {
		m.t.Fatalf("copy the local folder: %v: %s", err, out)
	}
	return c
}

const lostSignIn = "Error: The sign-in of this machine ended. Run riff login.\n"

func wantIn(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("%s does not hold %q:\n%s", what, w, out)
		}
	}
}

func TestGivenATeamRiffWhenTheOwnerInvitesMakesAnAdminPassesTheRoleAndRemovesThenEachMachineSeesIt(t *testing.T) {
	t.Parallel()
	bin := buildRiff(t, "riff", "riff-server")
	p := newProvider(t)
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()
	// The owner of the settings is mike@example.com (--owner); the
	// reply to an invite names the public URL.
	s := startSignInServer(t, bin, t.TempDir(), p, "--public-url", "http://ADDR")
	var script strings.Builder
	mike := newTeamMachine(t, bin, s.url(), "pangolin", &script)
	ann := newTeamMachine(t, bin, s.url(), "thelio", &script)
	bob := newTeamMachine(t, bin, s.url(), "heron", &script)

	// The owner signs in; the owner line shows in whoami and who.
	mike.signIn(ctx, p, "mike@example.com", "mike")
	wantIn(t, "riff whoami of the owner", mike.ok("whoami"), "owner   mike (mike@example.com)\n")
	wantIn(t, "riff who of the owner", mike.ok("who"), "owner  mike (mike@example.com)\n")
	wantIn(t, "riff people at the start", mike.ok("people"), "owner  mike (mike@example.com)\n", "mike  mike@example.com  owner\n")

	// A person who is not invited may not join.
	if stdout, stderr, code := ann.login(ctx, p, "ann@example.com"); code != exitFail || !strings.Contains(stderr, "ann@example.com is not a member of this riff") {
		t.Errorf("riff login of ann before the invite = exit %d; want not_member\n--- stdout\n%s--- stderr\n%s", code, stdout, stderr)
	}

	// The owner invites ann, who signs in on a second machine.
	wantIn(t, "riff invite", mike.ok("invite", "ann@example.com"), "ann@example.com may join the riff now. The person signs in with: riff login --server "+s.url()+"\n")
	wantIn(t, "riff people after the invite", mike.ok("people"), "-     ann@example.com   may join\n")
	ann.signIn(ctx, p, "ann@example.com", "ann")
	wantIn(t, "riff whoami of ann", ann.ok("whoami"), "riff://ann@thelio/acme/app\n", "owner   mike (mike@example.com)\n")
	wantIn(t, "riff people after ann's login", mike.ok("people"), "ann   ann@example.com   member\n")
	// A member posts in chat; a member is no admin.
	ann.ok("post", "-t", "chat", "hello from ann")
	wantIn(t, "riff invite by a member", ann.refused("invite", "bob@example.com"), "Error: ann is not an admin")

	// The owner makes ann an admin: she invites bob.
	wantIn(t, "riff admin add", mike.ok("admin", "add", "ann@example.com"), "ann@example.com is an admin of the riff now.")
	wantIn(t, "riff people with an admin", ann.ok("people"), "ann   ann@example.com   admin\n")
	ann.ok("invite", "bob@example.com")
	bob.signIn(ctx, p, "bob@example.com", "bob")
	bobCopy := bob.copyFolder()
	const bobSession = "b0b5e551-0000-team"
	bob.ok("--session", bobSession, "status", "reviews the API")
	// A member may not make an admin.
	wantIn(t, "riff admin add by a member", bob.refused("admin", "add", "bob@example.com"), "Error: bob is not the owner")

	// The owner passes the role to ann: riff posts the note in chat,
	// and mike stays an admin.
	wantIn(t, "riff owner --pass", mike.ok("owner", "--pass", "ann@example.com"),
		"ann@example.com is the owner of the riff now. You stay an admin.\n", "riff posted the note of the pass in chat (#")
	wantIn(t, "riff whoami after the pass", bob.ok("whoami"), "owner   ann (ann@example.com)\n")
	chat := bob.ok("read", "-t", "chat", "--all")
	wantIn(t, "chat after the pass", chat, "hello from ann", "owner: mike (mike@example.com) passed the owner role to ann@example.com. mike stays an admin.")
	if !strings.Contains(chat, "] mike@pangolin:app (verified): note: owner: mike (mike@example.com) passed") {
		t.Errorf("the note of the pass is not a note of mike's machine, signed and verified:\n%s", chat)
	}
	wantIn(t, "riff people after the pass", bob.ok("people"), "owner  ann (ann@example.com)\n", "mike  mike@example.com  admin\n")
	// The old owner is no owner now. As an admin he asks for the role
	// back; the owner denies it, and the server posts both notes.
	wantIn(t, "riff admin add by the old owner", mike.refused("admin", "add", "bob@example.com"), "Error: mike is not the owner")
	wantIn(t, "riff owner --take", mike.ok("owner", "--take"), "Your request for the owner role waits until ")
	wantIn(t, "riff people with a request", ann.ok("people"), "asks   mike (mike@example.com)  for the owner role: it passes at ")
	wantIn(t, "riff owner --deny by an admin", mike.refused("owner", "--deny"), "Error: mike is not the owner")
	wantIn(t, "riff owner --deny", ann.ok("owner", "--deny"), "The request of mike@example.com for the owner role is denied.\n")
	wantIn(t, "chat after the deny", bob.ok("read", "-t", "chat"), "owner: mike (mike@example.com) asks for the owner role.",
		"owner: the owner denied the request of mike@example.com for the owner role.")

	// The owner removes bob: each sign-in of bob ends, and bob's next
	// command is refused.
	wantIn(t, "riff remove", ann.ok("remove", "bob@example.com"), "bob@example.com is no member of the riff now", "1 sign-in ended.\n")
	if got := bob.refused("--session", bobSession, "status", "still here"); got != lostSignIn {
		t.Errorf("a command of bob's session after the removal: %q; want %q", got, lostSignIn)
	}
	if got := bob.refused("whoami"); got != lostSignIn {
		t.Errorf("bob's command after the removal: %q; want %q", got, lostSignIn)
	}
	if _, stderr, code := bob.login(ctx, p, "bob@example.com"); code != exitFail || !strings.Contains(stderr, "bob@example.com is not a member of this riff") {
		t.Errorf("riff login of bob after the removal = exit %d, %q; want not_member", code, stderr)
	}
	people := ann.ok("people")
	if strings.Contains(people, "bob") {
		t.Errorf("riff people after the removal still lists bob:\n%s", people)
	}

	// After a restart of riff-server, the copy of bob's old sign-in does
	// not come back: the load drops it.
	s.restart()
	if got := bobCopy.refused("whoami"); got != lostSignIn {
		t.Errorf("the copy of bob's sign-in after a restart: %q; want %q", got, lostSignIn)
	}
	wantIn(t, "riff whoami of ann after the restart", ann.ok("whoami"), "owner   ann (ann@example.com)\n")

	// A revoke of the own sign-ins: mike's machine stops, and riff login
	// brings it back (mike stays a member and an admin).
	mikeCopy := mike.copyFolder()
	wantIn(t, "riff revoke", mike.ok("revoke"), "ends now", "1 sign-in ended.\n")
	if got := mike.refused("whoami"); got != lostSignIn {
		t.Errorf("mike's command after his revoke: %q; want %q", got, lostSignIn)
	}
	mike.signIn(ctx, p, "mike@example.com", "mike")
	wantIn(t, "riff people after mike's new sign-in", mike.ok("people"), "mike  mike@example.com  admin\n")
	// A revoke of another: the owner ends mike's sign-ins; the copy of
	// an older sign-in stays out too, also after a restart.
	wantIn(t, "riff revoke EMAIL", ann.ok("revoke", "mike@example.com"), "Each sign-in of mike@example.com ends now", "1 sign-in ended.\n")
	if got := mike.refused("whoami"); got != lostSignIn {
		t.Errorf("mike's command after the owner's revoke: %q; want %q", got, lostSignIn)
	}
	s.restart()
	if got := mikeCopy.refused("whoami"); got != lostSignIn {
		t.Errorf("the copy of mike's revoked sign-in after a restart: %q; want %q", got, lostSignIn)
	}
	// Only the owner revokes the owner.
	mike.signIn(ctx, p, "mike@example.com", "mike")
	wantIn(t, "riff revoke of the owner by an admin", mike.refused("revoke", "ann@example.com"),
		"Error: ann@example.com is the owner; only the owner ends the sign-ins of the owner\n")
	ann.ok("whoami")
	checkGolden(t, "team", "scenario", script.String())
	// No line of riff-server holds an email.
	if strings.Contains(s.log.String(), "@example.com") {
		t.Errorf("a log line of riff-server holds an email:\n%s", s.log.String())
	}
}
