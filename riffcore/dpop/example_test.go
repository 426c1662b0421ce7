package dpop_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/como-technologies/riff/riffcore/dpop"
)

func Example() {
	// The device key of the client, and the access token of its sign-in.
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		fmt.Println(err)
		return
	}
	const token = "the access token"
	now := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)

	// The client makes one proof for one call.
	proof, err := dpop.Make(key, "POST", "https://riff.example/v1/post", token, now, rand.Text())
	if err != nil {
		fmt.Println(err)
		return
	}

	// The server checks it against the call as it came, then compares the
	// thumbprint with the key of the token (cnf.jkt), then remembers it.
	seen := dpop.NewSeen(0)
	p, err := dpop.Verify(proof, "POST", "https://riff.example/v1/post?cursor=2", token, now.Add(time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("good; issued at", p.IssuedAt.UTC().Format(time.TimeOnly))
	fmt.Println("first time:", seen.Add(p, now.Add(time.Second)))

	// The same proof again is a replay.
	err = seen.Add(p, now.Add(2*time.Second))
	fmt.Println("again is a replay:", errors.Is(err, dpop.ErrReplayed))

	// For another call, or a minute and more later, it is refused.
	_, err = dpop.Verify(proof, "POST", "https://riff.example/v1/claim", token, now)
	fmt.Println("another URL:", errors.Is(err, dpop.ErrURL))
	_, err = dpop.Verify(proof, "POST", "https://riff.example/v1/post", token, now.Add(2*time.Minute))
	fmt.Println(err)
	// Output:
	// good; issued at 12:00:00
	// first time: <nil>
	// again is a replay: true
	// another URL: true
	// verify proof: proof too old: issued 2m0s ago, at most 1m0s
}
