package signed_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/como-technologies/riff/riffcore/signed"
)

func Example() {
	// The device key of the sender.
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		fmt.Println(err)
		return
	}

	// The sender encodes its content once, and signs those bytes.
	payload, err := signed.Encode(signed.Content{
		User:    "mike",
		Session: "a6cf",
		Lead:    true,
		Thread:  "como-technologies/riff",
		To:      []byte(`[{"claim":"issue-6"}]`),
		Body:    "the API is ready",
		Kind:    "note",
		TimeMS:  1790539844000,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	sig, err := signed.Sign(key, payload)
	if err != nil {
		fmt.Println(err)
		return
	}

	// A reader checks the signature over the kept bytes, then checks the
	// thumbprint against the live sign-ins of the sender, then decodes.
	v, err := signed.Verify(sig, payload)
	if err != nil {
		fmt.Println(err)
		return
	}
	want, _ := signed.Thumbprint(&key.PublicKey)
	fmt.Println("verified; the key of a live sign-in:", v.Thumbprint == want)
	c, err := signed.Decode(payload)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s lead=%v: %s\n", c.User, c.Lead, c.Body)

	// A changed byte does not verify.
	changed := append([]byte(nil), payload...)
	changed[len(changed)-2]++
	_, err = signed.Verify(sig, changed)
	fmt.Println("changed:", errors.Is(err, signed.ErrSignature))

	// A second signature of the same payload differs; the hash does not.
	again, _ := signed.Sign(key, payload)
	fmt.Println("same signature:", again == sig, "same hash:", signed.Hash(payload) == signed.Hash(payload))
	// Output:
	// verified; the key of a live sign-in: true
	// mike lead=true: the API is ready
	// changed: true
	// same signature: false same hash: true
}
