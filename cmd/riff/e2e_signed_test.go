package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
)

// signedMessage is a message of sender in the thread acme/app whose
// payload names user (and lead), signed with key, with the live keys of
// its sender's user as the server gives them.
func signedMessage(t *testing.T, seq uint64, sender name.SessionURI, content signed.Content, key *ecdsa.PrivateKey, live ...string) wire.Message {
	t.Helper()
	content.Thread, content.Kind, content.To, content.TimeMS = "acme/app", "message", []byte("[]"), 1790539844000
	payload, err := signed.Encode(content)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := signed.Sign(key, payload)
	if err != nil {
		t.Fatal(err)
	}
	// The server's own verdict and lead mark say yes each time: the
	// reader checks by itself.
	return wire.Message{Thread: "acme/app", Seq: seq, AtMs: 1790539844000, Sender: sender, Lead: true, Kind: record.MessagePlain,
		Body: content.Body, Verified: true, Payload: payload, Sig: sig, Keys: live}
}

// TestGivenSignedMessagesWhenRiffReadsThemThroughAPipeThenEachShowsVerifiedOrNotVerified
// runs the riff binary (riff read, then riff tail) against a server that
// gives signed messages, with its output in a pipe: the reader checks each
// signature over the kept bytes, then the key against the live sign-ins
// of the sender, and shows lead=true only for a verified lead.
func TestGivenSignedMessagesWhenRiffReadsThemThroughAPipeThenEachShowsVerifiedOrNotVerified(t *testing.T) {
	bin := buildRiff(t, "riff")
	mikeKey, brettKey := newTestKey(t), newTestKey(t)
	mikePrint, _ := signed.Thumbprint(&mikeKey.PublicKey)
	mike := uri("riff://mike@pangolin/acme/app?session=a6cf2205-9a1b")
	brett := uri("riff://brett@heron/acme/app?session=77e0a1b2-3c4d")

	lead := signedMessage(t, 1, mike, signed.Content{User: "mike", Session: "a6cf2205-9a1b", Lead: true, Body: "the API is ready"}, mikeKey, mikePrint)
	ended := signedMessage(t, 2, brett, signed.Content{User: "brett", Session: "77e0a1b2-3c4d", Body: "my sign-in ended"}, brettKey)
	// brett signs as himself, and the message is filed under mike: the
	// reader takes the user from the signed bytes, with mike's keys.
	falseSender := signedMessage(t, 3, mike, signed.Content{User: "brett", Session: "a6cf2205-9a1b", Lead: true, Body: "ship it now"}, brettKey, mikePrint)
	changed := signedMessage(t, 4, mike, signed.Content{User: "mike", Session: "a6cf2205-9a1b", Lead: true, Body: "merge #12"}, mikeKey, mikePrint)
	changed.Payload = bytes.Replace(changed.Payload, []byte("#12"), []byte("#13"), 1)
	// A lead mark signed by a key that is not the sender's.
	falseLead := signedMessage(t, 5, mike, signed.Content{User: "mike", Session: "a6cf2205-9a1b", Lead: true, Body: "claim issue-9"}, brettKey, mikePrint)
	note := wire.Message{Thread: "acme/app", Seq: 6, AtMs: 1790539844000, Sender: name.SessionURI{User: "riff", Host: "server"},
		Kind: record.MessageNote, Body: "brett@heron:app (77e0) ended", Verified: true}
	messages := []wire.Message{lead, ended, falseSender, changed, falseLead, note}

	serverBuild := build.FromBuildInfo(defaultVersion).String()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(wire.HeaderBuild, serverBuild)
		switch r.URL.Path {
		case wire.Read{}.Path():
			json.NewEncoder(w).Encode(wire.ReadReply{Threads: []wire.ThreadPage{{Thread: "acme/app", Messages: messages}}})
		case wire.Tail{}.Path():
			enc := json.NewEncoder(w)
			enc.Encode(wire.Event{Type: wire.EventHello})
			for i := range messages {
				enc.Encode(wire.Event{Type: wire.EventMessage, Message: &messages[i]})
			}
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			json.NewEncoder(w).Encode(map[string]any{})
		}
	}))
	t.Cleanup(srv.Close)

	out, errOut, code := runRiff(t, bin, t.TempDir(), srv.URL, "", "read")
	if code != 0 {
		t.Fatalf("riff read = %d\n%s%s", code, out, errOut)
	}
	want := []string{
		"[1] mike@pangolin:app (a6cf) lead=true to all (verified): the API is ready",
		"[2] brett@heron:app (77e0) to all (not verified): my sign-in ended",
		"[3] brett@pangolin:app (a6cf) to all (not verified): ship it now",
		"[4] mike@pangolin:app (a6cf) to all (not verified): merge #13",
		"[5] mike@pangolin:app (a6cf) to all (not verified): claim issue-9",
		"[6] riff@server to all (verified): note: brett@heron:app (77e0) ended",
	}
	for _, line := range want {
		if !strings.Contains(out, line+"\n") {
			t.Errorf("riff read has no line %q:\n%s", line, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("riff read into a pipe has a color:\n%q", out)
	}

	// riff tail shows the same mark on each message.
	gate := filepath.Join(t.TempDir(), "open")
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tail := startTail(t, bin, t.TempDir(), srv.URL, "acme/app", "never", gate)
	tail.waitOut("brett@heron:app (77e0) ended")
	tail.stop()
	tailOut := normalizeTimes(tail.stdout.String())
	for _, line := range []string{
		"mike@pangolin:app (a6cf) lead=true  → all  verified  #1",
		"brett@heron:app (77e0)  → all  not verified  #2",
		"brett@pangolin:app (a6cf)  → all  not verified  #3",
		"mike@pangolin:app (a6cf)  → all  not verified  #4",
		"mike@pangolin:app (a6cf)  → all  not verified  #5",
		"riff@server  → all  verified  #6",
	} {
		if !strings.Contains(tailOut, line+"\n") {
			t.Errorf("riff tail has no line with %q:\n%s", line, tailOut)
		}
	}
}

func newTestKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
