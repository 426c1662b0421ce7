package riffengine_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/como-technologies/riff/riffstate"
)

// The people in the engine: the routes of the people commands as each
// role over loopback, the end of the sign-ins as an effect after the
// write (each interleaving of the sequence diagram of "What stays
// outside", and a stop between the write and the effect), the refusal of
// a caller whose sign-in ended, and the log lines.

// member is a person who signed in on one device.
type member struct {
	email, user string
	d           device
	tok         wire.TokenReply
}

// join signs the person of email in on a new device.
func (r *signedRiff) join(email string) *member {
	r.t.Helper()
	d := newDevice(r.t)
	tr := r.signIn(d, email)
	return &member{email: email, user: tr.User, d: d, tok: tr}
}

// again signs the same person in on a second device.
func (r *signedRiff) again(m *member) *member {
	r.t.Helper()
	return r.join(m.email)
}

// as sends a call of the person m (its person token and a proof of its
// device).
func (r *signedRiff) as(m *member, path string, body any) reply {
	r.t.Helper()
	rep, _ := r.do(req{path: path, body: body, token: m.tok.AccessToken, proofKey: m.d.key})
	return rep
}

// okAs sends a call of m, wants 200, and reads the reply into v.
func (r *signedRiff) okAs(m *member, path string, body, v any) {
	r.t.Helper()
	r.as(m, path, body).decode(r.t, v)
}

func wantCode(t *testing.T, what string, rep reply, code wire.Code) {
	t.Helper()
	if got := rep.header.Get(wire.HeaderRefused); got != string(code) || rep.status != code.Status() {
		t.Errorf("%s = %s (riff-refused %q); want %d %s", what, rep, got, code.Status(), code)
	}
}

// teamOpts: ada is the owner of --owner, the people of example.com may
// join, sam is an admin of the settings, and the riff has a public
// address.
var teamOpts = riffstate.Options{Owner: "ada@example.com", AllowedDomain: "example.com",
	PeopleOptions: riffstate.PeopleOptions{Admins: []string{"sam@example.com"}, PublicAddress: "https://riff.example.com"}}

// inviteOpts: ada is the owner, and each other person joins by an
// invite (a member of the log: remove takes only such a member).
var inviteOpts = riffstate.Options{Owner: "ada@example.com"}

// invited invites email as by, then signs the person in.
func (r *signedRiff) invited(by *member, email string) *member {
	r.t.Helper()
	var inv wire.InviteReply
	r.okAs(by, wire.Invite{}.Path(), wire.Invite{Me: uri(by.user), Email: email}, &inv)
	return r.join(email)
}

// recv waits for a value of ch, at most 20 s (a safety bound: a rule
// that breaks fails the test instead of hanging it).
func recv[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(20 * time.Second):
		t.Fatalf("no %s in 20 s", what)
	}
	panic("unreachable")
}

func waitFor(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	recv(t, what, ch)
}

