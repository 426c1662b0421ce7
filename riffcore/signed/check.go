package signed

import (
	"errors"
	"fmt"
	"slices"
)

// ErrNotLive is a valid signature whose key is not the key of a live
// sign-in of the sender's user: the sign-in ended, or the key is not
// the user's.
var ErrNotLive = errors.New("the key is not the key of a live sign-in of the sender")

// Check is the check of a reader, in the order of the store design
// ("Signed messages"): it checks sig over the kept bytes ([Verify]), then
// that the thumbprint of the key is one of live (the keys of the live
// sign-ins of the sender's user), then decodes the bytes. It gives the
// decoded content when each step passes. These are separate steps and
// none changes payload.
//
// The error wraps [ErrMalformed], [ErrScheme] or [ErrSignature] (the
// signature), [ErrNotLive] (the key), or is the error of [Decode].
func Check(sig string, payload []byte, live []string) (Content, error) {
	v, err := Verify(sig, payload)
	if err != nil {
		return Content{}, err
	}
	if !slices.Contains(live, v.Thumbprint) {
		return Content{}, fmt.Errorf("check message: %w", ErrNotLive)
	}
	return Decode(payload)
}
