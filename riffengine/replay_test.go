package riffengine_test

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/como-technologies/riff/riffcore/dpop"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The replay cache of the proofs (docs/tokens.md, "The replay cache"):
// it remembers a proof only after a token, an ID token or a refresh
// token proved its key, by that key, so that a caller with no valid
// token cannot fill it.

// TestGivenARefusedSignInWhenItsProofHasAJTIThenTheCacheKeepsNothingAndTheOwnerUsesThatJTI:
// a sign-in with a garbage ID token, or of a person who may not join,
// remembers no proof, of the owner's key or of another.
func TestGivenARefusedSignInWhenItsProofHasAJTIThenTheCacheKeepsNothingAndTheOwnerUsesThatJTI(t *testing.T) {
	r := startSignedIn(t, adaOpts)
	d, eve := newDevice(t), newDevice(t)
	tr := r.signIn(d, "ada@example.com")
	before := r.layer.SeenLen()
	for _, q := range []struct {
		dev     device
		idToken string
		jti     string
		code    wire.Code
		status  int
	}{
		{eve, "unverified:garbage", "jti-1", wire.BadToken, http.StatusUnauthorized},
		{d, "unverified:ada@example.com", "jti-2", wire.BadToken, http.StatusUnauthorized},
		{eve, "eve@evil.example", "jti-3", wire.NotMember, http.StatusForbidden},
	} {
		rep, _ := r.do(req{path: wire.SignIn{}.Path(), body: wire.SignIn{IDToken: q.idToken, Key: q.dev.jwk(t)}, proofKey: q.dev.key, jti: q.jti})
		wantRefused(t, rep, q.code, q.status)
	}
	if got := r.layer.SeenLen(); got != before {
		t.Errorf("proofs in the cache after 3 refused sign-ins = %d; want %d (none more)", got, before)
	}
	// The owner's own proofs with those IDs pass: the one of another key
	// and the one of its own key that a refused sign-in carried.
	var proof string
	for _, jti := range []string{"jti-1", "jti-2", "jti-3"} {
		var rep reply
		rep, proof = r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: tr.AccessToken, proofKey: d.key, jti: jti})
		if rep.status != http.StatusOK {
			t.Errorf("whoami of the owner with the jti %s of a refused sign-in = %s; want 200", jti, rep)
		}
	}
	// The cache still refuses a replay of a call with a valid token.
	rep, _ := r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: tr.AccessToken, proof: proof})
	wantRefused(t, rep, wire.BadProof, http.StatusUnauthorized)
	// A sign-in that passes remembers its proof: its replay is refused.
	rep, signInProof := r.do(req{path: wire.SignIn{}.Path(), body: wire.SignIn{IDToken: "bob@example.com", Key: d.jwk(t)}, proofKey: d.key})
	if rep.status != http.StatusOK {
		t.Fatalf("sign-in of bob = %s; want 200", rep)
	}
	rep, _ = r.do(req{path: wire.SignIn{}.Path(), body: wire.SignIn{IDToken: "bob@example.com", Key: d.jwk(t)}, proof: signInProof})
	wantRefused(t, rep, wire.BadProof, http.StatusUnauthorized)
}

// TestGivenARefusedRefreshWhenItsRefreshTokenIsGarbageOrOfAnotherKeyThenTheCacheKeepsNothing:
// a refresh with a garbage refresh token, or with the token of another
// key, remembers no proof; a refresh of the chain of the key does, so a
// copied proof cannot refresh again.
func TestGivenARefusedRefreshWhenItsRefreshTokenIsGarbageOrOfAnotherKeyThenTheCacheKeepsNothing(t *testing.T) {
	r := startSignedIn(t, adaOpts)
	d, thief := newDevice(t), newDevice(t)
	tr := r.signIn(d, "ada@example.com")
	before := r.layer.SeenLen()
	garbage := "garbage"
	// A token of the right shape, of a chain that the store does not
	// hold.
	unknownChain := "AAAAAAAAAAAAAAAAAAAAAA.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	for _, q := range []struct {
		dev     device
		refresh string
		jti     string
		code    wire.Code
	}{
		{d, garbage, "jti-1", wire.BadToken},
		{d, unknownChain, "jti-2", wire.BadToken},
		{thief, tr.RefreshToken, "jti-3", wire.BadProof},
	} {
		rep, _ := r.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: q.refresh}, proofKey: q.dev.key, jti: q.jti})
		wantRefused(t, rep, q.code, http.StatusUnauthorized)
	}
	if got := r.layer.SeenLen(); got != before {
		t.Errorf("proofs in the cache after 3 refused refreshes = %d; want %d (none more)", got, before)
	}
	for _, jti := range []string{"jti-1", "jti-2"} {
		if rep, _ := r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: tr.AccessToken, proofKey: d.key, jti: jti}); rep.status != http.StatusOK {
			t.Errorf("whoami of the owner with the jti %s of a refused refresh = %s; want 200", jti, rep)
		}
	}
	// A refresh of the chain of the key remembers its proof: the same
	// proof with the same token again (a copy of the call) is refused,
	// and it gets no new pair from the rule of the lost reply.
	rep, proof := r.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: tr.RefreshToken}, proofKey: d.key})
	if rep.status != http.StatusOK {
		t.Fatalf("refresh = %s; want 200", rep)
	}
	rep, _ = r.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: tr.RefreshToken}, proof: proof})
	wantRefused(t, rep, wire.BadProof, http.StatusUnauthorized)
}

