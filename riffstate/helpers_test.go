package riffstate

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The given/when/then helpers of the store design:
//
//	given(t, startRec("ann/wrk1", true), claimRec("ann/wrk1", "o/repo", "issue-7")).
//		when("ann/wrk1", release("", "issue-7")).
//		then(released("ann/wrk1", "o/repo", "issue-7", true))
//
// given replays records into a new state (each session that they name is
// live at t0), when runs Check with one command, and then compares the
// changes of handle, or thenRefused the code of the refusal.

// t0 is the fixed clock of the tests: 2026-09-21T...Z.
const t0 = int64(1_790_000_000_000)

const (
	second = int64(1000)
	minute = 60 * second
	hour   = 60 * minute
	day    = 24 * hour
)

// repo is the repository of the tests, and its thread.
const repo = "o/repo"

// hosts gives each user of the tests a host.
func hostOf(user string) string {
	switch user {
	case "ann":
		return "pangolin"
	case "bob":
		return "heron"
	}
	return "thelio"
}

// uri gives the URI of "user/session" (or "user" for a person) in the
// repository of the tests; a text that starts with riff:// is parsed.
func uri(who string) name.SessionURI { return uriIn(who, repo) }

// uriIn gives the URI of who in repository r ("-" outside git, "" for a
// person with no repository).
func uriIn(who, r string) name.SessionURI {
	if strings.HasPrefix(who, name.Scheme) {
		u, err := name.ParseURI(who)
		if err != nil {
			panic(err)
		}
		return u
	}
	user, session, _ := strings.Cut(who, "/")
	return name.SessionURI{User: user, Host: hostOf(user), Repo: name.Repo(r), Session: session}
}

func whoOf(who string) name.Who { return uri(who).Who() }

// step is one command of a test, with the type of its reply hidden.
type step interface {
	check(s *State, c Caller, now Now) (Handled, error)
	run(s *State, c Caller, now Now) (any, Effects, error)
	reply(s *State, c Caller, d Done, now Now) any
	kind() record.Command
	asked() Asked
}

type cmdOf[R any] struct{ c Command[R] }

func (x cmdOf[R]) check(s *State, c Caller, now Now) (Handled, error) {
	h, refused := Check(s, x.c, c, now)
	if refused != nil {
		return h, refused
	}
	return h, nil
}
func (x cmdOf[R]) run(s *State, c Caller, now Now) (any, Effects, error) {
	return Run(s, x.c, c, now)
}
func (x cmdOf[R]) kind() record.Command { return x.c.Kind() }
func (x cmdOf[R]) asked() Asked         { return AskedOf[R](x.c) }
func (x cmdOf[R]) reply(s *State, c Caller, d Done, now Now) any {
	return Reply(s, x.c, c, d, now)
}

func as[R any](c Command[R]) step { return cmdOf[R]{c} }

// The commands.

func register(worker bool) step {
	return as[wire.RegisterReply](Register{Register: wire.Register{Worker: worker}})
}
func arrive() step { return as[wire.RegisterReply](Arrive{}) }
func start(reason record.Reason, worker bool) step {
	return as[wire.StartReply](Start{Start: wire.Start{Reason: reason, Worker: worker}})
}
func end() step { return as[wire.EndReply](End{}) }
func registerRelay(relay string) step {
	return as[wire.RegisterReply](Register{Register: wire.Register{Relay: relay}})
}
func endRelay(relay string) step { return as[wire.EndReply](End{End: wire.End{Relay: relay}}) }
func join(thread string) step    { return as[wire.ThreadReply](Join{Join: wire.Join{Thread: thread}}) }
func leave(thread string) step {
	return as[wire.ThreadReply](Leave{Leave: wire.Leave{Thread: thread}})
}
func claim(thread, item string) step {
	return as[wire.ClaimReply](Claim{Claim: wire.Claim{Thread: thread, Item: name.Item(item)}})
}
func release(thread, item string) step {
	return as[wire.ReleaseReply](Release{Release: wire.Release{Thread: thread, Item: name.Item(item)}})
}
func releaseFor(thread, item, session string) step {
	return as[wire.ReleaseForReply](ReleaseFor{ReleaseFor: wire.ReleaseFor{Thread: thread, Item: name.Item(item), Session: session}})
}
func lead(session string) step { return as[wire.LeadReply](Lead{Lead: wire.Lead{Session: session}}) }
func pause(riff bool, r string) step {
	return as[wire.PauseReply](Pause{Pause: wire.Pause{Riff: riff, Repository: name.Repo(r)}})
}
func resume(riff bool, r string) step {
	return as[wire.PauseReply](Resume{Resume: wire.Resume{Riff: riff, Repository: name.Repo(r)}})
}
func hold(thread, item, reason string) step {
	return as[wire.TextReply](Hold{Hold: wire.Hold{Thread: thread, Item: name.Item(item), Reason: reason}})
}
func free(thread, item string) step {
	return as[wire.TextReply](Free{Free: wire.Free{Thread: thread, Item: name.Item(item)}})
}
func setPlan(thread, plan string) step {
	return as[wire.TextReply](SetPlan{SetPlan: wire.SetPlan{Thread: thread, Plan: plan}})
}
func planOff(thread string) step {
	return as[wire.TextReply](PlanOff{PlanOff: wire.PlanOff{Thread: thread}})
}
func setNotes(thread, text string) step {
	return as[wire.TextReply](SetNotes{SetNotes: wire.SetNotes{Thread: thread, Text: text}})
}
func setIdle(user, host, r string, count int) step {
	return as[wire.TextReply](SetIdle{SetIdle: wire.SetIdle{User: user, Host: host, Repo: name.Repo(r), Count: count}})
}