func TestGivenEachRoleWhenItSendsEachPeopleCommandOverLoopbackThenThePermitsOfTheSeeds(t *testing.T) {
	r := startSignedIn(t, teamOpts)
	ada, bob, cy, sam := r.join("ada@example.com"), r.join("bob@example.com"), r.join("cy@example.com"), r.join("sam@example.com")
	var text wire.TextReply
	r.okAs(ada, wire.SetAdmin{}.Path(), wire.SetAdmin{Me: uri("ada"), Email: "cy@example.com", Admin: true}, &text)
	if !strings.Contains(text.Text, "admin") {
		t.Errorf("set_admin reply %q; want the new admin", text.Text)
	}

	// A member: none of the commands of an admin or the owner.
	for _, c := range []struct {
		path string
		body any
	}{
		{wire.Invite{}.Path(), wire.Invite{Me: uri("bob"), Email: "dan@other.org"}},
		{wire.Remove{}.Path(), wire.Remove{Me: uri("bob"), Email: "cy@example.com"}},
		{wire.SetAdmin{}.Path(), wire.SetAdmin{Me: uri("bob"), Email: "bob@example.com", Admin: true}},
		{wire.PassOwner{}.Path(), wire.PassOwner{Me: uri("bob"), Email: "bob@example.com"}},
		{wire.TakeOwner{}.Path(), wire.TakeOwner{Me: uri("bob")}},
		{wire.DenyOwner{}.Path(), wire.DenyOwner{Me: uri("bob")}},
		{wire.Revoke{}.Path(), wire.Revoke{Me: uri("bob"), Email: "cy@example.com"}},
	} {
		wantCode(t, "member bob "+c.path, r.as(bob, c.path, c.body), wire.NotAllowed)
	}
	// An admin: no command of the owner, no revoke of the owner.
	wantCode(t, "admin cy set_admin", r.as(cy, wire.SetAdmin{}.Path(), wire.SetAdmin{Me: uri("cy"), Email: "bob@example.com", Admin: true}), wire.NotAllowed)
	wantCode(t, "admin cy pass_owner", r.as(cy, wire.PassOwner{}.Path(), wire.PassOwner{Me: uri("cy"), Email: "cy@example.com"}), wire.NotAllowed)
	wantCode(t, "admin cy deny_owner", r.as(cy, wire.DenyOwner{}.Path(), wire.DenyOwner{Me: uri("cy")}), wire.NotAllowed)
	wantCode(t, "admin cy revoke of the owner", r.as(cy, wire.Revoke{}.Path(), wire.Revoke{Me: uri("cy"), Email: "ada@example.com"}), wire.NotAllowed)
	wantCode(t, "admin cy remove of the owner", r.as(cy, wire.Remove{}.Path(), wire.Remove{Me: uri("cy"), Email: "ada@example.com"}), wire.NotAllowed)

	// An admin invites; the reply names the public address.
	var inv wire.InviteReply
	r.okAs(cy, wire.Invite{}.Path(), wire.Invite{Me: uri("cy"), Email: "Dan@Other.org"}, &inv)
	if inv.Email != "dan@other.org" || inv.Server != "https://riff.example.com" || !strings.Contains(inv.Text, "riff login --server https://riff.example.com") {
		t.Errorf("invite reply = %+v; want dan@other.org and the public address", inv)
	}
	// A bad email is a clear bad_request, and changes nothing.
	rep := r.as(cy, wire.Invite{}.Path(), wire.Invite{Me: uri("cy"), Email: "dan at other.org"})
	wantCode(t, "invite of no email", rep, wire.BadRequest)
	if !strings.Contains(string(rep.body), "dan at other.org") && !strings.Contains(string(rep.body), "email") {
		t.Errorf("reply %s; want it to name the bad email", rep)
	}
	// An admin of the settings invites too.
	r.okAs(sam, wire.Invite{}.Path(), wire.Invite{Me: uri("sam"), Email: "eve@other.org"}, &inv)
	dan := r.join("dan@other.org")
	// An admin asks for the owner role: it waits for the owner.
	var own wire.OwnerReply
	r.okAs(cy, wire.TakeOwner{}.Path(), wire.TakeOwner{Me: uri("cy")}, &own)
	if own.Owner || own.DueMs <= 0 {
		t.Errorf("take_owner of an admin while ada is the owner = %+v; want a request with its time", own)
	}
	r.okAs(ada, wire.DenyOwner{}.Path(), wire.DenyOwner{Me: uri("ada")}, &text)
	// An admin removes a member who is no admin.
	var ended wire.EndedReply
	r.okAs(cy, wire.Remove{}.Path(), wire.Remove{Me: uri("cy"), Email: "dan@other.org"}, &ended)
	if ended.Email != "dan@other.org" || ended.Ended != 1 {
		t.Errorf("remove reply = %+v; want dan and 1 sign-in ended", ended)
	}
	wantCode(t, "the removed dan whoami", r.as(dan, wire.Whoami{}.Path(), whoami("dan")), wire.BadToken)
	// The people: a member reads the emails.
	var people wire.PeopleReply
	r.okAs(bob, wire.People{}.Path(), wire.People{Me: uri("bob")}, &people)
	if !people.Emails || people.Owner == nil || people.Owner.Email != "ada@example.com" || people.Domain != "example.com" {
		t.Errorf("people of bob = %+v; want the emails, the owner ada and the domain", people)
	}
	// A session cannot send a command of the people, also of the owner.
	st := r.swap(ada.d, ada.tok.AccessToken, "s1")
	rep, _ = r.do(req{path: wire.Invite{}.Path(), body: wire.Invite{Me: uri("ada/s1"), Email: "fay@example.com"}, token: st.AccessToken, proofKey: ada.d.key})
	wantCode(t, "a session of the owner invites", rep, wire.NotAllowed)
	// The owner passes the role; the old owner stays an admin.
	r.okAs(ada, wire.PassOwner{}.Path(), wire.PassOwner{Me: uri("ada"), Email: "cy@example.com"}, &text)
	wantCode(t, "the old owner ada set_admin", r.as(ada, wire.SetAdmin{}.Path(), wire.SetAdmin{Me: uri("ada"), Email: "bob@example.com", Admin: true}), wire.NotAllowed)
	r.okAs(ada, wire.Invite{}.Path(), wire.Invite{Me: uri("ada"), Email: "fay@example.com"}, &inv)
	r.okAs(cy, wire.SetAdmin{}.Path(), wire.SetAdmin{Me: uri("cy"), Email: "bob@example.com", Admin: true}, &text)
}

