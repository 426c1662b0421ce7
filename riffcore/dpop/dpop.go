package dpop

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/como-technologies/riff/riffcore/jwsheader"
	"github.com/como-technologies/riff/riffcore/quote"
	"github.com/como-technologies/riff/riffcore/signed"
)

// The scheme of a proof: the typ and the alg of its header (RFC 9449 §4.2).
const (
	Type      = "dpop+jwt"
	Algorithm = "ES256"
)

// The limits of a proof. RFC 9449 gives no window; docs/decisions.md says
// why these figures.
const (
	// MaxAge is how long after its iat a proof is good.
	MaxAge = 60 * time.Second
	// MaxAhead is how far ahead of the clock of the server an iat may be:
	// the clock of the client runs a little fast.
	MaxAhead = 5 * time.Second
	// MaxJTILength bounds the ID of a proof, in bytes, so that the replay
	// cache has a bound in bytes too.
	MaxJTILength = 128
	// MaxLength bounds a whole proof, so that a check reads a bounded
	// input. A proof of riff has about 500 bytes.
	MaxLength = 4096
)

// The errors of Verify and Seen. Each error wraps one of them.
var (
	// ErrMalformed is a proof that does not read as a compact JWS with a
	// jwk in its header and the claims of a proof.
	ErrMalformed = errors.New("malformed proof")
	// ErrType is a header with a typ other than dpop+jwt.
	ErrType = errors.New("proof of another type")
	// ErrAlgorithm is a header with an alg other than ES256 (none, HS256…).
	ErrAlgorithm = errors.New("proof with another algorithm")
	// ErrKey is a jwk that is no P-256 public key.
	ErrKey = errors.New("proof key is not a P-256 key")
	// ErrPrivateKey is a jwk that holds a private key.
	ErrPrivateKey = errors.New("proof key holds a private key")
	// ErrSignature is a signature that is not by the key of the header.
	ErrSignature = errors.New("proof signature does not match")
	// ErrMethod is a proof for another method (htm).
	ErrMethod = errors.New("proof for another method")
	// ErrURL is a proof for another URL (htu), or a URL that is no http or
	// https URL.
	ErrURL = errors.New("proof for another URL")
	// ErrTooOld is a proof issued more than MaxAge ago.
	ErrTooOld = errors.New("proof too old")
	// ErrFuture is a proof issued more than MaxAhead ahead.
	ErrFuture = errors.New("proof from the future")
	// ErrNoTokenHash is a proof with no ath for a call with a token.
	ErrNoTokenHash = errors.New("proof names no token")
	// ErrTokenHash is an ath that is not the hash of the token of the call,
	// or an ath on a call with no token.
	ErrTokenHash = errors.New("proof for another token")
	// ErrJTI is a proof with no jti, or a jti that is too long or has a
	// character that is not visible ASCII.
	ErrJTI = errors.New("proof ID refused")
	// ErrReplayed is a proof whose jti this instance saw in the window.
	ErrReplayed = errors.New("proof replayed")
	// ErrFull is a replay cache at its bound: the proof is not refused for
	// what it is, and the call may be tried again.
	ErrFull = errors.New("replay cache full")
)

// Proof is what a valid proof tells.
type Proof struct {
	// JTI is the ID of the proof, for the replay cache.
	JTI string
	// Thumbprint is the RFC 7638 thumbprint of the key of the proof (the
	// SHA-256 of its JWK, base64url with no padding). The token layer
	// compares it with the key that the token is bound to (cnf.jkt);
	// Verify does not.
	Thumbprint string
	// IssuedAt is the iat of the proof.
	IssuedAt time.Time
}

// claims are the claims of a proof. iat is a NumericDate (RFC 7519 §2):
// a JSON number of seconds, which may have a fraction. It is read raw,
// since a json.Number also takes a string that holds a number.
type claims struct {
	JTI string          `json:"jti"`
	HTM string          `json:"htm"`
	HTU string          `json:"htu"`
	IAT json.RawMessage `json:"iat"`
	ATH *string         `json:"ath"`
}

