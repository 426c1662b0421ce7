package main

import (
	"encoding/json"
	"flag"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffstate"
	"github.com/como-technologies/riff/tools/oidcfake"
)

// The flags of the people: the admins of the settings, the public
// address that the reply to an invite names, and the times of the owner
// role.

func parseSettings(t *testing.T, args ...string) signInSettings {
	t.Helper()
	var s settings
	fs := flag.NewFlagSet("riff-server", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s.register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return s.signIn
}

func TestGivenThePeopleFlagsWhenTheServerStartsThenTheStateGetsThem(t *testing.T) {
	s := parseSettings(t, "--require-sign-in", "--admins", " Bob@Example.com,ann@example.com,bob@example.com ,",
		"--public-url", "https://riff.example.com/", "--owner-wait", "48h", "--owner-gone", "240h", "--owner-warn", "24h")
	if err := s.check(); err != nil {
		t.Fatalf("check = %v; want none", err)
	}
	got := s.people()
	want := riffstate.PeopleOptions{Admins: []string{"ann@example.com", "bob@example.com"}, PublicAddress: "https://riff.example.com",
		OwnerWaitMs: (48 * time.Hour).Milliseconds(), OwnerGoneMs: (240 * time.Hour).Milliseconds(), OwnerWarnMs: (24 * time.Hour).Milliseconds()}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("people (-want +got):\n%s", diff)
	}
}

func TestGivenNoPeopleFlagsWhenTheServerStartsThenTheTimesAreTheDefaultsOfTheSeeds(t *testing.T) {
	got := parseSettings(t, "--require-sign-in").people()
	want := riffstate.PeopleOptions{OwnerWaitMs: riffstate.DefaultOwnerWaitMs, OwnerGoneMs: riffstate.DefaultOwnerGoneMs, OwnerWarnMs: riffstate.DefaultOwnerWarnMs}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("people (-want +got):\n%s", diff)
	}
}

func TestGivenBadPeopleFlagsWhenTheServerStartsThenItSaysWhatIsWrong(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--admins", "ann@example.com"}, "--admins needs a riff with sign-in"},
		{[]string{"--require-sign-in", "--admins", "ann@example.com,not-an-email"}, "--admins"},
		{[]string{"--require-sign-in", "--owner-wait", "0s"}, "--owner-wait 0s must be a time"},
		{[]string{"--require-sign-in", "--owner-gone", "-1h"}, "--owner-gone -1h0m0s must be a time"},
		{[]string{"--require-sign-in", "--owner-gone", "48h", "--owner-warn", "72h"}, "--owner-warn 72h0m0s is longer than --owner-gone 48h0m0s"},
		// No person has a name of the server, nor an email with a
		// character that is not visible (docs/people.md).
		{[]string{"--require-sign-in", "--owner", "riff@example.com"}, "--owner: riff@example.com would join as the user riff, and riff is a name of riff-server itself"},
		{[]string{"--require-sign-in", "--admins", "ann@example.com,Riff-Server@example.com"}, "--admins: riff-server@example.com would join as the user riff-server"},
		{[]string{"--require-sign-in", "--owner", "ada\u200b@example.com"}, "--owner: the email \"ada\\u200b@example.com\" holds U+200B, a character that is not visible"},
		{[]string{"--require-sign-in", "--owner", "no-email"}, "--owner: \"no-email\" is no email"},
	} {
		err := parseSettings(t, c.args...).check()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("check of %q = %v; want an error with %q", c.args, err, c.want)
		}
	}
}

func TestGivenAnAdminOfTheSettingsByEnvWhenTheyInviteAndRemoveOnTheRealBinaryThenTheReplyNamesThePublicURLAndTheSignInEnds(t *testing.T) {
	needBinary(t)
	p := startProvider(t)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(freePort(t)))
	public := "http://" + addr
	s := start(t, serverOpts{addr: addr, args: signInArgs(p, "--owner", "ada@example.com", "--public-url", public),
		env: []string{"RIFF_ADMINS=Sam@Example.com"}})
	sam, bob := newMachine(t, s.URL), newMachine(t, s.URL)
	var pr wire.ProviderReply
	_ = json.Unmarshal(sam.call(http.MethodPost, wire.SignInProvider{}.Path(), "", wire.SignInProvider{}).Body, &pr)
	p.SetNext(oidcfake.Identity{Email: "sam@example.com"})
	samTok := sam.signIn(browserIDToken(t, pr))

	r := sam.call(http.MethodPost, wire.Invite{}.Path(), samTok.AccessToken, wire.Invite{Me: person("sam"), Email: "bob@other.org"})
	var inv wire.InviteReply
	if err := json.Unmarshal(r.Body, &inv); err != nil || r.Status != http.StatusOK {
		t.Fatalf("invite by the admin of RIFF_ADMINS = %s; want 200", r)
	}
	if inv.Server != public {
		t.Errorf("invite reply names %q; want the public URL %q", inv.Server, public)
	}
	p.SetNext(oidcfake.Identity{Email: "bob@other.org"})
	bobTok := bob.signIn(browserIDToken(t, pr))
	refusedWith(t, bob.call(http.MethodPost, wire.Invite{}.Path(), bobTok.AccessToken, wire.Invite{Me: person(bobTok.User), Email: "cy@other.org"}), wire.NotAllowed, http.StatusForbidden)

	r = sam.call(http.MethodPost, wire.Remove{}.Path(), samTok.AccessToken, wire.Remove{Me: person("sam"), Email: "bob@other.org"})
	var ended wire.EndedReply
	if err := json.Unmarshal(r.Body, &ended); err != nil || r.Status != http.StatusOK || ended.Ended != 1 {
		t.Fatalf("remove of bob = %s; want 200 with 1 sign-in ended", r)
	}
	refusedWith(t, bob.call(http.MethodPost, wire.Whoami{}.Path(), bobTok.AccessToken, wire.Whoami{Me: person(bobTok.User)}), wire.BadToken, http.StatusUnauthorized)
}
