package oidcfake_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/tools/oidcfake"
)

// TestGivenTheDevicePageWhenAPersonOpensTheURLOfTheCodeThenTheRequestIsApproved:
// with Activate, GET /activate?user_code=CODE does what Approve does; a
// code that no request has and a missing code change nothing.
func TestGivenTheDevicePageWhenAPersonOpensTheURLOfTheCodeThenTheRequestIsApproved(t *testing.T) {
	get := func(u string) (int, string) {
		t.Helper()
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	off, _ := start(t, oidcfake.Options{})
	if code, _ := get(off.Issuer() + "/activate?user_code=X"); code != http.StatusNotFound {
		t.Errorf("the page with no Activate = %d; want 404", code)
	}
	p, _ := start(t, oidcfake.Options{Activate: true})
	p.SetNext(oidcfake.Identity{Email: "ada@example.com"})
	resp, err := http.PostForm(p.Issuer()+"/device", map[string][]string{"client_id": {p.ClientID()}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	userCode, err := p.WaitDevice(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if code, body := get(p.Issuer() + "/activate"); code != http.StatusBadRequest || !strings.Contains(body, "user_code=CODE") {
		t.Errorf("the page with no code = %d %q; want 400 and what to give", code, body)
	}
	if code, _ := get(p.Issuer() + "/activate?user_code=nope"); code != http.StatusNotFound {
		t.Errorf("the page of an unknown code = %d; want 404", code)
	}
	if code, body := get(p.Issuer() + "/activate?user_code=" + userCode); code != http.StatusOK || !strings.Contains(body, "ada@example.com") {
		t.Errorf("the page of the code = %d %q; want 200 and the email", code, body)
	}
}