// Make makes the proof of one call: method and url as the call sends them
// (the query and the fragment are left out of htu), the access token that
// goes with it ("" for a call with none, such as a sign-in), the time now
// and a new ID (crypto/rand.Text gives one). key is the ES256 device key.
func Make(key *ecdsa.PrivateKey, method, url, accessToken string, now time.Time, jti string) (string, error) {
	if key == nil {
		return "", fmt.Errorf("make proof: no key")
	}
	if key.Curve != elliptic.P256() {
		return "", fmt.Errorf("make proof: key is not on the curve P-256, want it for %s", Algorithm)
	}
	if method == "" {
		return "", fmt.Errorf("make proof: no method")
	}
	if err := checkJTI(jti); err != nil {
		return "", fmt.Errorf("make proof: %w", err)
	}
	htu, err := targetURI(url)
	if err != nil {
		return "", fmt.Errorf("make proof: %w", err)
	}
	c := struct {
		JTI string `json:"jti"`
		HTM string `json:"htm"`
		HTU string `json:"htu"`
		IAT int64  `json:"iat"`
		ATH string `json:"ath,omitempty"`
	}{JTI: jti, HTM: method, HTU: htu, IAT: now.Unix()}
	if accessToken != "" {
		c.ATH = tokenHash(accessToken)
	}
	payload, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("make proof: %w", err)
	}
	jws, err := signed.SignES256(key, Type, payload)
	if err != nil {
		return "", fmt.Errorf("make proof: %w", err)
	}
	proof, err := jws.CompactSerialize()
	if err != nil {
		return "", fmt.Errorf("make proof: %w", err)
	}
	return proof, nil
}

// Verify checks proof against the call that it came with: its method, its
// URL as the server sees it (scheme, host and path; a query and a
// fragment are left out) and its access token ("" for a call with none).
// now is the clock of the server. A valid proof gives its ID, the
// thumbprint of its key and its iat; each refusal wraps one of the errors
// of this package and gives the zero Proof.
//
// Verify does not check that the key is the key of the token (cnf.jkt) and
// does not remember the ID: the token layer compares Thumbprint with the
// token, then calls [Seen.Add].
func Verify(proof, method, url, accessToken string, now time.Time) (Proof, error) {
	p, err := verify(proof, method, url, accessToken, now)
	if err != nil {
		return Proof{}, fmt.Errorf("verify proof: %w", err)
	}
	return p, nil
}

