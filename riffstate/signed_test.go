package riffstate

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The signed posts of a riff with sign-in: the server's check of a post
// (the store design, "Signed messages") and the verdict of a reader.

// device is the device key of a machine of the tests, with its
// thumbprint.
type device struct {
	key   *ecdsa.PrivateKey
	print string
}

func newDevice(t *testing.T) device {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := signed.Thumbprint(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return device{key: key, print: tp}
}

// signedFixture is a riff with sign-in: the three members of the
// repository thread, and ann/lead the lead of ann. ann signs with annKey,
// bob with bobKey.
type signedFixture struct {
	*fixture
	ann, bob device
}

func givenSignedRiff(t *testing.T) *signedFixture {
	t.Helper()
	f := givenIn(t, signIn, threeMembers(), member("ann/lead", false), leadRec("ann", "ann/lead", repo))
	return &signedFixture{fixture: f.as(Member), ann: newDevice(t), bob: newDevice(t)}
}

// callerWith is the caller who with the device key d in its token.
func (f *signedFixture) callerWith(who string, d device) Caller {
	c := f.caller(who)
	c.Key = d.print
	return c
}

// draftOf gives the content that the server would sign for p of who now.
func (f *signedFixture) draftOf(who string, p wire.Post) signed.Content {
	f.t.Helper()
	c, err := f.s.Written().PostContent(f.s.Caller(f.caller(who)), wire.PostContent{Post: p}, f.now)
	if err != nil {
		f.t.Fatalf("PostContent(%s) = %v", who, err)
	}
	return c
}

// sign puts the payload of content, signed with d, in p.
func sign(t *testing.T, p wire.Post, content signed.Content, d device) wire.Post {
	t.Helper()
	payload, err := signed.Encode(content)
	if err != nil {
		t.Fatal(err)
	}
	return signBytes(t, p, payload, d)
}

func signBytes(t *testing.T, p wire.Post, payload []byte, d device) wire.Post {
	t.Helper()
	sig, err := signed.Sign(d.key, payload)
	if err != nil {
		t.Fatal(err)
	}
	p.Payload, p.Sig = payload, sig
	return p
}

func postOf(p wire.Post) step { return as[wire.PostReply](Post{Post: p}) }

// signedBy gives the post p of who, signed as riff signs it: the draft of
// the server, with the time of now, signed with d.
func (f *signedFixture) signedBy(who string, d device, p wire.Post) wire.Post {
	f.t.Helper()
	return sign(f.t, p, f.draftOf(who, p), d)
}

// thenPosted checks that the post was taken as want, with its payload
// and its signature left out.
func (f *signedFixture) thenPosted(want record.Posted) {
	f.t.Helper()
	if f.err != nil {
		f.t.Fatalf("handle refused: %v; want %v", f.err, want)
	}
	opts := append(changesOpts(), cmpopts.IgnoreFields(record.Posted{}, "Sig"))
	if diff := cmp.Diff([]record.Change{want}, f.handled.Changes, opts); diff != "" {
		f.t.Errorf("handle changes (-want +got):\n%s", diff)
	}
}

// thenSignatureRefused checks a refusal of the signature: bad_proof with
// the status 403.
func (f *signedFixture) thenSignatureRefused(parts ...string) {
	f.t.Helper()
	f.thenReason(wire.BadProof, parts...)
	var refused *wire.Refused
	if errors.As(f.err, &refused) && refused.Status != http.StatusForbidden {
		f.t.Errorf("the refused signature has the status %d; want 403", refused.Status)
	}
}

func TestGivenASignedPostWhenTheKeyOfTheTokenSignedItThenTheServerKeepsItsBytesUnchanged(t *testing.T) {
	f := givenSignedRiff(t)
	p := wire.Post{Body: "the API is ready", To: sels("claim=issue-6")}
	content := f.draftOf("ann/mine", p)
	// Spaces and a field of a later release: the server keeps the bytes
	// as they came, and never encodes them again.
	payload, err := signed.Encode(content)
	if err != nil {
		t.Fatal(err)
	}
	payload = append([]byte(`{"reply_to":{"seq":4},  `), payload[1:]...)
	sent := signBytes(t, p, payload, f.ann)
	f.whenAt(f.callerWith("ann/mine", f.ann), postOf(sent))
	f.thenPosted(posted("ann/mine", repo, 1, record.MessagePlain, sels("claim=issue-6"), "ann/wrk1"))
	got := f.handled.Changes[0].(record.Posted)
	if !bytes.Equal(got.Payload, payload) || got.Sig != sent.Sig {
		t.Errorf("posted payload %s sig %q; want the bytes %s and the signature as they came", got.Payload, got.Sig, payload)
	}
}

func TestGivenASignedPostWhenAByteOfThePayloadChangedThenTheSignatureIsRefused(t *testing.T) {
	f := givenSignedRiff(t)
	p := f.signedBy("ann/mine", f.ann, wire.Post{Body: "the API is ready"})
	// The time, one digit on: each field still agrees with the call.
	i := bytes.LastIndexByte(p.Payload, '}') - 1
	p.Payload = append([]byte(nil), p.Payload...)
	p.Payload[i] = '0' + (p.Payload[i]-'0'+1)%10
	f.whenAt(f.callerWith("ann/mine", f.ann), postOf(p))
	f.thenSignatureRefused("does not verify")
}

func TestGivenASignedPostWhenTheSignedFieldsDifferFromTheCallThenItIsRefused(t *testing.T) {
	tests := []struct {
		name   string
		change func(*signed.Content)
		want   string
	}{
		{"a false sender", func(c *signed.Content) { c.User = "bob" }, `the signed user is "bob"`},
		{"another session", func(c *signed.Content) { c.Session = "wrk1" }, `the signed session is "wrk1"`},
		{"another thread", func(c *signed.Content) { c.Thread = "chat" }, `the signed thread is "chat"`},
		{"another to list", func(c *signed.Content) { c.To = []byte(`[{"user":"bob"}]`) }, "the signed to list"},
		{"another kind", func(c *signed.Content) { c.Kind = "note" }, `the signed kind is "note"`},
		{"another body", func(c *signed.Content) { c.Body = "rm -rf" }, "the signed body"},
		{"a false lead mark", func(c *signed.Content) { c.Lead = true }, "signed with lead=true, and its sender is not the lead"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := givenSignedRiff(t)
			p := wire.Post{Body: "the API is ready", To: sels("claim=issue-6")}
			content := f.draftOf("ann/mine", p)
			tt.change(&content)
			f.whenAt(f.callerWith("ann/mine", f.ann), postOf(sign(t, p, content, f.ann))).
				thenReason(wire.BadRequest, "the signed fields of the post differ from the call", tt.want)
		})
	}
}

