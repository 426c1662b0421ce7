package loadtool

import (
	"encoding/json"
	"testing"
)

// Given a script of two clients, when its calls are taken, then client c
// sends the calls of list c mod 2 in turn, again and again.
func TestGivenAScriptWhenItsCallsAreTakenThenEachClientSendsItsListInTurn(t *testing.T) {
	var s Script
	if err := json.Unmarshal([]byte(`{"clients":[[{"path":"/a","body":{"n":1}},{"path":"/b","body":{"n":2}}],[{"path":"/c","body":{}}]]}`), &s); err != nil {
		t.Fatal(err)
	}
	body, err := s.Body()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c, i       int
		path, body string
	}{
		{0, 0, "/a", `{"n":1}`}, {0, 1, "/b", `{"n":2}`}, {0, 2, "/a", `{"n":1}`},
		{1, 0, "/c", `{}`}, {1, 5, "/c", `{}`}, {2, 1, "/b", `{"n":2}`}, {3, 0, "/c", `{}`},
	} {
		if path, b := body(tc.c, tc.i); path != tc.path || string(b) != tc.body {
			t.Errorf("call %d of client %d = %s %s; want %s %s", tc.i, tc.c, path, b, tc.path, tc.body)
		}
	}
}

// Given a script with no client, or a client with no call, when its
// calls are taken, then the error names what is missing.
func TestGivenAnEmptyScriptWhenItsCallsAreTakenThenTheErrorSaysWhatIsMissing(t *testing.T) {
	if _, err := (Script{}).Body(); err == nil || err.Error() != "the script has no client" {
		t.Errorf("Body of no client = %v", err)
	}
	if _, err := (Script{Clients: [][]Call{{{Path: "/a"}}, {}}}).Body(); err == nil || err.Error() != "the script's client 1 has no call" {
		t.Errorf("Body of a client with no call = %v", err)
	}
}

// Given a script with Expand, when its calls are taken, then each {c}
// is the number of the client and each {i} the number of its turn
// through its list, both from 1, and other braces stay as they are.
func TestGivenAnExpandedScriptWhenItsCallsAreTakenThenEachTurnNamesItsClientAndTurn(t *testing.T) {
	var s Script
	if err := json.Unmarshal([]byte(`{"expand":true,"clients":[[{"path":"/a/{c}","body":{"me":"s{c}x{i}","n":"{x}{i"}},{"path":"/b","body":{"me":"s{c}x{i}"}}]]}`), &s); err != nil {
		t.Fatal(err)
	}
	body, err := s.Body()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c, i       int
		path, body string
	}{
		{0, 0, "/a/1", `{"me":"s1x1","n":"{x}{i"}`}, {0, 1, "/b", `{"me":"s1x1"}`},
		{0, 2, "/a/1", `{"me":"s1x2","n":"{x}{i"}`}, {6, 5, "/b", `{"me":"s7x3"}`},
	} {
		if path, b := body(tc.c, tc.i); path != tc.path || string(b) != tc.body {
			t.Errorf("call %d of client %d = %s %s; want %s %s", tc.i, tc.c, path, b, tc.path, tc.body)
		}
	}
}