func TestGivenARiffWithNoSignInWhenAPeopleCommandComesThenNoSignIn(t *testing.T) {
	r := start(t, setup{})
	for _, c := range []struct {
		path string
		body any
	}{
		{wire.Invite{}.Path(), wire.Invite{Me: uri("ann"), Email: "dan@example.com"}},
		{wire.Remove{}.Path(), wire.Remove{Me: uri("ann"), Email: "dan@example.com"}},
		{wire.SetAdmin{}.Path(), wire.SetAdmin{Me: uri("ann"), Email: "dan@example.com", Admin: true}},
		{wire.PassOwner{}.Path(), wire.PassOwner{Me: uri("ann"), Email: "dan@example.com"}},
		{wire.TakeOwner{}.Path(), wire.TakeOwner{Me: uri("ann")}},
		{wire.DenyOwner{}.Path(), wire.DenyOwner{Me: uri("ann")}},
		{wire.Revoke{}.Path(), wire.Revoke{Me: uri("ann")}},
	} {
		rep, err := r.call(context.Background(), c.path, c.body)
		if err != nil {
			t.Fatal(err)
		}
		wantCode(t, c.path+" with no sign-in", rep, wire.NoSignIn)
	}
}

func TestGivenAMemberOnTwoMachinesWhenAnAdminRemovesThemThenTheReplyCountsTwoEndedSignIns(t *testing.T) {
	r := startSignedIn(t, inviteOpts)
	ada := r.join("ada@example.com")
	bob := r.invited(ada, "bob@example.com")
	bob2 := r.again(bob)
	var ended wire.EndedReply
	r.okAs(ada, wire.Remove{}.Path(), wire.Remove{Me: uri("ada"), Email: "bob@example.com"}, &ended)
	if ended.Ended != 2 || ended.Email != "bob@example.com" {
		t.Fatalf("remove reply = %+v; want 2 sign-ins of bob ended", ended)
	}
	for _, m := range []*member{bob, bob2} {
		wantCode(t, "whoami of the removed bob", r.as(m, wire.Whoami{}.Path(), whoami("bob")), wire.BadToken)
	}
	if keys := r.e.SignIns().LiveKeys("bob"); len(keys) != 0 {
		t.Errorf("live keys of bob = %v; want none", keys)
	}
	// Bob may not join again: a person of the allowed domain who was
	// removed is no member.
	rep, _ := r.do(req{path: wire.SignIn{}.Path(), body: wire.SignIn{IDToken: "bob@example.com", Key: newDevice(t).jwk(t)}, proofKey: newDevice(t).key})
	if rep.status == http.StatusOK {
		t.Errorf("sign-in of the removed bob = %s; want a refusal", rep)
	}
	// Ada is not touched.
	if rep := r.as(ada, wire.Whoami{}.Path(), whoami("ada")); rep.status != http.StatusOK {
		t.Errorf("whoami of ada = %s; want 200", rep)
	}
	// An invited person who never signed in: removed with no sign-in to
	// end.
	var inv wire.InviteReply
	r.okAs(ada, wire.Invite{}.Path(), wire.Invite{Me: uri("ada"), Email: "dan@other.org"}, &inv)
	r.okAs(ada, wire.Remove{}.Path(), wire.Remove{Me: uri("ada"), Email: "dan@other.org"}, &ended)
	if ended.Ended != 0 {
		t.Errorf("remove of a person with no sign-in = %+v; want 0 ended", ended)
	}
}

