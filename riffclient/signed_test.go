package riffclient

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
)

// A second JWS implementation, written by hand from RFC 7515 (compact
// serialization, detached payload: appendix F) and RFC 7518 3.4 (ES256:
// the signature is R and S, each 32 bytes, big-endian), with only
// crypto/ecdsa, crypto/sha256 and encoding/base64. It shares no code with
// go-jose, so a message that both read is a JWS, not a go-jose habit.

var b64 = base64.RawURLEncoding

// handJWK is the public JWK of a P-256 key (RFC 7518 6.2.1).
type handJWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

type handHeader struct {
	Alg string  `json:"alg"`
	Typ string  `json:"typ"`
	JWK handJWK `json:"jwk"`
}

func pad32(b []byte) []byte { return append(make([]byte, 32-len(b)), b...) }

// handSign signs payload with key: "<header>..<signature>".
func handSign(key *ecdsa.PrivateKey, payload []byte) (string, error) {
	pub, err := key.PublicKey.Bytes() // 0x04 || X || Y
	if err != nil {
		return "", err
	}
	h, err := json.Marshal(handHeader{Alg: "ES256", Typ: "riff-message",
		JWK: handJWK{Kty: "EC", Crv: "P-256", X: b64.EncodeToString(pub[1:33]), Y: b64.EncodeToString(pub[33:])}})
	if err != nil {
		return "", err
	}
	header := b64.EncodeToString(h)
	digest := sha256.Sum256([]byte(header + "." + b64.EncodeToString(payload)))
	r, s, err := ecdsa.Sign(rand.Reader, key, digest[:])
	if err != nil {
		return "", err
	}
	return header + ".." + b64.EncodeToString(append(pad32(r.Bytes()), pad32(s.Bytes())...)), nil
}

// handVerify checks a detached compact JWS over payload with the key of
// its header, and gives the RFC 7638 thumbprint of that key.
func handVerify(sig string, payload []byte) (string, error) {
	parts := strings.Split(sig, ".")
	if len(parts) != 3 || parts[1] != "" {
		return "", fmt.Errorf("not <header>..<signature>: %q", sig)
	}
	raw, err := b64.DecodeString(parts[0])
	if err != nil {
		return "", err
	}
	var h handHeader
	if err := json.Unmarshal(raw, &h); err != nil {
		return "", err
	}
	if h.Alg != "ES256" || h.Typ != "riff-message" || h.JWK.Kty != "EC" || h.JWK.Crv != "P-256" {
		return "", fmt.Errorf("header %s: want ES256, riff-message and a P-256 key", raw)
	}
	x, errX := b64.DecodeString(h.JWK.X)
	y, errY := b64.DecodeString(h.JWK.Y)
	if errX != nil || errY != nil || len(x) != 32 || len(y) != 32 {
		return "", fmt.Errorf("jwk %+v: want x and y of 32 bytes", h.JWK)
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
	if err != nil {
		return "", err
	}
	rs, err := b64.DecodeString(parts[2])
	if err != nil || len(rs) != 64 {
		return "", fmt.Errorf("signature of %d bytes; want 64", len(rs))
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + b64.EncodeToString(payload)))
	if !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(rs[:32]), new(big.Int).SetBytes(rs[32:])) {
		return "", errors.New("the signature does not verify")
	}
	// RFC 7638: the members crv, kty, x, y in that order, no spaces.
	thumb := sha256.Sum256([]byte(`{"crv":"P-256","kty":"EC","x":"` + h.JWK.X + `","y":"` + h.JWK.Y + `"}`))
	return b64.EncodeToString(thumb[:]), nil
}

// keyAuth is the sign-in of a machine of the tests: its device key.
type keyAuth struct{ key *ecdsa.PrivateKey }

func (a keyAuth) Key() *ecdsa.PrivateKey { return a.key }
func (keyAuth) Token(context.Context, name.SessionURI) (string, error) {
	return "", nil
}
func (keyAuth) Refused(context.Context, name.SessionURI, string, wire.Code) bool { return false }