func TestGivenASignedPostWhenAnotherKeySignedItThenTheSignatureIsRefused(t *testing.T) {
	f := givenSignedRiff(t)
	// bob's machine signs a post of ann's session: the token is ann's.
	p := f.signedBy("ann/mine", f.bob, wire.Post{Body: "look"})
	f.whenAt(f.callerWith("ann/mine", f.ann), postOf(p))
	f.thenSignatureRefused("not the key of the token of this call")
}

func TestGivenTheLeadWhenItSignsTheLeadMarkThenThePostHasIt(t *testing.T) {
	f := givenSignedRiff(t)
	p := f.signedBy("ann/lead", f.ann, wire.Post{Body: "take issue-7", To: sels("user=ann")})
	if content, _ := signed.Decode(p.Payload); !content.Lead {
		t.Fatalf("the draft of the lead has no lead mark: %s", p.Payload)
	}
	f.whenAt(f.callerWith("ann/lead", f.ann), postOf(p))
	if f.err != nil {
		t.Fatalf("the post of the lead refused: %v", f.err)
	}
	if got := f.handled.Changes[0].(record.Posted); !got.Lead {
		t.Errorf("posted lead = false; want the signed lead mark")
	}
}

func TestGivenTheLeadWhenItSignsNoLeadMarkThenThePostHasNone(t *testing.T) {
	f := givenSignedRiff(t)
	p := wire.Post{Body: "just a thought"}
	content := f.draftOf("ann/lead", p)
	content.Lead = false
	f.whenAt(f.callerWith("ann/lead", f.ann), postOf(sign(t, p, content, f.ann)))
	if f.err != nil {
		t.Fatalf("the post refused: %v", f.err)
	}
	if got := f.handled.Changes[0].(record.Posted); got.Lead {
		t.Errorf("posted lead = true; want none: the record never says more than the signature")
	}
}

