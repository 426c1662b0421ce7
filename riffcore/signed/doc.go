// Package signed holds the signed content of a riff message: the JSON of
// [Content], its signature (a JWS with a detached payload, ES256, from the
// device key of the sender, with the public key in the header), the check
// of a signature over the kept payload bytes, and the hash of a payload
// for the copy check.
//
// It never encodes a payload again to check it: [Verify] takes the bytes
// as they were signed and kept. It never decides whether a key is trusted:
// [Verify] gives the key and its thumbprint, and the caller checks that
// the key is the key of a live sign-in of the sender. It never reads a
// clock or a file, and it never holds a private key beyond a call.
//
// # Basics
//
// The sender encodes its [Content] once ([Encode]) and signs those bytes
// ([Sign]):
//
//	sig = <header>..<signature>
//	      header  {"alg":"ES256","jwk":{public key},"typ":"riff-message"}
//	      payload the JSON of Content, kept next to sig
//
// A reader checks the signature over the kept bytes ([Verify]), checks the
// thumbprint of the key against the live sign-ins of the sender, and then
// decodes the bytes ([Decode]) to use the fields. These are separate steps
// and none changes the bytes, so a field that this build does not know
// never stops a check.
//
// # Caveats
//
// go-jose writes the keys of the protected header in sorted order (alg,
// jwk, typ); the order carries no meaning, and Verify reads any order.
//
// Verify knows one scheme: typ riff-message with alg ES256 and a P-256 key
// in the header. A header with another typ, another alg or another field
// is a scheme that this build does not know, and does not verify
// ([ErrScheme]); a header that publishes a private key is malformed
// ([ErrMalformed]). The header is read by riffcore/jwsheader, the same
// check as the DPoP proofs. A new scheme gets a new typ.
//
// Two signatures of the same payload differ (ECDSA). Compare payloads by
// [Hash], never by the signature.
package signed
