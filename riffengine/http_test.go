package riffengine_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
)

// The rules of the HTTP side (the issue, item 4; docs/wire.md).

func TestARefusalHasTheStatusOfItsCodeTheHeaderAndTheReason(t *testing.T) {
	r := start(t, setup{})
	r.register("ann/ann1", "bob/bob1")
	r.ok("/v1/claim", wire.Claim{Me: uri("ann/ann1"), Item: "issue-7"}, nil)

	tests := []struct {
		name   string
		path   string
		body   any
		status int
		code   wire.Code
		reason string
	}{
		{"held", "/v1/claim", wire.Claim{Me: uri("bob/bob1"), Item: "issue-7"}, http.StatusConflict, wire.Held, "issue-7 is held by"},
		{"not the holder", "/v1/release", wire.Release{Me: uri("bob/bob1"), Item: "issue-7"}, http.StatusConflict, wire.NotHolder, "you do not hold issue-7"},
		{"a person cannot start", "/v1/start", wire.Start{Me: uri("ann"), Reason: "process"}, http.StatusForbidden, wire.NotAllowed, "cannot send the command start"},
		{"a bad item", "/v1/claim", wire.Claim{Me: uri("bob/bob1"), Item: "no spaces"}, http.StatusBadRequest, wire.BadRequest, "item"},
		{"a status of two lines", "/v1/status", wire.Status{Me: uri("bob/bob1"), Text: "a\nb"}, http.StatusBadRequest, wire.BadRequest, "one line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := r.position()
			rep := r.post(tt.path, tt.body)
			if rep.status != tt.status || rep.header.Get(wire.HeaderRefused) != string(tt.code) {
				t.Fatalf("POST %s = %s (riff-refused %q); want %d %s", tt.path, rep, rep.header.Get(wire.HeaderRefused), tt.status, tt.code)
			}
			if !strings.HasPrefix(rep.header.Get("Content-Type"), "text/plain") || !strings.Contains(string(rep.body), tt.reason) {
				t.Errorf("reason = %q (%s); want text with %q", rep.body, rep.header.Get("Content-Type"), tt.reason)
			}
			if r.position() != at {
				t.Errorf("a refusal moved the log from %d to %d", at, r.position())
			}
		})
	}
}

func TestABodyOver64KiBIs413AndChangesNothing(t *testing.T) {
	r := start(t, setup{})
	r.register("ann/ann1")
	at := r.position()
	body := []byte(`{"me":"` + uri("ann/ann1").String() + `","body":"` + strings.Repeat("x", wire.MaxBody) + `"}`)
	rep := r.post("/v1/post", body)
	if rep.status != http.StatusRequestEntityTooLarge || !strings.Contains(string(rep.body), "64 KiB") {
		t.Errorf("POST of %d bytes = %s; want 413 naming 64 KiB", len(body), rep)
	}
	if r.position() != at {
		t.Errorf("the log moved from %d to %d", at, r.position())
	}
}

func TestBadJSONIs400NamingTheProblemAndChangesNothing(t *testing.T) {
	r := start(t, setup{})
	r.register("ann/ann1")
	me := uri("ann/ann1").String()
	tests := []struct {
		name, body, want string
	}{
		{"cut", `{"me":"` + me + `","item":`, "unexpected end of JSON"},
		{"a number for the item", `{"me":"` + me + `","item":7}`, "item"},
		{"a bad URI", `{"me":"riff:/ann","item":"issue-7"}`, "riff://"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := r.position()
			rep := r.post("/v1/claim", []byte(tt.body))
			if rep.status != http.StatusBadRequest || rep.header.Get(wire.HeaderRefused) != string(wire.BadRequest) {
				t.Fatalf("POST %s = %s; want 400 bad_request", tt.body, rep)
			}
			if !strings.Contains(string(rep.body), tt.want) {
				t.Errorf("reason = %q; want it to name %q", rep.body, tt.want)
			}
			if r.position() != at {
				t.Errorf("the log moved from %d to %d", at, r.position())
			}
		})
	}
}