func TestGivenASignedPostWhenACopyComesThenItIsRefused(t *testing.T) {
	f := givenSignedRiff(t)
	first := f.signedBy("ann/mine", f.ann, wire.Post{Body: "take issue-7", To: sels("user=ann")})
	if _, _, err := postOf(first).run(f.s, f.callerWith("ann/mine", f.ann), f.now); err != nil {
		t.Fatalf("the first post refused: %v", err)
	}
	// The same payload with a new signature: ECDSA gives another valid one.
	copied := signBytes(t, first, first.Payload, f.ann)
	if copied.Sig == first.Sig {
		t.Fatal("two signatures of one payload are equal")
	}
	f.whenAt(f.callerWith("ann/mine", f.ann), postOf(copied)).thenReason(wire.BadRequest, "refuses a copy of a signed message")
	// The same text with a new time is a new message.
	f.after(second)
	f.whenAt(f.callerWith("ann/mine", f.ann), postOf(f.signedBy("ann/mine", f.ann, first)))
	f.thenPosted(posted("ann/mine", repo, 2, record.MessagePlain, sels("user=ann"), "ann/lead", "ann/wrk1", "ann/wrk2"))
	// A new start from a checkpoint remembers it too.
	f.restart().whenAt(f.callerWith("ann/mine", f.ann), postOf(copied)).thenReason(wire.BadRequest, "refuses a copy")
}

func TestGivenAnOldSignedMessageWhenACopyComesAfterTheRiffForgotItsHashThenItIsRefusedByItsTime(t *testing.T) {
	f := givenSignedRiff(t)
	first := f.signedBy("ann/mine", f.ann, wire.Post{Body: "take issue-7"})
	if _, _, err := postOf(first).run(f.s, f.callerWith("ann/mine", f.ann), f.now); err != nil {
		t.Fatalf("the first post refused: %v", err)
	}
	// More than two windows later, a post sweeps the old hashes.
	f.after(2*SignedWindowMs + minute)
	if _, _, err := postOf(f.signedBy("ann/mine", f.ann, wire.Post{Body: "later"})).run(f.s, f.callerWith("ann/mine", f.ann), f.now); err != nil {
		t.Fatalf("the later post refused: %v", err)
	}
	if _, kept := f.riff().Signed[signed.Hash(first.Payload)]; kept {
		t.Fatalf("the hash of the first post is kept after two windows; want it swept")
	}
	f.whenAt(f.callerWith("ann/mine", f.ann), postOf(signBytes(t, first, first.Payload, f.ann))).
		thenReason(wire.BadRequest, "behind", "the limit is 5 minutes")
}

func TestGivenASignedPostWhenItsTimeIsOutOfTheWindowThenItIsRefused(t *testing.T) {
	for _, off := range []int64{SignedWindowMs + second, -SignedWindowMs - second} {
		f := givenSignedRiff(t)
		p := wire.Post{Body: "x"}
		content := f.draftOf("ann/mine", p)
		content.TimeMS += off
		f.whenAt(f.callerWith("ann/mine", f.ann), postOf(sign(t, p, content, f.ann))).
			thenReason(wire.BadRequest, "check the clock of this machine")
	}
	// At the edge of the window, it passes.
	f := givenSignedRiff(t)
	p := wire.Post{Body: "x"}
	content := f.draftOf("ann/mine", p)
	content.TimeMS -= SignedWindowMs
	f.whenAt(f.callerWith("ann/mine", f.ann), postOf(sign(t, p, content, f.ann)))
	f.thenPosted(posted("ann/mine", repo, 1, record.MessagePlain, nil))
}

