package riffengine_test

import (
	"crypto/rand"
	"net/http"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/dpop"
	"github.com/como-technologies/riff/riffcore/wire"
)

// TestGivenACallWithTwoDPoPHeadersWhenTheFirstIsAValidProofThenBadProof:
// RFC 9449 §4.3 takes exactly one DPoP header; a valid proof followed by
// garbage (or by a second valid proof) is refused, on a routed call and
// on the token path, and the same call with one header passes.
func TestGivenACallWithTwoDPoPHeadersWhenTheFirstIsAValidProofThenBadProof(t *testing.T) {
	r := startSignedIn(t, adaOpts)
	d := newDevice(t)
	tr := r.signIn(d, "ada@example.com")
	u := r.http.URL + wire.Whoami{}.Path()
	valid := func() string {
		p, err := dpop.Make(d.key, http.MethodPost, u, tr.AccessToken, time.Now(), rand.Text())
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, second := range []string{"garbage", valid()} {
		rep, _ := r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: tr.AccessToken, proof: valid(), headers: []string{wire.HeaderDPoP, second}})
		wantRefused(t, rep, wire.BadProof, http.StatusUnauthorized)
	}
	// The token path: a refresh with two headers.
	ru := r.http.URL + wire.Refresh{}.Path()
	p, err := dpop.Make(d.key, http.MethodPost, ru, "", time.Now(), rand.Text())
	if err != nil {
		t.Fatal(err)
	}
	rep, _ := r.do(req{path: wire.Refresh{}.Path(), body: wire.Refresh{RefreshToken: tr.RefreshToken}, proof: p, headers: []string{wire.HeaderDPoP, "garbage"}})
	wantRefused(t, rep, wire.BadProof, http.StatusUnauthorized)
	// Two headers Authorization: one token a call.
	rep, _ = r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: tr.AccessToken, proofKey: d.key, headers: []string{wire.HeaderAuthorization, "DPoP garbage"}})
	wantRefused(t, rep, wire.BadToken, http.StatusUnauthorized)
	// One header of each: the call passes.
	if rep, _ := r.do(req{path: wire.Whoami{}.Path(), body: whoami("ada"), token: tr.AccessToken, proof: valid()}); rep.status != http.StatusOK {
		t.Errorf("whoami with one proof = %s; want 200", rep)
	}
}

// TestGivenARiffWithSignInWhenASessionTokenAsksForTheFactsThenNotYou:
// the facts of /v1/server go to a signed-in person (its person token),
// not to a session token, nor to a call with no token.
func TestGivenARiffWithSignInWhenASessionTokenAsksForTheFactsThenNotYou(t *testing.T) {
	r := startSignedIn(t, adaOpts)
	d := newDevice(t)
	tr := r.signIn(d, "ada@example.com")
	st := r.swap(d, tr.AccessToken, "s1")
	rep, _ := r.do(req{method: http.MethodGet, path: wire.Server{}.Path(), token: st.AccessToken, proofKey: d.key})
	wantRefused(t, rep, wire.NotYou, http.StatusForbidden)
	rep, _ = r.do(req{method: http.MethodGet, path: wire.Server{}.Path()})
	wantRefused(t, rep, wire.NoToken, http.StatusUnauthorized)
	rep, _ = r.do(req{method: http.MethodGet, path: wire.Server{}.Path(), token: tr.AccessToken, proofKey: d.key})
	var facts wire.ServerFacts
	rep.decode(t, &facts)
	if facts.SignIns != 1 || facts.Build == "" {
		t.Errorf("facts for the person token = %+v; want the build and 1 live sign-in", facts)
	}
	// The line of the refusal has the key of the valid session token.
	found := false
	for _, l := range r.logs.with(t, "denied") {
		if l["code"] == string(wire.NotYou) && l["path"] == (wire.Server{}).Path() && l["key"] == thumbprint(t, d) {
			found = true
		}
	}
	if !found {
		t.Errorf("no denied line not_you of %s with the key; lines:\n%s", wire.Server{}.Path(), r.logs)
	}
}
