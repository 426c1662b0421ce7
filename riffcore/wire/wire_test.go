package wire_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
)

// send is the shape of the one call function of a client: it takes any
// call, encodes its body, and decodes the reply into the reply type of
// the call. It compiles for each call type: that is the Call idea. The
// reply here is the empty object, as a server gives for a zero reply.
func send[R any](c wire.Call[R]) R {
	var r R
	if _, err := json.Marshal(c); err != nil {
		panic(fmt.Sprintf("encode %T: %v", c, err))
	}
	if err := json.Unmarshal([]byte(`{}`), &r); err != nil {
		panic(fmt.Sprintf("decode the reply of %s into %T: %v", c.Path(), r, err))
	}
	return r
}

type call struct {
	name  string
	path  string // the path of the call
	want  string // the path of docs/wire.md
	reply string // the type of the reply
	send  func() any
}

// calls lists each call type of the wire, sent through send.
func calls() []call {
	c := func(name, path, want string, send func() any) call {
		return call{name: name, path: path, want: want, reply: fmt.Sprintf("%T", send()), send: send}
	}
	return []call{
		// the commands
		c("register", wire.Register{}.Path(), "/v1/register", func() any { return send[wire.RegisterReply](wire.Register{}) }),
		c("start", wire.Start{}.Path(), "/v1/start", func() any { return send[wire.StartReply](wire.Start{}) }),
		c("end", wire.End{}.Path(), "/v1/end", func() any { return send[wire.EndReply](wire.End{}) }),
		c("join", wire.Join{}.Path(), "/v1/join", func() any { return send[wire.ThreadReply](wire.Join{}) }),
		c("leave", wire.Leave{}.Path(), "/v1/leave", func() any { return send[wire.ThreadReply](wire.Leave{}) }),
		c("post", wire.Post{}.Path(), "/v1/post", func() any { return send[wire.PostReply](wire.Post{}) }),
		c("claim", wire.Claim{}.Path(), "/v1/claim", func() any { return send[wire.ClaimReply](wire.Claim{}) }),
		c("release", wire.Release{}.Path(), "/v1/release", func() any { return send[wire.ReleaseReply](wire.Release{}) }),
		c("release_for", wire.ReleaseFor{}.Path(), "/v1/release/for", func() any { return send[wire.ReleaseForReply](wire.ReleaseFor{}) }),
		c("lead", wire.Lead{}.Path(), "/v1/lead", func() any { return send[wire.LeadReply](wire.Lead{}) }),
		c("pause", wire.Pause{}.Path(), "/v1/pause", func() any { return send[wire.PauseReply](wire.Pause{}) }),
		c("resume", wire.Resume{}.Path(), "/v1/resume", func() any { return send[wire.PauseReply](wire.Resume{}) }),
		c("hold", wire.Hold{}.Path(), "/v1/hold", func() any { return send[wire.TextReply](wire.Hold{}) }),
		c("free", wire.Free{}.Path(), "/v1/free", func() any { return send[wire.TextReply](wire.Free{}) }),
		c("plan", wire.SetPlan{}.Path(), "/v1/plan", func() any { return send[wire.TextReply](wire.SetPlan{}) }),
		c("plan_off", wire.PlanOff{}.Path(), "/v1/plan/off", func() any { return send[wire.TextReply](wire.PlanOff{}) }),
		c("notes", wire.SetNotes{}.Path(), "/v1/notes", func() any { return send[wire.TextReply](wire.SetNotes{}) }),
		c("set_idle", wire.SetIdle{}.Path(), "/v1/idle/set", func() any { return send[wire.TextReply](wire.SetIdle{}) }),
		// the commands of the people
		c("invite", wire.Invite{}.Path(), "/v1/invite", func() any { return send[wire.InviteReply](wire.Invite{}) }),
		c("remove", wire.Remove{}.Path(), "/v1/remove", func() any { return send[wire.EndedReply](wire.Remove{}) }),
		c("set_admin", wire.SetAdmin{}.Path(), "/v1/admin/set", func() any { return send[wire.TextReply](wire.SetAdmin{}) }),
		c("pass_owner", wire.PassOwner{}.Path(), "/v1/owner/pass", func() any { return send[wire.TextReply](wire.PassOwner{}) }),
		c("take_owner", wire.TakeOwner{}.Path(), "/v1/owner/take", func() any { return send[wire.OwnerReply](wire.TakeOwner{}) }),
		c("deny_owner", wire.DenyOwner{}.Path(), "/v1/owner/deny", func() any { return send[wire.TextReply](wire.DenyOwner{}) }),
		c("revoke", wire.Revoke{}.Path(), "/v1/revoke", func() any { return send[wire.EndedReply](wire.Revoke{}) }),
		c("people", wire.People{}.Path(), "/v1/people", func() any { return send[wire.PeopleReply](wire.People{}) }),
		// the signals
		c("alive", wire.Alive{}.Path(), "/v1/alive", func() any { return send[wire.AliveReply](wire.Alive{}) }),
		c("status", wire.Status{}.Path(), "/v1/status", func() any { return send[wire.TextReply](wire.Status{}) }),
		c("blocked", wire.Blocked{}.Path(), "/v1/blocked", func() any { return send[wire.TextReply](wire.Blocked{}) }),
		c("step", wire.Step{}.Path(), "/v1/step", func() any { return send[wire.TextReply](wire.Step{}) }),
		c("move", wire.Move{}.Path(), "/v1/move", func() any { return send[wire.RegisterReply](wire.Move{}) }),
		// the queries
		c("who", wire.Who{}.Path(), "/v1/who", func() any { return send[wire.WhoReply](wire.Who{}) }),
		c("whoami", wire.Whoami{}.Path(), "/v1/whoami", func() any { return send[wire.WhoamiReply](wire.Whoami{}) }),
		c("read", wire.Read{}.Path(), "/v1/read", func() any { return send[wire.ReadReply](wire.Read{}) }),
		c("threads", wire.Threads{}.Path(), "/v1/threads", func() any { return send[wire.ThreadsReply](wire.Threads{}) }),
		c("riff", wire.Riff{}.Path(), "/v1/riff", func() any { return send[wire.Pauses](wire.Riff{}) }),
		c("idle", wire.Idle{}.Path(), "/v1/idle", func() any { return send[wire.IdleReply](wire.Idle{}) }),
		c("server", wire.Server{}.Path(), "/v1/server", func() any { return send[wire.ServerFacts](wire.Server{}) }),
		c("notes read", wire.Notes{}.Path(), "/v1/notes/read", func() any { return send[wire.NotesReply](wire.Notes{}) }),
		c("top", wire.Top{}.Path(), "/v1/top", func() any { return send[wire.TopReply](wire.Top{}) }),
		c("post content", wire.PostContent{}.Path(), "/v1/post/content", func() any { return send[signed.Content](wire.PostContent{}) }),
		// the streams: send gives the type of one line
		c("watch", wire.Watch{}.Path(), "/v1/watch", func() any { return send[wire.Event](wire.Watch{}) }),
		c("tail", wire.Tail{}.Path(), "/v1/tail", func() any { return send[wire.Event](wire.Tail{}) }),
	}
}