func TestGivenARiffWithSignInWhenAPostHasNoSignatureThenItIsRefused(t *testing.T) {
	f := givenSignedRiff(t)
	f.whenAt(f.callerWith("ann/mine", f.ann), post("", "unsigned"))
	f.thenSignatureRefused("has no payload and signature")
	// A payload with no signature is no signed post either.
	p := f.signedBy("ann/mine", f.ann, wire.Post{Body: "x"})
	p.Sig = ""
	f.whenAt(f.callerWith("ann/mine", f.ann), postOf(p))
	f.thenSignatureRefused("has no payload and signature")
	// A caller whose token names no key cannot sign.
	f.when("ann/mine", postOf(f.signedBy("ann/mine", f.ann, wire.Post{Body: "x"})))
	f.thenSignatureRefused("names no device key")
}

func TestGivenASignedPostWhenThePayloadDoesNotDecodeThenItIsRefused(t *testing.T) {
	f := givenSignedRiff(t)
	p := signBytes(t, wire.Post{Body: "x"}, []byte(`{"user":"ann","lead":"yes"}`), f.ann)
	f.whenAt(f.callerWith("ann/mine", f.ann), postOf(p)).thenReason(wire.BadRequest, "the payload of the post does not decode")
}

func TestGivenATellWhenRiffAsksForItsContentThenItHasTheDirectThreadAndTheSide(t *testing.T) {
	f := givenSignedRiff(t)
	content := f.draftOf("ann/mine", wire.Post{Tell: "bwk1", Body: "ping"})
	if content.Thread != "dm:bwk1+mine" {
		t.Errorf("the thread of a tell = %q; want the direct thread", content.Thread)
	}
	if string(content.To) != `[{"session":"bwk1"}]` || content.User != "ann" || content.Session != "mine" || content.Kind != "message" {
		t.Errorf("the content of a tell = %+v (to %s); want ann/mine to the session bwk1", content, content.To)
	}
	// The signed tell passes the check.
	p := sign(t, wire.Post{Tell: "bwk1", Body: "ping"}, content, f.ann)
	f.whenAt(f.callerWith("ann/mine", f.ann), postOf(p))
	if f.err != nil {
		t.Fatalf("the signed tell refused: %v", f.err)
	}
}

func TestGivenARiffWithNoSignInWhenAPostComesThenTheServerMakesThePayloadAndKeepsNoSignature(t *testing.T) {
	f := given(t, threeMembers())
	d := newDevice(t)
	p := wire.Post{Body: "hello"}
	c, err := f.s.Written().PostContent(f.caller("ann/mine"), wire.PostContent{Post: p}, f.now)
	if err != nil {
		t.Fatal(err)
	}
	f.when("ann/mine", postOf(sign(t, p, c, d)))
	if f.err != nil {
		t.Fatalf("post refused: %v", f.err)
	}
	if got := f.handled.Changes[0].(record.Posted); got.Sig != "" {
		t.Errorf("posted sig = %q; want none: without sign-in riff-server keeps no signature", got.Sig)
	}
}

// messageOf gives the message of a posted record as a reader gets it.
func messageOf(p record.Posted, opts Options) wire.Message {
	return MessageOf(Message{Posted: p, Position: 1, AtMs: t0}, opts)
}

func TestGivenASignedMessageWhenAReaderGetsItThenItIsVerifiedOnlyWithALiveKeyOfItsSender(t *testing.T) {
	f := givenSignedRiff(t)
	p := f.signedBy("ann/lead", f.ann, wire.Post{Body: "take issue-7"})
	f.whenAt(f.callerWith("ann/lead", f.ann), postOf(p))
	if f.err != nil {
		t.Fatal(f.err)
	}
	rec := f.handled.Changes[0].(record.Posted)
	live := map[string][]string{"ann": {f.ann.print}, "bob": {f.bob.print}}
	opts := Options{SignIn: true, LiveKeys: func(user string) []string { return live[user] }}

	got := messageOf(rec, opts)
	if !got.Verified || !got.Lead || got.Body != "take issue-7" || len(got.Keys) != 1 || got.Keys[0] != f.ann.print {
		t.Errorf("a message of a live key = verified %v lead %v body %q keys %v; want verified, lead=true, the body and ann's key", got.Verified, got.Lead, got.Body, got.Keys)
	}
	// The sign-in of ann ended: her key is no live key.
	delete(live, "ann")
	if got := messageOf(rec, opts); got.Verified || got.Lead {
		t.Errorf("a message of an ended sign-in = verified %v lead %v; want not verified and no lead mark", got.Verified, got.Lead)
	}
	// The key of another user does not verify a message of ann.
	live["ann"] = []string{f.bob.print}
	if got := messageOf(rec, opts); got.Verified {
		t.Error("a message of ann with bob's key as ann's = verified; want not verified")
	}
	// A record of ann whose signed user is bob, with ann's key: the keys
	// are ann's, and the bytes say bob.
	live["ann"] = []string{f.ann.print}
	other := rec
	other.Payload = bytes.Replace(rec.Payload, []byte(`"user":"ann"`), []byte(`"user":"bob"`), 1)
	other.Sig = signBytes(t, wire.Post{}, other.Payload, f.ann).Sig
	if got := messageOf(other, opts); got.Verified || got.Lead {
		t.Errorf("a record of ann with a payload of bob = verified %v lead %v; want not verified", got.Verified, got.Lead)
	}
	// A changed byte of the kept payload does not verify.
	changed := rec
	changed.Payload = bytes.Replace(rec.Payload, []byte("issue-7"), []byte("issue-8"), 1)
	if got := messageOf(changed, opts); got.Verified || got.Lead {
		t.Errorf("a changed payload = verified %v lead %v; want not verified", got.Verified, got.Lead)
	}
}

