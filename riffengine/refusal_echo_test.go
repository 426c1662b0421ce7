package riffengine_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/quote"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffstate"
)

// A refusal repeats at most a short cut of its input (riffcore/quote):
// each call of the wire, with a long marked value in each field of its
// body, one at a time, and in each header that riff-server reads, gets a
// refusal that holds at most quote.Max characters of the mark in a row.

// echoCalls are the calls of the wire that a client can send, each as a
// body that the server takes with its own fields.
// pather is a call of the wire: its path.
type pather interface{ Path() string }

func echoCalls() []pather {
	me := uri("ann/ann1")
	return []pather{
		wire.Register{Me: me}, wire.Start{Me: me, Reason: "process"}, wire.End{Me: me},
		wire.Join{Me: me, Thread: "chat"}, wire.Leave{Me: me, Thread: "chat"},
		wire.Post{Me: me, Body: "hello"}, wire.Claim{Me: me, Item: "issue-7"}, wire.Release{Me: me, Item: "issue-7"},
		wire.ReleaseFor{Me: me, Item: "issue-7", Session: "ann2"}, wire.Lead{Me: uri("ann"), Session: "ann1"},
		wire.Pause{Me: me}, wire.Resume{Me: me}, wire.Hold{Me: me, Item: "issue-7", Reason: "wait"},
		wire.Free{Me: me, Item: "issue-7"}, wire.SetPlan{Me: me, Plan: "wave 1"}, wire.PlanOff{Me: me},
		wire.SetNotes{Me: me, Text: "notes"}, wire.SetIdle{Me: uri("ann"), User: "ann", Host: "pangolin", Repo: "o/repo"},
		wire.Invite{Me: uri("ann"), Email: "bob@example.com"}, wire.Remove{Me: uri("ann"), Email: "bob@example.com"},
		wire.SetAdmin{Me: uri("ann"), Email: "bob@example.com"}, wire.PassOwner{Me: uri("ann"), Email: "bob@example.com"},
		wire.TakeOwner{Me: uri("ann")}, wire.DenyOwner{Me: uri("ann")}, wire.Revoke{Me: uri("ann")},
		wire.People{Me: me}, wire.PostContent{}, wire.Who{Me: me}, wire.Whoami{Me: me}, wire.Read{Me: me},
		wire.Threads{Me: me}, wire.Riff{Me: me}, wire.Idle{Me: me}, wire.Notes{Me: me},
		wire.Watch{Me: me}, wire.Tail{Me: me}, wire.Alive{Me: me}, wire.Status{Me: me, Text: "s"},
		wire.Blocked{Me: me, Reason: "r"}, wire.Step{Me: me, Start: "s"}, wire.Move{Me: me},
		wire.SignIn{}, wire.Refresh{}, wire.Swap{},
	}
}

// jsonFields gives the JSON names of the fields of a struct type.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if tag == "-" {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		out = append(out, tag)
	}
	return out
}

// longestRun gives the longest run of the mark rune in s.
func longestRun(s string, mark rune) int {
	best, n := 0, 0
	for _, r := range s {
		if r == mark {
			n++
			best = max(best, n)
			continue
		}
		n = 0
	}
	return best
}

// echoClient sends the body of a call only when the server reads it.
var echoClient = &http.Client{Transport: &http.Transport{ExpectContinueTimeout: 10 * time.Second}}

// send posts a body with headers, and gives the status and the text of
// a refusal.
func send(t *testing.T, url, path string, body []byte, headers map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	// Over the limit of the denied lines the server replies with no read
	// of the body: the body goes only after 100 Continue.
	req.Header.Set("Expect", "100-continue")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := echoClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 400 {
		// No refusal; a stream that opened sends lines until it ends.
		return resp.StatusCode, ""
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}

func TestGivenALongValueInEachFieldOfEachCallWhenTheServerRefusesItThenTheRefusalRepeatsAtMostAShortCutOfIt(t *testing.T) {
	const mark = 'Q'
	long := strings.Repeat(string(mark), 60_000)
	t.Cleanup(echoClient.CloseIdleConnections)
	plain := start(t, setup{})
	plain.register("ann/ann1", "ann/ann2")
	signed := startSignedIn(t, riffstate.Options{Owner: "ann@example.com"})
	refusals := 0
	for _, srv := range []struct {
		name string
		url  string
	}{{"a riff with no sign-in", plain.http.URL}, {"a riff with sign-in", signed.http.URL}} {
		for _, call := range echoCalls() {
			base, err := json.Marshal(call)
			if err != nil {
				t.Fatal(err)
			}
			for _, field := range jsonFields(reflect.TypeOf(call)) {
				for _, value := range []any{long, []string{long}, map[string]string{"x": long}} {
					var body map[string]any
					if err := json.Unmarshal(base, &body); err != nil {
						t.Fatal(err)
					}
					body[field] = value
					b, err := json.Marshal(body)
					if err != nil {
						t.Fatal(err)
					}
					code, text := send(t, srv.url, call.Path(), b, nil)
					if code < 400 {
						continue
					}
					refusals++
					if n := longestRun(text, mark); n > quote.Max {
						t.Errorf("%s: %s with a long %s (%T) = %d, repeating %d characters of it: %.200s", srv.name, call.Path(), field, value, code, n, text)
					}
				}
			}
			for _, header := range []string{wire.HeaderBuild, wire.HeaderCall, "Authorization", "DPoP"} {
				code, text := send(t, srv.url, call.Path(), base, map[string]string{header: "DPoP " + long})
				if code < 400 {
					continue
				}
				refusals++
				if n := longestRun(text, mark); n > quote.Max {
					t.Errorf("%s: %s with a long header %s = %d, repeating %d characters of it: %.200s", srv.name, call.Path(), header, code, n, text)
				}
			}
		}
		if srv.name == "a riff with sign-in" {
			// The person ada, signed in, reaches the rules of each command
			// of the people with each long field.
			ada := signed.join("ann@example.com")
			for _, call := range echoCalls() {
				base, _ := json.Marshal(call)
				for _, field := range jsonFields(reflect.TypeOf(call)) {
					if field == "me" {
						continue
					}
					var body map[string]any
					if err := json.Unmarshal(base, &body); err != nil {
						t.Fatal(err)
					}
					body["me"] = uri(ada.user).String()
					body[field] = long
					rep := signed.as(ada, call.Path(), body)
					if rep.status < 400 {
						continue
					}
					refusals++
					if n := longestRun(string(rep.body), mark); n > quote.Max {
						t.Errorf("%s, signed in: %s with a long %s = %d, repeating %d characters of it: %.200s", srv.name, call.Path(), field, rep.status, n, rep.body)
					}
				}
			}
		}
		// A path that riff-server does not serve.
		if code, text := send(t, srv.url, "/v1/"+long[:8000], []byte("{}"), nil); code < 400 || longestRun(text, mark) > quote.Max {
			t.Errorf("%s: a long unknown path = %d %.200s; want a refusal with a short cut of it", srv.name, code, text)
		}
	}
	if refusals < 200 {
		t.Errorf("%d refusals; want the test to reach many refusals", refusals)
	}
	t.Logf("%d refusals checked", refusals)
}
