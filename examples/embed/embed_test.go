package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/wire"
)

const (
	person  = "riff://mike@pangolin/acme/app"
	session = "riff://mike@pangolin/acme/app?session=a6cf"
)

// call posts a JSON body as riff does, and gives the reply body.
func call(t *testing.T, url, path string, body any) []byte {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s = %d %s", path, resp.StatusCode, out)
	}
	return out
}

// TestEmbedKeepsClaimsAcrossARestart embeds the engine on a RIFF_DIR,
// resumes the riff and claims an item, stops, and opens the same
// directory again: the claim is still there.
func TestEmbedKeepsClaimsAcrossARestart(t *testing.T) {
	ctx := context.Background()
	path := t.TempDir() // RIFF_DIR
	log := slog.New(slog.DiscardHandler)

	r, err := open(ctx, path, log, SignIn{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(r.Handler)
	call(t, srv.URL, "/v1/resume", map[string]any{"me": person, "riff": true})
	out := call(t, srv.URL, "/v1/claim", map[string]any{"me": session, "item": "issue-12"})
	if !strings.Contains(string(out), "You hold issue-12") {
		t.Errorf("claim = %s; want You hold issue-12", out)
	}
	srv.Close()
	if err := r.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}

	r, err = open(ctx, path, log, SignIn{})
	if err != nil {
		t.Fatalf("open again: %v", err)
	}
	defer r.Close(ctx)
	srv = httptest.NewServer(r.Handler)
	defer srv.Close()
	var who wire.WhoReply
	if err := json.Unmarshal(call(t, srv.URL, "/v1/who", map[string]any{"me": session, "all": true}), &who); err != nil {
		t.Fatal(err)
	}
	var claims []string
	for _, row := range who.Rows {
		for _, item := range row.URI.Claims {
			claims = append(claims, row.URI.User+" "+string(item))
		}
	}
	if got, want := strings.Join(claims, ","), "mike issue-12"; got != want {
		t.Errorf("claims after the restart = %q; want %q", got, want)
	}
}