func verify(proof, method, url, accessToken string, now time.Time) (Proof, error) {
	if len(proof) > MaxLength {
		return Proof{}, fmt.Errorf("%w: %d bytes, at most %d", ErrMalformed, len(proof), MaxLength)
	}
	if err := scheme.Check(proof); err != nil {
		return Proof{}, headerError(err)
	}
	jws, err := jose.ParseSignedCompact(proof, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return Proof{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	pub, err := scheme.Key(jws)
	if err != nil {
		return Proof{}, headerError(err)
	}
	payload, err := jws.Verify(pub)
	if err != nil {
		return Proof{}, fmt.Errorf("%w: %w", ErrSignature, err)
	}
	var c claims
	if err := json.Unmarshal(payload, &c); err != nil {
		return Proof{}, fmt.Errorf("%w: claims: %w", ErrMalformed, err)
	}
	if err := checkJTI(c.JTI); err != nil {
		return Proof{}, err
	}
	if c.HTM != method {
		return Proof{}, fmt.Errorf("%w: htm %s, want %s", ErrMethod, quote.Input(c.HTM), quote.Input(method))
	}
	if err := sameTarget(c.HTU, url); err != nil {
		return Proof{}, err
	}
	issued, err := issuedAt(c.IAT, now)
	if err != nil {
		return Proof{}, err
	}
	if err := checkTokenHash(c.ATH, accessToken); err != nil {
		return Proof{}, err
	}
	tp, err := signed.Thumbprint(pub)
	if err != nil {
		return Proof{}, fmt.Errorf("%w: %w", ErrKey, err)
	}
	return Proof{JTI: c.JTI, Thumbprint: tp, IssuedAt: issued}, nil
}

// scheme is the header of a proof: typ dpop+jwt, the payload inside.
var scheme = jwsheader.Scheme{Type: Type}

// headerError gives the error of this package for a refused header.
func headerError(err error) error {
	switch jwsheader.FaultOf(err) {
	case jwsheader.Type:
		return fmt.Errorf("%w: %w", ErrType, err)
	case jwsheader.Alg:
		return fmt.Errorf("%w: %w", ErrAlgorithm, err)
	case jwsheader.Key:
		return fmt.Errorf("%w: %w", ErrKey, err)
	case jwsheader.PrivateKey:
		return fmt.Errorf("%w: %w", ErrPrivateKey, err)
	}
	return fmt.Errorf("%w: %w", ErrMalformed, err)
}

// checkJTI refuses an ID that the replay cache could not hold as it is.
func checkJTI(jti string) error {
	if jti == "" {
		return fmt.Errorf("%w: no jti", ErrJTI)
	}
	if len(jti) > MaxJTILength {
		return fmt.Errorf("%w: jti of %d bytes, at most %d", ErrJTI, len(jti), MaxJTILength)
	}
	for i := 0; i < len(jti); i++ {
		if jti[i] <= ' ' || jti[i] > '~' {
			return fmt.Errorf("%w: jti %s has a character that is not visible ASCII", ErrJTI, quote.Input(jti))
		}
	}
	return nil
}

// issuedAt reads iat and checks it against the window around now, with
// the same comparisons as [Seen.Add], so that a proof that verifies is
// held by the cache for as long as it verifies.
func issuedAt(raw json.RawMessage, now time.Time) (time.Time, error) {
	iat := string(raw)
	if iat == "" || iat == "null" {
		return time.Time{}, fmt.Errorf("%w: no iat", ErrMalformed)
	}
	// A NumericDate is a JSON number, never a string ("1790539844").
	if c := iat[0]; c != '-' && (c < '0' || c > '9') {
		return time.Time{}, fmt.Errorf("%w: iat %s is not a JSON number of seconds", ErrMalformed, quote.Input(iat))
	}
	secs, err := strconv.ParseFloat(iat, 64)
	if err != nil || math.IsInf(secs, 0) || math.IsNaN(secs) {
		return time.Time{}, fmt.Errorf("%w: iat %s is not a number of seconds", ErrMalformed, quote.Input(iat))
	}
	// Far beyond any clock (the int64 of time.Unix ends near 9.2e18):
	// refused before it becomes a time. time.Time.Sub saturates, so each
	// smaller iat compares as a time.
	const farSeconds = 1e15
	if secs > farSeconds {
		return time.Time{}, fmt.Errorf("%w: iat %s is far ahead of the server: check the clock of the client", ErrFuture, quote.Input(iat))
	}
	if secs < -farSeconds {
		return time.Time{}, fmt.Errorf("%w: iat %s is far in the past", ErrTooOld, quote.Input(iat))
	}
	whole := math.Floor(secs)
	t := time.Unix(int64(whole), int64((secs-whole)*1e9))
	if d := t.Sub(now); d > MaxAhead {
		return time.Time{}, fmt.Errorf("%w: issued %s ahead of the server, at most %s: check the clock of the client", ErrFuture, d.Round(time.Second), MaxAhead)
	}
	if d := now.Sub(t); d > MaxAge {
		return time.Time{}, fmt.Errorf("%w: issued %s ago, at most %s", ErrTooOld, d.Round(time.Second), MaxAge)
	}
	return t, nil
}

// checkTokenHash compares ath with the hash of the token of the call.
func checkTokenHash(ath *string, accessToken string) error {
	switch {
	case accessToken == "" && ath == nil:
		return nil
	case accessToken == "":
		return fmt.Errorf("%w: ath names a token, and the call has none", ErrTokenHash)
	case ath == nil:
		return fmt.Errorf("%w: no ath, and the call has a token", ErrNoTokenHash)
	}
	if subtle.ConstantTimeCompare([]byte(*ath), []byte(tokenHash(accessToken))) != 1 {
		return fmt.Errorf("%w: ath is not the hash of the token of the call", ErrTokenHash)
	}
	return nil
}

// tokenHash is ath: base64url of the SHA-256 of the ASCII of the token.
func tokenHash(accessToken string) string {
	sum := sha256.Sum256([]byte(accessToken))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