func TestGivenARiffWithSignInWhenAMessageHasNoSignatureThenOnlyTheServersOwnIsVerified(t *testing.T) {
	opts := Options{SignIn: true}
	note := posted("riff@server", repo, 1, record.MessageNote, nil)
	note.Payload = payloadOf(note, "ann/wrk1 ended")
	if got := messageOf(note, opts); !got.Verified {
		t.Error("a note of the server = not verified; want verified: the server is its sender")
	}
	unsigned := posted("ann/mine", repo, 2, record.MessagePlain, nil)
	unsigned.Payload, unsigned.Lead = payloadOf(unsigned, "x"), true
	if got := messageOf(unsigned, opts); got.Verified || got.Lead {
		t.Errorf("an unsigned message of a session = verified %v lead %v; want not verified", got.Verified, got.Lead)
	}
	if got := messageOf(unsigned, Options{}); !got.Verified || !got.Lead {
		t.Errorf("with no sign-in = verified %v lead %v; want verified with its lead mark", got.Verified, got.Lead)
	}
}

func TestGivenASignedMessageOfAnotherSchemeWhenAReaderGetsItThenItIsNotVerified(t *testing.T) {
	f := givenSignedRiff(t)
	p := f.signedBy("ann/mine", f.ann, wire.Post{Body: "x"})
	rec := posted("ann/mine", repo, 1, record.MessagePlain, nil)
	// The same signature with typ riff-message-v2: a scheme that this
	// build does not know.
	_, rest, _ := strings.Cut(p.Sig, ".")
	rec.Payload, rec.Sig = p.Payload, "eyJhbGciOiJFUzI1NiIsInR5cCI6InJpZmYtbWVzc2FnZS12MiJ9."+rest
	opts := Options{SignIn: true, LiveKeys: func(string) []string { return []string{f.ann.print} }}
	if got := messageOf(rec, opts); got.Verified {
		t.Error("a message of another typ = verified; want not verified")
	}
}

func TestGivenARiffWithSignInWhenASignalTellsTheLeadThenThePostHasNoSignatureAndIsNotVerified(t *testing.T) {
	f := givenSignedRiff(t)
	c := f.callerWith("ann/wrk1", f.ann)
	f.whenAt(c, as[wire.PostReply](TellLead(c, "blocked: which schema?", nil)))
	if f.err != nil {
		t.Fatalf("the tell of a block refused: %v", f.err)
	}
	got := f.handled.Changes[0].(record.Posted)
	if got.Sig != "" {
		t.Errorf("the tell of a signal has the signature %q; want none", got.Sig)
	}
	live := func(string) []string { return []string{f.ann.print} }
	if m := messageOf(got, Options{SignIn: true, LiveKeys: live}); m.Verified {
		t.Error("the tell of a signal = verified; want not verified: the server wrote it")
	}
	// The same post over the wire has no such mark.
	f.whenAt(c, post("", "blocked: which schema?"))
	f.thenSignatureRefused("has no payload and signature")
}