func TestGivenAMemberWhenTheyRevokeTheirOwnSignInsThenOnlyTheirsEndAndAnotherNeedsAnAdmin(t *testing.T) {
	r := startSignedIn(t, inviteOpts)
	ada := r.join("ada@example.com")
	bob, cy := r.invited(ada, "bob@example.com"), r.invited(ada, "cy@example.com")
	bob2 := r.again(bob)
	// A member ends the sign-ins of another: not_allowed, nothing ends.
	wantCode(t, "bob revokes cy", r.as(bob, wire.Revoke{}.Path(), wire.Revoke{Me: uri("bob"), Email: "cy@example.com"}), wire.NotAllowed)
	if rep := r.as(cy, wire.Whoami{}.Path(), whoami("cy")); rep.status != http.StatusOK {
		t.Fatalf("whoami of cy after a refused revoke = %s; want 200", rep)
	}
	// A member ends the own sign-ins, on each machine (no email).
	var ended wire.EndedReply
	r.okAs(bob, wire.Revoke{}.Path(), wire.Revoke{Me: uri("bob")}, &ended)
	if ended.Ended != 2 || ended.Email != "bob@example.com" {
		t.Fatalf("own revoke of bob = %+v; want 2 ended", ended)
	}
	for _, m := range []*member{bob, bob2} {
		wantCode(t, "whoami of bob after the own revoke", r.as(m, wire.Whoami{}.Path(), whoami("bob")), wire.BadToken)
	}
	// A revoke is no removal: bob signs in again and acts.
	bob3 := r.join("bob@example.com")
	if rep := r.as(bob3, wire.Whoami{}.Path(), whoami("bob")); rep.status != http.StatusOK {
		t.Fatalf("whoami of bob after a new riff login = %s; want 200", rep)
	}
	// The own revoke by the own email is the own revoke too.
	r.okAs(bob3, wire.Revoke{}.Path(), wire.Revoke{Me: uri("bob"), Email: "BOB@example.com"}, &ended)
	if ended.Ended != 1 {
		t.Errorf("own revoke by the own email = %+v; want 1 ended", ended)
	}
	// The owner (an admin) ends the sign-ins of another.
	r.okAs(ada, wire.Revoke{}.Path(), wire.Revoke{Me: uri("ada"), Email: "cy@example.com"}, &ended)
	if ended.Ended != 1 || ended.Email != "cy@example.com" {
		t.Errorf("ada revokes cy = %+v; want 1 ended", ended)
	}
	wantCode(t, "whoami of cy after the revoke", r.as(cy, wire.Whoami{}.Path(), whoami("cy")), wire.BadToken)
	if rep := r.as(ada, wire.Whoami{}.Path(), whoami("ada")); rep.status != http.StatusOK {
		t.Errorf("whoami of ada after she revoked cy = %s; want 200", rep)
	}
}

