package riffengine

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/wire"
)

// The kept lines of a window: a call with a valid token (not_you,
// bad_proof) takes a line up to DeniedMax; a call with no valid token
// only up to DeniedMax-DeniedKept. The token layer of a riff with no
// sign-in has no valid token, so this test calls the denier itself.
func TestTheLastTwentyDeniedLinesAreKeptForAValidToken(t *testing.T) {
	var buf bytes.Buffer
	now := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	d := newDenier(slog.New(slog.NewJSONHandler(&buf, nil)), func() time.Time { return now })

	for range 90 {
		d.deny(wire.NoToken, "/v1/claim", "", "")
	}
	for range 30 {
		d.deny(wire.NotYou, "/v1/claim", "riff://ann@pangolin/o/repo?session=ann1", "thumb")
	}
	d.flush()

	counts := map[string]int{}
	var dropped map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if m["msg"] == "dropped" {
			dropped = m
			continue
		}
		counts[m["code"].(string)]++
	}
	if counts["no_token"] != 80 || counts["not_you"] != 20 {
		t.Errorf("denied lines = %v; want 80 no_token and 20 not_you", counts)
	}
	want := map[string]any{"no_token": 10.0, "not_you": 10.0}
	if dropped == nil || dropped["count"] != 20.0 || !equalMaps(dropped["counts"].(map[string]any), want) {
		t.Errorf("dropped line = %v; want count 20 and counts %v", dropped, want)
	}
}

func equalMaps(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A name in a denied line is cut at 200 characters and stays one line.
func TestADeniedNameIsCutAndStaysOneLine(t *testing.T) {
	var buf bytes.Buffer
	d := newDenier(slog.New(slog.NewJSONHandler(&buf, nil)), time.Now)
	d.deny(wire.NoToken, "/v1/claim", strings.Repeat("x", 300)+"\nnext", "")
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("the line %q is not one JSON line: %v", buf.String(), err)
	}
	named, _ := m["named"].(map[string]any)
	if text, _ := named["text"].(string); len(text) != NameCut || m["named_cut"] != true {
		t.Errorf("named = %v, named_cut = %v; want a text of %d and named_cut", m["named"], m["named_cut"], NameCut)
	}
}