// post posts body to the default thread (or thread) with the selectors
// to, each as riff post --to takes it.
func post(thread, body string, to ...string) step {
	return postKind(thread, record.MessagePlain, body, to...)
}

func postKind(thread string, kind record.MessageKind, body string, to ...string) step {
	return as[wire.PostReply](Post{Post: wire.Post{Thread: thread, Kind: kind, Body: body, To: sels(to...)}})
}

func postKey(body, key string, to ...string) step {
	return as[wire.PostReply](Post{Post: wire.Post{Body: body, Key: key, To: sels(to...)}})
}

func tell(peer, body string) step {
	return as[wire.PostReply](Post{Post: wire.Post{Tell: peer, Body: body}})
}

func forget(who string) step  { return as[struct{}](Forget{Session: whoOf(who)}) }
func makeRiff(id string) step { return as[struct{}](MakeRiff{ID: id}) }
func announce(thread, text string) step {
	return as[struct{}](Announce{Thread: name.Thread(thread), Text: text})
}

func sels(texts ...string) []selector.Selector {
	if len(texts) == 0 {
		return nil
	}
	out, err := selector.ParseList(texts)
	if err != nil {
		panic(err)
	}
	return out
}

// The changes.

func started(who string, reason record.Reason, worker bool) record.Change {
	return record.SessionStarted{Session: uri(who), Reason: reason, Worker: worker}
}
func joined(who, thread string) record.Change {
	return record.JoinedThread{Session: uri(who), Thread: name.Thread(thread)}
}
func left(who, thread string) record.Change {
	return record.LeftThread{Session: uri(who), Thread: name.Thread(thread)}
}
func claimed(who, thread, item string) record.Change {
	return record.Claimed{Session: uri(who), Thread: name.Thread(thread), Item: name.Item(item)}
}
func released(who, thread, item string, mustClear bool) record.Change {
	return record.Released{Session: uri(who), Thread: name.Thread(thread), Item: name.Item(item), MustClear: mustClear}
}
func leadSet(who, thread, old string) record.Change {
	c := record.LeadSet{Session: uri(who), Thread: name.Thread(thread)}
	if old != "" {
		w := whoOf(old)
		c.Old = &w
	}
	return c
}
func paused(scope record.Scope, state record.PauseState) record.Change {
	return record.PauseSet{Scope: scope, State: state}
}
func held(thread, item, reason string) record.Change {
	return record.ItemHeld{Thread: name.Thread(thread), Item: name.Item(item), Reason: reason}
}
func forgotten(who string) record.Change { return record.SessionForgotten{Session: uri(who)} }

// posted gives a message of sender (a who, or "riff@server") in thread
// with seq; then compares it with the payload left out, so woken and the
// fields of the server are what a test names.
func posted(sender, thread string, seq uint64, kind record.MessageKind, to []selector.Selector, woken ...string) record.Posted {
	s := ServerURI()
	if sender != "riff@server" {
		s = uri(sender)
	}
	p := record.Posted{Thread: name.Thread(thread), Seq: seq, Sender: s, Type: kind, To: to}
	for _, w := range woken {
		p.Woken = append(p.Woken, whoOf(w))
	}
	return p
}

// The records: a change with the cause of who (a session "ann/wrk1", a
// person "ann", or "server") and the command that makes it.

func rec(by, command string, c record.Change) record.Record {
	r := record.Record{Command: command, Change: c}
	switch {
	case by == "server":
		r.By = record.ByServer()
	case by != "":
		w := whoOf(by)
		if w.IsPerson() {
			r.By = record.ByPerson(w.User)
		} else {
			r.By = record.BySession(w)
		}
	}
	return r
}

