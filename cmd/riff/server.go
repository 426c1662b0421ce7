package main

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/render"
	"github.com/como-technologies/riff/riffclient/signin"
	"github.com/como-technologies/riff/riffcore/loopback"
	"github.com/como-technologies/riff/riffcore/wire"
)

// signInFact gives the sign-in line of a riff that gave its facts to
// riff: signed in as the email of the sign-in of m, or no sign-in.
func (c *cli) signInFact(ctx context.Context, m *signin.Machine, client *riffclient.Client) render.Fact {
	if m == nil {
		return render.NoSignIn()
	}
	k, ok, err := m.Stored()
	if err != nil || !ok || k.Ended {
		return render.NoSignIn()
	}
	// A sign-in stored for a riff that has none now (it started again with
	// no provider): the riff says so. An older riff-server has no such
	// route: the sign-in line stays.
	p, perr := riffclient.SendProved(ctx, client, wire.SignInProvider{}, nil, "")
	if perr == nil && !p.SignIn {
		return render.NoSignIn()
	}
	who := k.Email
	if who == "" {
		who = k.User
	}
	return render.SignedIn(who)
}

// localBudget is the budget of the call to the riff of this machine in
// riff server: it shows only when it answers, and it must not hold the
// command.
const localBudget = 2 * time.Second

// localFacts gives the lines of the riff of this machine: local, its
// release and its sign-in. It gives none when the riff that riff uses is
// the riff of this machine, and none when it does not answer.
func (c *cli) localFacts(ctx context.Context) []render.Fact {
	raw := c.localRiff
	if raw == "" {
		raw = riffclient.DefaultServer
	}
	u, err := riffclient.ParseServer(raw)
	if err != nil || sameRiff(u, c.serverURL()) {
		return nil
	}
	opts := riffclient.Options{Build: c.build}
	if c.system.client != nil {
		c.system.client(&opts)
	}
	opts.Out, opts.Budget = nil, localBudget
	m := c.openSignIn(u, opts)
	plain := riffclient.New(u, opts)
	if m != nil && m.HasSignIn() {
		opts.Auth = m
	}
	facts, err := riffclient.New(u, opts).Facts(ctx)
	got := render.LocalLines(render.Answer{Facts: facts, Err: err}, render.Asked{
		Mine:   c.build,
		SignIn: func() render.Fact { return c.signInFact(ctx, m, plain) },
		Fault:  faultOf(m),
	})
	if got == nil {
		return nil
	}
	return append([]render.Fact{{Key: "local", Value: u.String(), Extra: "(the riff of this machine)"}}, got...)
}

// faultOf gives the fault of the sign-in m for render; nil with none.
func faultOf(m *signin.Machine) func() error {
	if m == nil {
		return nil
	}
	return m.Fault
}

// sameRiff says whether a and b are one riff: the same URL, or the same
// scheme, port and path on this machine (riffcore/loopback).
func sameRiff(a, b *url.URL) bool {
	if a.String() == b.String() {
		return true
	}
	return loopback.Is(a.Hostname()) && loopback.Is(b.Hostname()) &&
		a.Scheme == b.Scheme && a.Port() == b.Port() &&
		strings.TrimRight(a.Path, "/") == strings.TrimRight(b.Path, "/")
}

// errSilent ends a command that printed its fault already.
var errSilent = errors.New("the command printed its fault")
