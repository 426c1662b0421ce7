package riffengine_test

import (
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffstate"
)

// The sign-in gives admit the email of the ID token as it came
// (docs/people.md, "The names of the people"): a lower case first would
// turn U+212A, the Kelvin sign, into k, and take a look-alike of
// kim@example.com.
func TestGivenAnIDTokenWhoseEmailHoldsACharacterThatALowerCaseChangesWhenItSignsInThenRefusedNamingIt(t *testing.T) {
	r := startSignedIn(t, riffstate.Options{SignIn: true, Owner: "ann@example.com", AllowedDomain: "example.com"})
	for _, tc := range []struct {
		email string
		code  wire.Code
		text  string
	}{
		{"\u212aim@example.com", wire.BadRequest, "U+212A"},
		{"admin\u200b@example.com", wire.BadRequest, "U+200B, a character that is not visible"},
		{"Riff@example.com", wire.NotAllowed, "riff is a name of riff-server itself"},
	} {
		d := newDevice(t)
		rep, _ := r.do(req{path: wire.SignIn{}.Path(), body: wire.SignIn{IDToken: tc.email, Key: d.jwk(t)}, proofKey: d.key})
		if got := rep.header.Get(wire.HeaderRefused); got != string(tc.code) || !strings.Contains(string(rep.body), tc.text) {
			t.Errorf("the sign-in of %q = %s (riff-refused %q); want %s with %q", tc.email, rep, got, tc.code, tc.text)
		}
	}
}
