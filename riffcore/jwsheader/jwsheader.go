// Package jwsheader holds the one check of the header of a JWS of riff:
// the DPoP proofs (riffcore/dpop) and the signed messages
// (riffcore/signed) are both compact JWS signed ES256 by a device key
// with its public key in the protected header, and both are read here
// first, so that the two cannot differ in what they refuse.
//
// It checks the header before go-jose reads it, to name what is wrong
// (go-jose refuses an alg that it was not given, or a private jwk, with
// one error for all), and it reads the key from what go-jose parsed, so
// that both readings of the header agree. It never checks a signature
// and never holds a key beyond a call.
package jwsheader

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/como-technologies/riff/riffcore/quote"
)

// Algorithm is the one alg of a JWS of riff.
const Algorithm = "ES256"

// Fault is what is wrong with a header; each caller maps it to an error
// of its own.
type Fault int

// The faults of a header.
const (
	// Malformed: not three parts, a header that is not base64url JSON
	// of an object, no jwk, a payload that is not detached where it must
	// be.
	Malformed Fault = iota + 1
	// Type: a typ other than the scheme's.
	Type
	// Alg: an alg other than ES256.
	Alg
	// Field: a header field other than typ, alg and jwk.
	Field
	// Key: a jwk that does not read as a P-256 public key.
	Key
	// PrivateKey: a jwk that holds a private member (RFC 7518 §6): a
	// private key in a header is published.
	PrivateKey
)

// Error is a refused header: its fault and a text that says what was
// found.
type Error struct {
	Fault Fault
	Text  string
}

func (e *Error) Error() string { return e.Text }

func fault(f Fault, format string, args ...any) error {
	return &Error{Fault: f, Text: fmt.Sprintf(format, args...)}
}

// FaultOf gives the fault of an error of this package, 0 for another
// error.
func FaultOf(err error) Fault {
	var e *Error
	if errors.As(err, &e) {
		return e.Fault
	}
	return 0
}

// Scheme is what a JWS of one kind must be: its typ, and whether its
// payload is detached ("<header>..<signature>", a signed message) or
// inside it (a DPoP proof).
type Scheme struct {
	Type     string
	Detached bool
}

// privateMembers are the private members of a JWK (RFC 7518 §6.2.2,
// §6.3.2, §6.4.1).
var privateMembers = []string{"d", "p", "q", "dp", "dq", "qi", "oth", "k"}

// Check reads the protected header of compact: three parts (the middle
// one empty when the scheme is detached, and not empty when it is not),
// a JSON object with only typ, alg and jwk, the typ of the scheme, the
// alg ES256, and a jwk that is a public key with no private member.
func (s Scheme) Check(compact string) error {
	parts := strings.Split(compact, ".")
	if len(parts) != 3 {
		if s.Detached {
			return fault(Malformed, "%d parts, want <header>..<signature>", len(parts))
		}
		return fault(Malformed, "%d parts, want <header>.<claims>.<signature>", len(parts))
	}
	if s.Detached && parts[1] != "" {
		return fault(Malformed, "the payload is not detached")
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return fault(Malformed, "header: %v", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return fault(Malformed, "header is not a JSON object")
	}
	var h struct {
		Typ string          `json:"typ"`
		Alg string          `json:"alg"`
		JWK json.RawMessage `json:"jwk"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return fault(Malformed, "header: %v", err)
	}
	if h.Typ != s.Type {
		return fault(Type, "typ %s, want %q", quote.Input(h.Typ), s.Type)
	}
	if h.Alg != Algorithm {
		return fault(Alg, "alg %s, want %q", quote.Input(h.Alg), Algorithm)
	}
	// In name order, so that the error names the same field each time.
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		switch name {
		case "typ", "alg", "jwk":
		default:
			return fault(Field, "header field %s", quote.Input(name))
		}
	}
	if len(h.JWK) == 0 {
		return fault(Malformed, "no jwk in the header")
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(h.JWK, &members); err != nil || members == nil {
		return fault(Malformed, "jwk is not a JSON object")
	}
	for _, private := range privateMembers {
		if _, ok := members[private]; ok {
			return fault(PrivateKey, "jwk has the private member %q", private)
		}
	}
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(h.JWK); err != nil {
		return fault(Key, "jwk: %v", err)
	}
	if !jwk.IsPublic() {
		return fault(PrivateKey, "jwk is not a public key")
	}
	if pub, ok := jwk.Key.(*ecdsa.PublicKey); !ok || pub.Curve != elliptic.P256() {
		return fault(Key, "jwk is %T, want a P-256 public key", jwk.Key)
	}
	return nil
}

// Key reads the header that go-jose parsed from a JWS that passed
// Check: one signature, the typ of the scheme, the alg ES256, and a
// P-256 public key in the jwk. It gives that key, to verify with.
func (s Scheme) Key(jws *jose.JSONWebSignature) (*ecdsa.PublicKey, error) {
	if len(jws.Signatures) != 1 {
		return nil, fault(Malformed, "%d signatures, want 1", len(jws.Signatures))
	}
	prot := jws.Signatures[0].Protected
	if typ, _ := prot.ExtraHeaders[jose.HeaderType].(string); typ != s.Type {
		return nil, fault(Type, "typ %s, want %q", quote.Input(typ), s.Type)
	}
	if prot.Algorithm != Algorithm {
		return nil, fault(Alg, "alg %s, want %q", quote.Input(prot.Algorithm), Algorithm)
	}
	jwk := prot.JSONWebKey
	if jwk == nil {
		return nil, fault(Malformed, "no jwk in the protected header")
	}
	pub, ok := jwk.Key.(*ecdsa.PublicKey)
	if !ok || pub.Curve != elliptic.P256() {
		return nil, fault(Key, "jwk is %T, want a P-256 public key", jwk.Key)
	}
	return pub, nil
}