// The interleavings of the sequence diagram of "What stays outside": the
// admit of a sign-in of bob checked at a position (A), the remove of bob
// written after it (R), the end of bob's sign-ins at the position of the
// record (E), and the start of the sign-in in the token store (S).

// signInAsync starts a sign-in of email on a new device in a goroutine;
// the reply comes on the channel.
func (r *signedRiff) signInAsync(email string) (device, <-chan reply) {
	d := newDevice(r.t)
	out := make(chan reply, 1)
	go func() {
		rep, _ := r.do(req{path: wire.SignIn{}.Path(), body: wire.SignIn{IDToken: email, Key: d.jwk(r.t)}, proofKey: d.key})
		out <- rep
	}()
	return d, out
}

// removeAsync sends the remove of email by m in a goroutine.
func (r *signedRiff) removeAsync(m *member, email string) <-chan reply {
	out := make(chan reply, 1)
	go func() { out <- r.as(m, wire.Remove{}.Path(), wire.Remove{Me: uri(m.user), Email: email}) }()
	return out
}

func endedOf(t *testing.T, rep reply) int {
	t.Helper()
	var ended wire.EndedReply
	rep.decode(t, &ended)
	return ended.Ended
}

func TestGivenASignInInFlightWhenTheRemoveIsWrittenAndEndedBeforeItsStartThenTheStartIsRefused(t *testing.T) {
	// A, R, E, S: the diagram as it is drawn.
	r := startSignedIn(t, inviteOpts)
	ada := r.join("ada@example.com")
	bob := r.invited(ada, "bob@example.com")
	var once sync.Once
	removed := make(chan reply, 1)
	r.e.SetBeforeStart(func() {
		once.Do(func() {
			removed <- r.as(ada, wire.Remove{}.Path(), wire.Remove{Me: uri("ada"), Email: "bob@example.com"})
		})
	})
	_, signedIn := r.signInAsync("bob@example.com")
	rep := recv(t, "the sign-in reply", signedIn)
	wantCode(t, "the sign-in of bob in flight", rep, wire.BadToken)
	if n := endedOf(t, recv(t, "the remove reply", removed)); n != 1 {
		t.Errorf("the remove ended %d sign-ins; want 1 (the first machine; the one in flight never started)", n)
	}
	if keys := r.e.SignIns().LiveKeys("bob"); len(keys) != 0 {
		t.Errorf("live keys of bob = %v; want none", keys)
	}
	wantCode(t, "whoami of bob's first machine", r.as(bob, wire.Whoami{}.Path(), whoami("bob")), wire.BadToken)
}