// Each call has the path of docs/wire.md (the issue names /v1/claim,
// /v1/release/for, /v1/pause, /v1/resume, /v1/idle/set, /v1/riff,
// /v1/idle and /v1/server), under /v1, and no two calls share a path.
func TestPaths(t *testing.T) {
	seen := map[string]string{}
	for _, c := range calls() {
		t.Run(c.name, func(t *testing.T) {
			if c.path != c.want {
				t.Errorf("the path of %s = %q; want %q", c.name, c.path, c.want)
			}
			if !strings.HasPrefix(c.path, "/v1/") || strings.HasSuffix(c.path, "/") || strings.ContainsAny(c.path, " ?#") {
				t.Errorf("the path of %s = %q; want a plain path under /v1/", c.name, c.path)
			}
			if other, ok := seen[c.path]; ok {
				t.Errorf("the path %q of %s is the path of %s too", c.path, c.name, other)
			}
			seen[c.path] = c.name
		})
	}
}

// Each call decodes its reply into its own reply type.
func TestReplyTypes(t *testing.T) {
	want := map[string]string{
		"invite": "wire.InviteReply", "remove": "wire.EndedReply", "set_admin": "wire.TextReply",
		"pass_owner": "wire.TextReply", "take_owner": "wire.OwnerReply", "deny_owner": "wire.TextReply",
		"revoke": "wire.EndedReply", "people": "wire.PeopleReply",
		"register": "wire.RegisterReply", "start": "wire.StartReply", "end": "wire.EndReply",
		"join": "wire.ThreadReply", "leave": "wire.ThreadReply", "post": "wire.PostReply",
		"claim": "wire.ClaimReply", "release": "wire.ReleaseReply", "release_for": "wire.ReleaseForReply",
		"lead": "wire.LeadReply", "pause": "wire.PauseReply", "resume": "wire.PauseReply",
		"hold": "wire.TextReply", "free": "wire.TextReply", "plan": "wire.TextReply", "plan_off": "wire.TextReply",
		"notes": "wire.TextReply", "set_idle": "wire.TextReply",
		"alive": "wire.AliveReply", "status": "wire.TextReply", "blocked": "wire.TextReply", "step": "wire.TextReply",
		"move": "wire.RegisterReply",
		"who":  "wire.WhoReply", "whoami": "wire.WhoamiReply", "read": "wire.ReadReply", "threads": "wire.ThreadsReply",
		"top":  "wire.TopReply",
		"riff": "wire.Pauses", "idle": "wire.IdleReply", "server": "wire.ServerFacts", "notes read": "wire.NotesReply",
		"post content": "signed.Content",
		"watch":        "wire.Event", "tail": "wire.Event",
	}
	for _, c := range calls() {
		if c.reply != want[c.name] {
			t.Errorf("send(%s) = %s; want %s", c.name, c.reply, want[c.name])
		}
		if got := fmt.Sprintf("%T", c.send()); got != c.reply {
			t.Errorf("send(%s) = %s; want %s", c.name, got, c.reply)
		}
	}
	if len(want) != len(calls()) {
		t.Errorf("the table of reply types has %d calls; calls() has %d", len(want), len(calls()))
	}
}