// postServer answers the content of a post as a server would, and keeps
// each post that it gets.
type postServer struct {
	mu      sync.Mutex
	content signed.Content
	posts   []wire.Post
	asked   []wire.PostContent
	blocks  []wire.Blocked
	// refuse refuses each content query with this reason.
	refuse string
}

func (s *postServer) handle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set(wire.HeaderBuild, buildA)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.URL.Path {
	case wire.PostContent{}.Path():
		var q wire.PostContent
		_ = decodeJSON(r.Body, &q)
		s.asked = append(s.asked, q)
		if s.refuse != "" {
			w.Header().Set(wire.HeaderRefused, string(wire.BadRequest))
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(s.refuse))
			return
		}
		json.NewEncoder(w).Encode(s.content)
	case wire.Blocked{}.Path():
		var b wire.Blocked
		_ = decodeJSON(r.Body, &b)
		s.blocks = append(s.blocks, b)
		json.NewEncoder(w).Encode(wire.TextReply{Text: "Blocked."})
	case wire.Post{}.Path():
		var p wire.Post
		_ = decodeJSON(r.Body, &p)
		s.posts = append(s.posts, p)
		json.NewEncoder(w).Encode(wire.PostReply{Thread: s.content.Thread, Seq: 1})
	default:
		http.NotFound(w, r)
	}
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// signedClient is a client with a sign-in of key, of a postServer.
func signedClient(t *testing.T, key *ecdsa.PrivateKey) (*Client, *postServer, *fakeClock) {
	t.Helper()
	ps := &postServer{content: signed.Content{User: "ann", Session: "mine", Lead: true, Thread: "o/repo",
		To: json.RawMessage(`[{"user":"ann"}]`), Body: "take issue-7", Kind: "message", TimeMS: 1}}
	srv := newServer(t, ps.handle)
	u, _ := url.Parse(srv.URL)
	clock := newFakeClock()
	return New(u, Options{Build: mustBuild(t, buildA), Clock: clock, Auth: keyAuth{key}}), ps, clock
}

func TestGivenASignInWhenRiffPostsThenItSignsTheServersContentWithItsOwnTime(t *testing.T) {
	key := newKey(t)
	c, ps, clock := signedClient(t, key)
	me := name.SessionURI{User: "ann", Host: "pangolin", Repo: "o/repo", Session: "mine"}
	if _, err := Post(context.Background(), c, wire.Post{Me: me, To: nil, Body: "take issue-7"}); err != nil {
		t.Fatalf("Post = %v", err)
	}
	if len(ps.asked) != 1 || len(ps.posts) != 1 {
		t.Fatalf("the server got %d content queries and %d posts; want 1 and 1", len(ps.asked), len(ps.posts))
	}
	got := ps.posts[0]
	content, err := signed.Decode(got.Payload)
	if err != nil {
		t.Fatal(err)
	}
	want := ps.content
	want.TimeMS = clock.Now().UnixMilli()
	if content.TimeMS != want.TimeMS || content.User != "ann" || !content.Lead || content.Body != "take issue-7" {
		t.Errorf("signed content = %+v; want the server's content with the time of the machine %d", content, want.TimeMS)
	}
	if _, err := signed.Verify(got.Sig, got.Payload); err != nil {
		t.Errorf("the signature of the post does not verify: %v", err)
	}
}

func TestGivenAMessageSignedByRiffWhenASecondJWSImplementationChecksItThenItVerifies(t *testing.T) {
	key := newKey(t)
	c, ps, _ := signedClient(t, key)
	if _, err := Post(context.Background(), c, wire.Post{Body: "take issue-7"}); err != nil {
		t.Fatalf("Post = %v", err)
	}
	p := ps.posts[0]
	thumb, err := handVerify(p.Sig, p.Payload)
	if err != nil {
		t.Fatalf("the hand-written check of riff's signature = %v; want it verified", err)
	}
	want, _ := signed.Thumbprint(&key.PublicKey)
	if thumb != want {
		t.Errorf("hand-written thumbprint %s; want riff's %s", thumb, want)
	}
	// A changed byte fails in the second implementation too.
	changed := bytes.Replace(p.Payload, []byte("issue-7"), []byte("issue-8"), 1)
	if _, err := handVerify(p.Sig, changed); err == nil {
		t.Error("the hand-written check of a changed payload passed; want it refused")
	}
}

