// Package dpop makes and checks the DPoP proofs of RFC 9449: the proof of
// the device key that goes with each call that has a token. A proof is a
// JWT signed ES256 by the device key, with its public key in the header,
// that names the method and the URL of one call, the time it was made, an
// ID of its own and, when the call carries an access token, the hash of
// that token.
//
// # Basics
//
// The client makes a proof for each call ([Make]) and sends it beside the
// token:
//
//	header  {"alg":"ES256","jwk":{public key},"typ":"dpop+jwt"}
//	claims  {"jti":"…","htm":"POST","htu":"https://riff.example/v1/post",
//	         "iat":1790539844,"ath":"base64url(SHA-256(access token))"}
//
// The server checks it ([Verify]) against the call as it came: the typ,
// the alg (ES256 only), the signature by the key of the header (a public
// key, never a private one), the method, the URL with no query and no
// fragment (normalised as RFC 9449 §4.3 says), the time within the window
// ([MaxAge] back, [MaxAhead] ahead), the hash of the token, and a jti of
// at most [MaxJTILength] characters. It then remembers the jti ([Seen]),
// so that a proof works once in an instance.
//
// Verify does not know tokens. It gives the thumbprint of the key of the
// proof ([Proof].Thumbprint), and the token layer compares it with the key
// that the token is bound to (cnf.jkt). The token layer does that, and
// each other check of the call, before [Seen.Add], so that only the
// holder of a live token (an ID token, a refresh token) and its key fills
// the replay cache. The cache keeps each jti by the key of its proof.
//
// The header is read by riffcore/jwsheader, the same check as the signed
// messages; iat must be a JSON number (a NumericDate, RFC 7519 §2).
//
// # The refusals and the codes of the token layer
//
// Each refusal wraps one sentinel error, so that the token layer maps it
// to a refusal code of riff (riffcore/wire, docs/wire.md) without reading a text:
//
//	ErrMalformed, ErrType, ErrAlgorithm, ErrKey, ErrPrivateKey,
//	ErrSignature, ErrMethod, ErrURL, ErrTooOld, ErrFuture, ErrNoTokenHash,
//	ErrTokenHash, ErrJTI, ErrReplayed          bad_proof (401)
//	ErrFull                                    no code: 503, the client tries again
//
// A call with a token and no proof is bad_proof too (Verify of "" is
// ErrMalformed); a proof whose thumbprint is not the cnf.jkt of the token
// is bad_proof; a token that the server does not know is bad_token, and a
// call with no token is no_token: those two are the token layer's.
//
// # Caveats
//
// The replay cache is in memory (docs/tokens.md, "The replay cache of
// the proofs"): a new instance (a new
// [Seen]) refuses no proof from before its start, and the window keeps a
// proof from before it short-lived. A full cache refuses new proofs
// ([ErrFull]) rather than forget one that could still be replayed.
//
// This package reads no clock: each function takes now. It never keeps a
// private key beyond a call of [Make].
package dpop