func TestGivenASignInInFlightWhenItStartsBetweenTheWriteOfTheRemoveAndTheEndThenTheEndEndsIt(t *testing.T) {
	// A, R, S, E; and a stop after S, before E, then a load.
	store := mem.New()
	r := startSignedInOn(t, store, inviteOpts)
	ada := r.join("ada@example.com")
	r.invited(ada, "bob@example.com")

	atStart, goStart := make(chan struct{}), make(chan struct{})
	var startOnce sync.Once
	r.e.SetBeforeStart(func() {
		startOnce.Do(func() {
			close(atStart)
			<-goStart
		})
	})
	atEnd, goEnd := make(chan struct{}), make(chan struct{})
	var endOnce sync.Once
	r.e.SetBeforeEnds(func() {
		endOnce.Do(func() {
			close(atEnd)
			<-goEnd
		})
	})
	d, signedIn := r.signInAsync("bob@example.com")
	waitFor(t, "the start hook", atStart) // A: admit is written, the sign-in did not start.
	removed := r.removeAsync(ada, "bob@example.com")
	waitFor(t, "the end hook", atEnd) // R: member_removed is written and applied; no end yet.
	close(goStart)
	rep := recv(t, "the sign-in reply", signedIn) // S: the sign-in starts below the record, before the end.
	var tr wire.TokenReply
	rep.decode(t, &tr)
	late := &member{email: "bob@example.com", user: "bob", d: d, tok: tr}

	// A stop here: the log has the remove, signins.json the late
	// sign-in. A new engine loads both and drops the sign-in.
	copied := copyStore(t, store)
	close(goEnd)
	if n := endedOf(t, recv(t, "the remove reply", removed)); n != 2 {
		t.Errorf("the remove ended %d sign-ins; want 2 (the first machine and the late one)", n)
	}
	wantCode(t, "whoami of the late sign-in after the end", r.as(late, wire.Whoami{}.Path(), whoami("bob")), wire.BadToken)

	next := startSignedInOn(t, copied, inviteOpts)
	wantCode(t, "whoami of the late sign-in on the new engine", next.as(late, wire.Whoami{}.Path(), whoami("bob")), wire.BadToken)
	if keys := next.e.SignIns().LiveKeys("bob"); len(keys) != 0 {
		t.Errorf("live keys of bob on the new engine = %v; want none", keys)
	}
	loaded := next.logs.with(t, "riff-server loaded the sign-ins")
	if len(loaded) != 1 || loaded[0]["dropped_ended"] != float64(2) {
		t.Errorf("loaded line = %v; want dropped_ended 2", loaded)
	}
	if keys := next.e.SignIns().LiveKeys("ada"); len(keys) != 1 {
		t.Errorf("live keys of ada on the new engine = %v; want her one sign-in", keys)
	}
}

func TestGivenASignedInMemberWhenTheEngineStopsBetweenTheWriteOfTheRemoveAndTheEndThenTheNextLoadDropsTheSignIn(t *testing.T) {
	// A, S, R, then a stop before E.
	store := mem.New()
	r := startSignedInOn(t, store, inviteOpts)
	ada := r.join("ada@example.com")
	bob := r.invited(ada, "bob@example.com")
	var copied *mem.Store
	r.e.SetBeforeEnds(func() { copied = copyStore(t, store) })
	var ended wire.EndedReply
	r.okAs(ada, wire.Remove{}.Path(), wire.Remove{Me: uri("ada"), Email: "bob@example.com"}, &ended)
	if copied == nil {
		t.Fatal("the hook between the write and the effect did not run")
	}
	// The copy has the remove in its log and bob's sign-in in
	// signins.json.
	var found bool
	for _, rec := range records(t, copied) {
		if c, ok := rec.Change.(record.MemberRemoved); ok && c.Email == "bob@example.com" {
			found = true
		}
	}
	if !found {
		t.Fatal("the copy of the store has no member_removed")
	}
	next := startSignedInOn(t, copied, inviteOpts)
	wantCode(t, "whoami of bob on the new engine", next.as(bob, wire.Whoami{}.Path(), whoami("bob")), wire.BadToken)
	loaded := next.logs.with(t, "riff-server loaded the sign-ins")
	if len(loaded) != 1 || loaded[0]["dropped_ended"] != float64(1) {
		t.Errorf("loaded line = %v; want dropped_ended 1", loaded)
	}
	if rep := next.as(ada, wire.Whoami{}.Path(), whoami("ada")); rep.status != http.StatusOK {
		t.Errorf("whoami of ada on the new engine = %s; want 200", rep)
	}
}