// floodCall is one refused call of the flood (to send with a client, or
// to the handler with ServeHTTP): a proof of a valid shape
// and signature of the caller's own key, with a new jti, and no token,
// ID token or refresh token that is valid.
//
// withCalls puts a call with a garbage access token in each third place;
// without it the flood is only sign-ins and refreshes, each of which an
// older build remembered.
func floodCall(t testing.TB, r *signedRiff, d device, jwk json.RawMessage, i int, withCalls bool) *http.Request {
	hr, err := floodRequest(r, d, jwk, i, withCalls)
	if err != nil {
		t.Fatal(err)
	}
	return hr
}

// floodRequest is floodCall for a goroutine of the test: it gives the
// error instead of ending the test.
func floodRequest(r *signedRiff, d device, jwk json.RawMessage, i int, withCalls bool) (*http.Request, error) {
	var path, token string
	var body any
	switch i % 3 {
	case 0:
		path, body = wire.SignIn{}.Path(), wire.SignIn{IDToken: "unverified:garbage", Key: jwk}
	case 1:
		path, body = wire.Refresh{}.Path(), wire.Refresh{RefreshToken: "garbage"}
	default:
		path, body, token = wire.Whoami{}.Path(), whoami("ada"), "garbage-token"
	}
	if !withCalls && i%3 == 2 {
		path, body, token = wire.Refresh{}.Path(), wire.Refresh{RefreshToken: "garbage"}, ""
	}
	data, _ := json.Marshal(body)
	u := r.http.URL + path
	hr, err := http.NewRequest(http.MethodPost, u, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	proof, err := dpop.Make(d.key, http.MethodPost, u, token, time.Now(), fmt.Sprintf("flood-%d-%s", i, rand.Text()[:8]))
	if err != nil {
		return nil, err
	}
	hr.Header.Set(wire.HeaderDPoP, proof)
	if token != "" {
		hr.Header.Set(wire.HeaderAuthorization, "DPoP "+token)
	}
	return hr, nil
}

// TestGivenAFloodOfRefusedCallsWhenItPassesTheLimitOfTheCacheThenTheCallsOfAMemberPass:
// dpop.SeenLimit (65,536) refused sign-ins and refreshes, and one more, each with a new proof: none is remembered, and the member's
// call, a refresh and a new sign-in then pass (no 503 "too many
// proofs"). The flood goes to the handler in this process, the member's
// calls over loopback.
func TestGivenAFloodOfRefusedCallsWhenItPassesTheLimitOfTheCacheThenTheCallsOfAMemberPass(t *testing.T) {
	t.Parallel() // its 65,537 signatures take seconds of CPU; the other tests mostly wait
	if testing.Short() {
		t.Skip("the flood signs 65,537 proofs: not with -short")
	}
	r := startSignedIn(t, adaOpts)
	d, flooder := newDevice(t), newDevice(t)
	tr := r.signIn(d, "ada@example.com")
	before := r.layer.SeenLen()
	jwk := flooder.jwk(t)
	// Two flooders at once, as the machine has two cores: the signatures
	// of the proofs are the cost of the test.
	var flood errgroup.Group
	for part := range 2 {
		flood.Go(func() error {
			for i := part; i < dpop.SeenLimit+1; i += 2 {
				hr, err := floodRequest(r, flooder, jwk, i, false)
				if err != nil {
					return err
				}
				w := httptest.NewRecorder()
				r.h.ServeHTTP(w, hr)
				if w.Code != http.StatusUnauthorized {
					return fmt.Errorf("flood call %d = %d %s; want 401", i, w.Code, w.Body)
				}
			}
			return nil
		})
	}
	if err := flood.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := r.layer.SeenLen(); got != before {
		t.Errorf("proofs in the cache after the flood = %d; want %d", got, before)
	}
	if rep, _ := r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: tr.AccessToken, proofKey: d.key}); rep.status != http.StatusOK {
		t.Errorf("whoami of the owner after the flood = %s; want 200", rep)
	}
	if rep, _ := r.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: tr.RefreshToken}, proofKey: d.key}); rep.status != http.StatusOK {
		t.Errorf("refresh of the owner after the flood = %s; want 200", rep)
	}
	if rep, _ := r.do(req{path: wire.SignIn{}.Path(), body: wire.SignIn{IDToken: "bob@example.com", Key: newDevice(t).jwk(t)}, proofKey: newDevice(t).key}); rep.status != http.StatusUnauthorized {
		// (the proof of another key than the sent one: bad_proof)
		t.Errorf("sign-in with a proof of another key = %s; want 401", rep)
	}
	bob := newDevice(t)
	if tb := r.signIn(bob, "bob@example.com"); tb.User != "bob" {
		t.Errorf("a new sign-in after the flood = %+v; want bob", tb)
	}
}
