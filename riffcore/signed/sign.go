package signed

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"encoding/base64"
	"errors"
	"fmt"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/como-technologies/riff/riffcore/jwsheader"
)

// The scheme of a riff message: the typ and the alg of its header.
const (
	Type      = "riff-message"
	Algorithm = "ES256"
)

// The errors of Verify. Each error of Verify wraps one of them.
var (
	// ErrMalformed is a signature that does not read as a compact JWS
	// with a detached payload and a public key in its header.
	ErrMalformed = errors.New("malformed signature")
	// ErrScheme is a signature of a scheme that this build does not know:
	// another typ, another alg, another key type or another header field.
	ErrScheme = errors.New("unknown signature scheme")
	// ErrSignature is a signature that does not match the payload and the
	// key of its header.
	ErrSignature = errors.New("signature does not match")
)

// Verified is what a valid signature tells: the key that signed. It does
// not tell that the key is trusted; the caller checks that Thumbprint is
// the key of a live sign-in of the sender.
type Verified struct {
	// Key is the public key of the header.
	Key *ecdsa.PublicKey
	// Thumbprint is the RFC 7638 thumbprint of Key: the SHA-256 of its
	// JWK, base64url with no padding.
	Thumbprint string
}

// Sign signs payload with an ES256 device key: a compact JWS with a
// detached payload, "<header>..<signature>", with the typ riff-message and
// the public key in the protected header. The caller keeps payload next to
// the signature, unchanged.
func Sign(key *ecdsa.PrivateKey, payload []byte) (string, error) {
	jws, err := SignES256(key, Type, payload)
	if err != nil {
		return "", fmt.Errorf("sign message: %w", err)
	}
	sig, err := jws.DetachedCompactSerialize()
	if err != nil {
		return "", fmt.Errorf("sign message: %w", err)
	}
	return sig, nil
}

// SignES256 signs payload with an ES256 device key, with typ and the
// public key in the protected header: the one JWS signer of riff, for a
// signed message and for a DPoP proof.
func SignES256(key *ecdsa.PrivateKey, typ jose.ContentType, payload []byte) (*jose.JSONWebSignature, error) {
	if key == nil {
		return nil, fmt.Errorf("no key")
	}
	if key.Curve != elliptic.P256() {
		return nil, fmt.Errorf("key is not on the curve P-256, want it for %s", Algorithm)
	}
	opts := (&jose.SignerOptions{EmbedJWK: true}).WithType(typ)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, opts)
	if err != nil {
		return nil, err
	}
	return signer.Sign(payload)
}

// scheme is the header of the one scheme that this build knows: typ
// riff-message, the payload detached.
var scheme = jwsheader.Scheme{Type: Type, Detached: true}

// headerError gives the error of this package for a refused header: a
// typ, an alg, a key or a field of another scheme is a scheme that this
// build does not know; a header that does not read, or that publishes a
// private key, is malformed.
func headerError(err error) error {
	switch jwsheader.FaultOf(err) {
	case jwsheader.Type, jwsheader.Alg, jwsheader.Key, jwsheader.Field:
		return fmt.Errorf("%w: %w", ErrScheme, err)
	}
	return fmt.Errorf("%w: %w", ErrMalformed, err)
}

// Verify checks sig over payload, the kept bytes as they came (it never
// encodes them again), with the key of the header. It refuses a typ other
// than riff-message, an alg other than ES256 and a header with another
// field ([ErrScheme]), a sig that does not read ([ErrMalformed]) and a
// signature that does not match ([ErrSignature]). A valid signature gives
// the key and its thumbprint.
func Verify(sig string, payload []byte) (Verified, error) {
	if err := scheme.Check(sig); err != nil {
		return Verified{}, fmt.Errorf("verify message: %w", headerError(err))
	}
	if payload == nil {
		payload = []byte{}
	}
	jws, err := jose.ParseDetached(sig, payload, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return Verified{}, fmt.Errorf("verify message: %w: %w", ErrMalformed, err)
	}
	pub, err := scheme.Key(jws)
	if err != nil {
		return Verified{}, fmt.Errorf("verify message: %w", headerError(err))
	}
	if err := jws.DetachedVerify(payload, pub); err != nil {
		return Verified{}, fmt.Errorf("verify message: %w: %w", ErrSignature, err)
	}
	tp, err := Thumbprint(pub)
	if err != nil {
		return Verified{}, fmt.Errorf("verify message: %w", err)
	}
	return Verified{Key: pub, Thumbprint: tp}, nil
}

// Thumbprint gives the RFC 7638 thumbprint of a public key: the SHA-256 of
// its JWK, base64url with no padding. A reader compares it with the key of
// a live sign-in of the sender.
func Thumbprint(key *ecdsa.PublicKey) (string, error) {
	if key == nil {
		return "", fmt.Errorf("thumbprint: no key")
	}
	jwk := jose.JSONWebKey{Key: key}
	sum, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", fmt.Errorf("thumbprint: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(sum), nil
}