func TestGivenARemoveInTheQueueWhenTheRemovedPersonOrTheirSessionSendsACommandBeforeTheEndThenBadTokenAndNoRecord(t *testing.T) {
	g := newGate(mem.New())
	r := startSignedInOn(t, g, inviteOpts)
	ada := r.join("ada@example.com")
	bob := r.invited(ada, "bob@example.com")
	st := r.swap(bob.d, bob.tok.AccessToken, "s1")
	rep, _ := r.do(req{path: wire.Register{}.Path(), body: wire.Register{Me: uri("bob/s1")}, token: st.AccessToken, proofKey: bob.d.key})
	if rep.status != http.StatusOK {
		t.Fatalf("register of bob's session = %s", rep)
	}
	// The chunk of the remove waits: the remove is in the pending copy
	// only, and no end came.
	g.hold()
	removed := r.removeAsync(ada, "bob@example.com")
	recv(t, "the put of the remove", g.entered)
	before := r.e.QueueLen()
	out := make(chan reply, 3)
	go func() {
		out <- r.as(bob, wire.Post{}.Path(), wire.Post{Me: uri("bob"), Thread: "chat", Body: "still here"})
	}()
	go func() {
		rep, _ := r.do(req{path: wire.Join{}.Path(), body: wire.Join{Me: uri("bob/s1"), Thread: "o/repo"}, token: st.AccessToken, proofKey: bob.d.key})
		out <- rep
	}()
	go func() {
		out <- r.as(bob, wire.Revoke{}.Path(), wire.Revoke{Me: uri("bob"), Email: "ada@example.com"})
	}()
	// Each refused command has its entry in the queue: the three are
	// checked while the remove waits for its write.
	deadline := time.Now().Add(10 * time.Second)
	for r.e.QueueLen() < before+3 {
		if time.Now().After(deadline) {
			t.Fatalf("queue = %d; want the three calls of bob in it", r.e.QueueLen())
		}
		time.Sleep(time.Millisecond)
	}
	g.open()
	if n := endedOf(t, recv(t, "the remove reply", removed)); n != 1 {
		t.Errorf("the remove ended %d sign-ins; want 1", n)
	}
	for range 3 {
		rep := recv(t, "a reply of bob", out)
		wantCode(t, "a call of bob while the remove waits", rep, wire.BadToken)
		if !strings.Contains(string(rep.body), riffstate.LostSignIn) {
			t.Errorf("reply %s; want the text of a lost sign-in", rep)
		}
	}
	// After the end, the session token of the removed person is gone too.
	rep, _ = r.do(req{path: wire.Whoami{}.Path(), body: whoami("bob/s1"), token: st.AccessToken, proofKey: bob.d.key})
	wantCode(t, "whoami of bob's session after the end", rep, wire.BadToken)
	for _, rec := range records(t, g) {
		if rec.By != nil && rec.By.Who.User == "bob" && rec.Command != "register" && rec.Command != "admit" {
			t.Errorf("record %d by bob after the remove: %s %s", rec.Position, rec.Command, rec.Change.Kind())
		}
	}
}

func TestGivenARemoveWrittenWhenThePersonSignsInAfterThenNotMember(t *testing.T) {
	// R before A: admit reads the pending copy, where bob is no member.
	r := startSignedIn(t, riffstate.Options{Owner: "ada@example.com"})
	ada := r.join("ada@example.com")
	var inv wire.InviteReply
	r.okAs(ada, wire.Invite{}.Path(), wire.Invite{Me: uri("ada"), Email: "bob@other.org"}, &inv)
	bob := r.join("bob@other.org")
	var ended wire.EndedReply
	r.okAs(ada, wire.Remove{}.Path(), wire.Remove{Me: uri("ada"), Email: "bob@other.org"}, &ended)
	if ended.Ended != 1 {
		t.Errorf("remove = %+v; want 1 ended", ended)
	}
	_, signedIn := r.signInAsync("bob@other.org")
	wantCode(t, "the sign-in of the removed bob", recv(t, "the sign-in reply", signedIn), wire.NotMember)
	wantCode(t, "whoami of bob", r.as(bob, wire.Whoami{}.Path(), whoami("bob")), wire.BadToken)
}

