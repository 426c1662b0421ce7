package riffengine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/mem"
)

// The input edges of the HTTP layer: what a black-box run of the binary
// sent (control characters, NUL, 60 KB values, a 4 KB build header).

// badValues are the values that no name can be.
func badValues() map[string]string {
	return map[string]string{
		"a newline": "ann\nrm -rf",
		"a NUL":     "ann\x00",
		"an escape": "\x1b[31mred",
		"a space":   "ann lee",
		"60 KB":     strings.Repeat("x", 60<<10),
		"not UTF-8": "\xff\xfe",
	}
}

// maxRefusal is the longest refusal that repeats an input: the input is
// cut to 64 characters, and the rest of a text is short.
const maxRefusal = 1000

// checkEcho fails when a refusal holds a control character or is longer
// than maxRefusal: it repeats a raw input.
func checkEcho(t *testing.T, what string, rep reply) {
	t.Helper()
	body := string(rep.body)
	if len(body) > maxRefusal {
		t.Errorf("%s: the refusal has %d bytes; want at most %d: %.200q", what, len(body), maxRefusal, body)
	}
	if !utf8.ValidString(body) {
		t.Errorf("%s: the refusal is not UTF-8: %.200q", what, body)
	}
	for _, r := range strings.TrimSuffix(body, "\n") {
		if unicode.IsControl(r) {
			t.Errorf("%s: the refusal holds the control character %q: %.200q", what, r, body)
			break
		}
	}
}

func TestGivenBadInputsWhenTheServerRefusesThemThenTheRefusalQuotesAndCutsWhatItRepeats(t *testing.T) {
	r := start(t, setup{})
	r.register("ann/ann1", "ann/ann2")
	me := uri("ann/ann1")
	for label, bad := range badValues() {
		bodies := map[string]any{
			"/v1/claim":       wire.Claim{Me: me, Item: nameItem(bad)},
			"/v1/claim ":      wire.Claim{Me: me, Thread: bad, Item: "issue-1"},
			"/v1/join":        wire.Join{Me: me, Thread: bad},
			"/v1/post":        wire.Post{Me: me, Tell: bad, Body: "hi"},
			"/v1/post ":       wire.Post{Me: me, Thread: "dm:" + bad, Body: "hi"},
			"/v1/release/for": wire.ReleaseFor{Me: me, Item: "issue-1", Session: bad},
			"/v1/lead":        wire.Lead{Me: me, Session: bad},
			"/v1/read":        wire.Read{Me: me, Thread: bad},
			"/v1/notes/read":  wire.Notes{Me: me, User: bad},
			"/v1/idle/set":    wire.SetIdle{Me: me, User: bad, Host: "h", Repo: "o/repo", Count: 1},
			"/v1/tail":        wire.Tail{Me: me, Thread: bad},
		}
		for path, body := range bodies {
			rep := r.post(strings.TrimSpace(path), body)
			if rep.status == http.StatusOK {
				continue
			}
			checkEcho(t, path+" with "+label, rep)
		}
		// A URI of me with a part that this build does not know.
		raw, _ := json.Marshal(map[string]string{"me": "riff://ann@pangolin/o/repo?session=ann1&later=" + url.QueryEscape(bad)})
		checkEcho(t, "a me with an unknown part "+label, r.post("/v1/whoami", raw))
		// A header with a control character does not reach a handler
		// (net/http refuses it on both sides); the others do.
		if strings.IndexFunc(bad, unicode.IsControl) >= 0 || len(bad) > 8<<10 {
			continue
		}
		checkEcho(t, "riff-build "+label, r.post("/v1/whoami", wire.Whoami{Me: me}, wire.HeaderBuild, "0.1.0 "+strings.Repeat("a", 4<<10)+bad))
		checkEcho(t, "riff-call "+label, r.post("/v1/claim", wire.Claim{Me: me, Item: "issue-1"}, wire.HeaderCall, bad))
	}
	// A 404 of a path with control characters and 4 KB.
	for _, path := range []string{"/v1/%00%1b%5b31m", "/v1/" + strings.Repeat("p", 4<<10)} {
		rep := r.post(path, wire.Whoami{Me: me})
		if rep.status != http.StatusNotFound {
			t.Errorf("POST %.40s = %s; want 404", path, rep)
		}
		checkEcho(t, "a 404", rep)
	}
}

func nameItem(s string) name.Item { return name.Item(s) }

func TestGivenAUserThatNoNameCanBeWhenNotesReadNamesItThenItIsRefusedAsIdleSetRefusesIt(t *testing.T) {
	r := start(t, setup{})
	r.register("ann/ann1")
	for label, bad := range badValues() {
		notes := r.post("/v1/notes/read", wire.Notes{Me: uri("ann/ann1"), User: bad})
		idle := r.post("/v1/idle/set", wire.SetIdle{Me: uri("ann"), User: bad, Host: "h", Repo: "o/repo", Count: 1})
		if notes.status != http.StatusBadRequest || idle.status != http.StatusBadRequest {
			t.Errorf("a user with %s: notes/read = %s, idle/set = %s; want 400 and 400", label, notes, idle)
		}
		if !strings.HasPrefix(string(notes.body), "bad user ") {
			t.Errorf("notes/read with %s = %q; want it to name the bad user", label, notes.body)
		}
	}
}