func TestGivenAMessageSignedByASecondJWSImplementationWhenRiffReadsItThenItIsVerified(t *testing.T) {
	key := newKey(t)
	payload, err := signed.Encode(signed.Content{User: "ann", Session: "lead", Lead: true, Thread: "o/repo", Body: "ship it", Kind: "message", TimeMS: 7})
	if err != nil {
		t.Fatal(err)
	}
	sig, err := handSign(key, payload)
	if err != nil {
		t.Fatal(err)
	}
	thumb, _ := signed.Thumbprint(&key.PublicKey)
	m := wire.Message{Thread: "o/repo", Seq: 1, Sender: name.SessionURI{User: "ann", Host: "pangolin", Repo: "o/repo", Session: "lead"},
		Body: "ship it", Payload: payload, Sig: sig, Keys: []string{"another", thumb}}
	c := New(&url.URL{Scheme: "http", Host: "127.0.0.1:1"}, Options{})
	got := c.Check(m)
	if !got.Verified || !got.Lead || got.Body != "ship it" {
		t.Errorf("Check(a message of the hand-written signer) = verified %v lead %v body %q; want verified with lead=true", got.Verified, got.Lead, got.Body)
	}
}

func TestGivenAReaderWhenItChecksAMessageThenOnlyAValidSignatureOfALiveKeyOfTheSenderVerifies(t *testing.T) {
	ann, bob := newKey(t), newKey(t)
	annPrint, _ := signed.Thumbprint(&ann.PublicKey)
	bobPrint, _ := signed.Thumbprint(&bob.PublicKey)
	sender := name.SessionURI{User: "ann", Host: "pangolin", Repo: "o/repo", Session: "lead"}
	payload, _ := signed.Encode(signed.Content{User: "ann", Session: "lead", Lead: true, Thread: "o/repo", Body: "ship it", Kind: "message", TimeMS: 7})
	sigOf := func(key *ecdsa.PrivateKey, b []byte) string {
		s, err := signed.Sign(key, b)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	falseSender, _ := signed.Encode(signed.Content{User: "bob", Session: "lead", Lead: true, Thread: "o/repo", Body: "ship it", Kind: "message", TimeMS: 7})
	otherTyp := sigOf(ann, payload)
	_, rest, _ := strings.Cut(otherTyp, ".")
	otherTyp = b64.EncodeToString([]byte(`{"alg":"ES256","typ":"riff-message-v2"}`)) + "." + rest
	tests := []struct {
		name string
		m    wire.Message
		want bool
		user string
	}{
		{"a live key of the sender", wire.Message{Sender: sender, Payload: payload, Sig: sigOf(ann, payload), Keys: []string{annPrint}}, true, "ann"},
		{"a key of an ended sign-in", wire.Message{Sender: sender, Payload: payload, Sig: sigOf(ann, payload), Keys: nil}, false, "ann"},
		{"a key of another user", wire.Message{Sender: sender, Payload: payload, Sig: sigOf(bob, payload), Keys: []string{annPrint}}, false, "ann"},
		{"a changed byte", wire.Message{Sender: sender, Payload: bytes.Replace(payload, []byte("ship"), []byte("drop"), 1), Sig: sigOf(ann, payload), Keys: []string{annPrint}}, false, "ann"},
		// bob signs a payload that names bob, and the server files it
		// under ann: the reader takes the user from the signed bytes.
		{"a false sender", wire.Message{Sender: sender, Payload: falseSender, Sig: sigOf(bob, falseSender), Keys: []string{annPrint}}, false, "bob"},
		// ann signs a payload that names bob: her key is live for ann,
		// and the signed user is not ann.
		{"a payload of another user", wire.Message{Sender: sender, Payload: falseSender, Sig: sigOf(ann, falseSender), Keys: []string{annPrint}}, false, "bob"},
		{"another scheme", wire.Message{Sender: sender, Payload: payload, Sig: otherTyp, Keys: []string{annPrint, bobPrint}}, false, "ann"},
	}
	c := New(&url.URL{Scheme: "http", Host: "127.0.0.1:1"}, Options{Auth: keyAuth{ann}})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.m.Verified, tt.m.Lead = true, true // the verdict of the server does not count
			got := c.Check(tt.m)
			if got.Verified != tt.want || got.Lead != tt.want || got.Sender.User != tt.user {
				t.Errorf("Check() = verified %v lead %v user %s; want verified %v lead %v user %s", got.Verified, got.Lead, got.Sender.User, tt.want, tt.want, tt.user)
			}
		})
	}
}

