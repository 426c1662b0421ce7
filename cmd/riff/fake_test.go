package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/wire"
)

// fakeServer answers the wire types of riff with fixed replies, and keeps
// each call that it got. It stands for riff-server in the golden tests;
// the end-to-end test runs the same cases against the real binary.
type fakeServer struct {
	t     *testing.T
	build string
	// signIn refuses the facts of the server, as a riff with sign-in
	// does to a person who is not signed in.
	signIn bool
	// frontEnd answers as Cloud Run with no instance: 500 with no
	// riff-build, then each later call as the server.
	frontEnd int
	// noSignIn refuses each command of the people with no_sign_in and
	// gives an empty list of the people, as a riff with no sign-in does;
	// owner is the owner line of who and whoami.
	noSignIn bool
	owner    string
	// topReply is the reply of /v1/top (riff top), with the build of
	// the fake server.
	topReply *wire.TopReply
	mu       sync.Mutex
	calls    []string
}

func (f *fakeServer) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func uri(s string) name.SessionURI {
	u, err := name.ParseURI(s)
	if err != nil {
		panic(err)
	}
	return u
}

func refuse(w http.ResponseWriter, code wire.Code, reason string) {
	w.Header().Set(wire.HeaderRefused, string(code))
	w.WriteHeader(code.Status())
	io.WriteString(w, reason)
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.calls = append(f.calls, strings.TrimSpace(r.Method+" "+r.URL.Path+" "+string(body)))
	front := f.frontEnd > 0
	if front {
		f.frontEnd--
	}
	f.mu.Unlock()
	if front {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "The request was aborted because there was no available instance.")
		return
	}
	w.Header().Set(wire.HeaderBuild, f.build)
	var fields map[string]any
	_ = json.Unmarshal(body, &fields)
	str := func(k string) string { s, _ := fields[k].(string); return s }
	enc := json.NewEncoder(w)
	lead := uri("riff://mike@pangolin/acme/app?session=a6cf2205-9a1b&lead=true#api")
	worker := uri("riff://mike@thelio/acme/app?session=5b1e77aa-0000&claim=issue-7#issue-7")
	brett := uri("riff://brett@heron/acme/app?session=77e0a1b2-3c4d")
	pauses := wire.Pauses{Repositories: []wire.RepoPause{{Repo: "acme/strata", PauseInfo: wire.PauseInfo{By: "the session brett/62b2", AtMs: 1}}}}
	switch r.URL.Path {
	case "/v1/whoami":
		me := uri(str("me"))
		if !me.IsPerson() {
			me = me.With([]name.Item{"issue-6"}, false)
		}
		enc.Encode(wire.WhoamiReply{URI: me, Here: "running", Pauses: pauses, Build: f.build, Owner: f.owner})
	case "/v1/who":
		rows := []wire.WhoRow{
			{URI: lead, You: true, State: "busy", Role: "lead", Detail: "working on #6"},
			{URI: worker, State: "busy", Role: "worker", Detail: "working on #7  4m ago: write the tests"},
			{URI: brett, State: "blocked", Detail: "which of two designs? (1m ago) \x1b[2Jand a very long reason that goes on and on past the width"},
		}
		if fields["all"] == true {
			rows = append(rows, wire.WhoRow{URI: uri("riff://mike@pangolin/acme/app?session=068a2cc2-1111"), State: "gone", Detail: "ended 5m ago", Gone: true})
		}
		enc.Encode(wire.WhoReply{Pauses: pauses, Build: f.build, Rows: rows, Owner: f.owner, Act: "acme/strata is paused: riff resume --repo acme/strata ends it."})
	case "/v1/threads":
		enc.Encode(wire.ThreadsReply{Threads: []wire.ThreadInfo{
			{Thread: "dm:a6cf2205-9a1b", Title: "direct with mike@pangolin:app", Last: 1, Unread: 1},
			{Thread: "chat", Last: 128, Unread: 0},
			{Thread: "acme/app", Last: 2527, Unread: 3},
		}})
	case "/v1/read":
		after, _ := fields["after"].(float64)
		reply := wire.ReadReply{
			ToYou: []wire.ThreadPage{{Thread: "chat", Messages: []wire.Message{
				{Thread: "chat", Seq: 327, Sender: uri("riff://mike@pangolin"), To: toSession("193c7051"), Body: "Can you look at #1110?", Verified: true},
			}}},
			Threads: []wire.ThreadPage{
				{Thread: "dm:a6cf2205-9a1b", Title: "direct with mike@pangolin:app", Messages: []wire.Message{
					{Thread: "dm:5b1e77aa-0000+a6cf2205-9a1b", Seq: 1, Sender: lead, Lead: true, To: toSession("5b1e"), Body: "request: claim issue-12", Verified: true},
				}},
				{Thread: "chat", Messages: []wire.Message{
					{Thread: "chat", Seq: 128, Sender: uri("riff://brett@heron"), Body: "the build is green\x1b]0;owned\x07\x1b[31m!\x1b[0m", Verified: true},
				}},
				{Thread: "acme/app", Messages: []wire.Message{
					{Thread: "acme/app", Seq: 2527, Sender: lead, Lead: true, Body: "Wave 34 starts", Verified: true},
					{Thread: "acme/app", Seq: 2528, Sender: brett, Kind: "note", To: toClaim("issue-6"), Body: "look\nhere", Verified: false},
				}},
			},
		}
		if after > 0 {
			// A read after a seq: the thread of the tail, with nothing new.
			reply = wire.ReadReply{Threads: []wire.ThreadPage{{Thread: str("thread")}}}
		}
		enc.Encode(reply)
	case "/v1/post":
		if tell := str("tell"); tell != "" {
			if tell == "a6c" || tell == "ab12" {
				refuse(w, wire.BadRequest, "ab12 fits 2 sessions: ab12cd (mike@pangolin:app), ab12ef (mike@thelio:app). Give more of the ID.")
				return
			}
			if tell == "lead" {
				enc.Encode(wire.PostReply{Thread: "dm:a6cf2205-9a1b", Seq: 3, Woke: []name.SessionURI{lead}})
				return
			}
			enc.Encode(wire.PostReply{Thread: "dm:" + tell, Seq: 2, Woke: []name.SessionURI{worker}})
			return
		}
		if str("thread") == "chat" {
			enc.Encode(wire.PostReply{Thread: "chat", Seq: 129})
			return
		}
		reply := wire.PostReply{Thread: "acme/app", Seq: 2529, Woke: []name.SessionURI{worker}}
		if str("kind") == "status" {
			reply.Woke = []name.SessionURI{lead, worker}
		}
		if to, ok := fields["to"].([]any); ok && len(to) > 1 {
			reply.Unmatched = toClaim("issue-9")
		}
		enc.Encode(reply)
	case "/v1/claim":
		switch str("item") {
		case "issue-13":
			refuse(w, wire.Held, "issue-13 is held by mike@thelio:app#issue-7 (5b1e).")
		case "issue-14":
			refuse(w, wire.Paused, "acme/app is paused by mike: no claim there until riff resume.")
		case "issue-15":
			w.Header().Set(wire.HeaderBuild, f.build)
			enc.Encode(wire.ClaimReply{Holder: lead, Warning: "issue-15 is on hold: waits for the word of Mike", Text: "You hold issue-15 in acme/app."})
		default:
			enc.Encode(wire.ClaimReply{Holder: lead, Text: "You hold " + str("item") + " in acme/app."})
		}
	case "/v1/release":
		enc.Encode(wire.ReleaseReply{Text: "You released " + str("item") + " in acme/app."})
	case "/v1/release/for":
		enc.Encode(wire.ReleaseForReply{Text: "You released " + str("item") + " in acme/app for the session " + str("session") + ". The item is free."})
	case "/v1/lead":
		enc.Encode(wire.LeadReply{Lead: brett, Text: "brett@heron:app (77e0) is the lead of mike in acme/app now."})
	case "/v1/pause":
		enc.Encode(wire.PauseReply{Text: "acme/app is paused now. Woke mike@thelio:app#issue-7 (5b1e).", Here: "paused"})
	case "/v1/resume":
		enc.Encode(wire.PauseReply{Text: "The riff is running now. Still paused: acme/strata. Its user or its lead resumes it with `riff resume`.", Here: "running"})
	case "/v1/hold":
		enc.Encode(wire.TextReply{Text: str("item") + " in acme/app is on hold now: no worker can claim it. `riff plan free " + str("item") + "` frees it."})
	case "/v1/free":
		enc.Encode(wire.TextReply{Text: str("item") + " in acme/app is free of its hold: a worker can claim it."})
	case "/v1/status":
		if len(str("text")) > wire.MaxStatus {
			refuse(w, wire.BadRequest, "the step has more than 400 characters")
			return
		}
		enc.Encode(wire.TextReply{Text: "Your status: " + str("text")})
	case "/v1/blocked":
		enc.Encode(wire.TextReply{Text: "You are blocked: " + str("reason") + ". Your lead gets the reason."})
	case "/v1/step":
		enc.Encode(wire.TextReply{Text: fmt.Sprintf("Your step: start=%q done=%v fail=%q", str("start"), fields["done"] == true, str("fail"))})
	case "/v1/notes/read":
		reply := wire.NotesReply{User: "mike", Thread: "acme/app", Text: "Wave 4: issue-12, issue-13.\nAsk before a merge.\n"}
		if fields["history"] == true {
			reply.History = []wire.NoteVersion{{Text: "Wave 3.", By: "mike", AtMs: 1790000000000}}
		}
		enc.Encode(reply)
	case "/v1/notes":
		enc.Encode(wire.TextReply{Text: fmt.Sprintf("The notes of the lead of mike in acme/app have %d characters now.", len(str("text")))})
	case "/v1/server":
		if f.signIn {
			refuse(w, wire.NoToken, "this riff has sign-in: the call has no token.")
			return
		}
		enc.Encode(wire.ServerFacts{Build: f.build, Serves: true, Position: 1234, LastWriteAgoMs: 3000, LastWriteTookMs: 45,
			Checkpoint: &wire.CheckpointFacts{Position: 1000, AgeMs: 300000, Version: "0.4.3"},
			Chunks:     12, Sessions: 8, Cursors: 40, Threads: 9, MemoryBytes: 35_000_000, StartedAgoMs: 7_200_000, ReplayMs: 120, Store: "dir"})
	case "/v1/tail":
		f.tail(w, r)
	case "/v1/top":
		if f.topReply == nil {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		reply := *f.topReply
		reply.Build = f.build
		enc.Encode(reply)
	case "/v1/register", "/v1/move":
		// The server holds the caller as it named itself.
		enc.Encode(wire.RegisterReply{URI: uri(str("me"))})
	case "/v1/alive":
		enc.Encode(wire.AliveReply{})
	case "/v1/end":
		enc.Encode(wire.EndReply{})
	case "/v1/invite", "/v1/remove", "/v1/admin/set", "/v1/owner/pass", "/v1/owner/take", "/v1/owner/deny", "/v1/revoke", "/v1/people":
		f.people(w, r.URL.Path, fields)
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

// people answers the commands of the people and the list of the
// people.
func (f *fakeServer) people(w http.ResponseWriter, path string, fields map[string]any) {
	str := func(k string) string { s, _ := fields[k].(string); return s }
	enc := json.NewEncoder(w)
	if f.noSignIn {
		if path == "/v1/people" {
			enc.Encode(wire.PeopleReply{Admins: []wire.Person{}, Members: []wire.Person{}, MayJoin: []wire.Person{}})
			return
		}
		refuse(w, wire.NoSignIn, "this riff has no sign-in, so it has no people: the command invite needs a riff with sign-in")
		return
	}
	email := str("email")
	switch path {
	case "/v1/invite":
		enc.Encode(wire.InviteReply{Email: email, Server: "https://riff.example.com",
			Text: email + " may join the riff now. The person signs in with: riff login --server https://riff.example.com"})
	case "/v1/remove":
		if email == "mike@example.com" {
			refuse(w, wire.NotAllowed, "mike@example.com is the owner: the owner cannot be removed")
			return
		}
		enc.Encode(wire.EndedReply{Email: email, Ended: 2, Text: email + " is no member of the riff now, and each sign-in of the person ends."})
	case "/v1/admin/set":
		if fields["admin"] == true {
			enc.Encode(wire.TextReply{Text: email + " is an admin of the riff now."})
			return
		}
		enc.Encode(wire.TextReply{Text: email + " is no admin now, and stays a member of the riff."})
	case "/v1/owner/pass":
		enc.Encode(wire.TextReply{Text: email + " is the owner of the riff now. You stay an admin."})
	case "/v1/owner/take":
		enc.Encode(wire.OwnerReply{DueMs: 1790517720000, Text: "Your request for the owner role waits until 2026-09-28 12:02 UTC: the owner can deny it until then. After it, you are the owner."})
	case "/v1/owner/deny":
		enc.Encode(wire.TextReply{Text: "The request of ann@example.com for the owner role is denied."})
	case "/v1/revoke":
		if email == "" {
			enc.Encode(wire.EndedReply{Email: "mike@example.com", Ended: 1, Text: "Each sign-in of mike@example.com ends now: the person signs in again with riff login."})
			return
		}
		enc.Encode(wire.EndedReply{Email: email, Text: "Each sign-in of " + email + " ends now: the person signs in again with riff login."})
	case "/v1/people":
		if uri(str("me")).User == "guest" {
			// A caller who is no member reads the users alone.
			enc.Encode(wire.PeopleReply{Owner: &wire.Person{User: "mike"}, Admins: []wire.Person{{User: "ann"}},
				Members: []wire.Person{{User: "brett"}}, MayJoin: []wire.Person{}})
			return
		}
		if uri(str("me")).User == "nobody" {
			// A riff with sign-in and no owner.
			enc.Encode(wire.PeopleReply{Admins: []wire.Person{{User: "ann", Email: "ann@example.com"}},
				Members: []wire.Person{{User: "nobody", Email: "nobody@example.com"}}, MayJoin: []wire.Person{}, Emails: true})
			return
		}
		enc.Encode(wire.PeopleReply{
			Owner: &wire.Person{User: "mike", Email: "mike@example.com"},
			Asked: &wire.Person{User: "ann", Email: "ann@example.com"}, AskedDueMs: 1790517720000,
			Admins:  []wire.Person{{User: "ann", Email: "ann@example.com"}, {Email: "root@example.com", Settings: true}},
			Members: []wire.Person{{User: "brett", Email: "brett@example.com"}},
			MayJoin: []wire.Person{{Email: "carol@example.com"}},
			Domain:  "example.com", Emails: true,
		})
	}
}

// tail sends two messages and then keeps the stream open.
func (f *fakeServer) tail(w http.ResponseWriter, r *http.Request) {
	send := func(e wire.Event) {
		b, _ := json.Marshal(e)
		w.Write(append(b, '\n'))
		http.NewResponseController(w).Flush()
	}
	send(wire.Event{Type: wire.EventHello})
	for _, m := range []wire.Message{
		{Thread: "acme/app", Seq: 2528, AtMs: 1790517720000, Sender: uri("riff://mike@pangolin/acme/app?session=a6cf2205-9a1b#api"), To: toClaim("issue-6"), Body: "ready. I pushed the fix to main.", Verified: true},
		{Thread: "acme/app", Seq: 2529, AtMs: 1790604000000, Sender: uri("riff://brett@heron/acme/app?session=77e0a1b2-3c4d"), Body: "a long body that wraps: " + strings.Repeat("word ", 30) + "\x1b[31mend", Verified: false},
	} {
		send(wire.Event{Type: wire.EventMessage, Message: &m})
	}
	<-r.Context().Done()
}

func toSession(s string) []selectorT { return []selectorT{{Session: s}} }
func toClaim(s string) []selectorT   { return []selectorT{{Claim: name.Item(s)}} }

type selectorT = selector.Selector