// The guide calls the status the step of a session: "A status is one
// line of at most 400 characters. riff refuses a longer one with the step
// has more than 400 characters."
func TestGivenAStatusOverTheLimitWhenItIsSetThenTheRefusalHasTheTextOfTheGuide(t *testing.T) {
	r := start(t, setup{})
	r.register("ann/ann1")
	rep := r.post("/v1/status", wire.Status{Me: uri("ann/ann1"), Text: strings.Repeat("s", wire.MaxStatus+1)})
	if rep.status != http.StatusBadRequest || string(rep.body) != "the step has more than 400 characters" {
		t.Errorf("a long status = %s; want 400 the step has more than 400 characters", rep)
	}
	rep = r.post("/v1/status", wire.Status{Me: uri("ann/ann1"), Text: "two\nlines"})
	if rep.status != http.StatusBadRequest || string(rep.body) != "the step is one line" {
		t.Errorf("a status of two lines = %s; want 400 the step is one line", rep)
	}
}

func TestGivenANegativePromptTimeWhenAKeepAliveSendsItThenItIsRefused(t *testing.T) {
	r := start(t, setup{})
	r.register("ann/ann1")
	minus := int64(-1)
	rep := r.post("/v1/alive", wire.Alive{Me: uri("ann/ann1"), PromptSecs: &minus})
	if rep.status != http.StatusBadRequest || !strings.Contains(string(rep.body), "prompt_secs") {
		t.Errorf("prompt_secs -1 = %s; want 400 that names prompt_secs", rep)
	}
	zero := int64(0)
	r.ok("/v1/alive", wire.Alive{Me: uri("ann/ann1"), PromptSecs: &zero}, nil)
}

func TestGivenACallIDOverTheLimitWhenACommandSendsItThenItIsRefusedAndNotStored(t *testing.T) {
	r := start(t, setup{})
	r.register("ann/ann1")
	at := r.position()
	for _, id := range []string{strings.Repeat("c", 20<<10), strings.Repeat("c", wire.MaxCallID+1), "call id"} {
		rep := r.post("/v1/claim", wire.Claim{Me: uri("ann/ann1"), Item: "issue-1"}, wire.HeaderCall, id)
		if rep.status != http.StatusBadRequest || !strings.Contains(string(rep.body), "call ID") {
			t.Errorf("a call ID of %d bytes = %s; want 400 that names the call ID", len(id), rep)
		}
		checkEcho(t, "a bad call ID", rep)
	}
	if r.position() != at {
		t.Errorf("position %d -> %d; want no record of a refused call ID", at, r.position())
	}
	r.ok("/v1/claim", wire.Claim{Me: uri("ann/ann1"), Item: "issue-1"}, nil, wire.HeaderCall, strings.Repeat("c", wire.MaxCallID))
	for _, rec := range records(t, r.store) {
		if len(rec.Call) > wire.MaxCallID {
			t.Errorf("a record holds a call ID of %d bytes", len(rec.Call))
		}
	}
}

func TestGivenAMalformedSessionWhenReleaseForNamesItThenTheRefusalNamesTheValue(t *testing.T) {
	r := start(t, setup{})
	r.register("ann/ann1")
	for _, bad := range []string{"ann lee", "a\nb\x00cdef", "ab"} {
		rep := r.post("/v1/release/for", wire.ReleaseFor{Me: uri("ann/ann1"), Item: "issue-1", Session: bad})
		if rep.status != http.StatusBadRequest || strings.Contains(string(rep.body), "only the lead") {
			t.Errorf("release/for of the session %q = %s; want 400 that names the session, not the rule of the lead", bad, rep)
		}
		checkEcho(t, "release/for", rep)
	}
}

// fullDisk is a store whose chunk writes fail as a full disk fails in
// the directory store: a file error that names the temporary file.
type fullDisk struct {
	rifflog.Store
	full atomic.Bool
}

const tempFile = "/srv/riff-data/.tmp-00000000000000000003.chunk-1234"

func (d *fullDisk) Put(ctx context.Context, name string, data []byte) error {
	if d.full.Load() && strings.HasPrefix(name, rifflog.ChunkPrefix) {
		return fmt.Errorf("put %s: %w", name, &fs.PathError{Op: "write", Path: tempFile, Err: syscall.ENOSPC})
	}
	return d.Store.Put(ctx, name, data)
}

func TestGivenAFailedWriteWhenEachCallerGetsItsTextThenItSaysWhatFailedAndNotWhere(t *testing.T) {
	disk := &fullDisk{Store: mem.New()}
	r := start(t, setup{store: disk})
	r.register("ann/ann1")
	disk.full.Store(true)
	first := r.post("/v1/claim", wire.Claim{Me: uri("ann/ann1"), Item: "issue-1"})
	next := r.post("/v1/whoami", wire.Whoami{Me: uri("ann/ann1")})
	f := facts(t, r)
	for what, text := range map[string]string{
		"the failed call": string(first.body), "the next call": string(next.body),
		"why": f.Why, "last_error": f.LastError,
	} {
		if strings.Contains(text, "/srv/riff-data") || strings.Contains(text, ".tmp-") {
			t.Errorf("%s = %q; want no path of the disk", what, text)
		}
	}
	if next.status != http.StatusServiceUnavailable || !strings.Contains(string(next.body), "no space left on device") {
		t.Errorf("the next call = %s; want 503 that says the write failed for no space", next)
	}
	if !strings.Contains(f.LastError, "put "+rifflog.ChunkPrefix) || !strings.Contains(f.LastError, "write: no space left on device") {
		t.Errorf("last_error = %q; want what failed: the put of the chunk, and why", f.LastError)
	}
	if !strings.Contains(r.logs.String(), tempFile) {
		t.Errorf("the log has no line with the path of the failed write:\n%s", r.logs)
	}
}