func TestGivenAMessageWithNoSignatureWhenAReaderChecksItThenItKeepsTheServersVerdictOnlyWithNoSignIn(t *testing.T) {
	session := name.SessionURI{User: "ann", Host: "pangolin", Repo: "o/repo", Session: "lead"}
	server := name.SessionURI{User: "riff", Host: "server"}
	noSignIn := New(&url.URL{Scheme: "http", Host: "127.0.0.1:1"}, Options{})
	signIn := New(&url.URL{Scheme: "http", Host: "127.0.0.1:1"}, Options{Auth: keyAuth{newKey(t)}})
	m := wire.Message{Sender: session, Verified: true, Lead: true}
	if got := noSignIn.Check(m); !got.Verified || !got.Lead {
		t.Errorf("with no sign-in: verified %v lead %v; want the server's verdict (verified, lead)", got.Verified, got.Lead)
	}
	if got := signIn.Check(m); got.Verified || got.Lead {
		t.Errorf("an unsigned message of a session with sign-in: verified %v lead %v; want not verified", got.Verified, got.Lead)
	}
	if got := signIn.Check(wire.Message{Sender: server, Verified: true}); !got.Verified {
		t.Error("a note of riff-server with sign-in: not verified; want verified (the server is its sender)")
	}
}

func TestGivenASignInWithNoKeyWhenRiffPostsThenItSaysSo(t *testing.T) {
	c, ps, _ := signedClient(t, nil)
	if _, err := Post(context.Background(), c, wire.Post{Body: "x"}); !errors.Is(err, ErrNoDeviceKey) {
		t.Errorf("Post with no key = %v; want ErrNoDeviceKey", err)
	}
	if len(ps.posts) != 0 {
		t.Errorf("the server got %d posts; want none", len(ps.posts))
	}
}

func TestGivenASignInWhenASessionIsBlockedThenRiffSignsItsMessageToTheLead(t *testing.T) {
	key := newKey(t)
	c, ps, _ := signedClient(t, key)
	if _, err := Blocked(context.Background(), c, wire.Blocked{Reason: "which schema?"}); err != nil {
		t.Fatalf("Blocked = %v", err)
	}
	if len(ps.asked) != 1 || ps.asked[0].Tell != "lead" || ps.asked[0].Body != "blocked: which schema?" {
		t.Fatalf("content queries %+v; want one of a tell of the lead with the text of the block", ps.asked)
	}
	b := ps.blocks[0]
	if _, err := signed.Verify(b.Sig, b.Payload); err != nil || b.Reason != "which schema?" {
		t.Errorf("the block = %+v (%v); want its reason and a valid signature", b, err)
	}

	// The server gives no content (the caller is the lead): the block
	// goes with no message of its own.
	ps.refuse = "you are the lead of o/repo: ask your own user"
	if _, err := Blocked(context.Background(), c, wire.Blocked{Reason: "x"}); err != nil {
		t.Fatalf("Blocked = %v", err)
	}
	if b := ps.blocks[1]; b.Payload != nil || b.Sig != "" {
		t.Errorf("the block of a lead = %+v; want no signed message", b)
	}
}
