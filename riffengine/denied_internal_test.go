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

// deny is a refused call as the handler makes its line: take, then
// write when the window has a line for it.
func deny(d *denier, code wire.Code, path, named, key string) bool {
	reserved := reservedFor(code, key)
	if !d.take(code, reserved) {
		return false
	}
	d.write(code, path, named, keyIf(reserved, key))
	return true
}

// jsonLines reads each line of buf as a JSON object.
func jsonLines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("the line %q is not one JSON line: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// The reserved lines of a window: a call with a valid token (not_you,
// bad_proof) takes a line up to DeniedMax; a call with no valid token
// only up to DeniedMax-DeniedReserved. The token layer of a riff with no
// sign-in has no valid token, so this test calls the denier itself.
func TestGivenAFloodWithNoTokenWhenValidTokensComeThenTheLastTwentyLinesAreKeptForThem(t *testing.T) {
	var buf bytes.Buffer
	now := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	d := quietDenier(&buf, func() time.Time { return now })

	// A bad token or an old build with a key (the key of a proof) is no
	// valid token: its line has no key, and it takes no reserved line.
	deny(d, wire.BadToken, "/v1/token/refresh", "", "thumb-of-a-proof")
	deny(d, wire.OldBuild, "/v1/claim", "", "thumb-of-a-proof")
	for range 90 {
		deny(d, wire.NoToken, "/v1/claim", "", "")
	}
	deny(d, wire.BadToken, "/v1/token/refresh", "", "thumb-of-a-proof")
	deny(d, wire.OldBuild, "/v1/claim", "", "thumb-of-a-proof")
	for range 15 {
		deny(d, wire.NotYou, "/v1/claim", "riff://ann@pangolin/o/repo?session=ann1", "thumb")
	}
	for range 15 {
		deny(d, wire.BadProof, "/v1/claim", "", "thumb")
	}
	d.end()

	counts := map[string]int{}
	var dropped map[string]any
	for _, m := range jsonLines(t, &buf) {
		if m["msg"] == "dropped" {
			dropped = m
			continue
		}
		counts[m["code"].(string)]++
		if _, ok := m["key"]; ok != (m["code"] == "not_you" || m["code"] == "bad_proof") {
			t.Errorf("line %v: want a key only of a valid token", m)
		}
	}
	if counts["no_token"] != 78 || counts["bad_token"] != 1 || counts["old_build"] != 1 || counts["not_you"]+counts["bad_proof"] != 20 {
		t.Errorf("denied lines = %v; want 1 bad_token, 1 old_build, 78 no_token and 20 not_you or bad_proof", counts)
	}
	// 15 not_you and 5 bad_proof take the reserved lines; the other 10
	// bad_proof are over the limit.
	want := map[string]any{"no_token": 12.0, "bad_token": 1.0, "old_build": 1.0, "bad_proof": 10.0}
	if dropped == nil || dropped["count"] != 24.0 || !equalMaps(dropped["counts"].(map[string]any), want) {
		t.Errorf("dropped line = %v; want count 24 and counts %v", dropped, want)
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

// A name in a denied line is cut at 200 characters (not bytes: the cut
// leaves no half of a character) and stays one line.
func TestGivenANameOverTwoHundredCharactersWhenDeniedThenItIsCutAndStaysOneLine(t *testing.T) {
	for _, tc := range []struct {
		name, named, want string
		cut               bool
	}{
		{"a long name", strings.Repeat("x", 300) + "\nnext", strings.Repeat("x", NameCut), true},
		{"a long name of wide characters", strings.Repeat("é", 250), strings.Repeat("é", NameCut), true},
		{"a name of 200 characters", strings.Repeat("é", NameCut), strings.Repeat("é", NameCut), false},
		{"line breaks", "a\nb\rc\r\nd\u2028e\u2029f\u0085g", `a\nb\rc\r\nd\u2028e\u2029f\u0085g`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			d := quietDenier(&buf, time.Now)
			deny(d, wire.NoToken, "/v1/claim", tc.named, "")
			if n := strings.Count(buf.String(), "\n"); n != 1 {
				t.Fatalf("the line %q has %d line breaks; want 1 at its end", buf.String(), n)
			}
			m := jsonLines(t, &buf)[0]
			named, _ := m["named"].(map[string]any)
			if named["text"] != tc.want || (m["named_cut"] == true) != tc.cut {
				t.Errorf("named = %q, named_cut = %v; want %q, cut %v", named["text"], m["named_cut"], tc.want, tc.cut)
			}
		})
	}
}

// named is the caller that the call named: a session URI as the caller
// of a line, a person as its user, each other name as text; a text with
// an @ can be an email, and a line never holds one.
func TestGivenEachKindOfNameWhenDeniedThenTheLineNamesItAsTheSeedsSay(t *testing.T) {
	for _, tc := range []struct {
		named string
		want  map[string]any
	}{
		{"riff://ann@pangolin/o/repo?session=ann1", map[string]any{"session": "ann/ann1"}},
		{"riff://ann@pangolin", map[string]any{"person": "ann"}},
		{"not a uri", map[string]any{"text": "not a uri"}},
		{"mark-person@mark-domain.example", map[string]any{"hidden": "email"}},
	} {
		var buf bytes.Buffer
		d := quietDenier(&buf, time.Now)
		deny(d, wire.NoToken, "/v1/claim", tc.named, "")
		m := jsonLines(t, &buf)[0]
		if got, _ := m["named"].(map[string]any); !equalMaps(got, tc.want) {
			t.Errorf("named of %q = %v; want %v", tc.named, m["named"], tc.want)
		}
		if strings.Contains(buf.String(), "mark-") {
			t.Errorf("the line holds the email: %s", buf.String())
		}
	}
	// A call with no name has no named.
	var buf bytes.Buffer
	d := quietDenier(&buf, time.Now)
	deny(d, wire.NoToken, "/v1/claim", "", "")
	if m := jsonLines(t, &buf)[0]; m["named"] != nil || m["named_cut"] != nil || m["caller"] != nil || m["reason"] != nil {
		t.Errorf("line of a call with no name = %v; want no named, no caller, no reason", m)
	}
}

// heldTimer is a timer of a window that a test fires by hand.
type heldTimer struct {
	wait    time.Duration
	fire    func()
	stopped bool
}

// quietDenier is a denier that writes to buf, with timers that never
// fire on their own: a test fires them (timers gives them).
func quietDenier(buf *bytes.Buffer, now func() time.Time) *denier {
	d, _ := heldDenier(buf, now)
	return d
}

func heldDenier(buf *bytes.Buffer, now func() time.Time) (*denier, *[]*heldTimer) {
	d := newDenier(slog.New(slog.NewJSONHandler(buf, nil)), now)
	var timers []*heldTimer
	d.after = func(wait time.Duration, f func()) func() bool {
		t := &heldTimer{wait: wait, fire: f}
		timers = append(timers, t)
		return func() bool { t.stopped = true; return true }
	}
	return d, &timers
}

// isOpen says whether a window is open, and its number.
func (d *denier) isOpen() (uint64, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.window, d.open
}

// A window ends once: the timer of a window that a late call already
// ended (by the clock) does not end the next window, and each end of a
// window stops its timer.
func TestGivenAWindowThatACallEndedWhenItsTimerFiresThenTheNextWindowStaysOpen(t *testing.T) {
	var buf bytes.Buffer
	now := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	d, timers := heldDenier(&buf, func() time.Time { return now })
	deny(d, wire.NoToken, "/v1/claim", "", "")
	first, open := d.isOpen()
	if !open || len(*timers) != 1 || (*timers)[0].wait != DeniedInterval {
		t.Fatalf("after the first call: open %v, timers %d; want an open window with one timer of %v", open, len(*timers), DeniedInterval)
	}
	now = now.Add(DeniedInterval)
	deny(d, wire.NoToken, "/v1/claim", "", "") // ends the first window, opens the second
	if !(*timers)[0].stopped || len(*timers) != 2 {
		t.Fatalf("the late call: first timer stopped %v, timers %d; want the first stopped and a second", (*timers)[0].stopped, len(*timers))
	}
	(*timers)[0].fire() // the first timer fired all the same, late
	second, open := d.isOpen()
	if !open || second == first {
		t.Fatalf("after the old timer: window %d (first %d), open %v; want the second window open", second, first, open)
	}
	for range DeniedMax {
		deny(d, wire.NoToken, "/v1/claim", "", "")
	}
	(*timers)[1].fire()
	if _, open := d.isOpen(); open {
		t.Errorf("the timer of the window did not end it")
	}
	if (*timers)[1].stopped {
		t.Errorf("the end by its own timer stopped the timer")
	}
	lines := jsonLines(t, &buf)
	if last := lines[len(lines)-1]; last["msg"] != "dropped" || last["count"] != float64(DeniedMax+1-(DeniedMax-DeniedReserved)) {
		t.Errorf("last line = %v; want the dropped line of the second window", last)
	}
	// and a stop with no window open arms nothing and writes nothing
	d.end()
	if n := len(jsonLines(t, &buf)); n != len(lines) || len(*timers) != 2 {
		t.Errorf("a stop with no open window: %d lines (want %d), %d timers (want 2)", n, len(lines), len(*timers))
	}
}