// Each call but the server facts names its caller in the field me.
func TestEachBodyHasMe(t *testing.T) {
	me, err := name.ParseURI("riff://mike@pangolin/como-technologies/riff?session=a6cf")
	if err != nil {
		t.Fatal(err)
	}
	bodies := []interface{ Caller() name.SessionURI }{
		wire.Invite{Me: me}, wire.Remove{Me: me}, wire.SetAdmin{Me: me}, wire.PassOwner{Me: me},
		wire.TakeOwner{Me: me}, wire.DenyOwner{Me: me}, wire.Revoke{Me: me}, wire.People{Me: me},
		wire.Register{Me: me}, wire.Start{Me: me}, wire.End{Me: me}, wire.Join{Me: me}, wire.Leave{Me: me},
		wire.Post{Me: me}, wire.Claim{Me: me}, wire.Release{Me: me}, wire.ReleaseFor{Me: me}, wire.Lead{Me: me},
		wire.Pause{Me: me}, wire.Resume{Me: me}, wire.Hold{Me: me}, wire.Free{Me: me}, wire.SetPlan{Me: me},
		wire.PlanOff{Me: me}, wire.SetNotes{Me: me}, wire.SetIdle{Me: me},
		wire.Alive{Me: me}, wire.Status{Me: me}, wire.Blocked{Me: me}, wire.Step{Me: me}, wire.Move{Me: me},
		wire.Who{Me: me}, wire.Whoami{Me: me}, wire.Read{Me: me}, wire.Threads{Me: me}, wire.Riff{Me: me},
		wire.Idle{Me: me}, wire.Notes{Me: me}, wire.Watch{Me: me}, wire.Tail{Me: me},
		wire.Top{Me: me},
		wire.PostContent{Post: wire.Post{Me: me}},
	}
	for _, b := range bodies {
		t.Run(fmt.Sprintf("%T", b), func(t *testing.T) {
			if !b.Caller().Equal(me) {
				t.Errorf("%T.Caller() = %v; want %v", b, b.Caller(), me)
			}
			data, err := json.Marshal(b)
			if err != nil {
				t.Fatal(err)
			}
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(data, &fields); err != nil {
				t.Fatal(err)
			}
			var got name.SessionURI
			if err := json.Unmarshal(fields["me"], &got); err != nil || !got.Equal(me) {
				t.Errorf("the field me of %s = %s (%v); want %v", data, fields["me"], err, me)
			}
		})
	}
	if got := (wire.Server{}).Caller(); !got.IsZero() {
		t.Errorf("Server{}.Caller() = %v; want no caller", got)
	}
}