func TestEveryReplyHasRiffBuild(t *testing.T) {
	r := start(t, setup{})
	want := serverBuild().String()
	tests := []struct {
		name   string
		method string
		path   string
		body   string
		status int
	}{
		{"a command", http.MethodPost, "/v1/register", `{"me":"` + uri("ann/ann1").String() + `"}`, http.StatusOK},
		{"a query", http.MethodPost, "/v1/who", `{"me":"` + uri("ann/ann1").String() + `"}`, http.StatusOK},
		{"a refusal", http.MethodPost, "/v1/release", `{"me":"` + uri("ann/ann1").String() + `","item":"x"}`, http.StatusConflict},
		{"no me", http.MethodPost, "/v1/claim", `{}`, http.StatusUnauthorized},
		{"bad JSON", http.MethodPost, "/v1/claim", `{`, http.StatusBadRequest},
		{"an unknown path", http.MethodPost, "/v1/nothing", `{}`, http.StatusNotFound},
		{"the facts", http.MethodGet, "/v1/server", ``, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, r.http.URL+tt.path, bytes.NewReader([]byte(tt.body)))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := r.http.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status || resp.Header.Get(wire.HeaderBuild) != want {
				t.Errorf("%s %s = %d with riff-build %q; want %d with %q", tt.method, tt.path, resp.StatusCode, resp.Header.Get(wire.HeaderBuild), tt.status, want)
			}
		})
	}
}

func TestAClientOfAnotherLineGets409OldBuildWithBothBuilds(t *testing.T) {
	r := start(t, setup{})
	client := "0.0.1 abcdef1 2026-01-01T00:00:00Z"
	rep := r.post("/v1/register", wire.Register{Me: uri("ann/ann1")}, wire.HeaderBuild, client)
	if rep.status != http.StatusConflict || rep.header.Get(wire.HeaderRefused) != string(wire.OldBuild) {
		t.Fatalf("register of build %s = %s; want 409 old_build", client, rep)
	}
	for _, b := range []string{client, serverBuild().String()} {
		if !strings.Contains(string(rep.body), b) {
			t.Errorf("reason %q does not name the build %s", rep.body, b)
		}
	}
	if !strings.Contains(string(rep.body), "Update riff") {
		t.Errorf("reason %q does not name the side to update", rep.body)
	}
	if r.position() != 0 {
		t.Errorf("a refused build wrote up to position %d", r.position())
	}
	// A client of the same line passes.
	r.ok("/v1/register", wire.Register{Me: uri("ann/ann1")}, nil, wire.HeaderBuild, "0.3.9 abcdef1 2026-10-01T00:00:00Z")
}

func TestACallWithNoMeIsRefusedWithNoToken(t *testing.T) {
	r := start(t, setup{})
	rep := r.post("/v1/claim", wire.Claim{Item: "issue-7"})
	if rep.status != http.StatusUnauthorized || rep.header.Get(wire.HeaderRefused) != string(wire.NoToken) {
		t.Errorf("claim with no me = %s (riff-refused %q); want 401 no_token", rep, rep.header.Get(wire.HeaderRefused))
	}
	if !strings.Contains(string(rep.body), "me") {
		t.Errorf("reason %q does not name the field me", rep.body)
	}
}

func TestAnUnknownPathIs404(t *testing.T) {
	r := start(t, setup{})
	for _, path := range []string{"/v1/nothing", "/v2/claim", "/"} {
		rep := r.post(path, wire.Claim{Me: uri("ann/ann1"), Item: name.Item("x")})
		if rep.status != http.StatusNotFound {
			t.Errorf("POST %s = %s; want 404", path, rep)
		}
	}
}

func TestTheBuildHeaderIsSetUnderItsCanonicalKey(t *testing.T) {
	if got := http.CanonicalHeaderKey(wire.HeaderBuild); got != riffengine.HeaderBuildKey {
		t.Fatalf("the canonical key of %s is %s; the server sets %s", wire.HeaderBuild, got, riffengine.HeaderBuildKey)
	}
}