// sessionRec is the first record of a session that is no worker: a
// register. workerRec is the same for a worker.
func sessionRec(who string) record.Record {
	return rec(who, "register", started(who, record.ReasonJoin, false))
}
func workerRec(who string) record.Record {
	return rec(who, "register", started(who, record.ReasonJoin, true))
}
func startRec(who string, reason record.Reason, worker bool) record.Record {
	return rec(who, "start", started(who, reason, worker))
}
func joinRec(who, thread string) record.Record { return rec(who, "join", joined(who, thread)) }
func claimRec(who, thread, item string) record.Record {
	return rec(who, "claim", claimed(who, thread, item))
}
func releaseRec(who, thread, item string, mustClear bool) record.Record {
	return rec(who, "release", released(who, thread, item, mustClear))
}
func leadRec(person, who, thread string) record.Record {
	return rec(person, "lead", leadSet(who, thread, ""))
}
func pauseRec(by string, scope record.Scope, state record.PauseState) record.Record {
	return rec(by, "pause", paused(scope, state))
}
func holdRec(by, thread, item, reason string) record.Record {
	return rec(by, "hold", held(thread, item, reason))
}
func forgetRec(who string) record.Record { return rec("server", "forget", forgotten(who)) }

// postRec is a message of who in thread with seq, that woke woken.
func postRec(who, thread string, seq uint64, body string, woken ...string) record.Record {
	p := posted(who, thread, seq, record.MessagePlain, nil, woken...)
	p.Payload = payloadOf(p, body)
	return rec(who, "post", p)
}

func payloadOf(p record.Posted, body string) []byte {
	b, err := signed.Encode(signed.Content{User: p.Sender.User, Session: p.Sender.Session, Thread: string(p.Thread),
		To: []byte("[]"), Body: body, Kind: string(p.Type), TimeMS: t0})
	if err != nil {
		panic(err)
	}
	return b
}

// member gives the records of a session in the repository of the tests:
// its start and its join.
func member(who string, worker bool) []record.Record {
	first := sessionRec(who)
	if worker {
		first = workerRec(who)
	}
	return []record.Record{first, joinRec(who, repo)}
}

// recs flattens records and lists of records.
func recs(parts ...any) []record.Record {
	var out []record.Record
	for _, p := range parts {
		switch x := p.(type) {
		case record.Record:
			out = append(out, x)
		case []record.Record:
			out = append(out, x...)
		default:
			panic("recs: not a record")
		}
	}
	return out
}

// fixture is a state that a test gives records, then one command.
type fixture struct {
	t       *testing.T
	s       *State
	now     Now
	role    Role
	handled Handled
	err     error
}

// given applies records to a new state with no sign-in, as a replay, at
// t0: each record gets the next position and, with no time, t0. Each
// session of the riff is live at t0 at the place of its last record,
// with an open watch (riff relay watch): a session with no open watch is
// offline.
func given(t *testing.T, parts ...any) *fixture {
	return givenIn(t, Options{Build: "test"}, parts...)
}

// givenIn is given with options, for a riff with sign-in.
func givenIn(t *testing.T, opts Options, parts ...any) *fixture {
	t.Helper()
	f := &fixture{t: t, s: New(opts), now: Now{Ms: t0}}
	if !opts.SignIn {
		f.role = Admin
	}
	f.s.Replay(numbered(recs(parts...), 1)...)
	for _, s := range f.s.written.Sessions {
		Called{Place: s.URI.Place()}.Set(f.s.presence, s.URI.Who(), f.now)
		WatchStarted{}.Set(f.s.presence, s.URI.Who(), f.now)
	}
	return f
}

// numbered gives records the positions from first on, and t0 when they
// have no time.
func numbered(records []record.Record, first uint64) []record.Record {
	out := make([]record.Record, len(records))
	for i, r := range records {
		r.Position = first + uint64(i)
		if r.WrittenAtMs == 0 {
			r.WrittenAtMs = t0
		}
		out[i] = r
	}
	return out
}

// restart is a start of the server from a checkpoint of the state now:
// the presence is new but for what a checkpoint keeps.
func (f *fixture) restart() *fixture {
	f.t.Helper()
	f.s = reload(f.t, f.s)
	return f
}

// after moves the clock of the fixture by d.
func (f *fixture) after(d int64) *fixture {
	f.now.Ms += d
	return f
}

// seen gives who a sign of life now (a keep-alive).
func (f *fixture) seen(who ...string) *fixture {
	for _, w := range who {
		Alive{}.Set(f.s.presence, whoOf(w), f.now)
	}
	return f
}

// stopped makes who give no sign of life since d before now.
func (f *fixture) stopped(who string, d int64) *fixture {
	f.s.presence.live(whoOf(who)).SeenMs = f.now.Ms - d
	return f
}

// ended ends who, as its end does.
func (f *fixture) ended(who string) *fixture {
	Ended{}.Set(f.s.presence, whoOf(who), f.now)
	return f
}

// at places who at another place in the presence.
func (f *fixture) at(who, r string) *fixture {
	Place{Place: uriIn(who, r).Place()}.Set(f.s.presence, whoOf(who), f.now)
	return f
}