// The statuses of the codes (docs/wire.md, "Codes and statuses").
func TestCodeStatus(t *testing.T) {
	tests := []struct {
		code wire.Code
		want int
	}{
		{wire.NotAllowed, http.StatusForbidden},
		{wire.NoSignIn, http.StatusForbidden},
		{wire.NotMember, http.StatusForbidden},
		{wire.Held, http.StatusConflict},
		{wire.Paused, http.StatusConflict},
		{wire.MustClear, http.StatusConflict},
		{wire.NotHolder, http.StatusConflict},
		{wire.OtherUser, http.StatusConflict},
		{wire.OnHold, http.StatusConflict},
		{wire.BadRequest, http.StatusBadRequest},
		// the token layer
		{wire.NoToken, http.StatusUnauthorized},
		{wire.BadToken, http.StatusUnauthorized},
		{wire.BadProof, http.StatusUnauthorized},
		{wire.NotYou, http.StatusForbidden},
		{wire.OldBuild, http.StatusConflict},
		// a code of a later build
		{"rate_limited", http.StatusBadRequest},
		{"", http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(string(tt.code), func(t *testing.T) {
			if got := tt.code.Status(); got != tt.want {
				t.Errorf("Code(%q).Status() = %d; want %d", tt.code, got, tt.want)
			}
		})
	}
}

func TestCodes(t *testing.T) {
	want := []string{"not_allowed", "no_sign_in", "held", "paused", "must_clear", "not_holder", "other_user",
		"not_member", "bad_request", "on_hold", "no_token", "bad_token", "bad_proof", "not_you", "old_build"}
	var got []string
	for _, c := range wire.Codes() {
		got = append(got, string(c))
		if !c.Known() {
			t.Errorf("Code(%q).Known() = false; want true", c)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Codes() = %v; want %v", got, want)
	}
	if wire.Code("rate_limited").Known() {
		t.Errorf(`Code("rate_limited").Known() = true; want false`)
	}
}

// A code that this build does not know reads as text: the refusal keeps
// it, and its reason, and its status is 400.
func TestUnknownCodeReadsAsText(t *testing.T) {
	r := &wire.Refused{Code: wire.Code("rate_limited"), Reason: "too many calls", Status: 429}
	if r.Code != "rate_limited" || r.Error() != "too many calls" {
		t.Errorf("Refused = %q, %q; want rate_limited, too many calls", r.Code, r.Error())
	}
	if got := r.Code.Status(); got != http.StatusBadRequest {
		t.Errorf("Code(rate_limited).Status() = %d; want 400", got)
	}
}

func TestRefuse(t *testing.T) {
	r := wire.Refuse(wire.Held, "%s is held by %s", "issue-355", "mike/a6cf")
	if r.Code != wire.Held || r.Status != http.StatusConflict || r.Error() != "issue-355 is held by mike/a6cf" {
		t.Errorf("Refuse(held, ...) = %+v; want held, 409, the reason", r)
	}
	var err error = r
	if err.Error() != r.Reason {
		t.Errorf("Refused.Error() = %q; want the reason", err.Error())
	}
}

func TestHeadersAndLimits(t *testing.T) {
	headers := map[string]string{
		wire.HeaderBuild: "riff-build", wire.HeaderRefused: "riff-refused",
		wire.HeaderRepeat: "riff-repeat", wire.HeaderCall: "riff-call",
	}
	for got, want := range headers {
		if got != want {
			t.Errorf("header = %q; want %q", got, want)
		}
	}
	if wire.MaxBody != 64*1024 {
		t.Errorf("MaxBody = %d; want 64 KiB", wire.MaxBody)
	}
	if wire.MaxStatus != 400 {
		t.Errorf("MaxStatus = %d; want 400", wire.MaxStatus)
	}
}

// Example of a claim: its path, and its JSON body.
func ExampleClaim() {
	me, err := name.ParseURI("riff://mike@pangolin/como-technologies/riff?session=a6cf")
	if err != nil {
		fmt.Println(err)
		return
	}
	c := wire.Claim{Me: me, Item: "issue-355"}
	body, err := json.Marshal(c)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("POST", c.Path())
	fmt.Println(string(body))
	// Output:
	// POST /v1/claim
	// {"me":"riff://mike@pangolin/como-technologies/riff?session=a6cf","item":"issue-355"}
}
