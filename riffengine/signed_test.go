package riffengine_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/jsonlog"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/como-technologies/riff/riffstate"
)

// keyedRiff is an engine of a riff with sign-in over loopback: ann's
// token names annKey, bob's names bobKey, and the live sign-ins are those
// of live (the test ends one by taking it out).
type keyedRiff struct {
	*riff
	ann, bob *ecdsa.PrivateKey
	mu       sync.Mutex
	live     map[string][]string
}

func thumb(t testing.TB, k *ecdsa.PrivateKey) string {
	t.Helper()
	tp, err := signed.Thumbprint(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

func startSigned(t *testing.T) *keyedRiff {
	t.Helper()
	sr := &keyedRiff{ann: mustKey(t), bob: mustKey(t)}
	sr.live = map[string][]string{"ann": {thumb(t, sr.ann)}, "bob": {thumb(t, sr.bob)}}
	liveKeys := func(user string) []string {
		sr.mu.Lock()
		defer sr.mu.Unlock()
		return append([]string(nil), sr.live[user]...)
	}
	st := mem.New()
	r := &riff{t: t, store: st, clock: newClock(), logs: &lines{}, calls: map[string]int{}}
	opts := riffstate.Options{SignIn: true, Build: serverBuild().String(), LiveKeys: liveKeys}
	loaded, err := riffengine.Load(context.Background(), st, opts)
	if err != nil {
		t.Fatal(err)
	}
	r.e = riffengine.New(loaded.State, loaded.Replayed, riffengine.Options{
		Store: st, StoreName: "memory", Build: serverBuild(), Logger: jsonlog.New(r.logs, slog.LevelDebug),
		Now: r.clock.Now, TimerEvery: time.Hour, CheckpointInterval: 100 * 365 * 24 * time.Hour, StateOptions: opts,
	})
	r.e.SetServing(true, "")
	r.srv = riffengine.NewHandler(r.e, riffengine.KeyedTrust{Keys: map[string]string{"ann": thumb(t, sr.ann), "bob": thumb(t, sr.bob)}})
	r.http = httptest.NewServer(r.srv)
	t.Cleanup(func() {
		r.e.Halt(errors.New("the test ends"))
		r.http.Close()
	})
	sr.riff = r
	return sr
}

func mustKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// signedPost is the post p of me, signed as riff signs it: the content
// of PostContent, the time of the clock, the signature of key.
func (sr *keyedRiff) signedPost(p wire.Post, key *ecdsa.PrivateKey) wire.Post {
	sr.t.Helper()
	var content signed.Content
	sr.ok(wire.PostContent{}.Path(), wire.PostContent{Post: p}, &content)
	content.TimeMS = sr.clock.Now().UnixMilli()
	payload, err := signed.Encode(content)
	if err != nil {
		sr.t.Fatal(err)
	}
	sig, err := signed.Sign(key, payload)
	if err != nil {
		sr.t.Fatal(err)
	}
	p.Payload, p.Sig = payload, sig
	return p
}

func TestGivenARiffWithSignInWhenAPostIsSignedByAnotherKeyThenTheServerRefusesItWith403BadProof(t *testing.T) {
	sr := startSigned(t)
	sr.ok("/v1/register", wire.Register{Me: uri("ann/mine")}, nil)
	forged := sr.signedPost(wire.Post{Me: uri("ann/mine"), Body: "ship it"}, sr.bob)
	rep := sr.post("/v1/post", forged)
	if rep.status != http.StatusForbidden || rep.header.Get(wire.HeaderRefused) != string(wire.BadProof) {
		t.Fatalf("a post signed by another key = %s (%s); want 403 bad_proof", rep, rep.header.Get(wire.HeaderRefused))
	}
	unsigned := sr.post("/v1/post", wire.Post{Me: uri("ann/mine"), Body: "ship it"})
	if unsigned.status != http.StatusForbidden || unsigned.header.Get(wire.HeaderRefused) != string(wire.BadProof) {
		t.Errorf("an unsigned post = %s; want 403 bad_proof", unsigned)
	}
}

func TestGivenARiffWithSignInWhenASignedPostComesTwiceThenTheCopyIsRefusedAndTheReaderGetsTheKeys(t *testing.T) {
	sr := startSigned(t)
	sr.ok("/v1/register", wire.Register{Me: uri("ann/mine")}, nil)
	sr.ok("/v1/register", wire.Register{Me: uri("bob/bwk1")}, nil)
	p := sr.signedPost(wire.Post{Me: uri("ann/mine"), Body: "ship it"}, sr.ann)
	sr.ok("/v1/post", p, nil)

	// The same payload with a new signature, as a new call.
	again, err := signed.Sign(sr.ann, p.Payload)
	if err != nil {
		t.Fatal(err)
	}
	p.Sig = again
	if rep := sr.post("/v1/post", p); rep.status != http.StatusBadRequest || rep.header.Get(wire.HeaderRefused) != string(wire.BadRequest) {
		t.Errorf("a copy of a signed message = %s; want 400 bad_request", rep)
	}

	var read wire.ReadReply
	sr.ok("/v1/read", wire.Read{Me: uri("bob/bwk1"), Thread: "o/repo", All: true}, &read)
	if len(read.Threads) != 1 || len(read.Threads[0].Messages) != 1 {
		t.Fatalf("read = %+v; want the one message", read)
	}
	m := read.Threads[0].Messages[0]
	if !m.Verified || len(m.Keys) != 1 || m.Keys[0] != thumb(t, sr.ann) || m.Sig == "" {
		t.Errorf("the message as bob reads it = verified %v keys %v sig %q; want verified, ann's key and the signature", m.Verified, m.Keys, m.Sig)
	}
	if string(m.Payload) != string(p.Payload) {
		t.Errorf("the kept payload %s; want the bytes that ann signed %s", m.Payload, p.Payload)
	}

	// ann's sign-in ends: her message is not verified any more.
	sr.mu.Lock()
	delete(sr.live, "ann")
	sr.mu.Unlock()
	var after wire.ReadReply
	sr.ok("/v1/read", wire.Read{Me: uri("bob/bwk1"), Thread: "o/repo", All: true}, &after)
	if m := after.Threads[0].Messages[0]; m.Verified || len(m.Keys) != 0 {
		t.Errorf("after the end of ann's sign-in: verified %v keys %v; want not verified and no key", m.Verified, m.Keys)
	}
}

func TestGivenARiffWithSignInWhenATailGetsASignedMessageThenItHasTheKeysOfItsSender(t *testing.T) {
	sr := startSigned(t)
	sr.ok("/v1/register", wire.Register{Me: uri("ann/mine")}, nil)
	sr.ok("/v1/register", wire.Register{Me: uri("bob/bwk1")}, nil)
	sr.ok("/v1/post", sr.signedPost(wire.Post{Me: uri("ann/mine"), Body: "first"}, sr.ann), nil)
	sr.ok("/v1/post", sr.signedPost(wire.Post{Me: uri("ann/mine"), Body: "second"}, sr.ann), nil)
	// The tail opens after message 1: it sends message 2 from the kept
	// messages, then message 3 as it comes.
	tail := sr.open(wire.Tail{}.Path(), wire.Tail{Me: uri("bob/bwk1"), Thread: "o/repo", After: 1})
	var got []wire.Message
	sr.ok("/v1/post", sr.signedPost(wire.Post{Me: uri("ann/mine"), Body: "third"}, sr.ann), nil)
	for len(got) < 2 {
		ev, ok := tail.nextOf()
		if !ok {
			t.Fatalf("the tail ended after %d messages", len(got))
		}
		if ev.Type == wire.EventMessage {
			got = append(got, *ev.Message)
		}
	}
	if got[0].Body != "second" || got[1].Body != "third" {
		t.Errorf("tail bodies %q, %q; want second (kept) and third (live)", got[0].Body, got[1].Body)
	}
	for _, m := range got {
		if !m.Verified || len(m.Keys) != 1 || m.Keys[0] != thumb(t, sr.ann) || m.Sig == "" {
			t.Errorf("tail message %q = verified %v keys %v; want verified with ann's key and the signature", m.Body, m.Verified, m.Keys)
		}
	}
}

func TestGivenARiffWithSignInWhenASessionIsBlockedThenItsSignedMessageWakesTheLeadVerified(t *testing.T) {
	sr := startSigned(t)
	sr.ok("/v1/register", wire.Register{Me: uri("ann/lead")}, nil)
	sr.ok("/v1/register", wire.Register{Me: uri("ann/wrk1"), Worker: true}, nil)
	sr.ok("/v1/lead", wire.Lead{Me: uri("ann"), Session: "lead"}, nil)

	// Signed: the content of a tell of the lead with the text of a block.
	tell := sr.signedPost(wire.Post{Me: uri("ann/wrk1"), Tell: "lead", Body: wire.BlockedText("which schema?")}, sr.ann)
	var reply wire.TextReply
	sr.ok("/v1/blocked", wire.Blocked{Me: uri("ann/wrk1"), Reason: "which schema?", Payload: tell.Payload, Sig: tell.Sig}, &reply)
	// Unsigned (an older riff): the server writes the message.
	sr.ok("/v1/blocked", wire.Blocked{Me: uri("ann/wrk1"), Reason: "still stuck"}, &reply)
	// A signed message with another text is refused: no message.
	other := sr.signedPost(wire.Post{Me: uri("ann/wrk1"), Tell: "lead", Body: "blocked: something else"}, sr.ann)
	sr.ok("/v1/blocked", wire.Blocked{Me: uri("ann/wrk1"), Reason: "a third", Payload: other.Payload, Sig: other.Sig}, &reply)
	if !strings.Contains(reply.Text, "signed body") {
		t.Errorf("a block with a signed message of another text: %q; want the refusal of its message", reply.Text)
	}

	var read wire.ReadReply
	sr.ok("/v1/read", wire.Read{Me: uri("ann/lead"), All: true}, &read)
	var got []wire.Message
	for _, p := range read.Threads {
		got = append(got, p.Messages...)
	}
	if len(got) != 2 {
		t.Fatalf("the lead reads %d messages; want the two blocks: %+v", len(got), read)
	}
	if m := got[0]; m.Body != "blocked: which schema?" || !m.Verified || m.Sig == "" {
		t.Errorf("the signed block = %q verified %v; want verified with its signature", m.Body, m.Verified)
	}
	if m := got[1]; m.Body != "blocked: still stuck" || m.Verified || m.Sig != "" {
		t.Errorf("the unsigned block = %q verified %v; want not verified, with no signature", m.Body, m.Verified)
	}
}
