package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/tools/oidcfake"
)

// A removal while the sign-in of the removed person is in flight, with
// the real binaries: for each of several people, riff login runs on the
// person's machine while the owner runs riff remove after the provider
// approved the login, after a delay that grows from person to person. So
// the remove comes before the admit, between the admit and the start of
// the sign-in, or after it (the interleavings of "What stays outside" in
// the engine design; riffengine's people tests hold each one at its
// step). Whatever the order, the removed person
// gets no command through, neither then nor after a stop (SIGTERM) or a
// kill -9 of riff-server and a start.
func TestGivenASignInInFlightWhenTheOwnerRemovesThePersonThenThePersonGetsNoCommandThroughAtAnyStep(t *testing.T) {
	t.Parallel()
	bin := buildRiff(t, "riff", "riff-server")
	p := newProvider(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	s := startSignInServer(t, bin, t.TempDir(), p)
	var script strings.Builder
	mike := newTeamMachine(t, bin, s.url(), "pangolin", &script)
	mike.signIn(ctx, p, "mike@example.com", "mike")

	const people = 8
	var removed []*teamMachine
	outcomes := map[string]int{}
	for i := range people {
		email := fmt.Sprintf("bob%d@example.com", i)
		bob := newTeamMachine(t, bin, s.url(), fmt.Sprintf("heron%d", i), &script)
		mike.ok("invite", email)
		p.SetNext(oidcfake.Identity{Email: email})
		removedAt := make(chan error, 1)
		go func() {
			code, err := p.WaitDevice(ctx)
			if err == nil {
				err = p.Approve(code)
			}
			// riff login polls for the ID token each second, then signs
			// in at once: the removes start over that second and a bit
			// more, so they land before, around and after the sign-in.
			if err == nil {
				time.Sleep(time.Duration(i) * 160 * time.Millisecond)
				if stdout, stderr, code := mike.riff("remove", email); code != exitOK {
					err = fmt.Errorf("riff remove %s = exit %d\n%s%s", email, code, stdout, stderr)
				}
			}
			removedAt <- err
		}()
		_, stderr, code := runLogin(t, bin, bob.env(), func(string) {}, "--device")
		if err := <-removedAt; err != nil {
			t.Fatal(err)
		}
		switch {
		case code == exitOK:
			outcomes["signed in, then the remove ended the sign-in"]++
		case strings.Contains(stderr, "not a member"):
			outcomes["the remove came first: not a member"]++
		default:
			outcomes["the sign-in ended in flight: "+strings.TrimSpace(stderr)]++
		}
		if stdout, stderr, code := bob.riff("whoami"); code == exitOK {
			t.Errorf("%s got a command through after its removal:\n%s%s", email, stdout, stderr)
		}
		removed = append(removed, bob)
	}
	t.Logf("the orders that the runs met: %v", outcomes)

	check := func(when string) {
		t.Helper()
		for _, bob := range removed {
			if stdout, stderr, code := bob.riff("whoami"); code == exitOK {
				t.Errorf("%s: %s got a command through:\n%s%s", when, bob.host, stdout, stderr)
			}
			if stdout, stderr, code := bob.riff("--session", "b0b5e551-0000-late", "whoami"); code == exitOK {
				t.Errorf("%s: a session of %s got a command through:\n%s%s", when, bob.host, stdout, stderr)
			}
		}
		people := mike.ok("people")
		if strings.Contains(people, "bob") && strings.Contains(people, "member") {
			for _, line := range strings.Split(people, "\n") {
				if strings.Contains(line, "bob") && strings.HasSuffix(line, "member") {
					t.Errorf("%s: riff people lists a removed person as a member: %q", when, line)
				}
			}
		}
	}
	check("after the removals")
	s.restart()
	check("after a stop and a start")
	s.kill()
	s.start()
	check("after a kill -9 and a start")
}
