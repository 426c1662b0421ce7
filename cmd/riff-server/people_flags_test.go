package main

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffstate"
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
	} {
		err := parseSettings(t, c.args...).check()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("check of %q = %v; want an error with %q", c.args, err, c.want)
		}
	}
}