// copyStore copies each object of a memory store, as a stop would leave
// it: the log, the checkpoints and signins.json.
func copyStore(t *testing.T, s *mem.Store) *mem.Store {
	t.Helper()
	ctx := context.Background()
	out := mem.New()
	names, err := s.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if n == rifflog.SignInsName {
			data, _, err := s.Load(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := out.Swap(ctx, n, data, 0); err != nil {
				t.Fatal(err)
			}
			continue
		}
		data, err := s.Get(ctx, n)
		if errors.Is(err, rifflog.ErrNotExist) {
			continue // deleted between the list and the get
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := out.Put(ctx, n, data); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// markedDomain marks each email of the log test: no line may hold it.
const markedDomain = "marked-q7z3.example"

func TestGivenPeopleCommandsWithMarkedEmailsWhenTheyRunOrAreRefusedThenNoLogLineHoldsAnEmail(t *testing.T) {
	at := func(user string) string { return user + "@" + markedDomain }
	r := startSignedIn(t, riffstate.Options{Owner: at("ada"), AllowedDomain: markedDomain,
		PeopleOptions: riffstate.PeopleOptions{Admins: []string{at("sam")}}})
	ada, bob, cy := r.join(at("ada")), r.join(at("bob")), r.join(at("cy"))
	calls := []struct {
		m    *member
		path string
		body any
	}{
		{ada, wire.Invite{}.Path(), wire.Invite{Me: uri("ada"), Email: at("dan")}},
		{ada, wire.Invite{}.Path(), wire.Invite{Me: uri("ada"), Email: at("dan")}}, // no_change
		{bob, wire.Invite{}.Path(), wire.Invite{Me: uri("bob"), Email: at("eve")}}, // not_allowed
		{ada, wire.SetAdmin{}.Path(), wire.SetAdmin{Me: uri("ada"), Email: at("cy"), Admin: true}},
		{ada, wire.SetAdmin{}.Path(), wire.SetAdmin{Me: uri("ada"), Email: at("sam"), Admin: false}}, // a settings admin
		{cy, wire.TakeOwner{}.Path(), wire.TakeOwner{Me: uri("cy")}},
		{ada, wire.DenyOwner{}.Path(), wire.DenyOwner{Me: uri("ada")}},
		{ada, wire.DenyOwner{}.Path(), wire.DenyOwner{Me: uri("ada")}},                // no request
		{ada, wire.Remove{}.Path(), wire.Remove{Me: uri("ada"), Email: at("nobody")}}, // not_member
		{ada, wire.Remove{}.Path(), wire.Remove{Me: uri("ada"), Email: at("ada")}},    // the owner
		{ada, wire.Revoke{}.Path(), wire.Revoke{Me: uri("ada"), Email: at("nobody")}},
		{cy, wire.Revoke{}.Path(), wire.Revoke{Me: uri("cy"), Email: at("ada")}},
		{ada, wire.People{}.Path(), wire.People{Me: uri("ada")}},
		{ada, wire.PassOwner{}.Path(), wire.PassOwner{Me: uri("ada"), Email: at("nobody")}},
		{ada, wire.PassOwner{}.Path(), wire.PassOwner{Me: uri("ada"), Email: at("cy")}},
		{cy, wire.Remove{}.Path(), wire.Remove{Me: uri("cy"), Email: at("bob")}},
	}
	for _, c := range calls {
		r.as(c.m, c.path, c.body)
	}
	// A sign-in of a person who may not join, and the server's own
	// commands refused.
	_, signedIn := r.signInAsync("zed@other-" + markedDomain)
	recv(t, "the sign-in reply", signedIn)
	if err := r.e.GrantOwner(context.Background(), at("cy")); err == nil {
		t.Error("grant_owner with no request = nil; want a refusal")
	}
	if err := r.e.EndOwner(context.Background(), at("ada")); err == nil {
		t.Error("end_owner of an owner who is not the owner = nil; want a refusal")
	}
	if len(r.logs.with(t, "refused")) < 8 {
		t.Errorf("refused lines = %d; want the refusals of the run:\n%s", len(r.logs.with(t, "refused")), r.logs)
	}
	for _, line := range strings.Split(r.logs.String(), "\n") {
		if strings.Contains(line, markedDomain) || strings.Contains(line, "@") {
			t.Errorf("a log line holds an email: %s", line)
		}
	}
}
