package main

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/wire"
)

// The denied lines that docs/operations.md shows ("Read the denied
// lines") are the lines that the real riff-server writes: this test runs
// the removal of bob that the page tells, and compares (issue 19, 5h).

const operationsDoc = "../../docs/operations.md"

// docLines gives the lines of the indented block of the page that
// follows the sentence that starts with lead.
func docLines(t *testing.T, lead string) []string {
	t.Helper()
	data, err := os.ReadFile(operationsDoc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, lead)
	if i < 0 {
		t.Fatalf("%s has no %q", operationsDoc, lead)
	}
	var lines []string
	in := false
	for _, l := range strings.Split(text[i:], "\n")[1:] {
		switch {
		case strings.HasPrefix(l, "    "):
			in = true
			lines = append(lines, strings.TrimPrefix(l, "    "))
		case in:
			return lines
		}
	}
	return lines
}

var (
	timeField = regexp.MustCompile(`"time":"[^"]*"`)
	keyField  = regexp.MustCompile(`"key":"[^"]*"`)
)

// asDocumented gives a line as the page shows it: the time is TIME and a
// key THUMBPRINT.
func asDocumented(raw string) string {
	raw = timeField.ReplaceAllString(raw, `"time":"TIME"`)
	return keyField.ReplaceAllString(raw, `"key":"THUMBPRINT"`)
}

func TestGivenTheRemovalOfBobInOperationsMdWhenHisMachineCallsAgainThenRiffServerWritesTheDeniedLinesThatThePageShows(t *testing.T) {
	needBinary(t)
	p := startProvider(t)
	s := start(t, serverOpts{args: signInArgs(p, "--owner", "mike@example.com")})
	mike, bob := newMachine(t, s.URL), newMachine(t, s.URL)
	mikeTok := mike.signInAs(p, "mike@example.com")
	if r := mike.call(http.MethodPost, wire.Invite{}.Path(), mikeTok.AccessToken, wire.Invite{Me: person("mike"), Email: "bob@example.com"}); r.Status != http.StatusOK {
		t.Fatalf("invite = %s", r)
	}
	bobTok := bob.signInAs(p, "bob@example.com")
	r := mike.call(http.MethodPost, wire.Remove{}.Path(), mikeTok.AccessToken, wire.Remove{Me: person("mike"), Email: "bob@example.com"})
	var ended wire.EndedReply
	if err := json.Unmarshal(r.Body, &ended); err != nil || ended.Ended != 1 {
		t.Fatalf("remove = %s; want 1 sign-in ended", r)
	}
	before := len(s.Lines())
	// His machine calls with the ended token, then refreshes.
	refusedWith(t, bob.call(http.MethodPost, wire.Whoami{}.Path(), bobTok.AccessToken, wire.Whoami{Me: person("bob")}), wire.BadToken, http.StatusUnauthorized)
	refusedWith(t, bob.call(http.MethodPost, wire.Refresh{}.Path(), "", wire.Refresh{RefreshToken: bobTok.RefreshToken}), wire.BadToken, http.StatusUnauthorized)
	s.stop()
	var got []string
	for _, l := range s.Lines()[before:] {
		if l.Message == "denied" {
			got = append(got, asDocumented(l.Raw))
		}
	}
	want := docLines(t, "In the team riff above, the removal of bob shows as two lines")
	if !slices.Equal(got, want) {
		t.Fatalf("riff-server wrote the denied lines\n%s\nand %s shows\n%s\ncopy the lines of riff-server into the page", strings.Join(got, "\n"), operationsDoc, strings.Join(want, "\n"))
	}
}