// as gives the callers of the fixture a role (a riff with sign-in).
func (f *fixture) as(r Role) *fixture {
	f.role = r
	return f
}

func (f *fixture) caller(who string) Caller { return CallerOf(uri(who)).With(f.role) }

// when runs permits and handle of one command of who on the pending copy.
func (f *fixture) when(who string, cmd step) *fixture {
	return f.whenAt(f.caller(who), cmd)
}

// whenIn runs a command of who at its place in repository r.
func (f *fixture) whenIn(who, r string, cmd step) *fixture {
	return f.whenAt(CallerOf(uriIn(who, r)).With(f.role), cmd)
}

// whenServer runs a command of the server.
func (f *fixture) whenServer(cmd step) *fixture { return f.whenAt(ServerCaller(), cmd) }

func (f *fixture) whenAt(c Caller, cmd step) *fixture {
	f.grant(c)
	f.handled, f.err = cmd.check(f.s, c, f.now)
	return f
}

// grant gives the user of c the role that the fixture names (as) in a
// riff with sign-in, where the role comes from the people of the log:
// it replays the records that make it (person_joined, member_invited,
// admin_set, owner_set). A role of member writes nothing, so a test of
// the people gives its records itself.
func (f *fixture) grant(c Caller) {
	if !f.s.opts.SignIn || c.Class == record.ClassServer || c.Role == Member {
		return
	}
	v := f.s.Pending()
	if v.WithRole(c).Role >= c.Role {
		return
	}
	user := c.URI.User
	email := v.riff.People.Emails[user]
	var made []record.Record
	if email == "" {
		email = user + "@example.com"
		made = append(made, rec("", "admit", record.PersonJoined{User: user, Email: email}))
	}
	if !slices.Contains(v.riff.People.Members, email) {
		made = append(made, rec("", "invite", record.MemberInvited{Email: email}))
	}
	if c.Role == Owner {
		made = append(made, rec("", "name_owner", record.OwnerSet{Email: email}))
	} else {
		made = append(made, rec("", "set_admin", record.AdminSet{Email: email, Admin: true}))
	}
	f.s.Replay(numbered(made, f.s.Position()+1)...)
}

// changesOpts compare changes: a payload is left out, and an empty list
// equals none.
func changesOpts() cmp.Options {
	return cmp.Options{cmpopts.IgnoreFields(record.Posted{}, "Payload"), cmpopts.EquateEmpty()}
}

// then checks that the command was accepted with these changes.
func (f *fixture) then(want ...record.Change) *fixture {
	f.t.Helper()
	if f.err != nil {
		f.t.Fatalf("handle refused: %v; want the changes %v", f.err, want)
	}
	if diff := cmp.Diff(want, f.handled.Changes, changesOpts()); diff != "" {
		f.t.Errorf("handle changes (-want +got):\n%s", diff)
	}
	return f
}

// thenRefused checks that the command was refused with code, and gives
// its reason.
func (f *fixture) thenRefused(code wire.Code) string {
	f.t.Helper()
	var refused *wire.Refused
	if !errors.As(f.err, &refused) {
		f.t.Fatalf("handle = %v, %v; want a refusal %s", f.handled.Changes, f.err, code)
	}
	if refused.Code != code {
		f.t.Errorf("refused %s (%s); want %s", refused.Code, refused.Reason, code)
	}
	return refused.Reason
}

// thenReason checks the code and that the reason holds each part.
func (f *fixture) thenReason(code wire.Code, parts ...string) {
	f.t.Helper()
	reason := f.thenRefused(code)
	for _, p := range parts {
		if !strings.Contains(reason, p) {
			f.t.Errorf("reason %q; want it to hold %q", reason, p)
		}
	}
}

// run runs a command of who through Run: the arrival, check, queue,
// write and reply.
func (f *fixture) run(who string, cmd step) (any, Effects, error) {
	c := f.caller(who)
	f.grant(c)
	return cmd.run(f.s, c, f.now)
}

// mustRun runs a command and fails the test on a refusal.
func (f *fixture) mustRun(who string, cmd step) (any, Effects) {
	f.t.Helper()
	reply, effects, err := f.run(who, cmd)
	if err != nil {
		f.t.Fatalf("%s of %s refused: %v", cmd.kind(), who, err)
	}
	return reply, effects
}

func (f *fixture) riff() *Riff { return f.s.written }

// bodyOf gives the text of a posted record.
func bodyOf(t *testing.T, c record.Change) string {
	t.Helper()
	p, ok := c.(record.Posted)
	if !ok {
		t.Fatalf("%T is no posted record", c)
	}
	content, err := signed.Decode(p.Payload)
	if err != nil {
		t.Fatalf("payload: %v", err)
	}
	return content.Body
}
