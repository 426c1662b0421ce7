package riffengine_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/rifflog/mem"
)

// A reply longer than the 2 KB that net/http holds before its header
// (the claim of a session that holds 150 claims, whose URI names each;
// the riff's sessions with a long name each) goes with its
// Content-Length, not in chunks; a short one gets its length from
// net/http as before. The bytes are the same either way.
func TestGivenALongReplyWhenItIsSentThenItHasItsLength(t *testing.T) {
	r := start2(t, mem.New(), newClock())
	r.register("ann/s1")
	var last reply
	for i := range 150 {
		last = r.ok(wire.Claim{}.Path(), wire.Claim{Me: uri("ann/s1"), Item: name.Item(fmt.Sprintf("a-long-name-of-an-item-%03d", i))}, nil)
		if got := last.header.Get("Content-Length"); got != strconv.Itoa(len(last.body)) {
			t.Fatalf("claim %d: Content-Length %q, the body %d bytes", i, got, len(last.body))
		}
	}
	if len(last.body) <= 2048 {
		t.Fatalf("the last claim's reply is %d bytes; the test wants one over 2,048", len(last.body))
	}
	var all []string
	for i := range 60 {
		all = append(all, fmt.Sprintf("bob/a-session-with-a-long-name-%02d", i))
	}
	r.register(all...)
	who := r.ok(wire.Who{}.Path(), wire.Who{Me: uri("ann/s1"), All: true}, nil)
	if len(who.body) <= 2048 {
		t.Fatalf("the reply of who is %d bytes; the test wants one over 2,048", len(who.body))
	}
	if got := who.header.Get("Content-Length"); got != strconv.Itoa(len(who.body)) {
		t.Fatalf("who: Content-Length %q, the body %d bytes", got, len(who.body))
	}
	if who.status != http.StatusOK {
		t.Fatalf("who = %s", who)
	}
}
