package denied

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

const testBuild = "1.4.2 a1b2c3d4e5f6 2026-09-27T10:00:00Z"

// fakeRiff takes the posts of the thread denials, refuses the posts whose
// body holds refuse, and fails (503, no reply) those whose body holds
// down, as a server that went away.
type fakeRiff struct {
	refuse, down string
	mu           sync.Mutex
	posts        []wire.Post
	leaves       []wire.Leave
}

func (f *fakeRiff) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	w.Header().Set(wire.HeaderBuild, testBuild)
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.URL.Path {
	case "/v1/who":
		_ = json.NewEncoder(w).Encode(wire.WhoReply{})
	case "/v1/post":
		var p wire.Post
		_ = json.Unmarshal(raw, &p)
		switch {
		case f.refuse != "" && strings.Contains(p.Body, f.refuse):
			w.Header().Set(wire.HeaderRefused, string(wire.BadRequest))
			w.WriteHeader(wire.BadRequest.Status())
			_, _ = io.WriteString(w, `{"reason":"no"}`)
			return
		case f.down != "" && strings.Contains(p.Body, f.down):
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		f.posts = append(f.posts, p)
		_ = json.NewEncoder(w).Encode(wire.PostReply{Thread: p.Thread, Seq: uint64(len(f.posts))})
	case "/v1/leave":
		var l wire.Leave
		_ = json.Unmarshal(raw, &l)
		f.leaves = append(f.leaves, l)
		_, _ = io.WriteString(w, "{}")
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

func (f *fakeRiff) inputs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, p := range f.posts {
		_, in, _ := Parse(p.Body)
		out = append(out, in)
	}
	return out
}

func testClient(t *testing.T, h http.Handler) *riffclient.Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	b, err := build.ParseBuild(testBuild)
	if err != nil {
		t.Fatal(err)
	}
	u, err := riffclient.ParseServer(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return riffclient.New(u, riffclient.Options{Build: b, Budget: 100 * time.Millisecond, ReconnectWait: time.Millisecond})
}

// put puts a record of input at at in the outbox.
func put(t *testing.T, box Outbox, input string, at time.Time) Record {
	t.Helper()
	me := name.SessionURI{User: "mike", Host: "pangolin", Repo: "acme/app", Session: "25456ff6-aaaa"}
	rec := Make(Input{ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"` + input + `"}`), Reason: "r"}, me, at, nil)
	if err := box.Put(rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestGivenRecordsInTheOutboxWhenTheyAreListedThenTheyWaitOldestFirstInPrivateFiles:
// a record is one file of mode 0600 with no temp file left, and the
// listing is in the order of the refusals.
func TestGivenRecordsInTheOutboxWhenTheyAreListedThenTheyWaitOldestFirstInPrivateFiles(t *testing.T) {
	box := Outbox{Dir: t.TempDir()}
	if waiting, err := box.Waiting(); err != nil || len(waiting) != 0 {
		t.Fatalf("Waiting of no outbox = %v, %v; want none", waiting, err)
	}
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	second := put(t, box, "two", at.Add(time.Second))
	first := put(t, box, "one", at)
	waiting, err := box.Waiting()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{first.ID + ".json", second.ID + ".json"}; !slices.Equal(waiting, want) {
		t.Errorf("Waiting = %v; want %v", waiting, want)
	}
	entries, _ := os.ReadDir(filepath.Join(box.Dir, outboxDir))
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("mode of %s = %v, %v; want 0600", e.Name(), info.Mode().Perm(), err)
		}
	}
	if len(entries) != 2 {
		t.Errorf("the outbox holds %d files; want the 2 records and no temp file", len(entries))
	}
}

// TestGivenAServerThatTakesEachRecordWhenTheOutboxSendsThenEachIsPostedInOrderAndTheSessionLeaves:
// the records go oldest first, each with its key, the outbox is empty
// after, and the session leaves the thread once.
func TestGivenAServerThatTakesEachRecordWhenTheOutboxSendsThenEachIsPostedInOrderAndTheSessionLeaves(t *testing.T) {
	fake := &fakeRiff{}
	box := Outbox{Dir: t.TempDir()}
	now := time.Now()
	for i, in := range []string{"one", "two", "three"} {
		put(t, box, in, now.Add(time.Duration(i)*time.Millisecond))
	}
	posted, err := box.Send(context.Background(), testClient(t, fake), func() time.Time { return now })
	if err != nil || posted != 3 {
		t.Fatalf("Send = %d, %v; want 3 posted", posted, err)
	}
	if got, want := fake.inputs(), []string{"one", "two", "three"}; !slices.Equal(got, want) {
		t.Errorf("posted inputs = %v; want %v", got, want)
	}
	for _, p := range fake.posts {
		if !strings.HasPrefix(p.Key, "denied-") || p.Thread != string(name.Denials) || p.Me.Session == "" {
			t.Errorf("post = %+v; want the key denied-ID in the thread denials by the session", p)
		}
	}
	if len(fake.leaves) != 1 || fake.leaves[0].Thread != string(name.Denials) {
		t.Errorf("leaves = %+v; want the session to leave denials once", fake.leaves)
	}
	if waiting, _ := box.Waiting(); len(waiting) != 0 {
		t.Errorf("after the send the outbox holds %v; want none", waiting)
	}
}

// TestGivenARecordThatTheServerRefusesWhenTheOutboxSendsThenItIsSetAsideAndTheLaterOnesGo:
// a refusal is never taken later, so it must not stop the records after
// it; a record that does not read is set aside too.
func TestGivenARecordThatTheServerRefusesWhenTheOutboxSendsThenItIsSetAsideAndTheLaterOnesGo(t *testing.T) {
	fake := &fakeRiff{refuse: "bad"}
	box := Outbox{Dir: t.TempDir()}
	now := time.Now()
	put(t, box, "one", now)
	refused := put(t, box, "bad", now.Add(time.Millisecond))
	put(t, box, "three", now.Add(2*time.Millisecond))
	broken := filepath.Join(box.Dir, outboxDir, "0000000000001-broken.json")
	if err := os.WriteFile(broken, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	posted, err := box.Send(context.Background(), testClient(t, fake), func() time.Time { return now })
	if err != nil || posted != 2 {
		t.Fatalf("Send = %d, %v; want 2 posted", posted, err)
	}
	if got, want := fake.inputs(), []string{"one", "three"}; !slices.Equal(got, want) {
		t.Errorf("posted inputs = %v; want %v", got, want)
	}
	for _, aside := range []string{filepath.Join(box.Dir, outboxDir, refused.ID+".json.refused"), broken + ".bad"} {
		if _, err := os.Stat(aside); err != nil {
			t.Errorf("%s is not set aside: %v", filepath.Base(aside), err)
		}
	}
	if waiting, _ := box.Waiting(); len(waiting) != 0 {
		t.Errorf("after the send the outbox holds %v; want none", waiting)
	}
}

// TestGivenAServerThatGoesAwayWhenTheOutboxSendsThenItStopsAndTheRestWaitsInOrder:
// the first record that the server does not take stops the send, so the
// order stays for the next sender.
func TestGivenAServerThatGoesAwayWhenTheOutboxSendsThenItStopsAndTheRestWaitsInOrder(t *testing.T) {
	fake := &fakeRiff{down: "two"}
	box := Outbox{Dir: t.TempDir()}
	now := time.Now()
	put(t, box, "one", now)
	two := put(t, box, "two", now.Add(time.Millisecond))
	three := put(t, box, "three", now.Add(2*time.Millisecond))
	posted, err := box.Send(context.Background(), testClient(t, fake), func() time.Time { return now })
	if err == nil || posted != 1 {
		t.Fatalf("Send = %d, %v; want 1 posted and the error of the server", posted, err)
	}
	if got, want := fake.inputs(), []string{"one"}; !slices.Equal(got, want) {
		t.Errorf("posted inputs = %v; want %v", got, want)
	}
	waiting, _ := box.Waiting()
	if want := []string{two.ID + ".json", three.ID + ".json"}; !slices.Equal(waiting, want) {
		t.Errorf("the outbox holds %v; want %v", waiting, want)
	}
	box.Log(now, posted, "cannot reach riff-server")
	b, err := os.ReadFile(filepath.Join(box.Dir, logFile))
	if err != nil {
		t.Fatal(err)
	}
	var line struct {
		Severity string `json:"severity"`
		Posted   int    `json:"posted"`
		Kept     int    `json:"kept"`
		Error    string `json:"error"`
	}
	if err := json.Unmarshal(b, &line); err != nil || line.Posted != 1 || line.Kept != 2 || line.Severity != "WARNING" || line.Error != "cannot reach riff-server" {
		t.Errorf("denied.log = %s (%v); want posted 1, kept 2, WARNING and the error", b, err)
	}
}

// FuzzLineReadsBack: the line of each record parses back to its tags and
// its input, whatever its texts hold.
func FuzzLineReadsBack(f *testing.F) {
	f.Add("production-deploy", "Bash", "git push", "mike", "git push origin v3.2.0: tag=x")
	f.Add(`says "no": twice`, "mcp__x", "-", "ann", "")
	f.Add("a=b c", "T\\x", "h\"", "u", ": :")
	f.Fuzz(func(t *testing.T, reason, tool, head, user, input string) {
		rec := Record{Me: name.SessionURI{User: user, Host: "pangolin", Repo: "acme/app", Session: "25456ff6-aaaa"},
			Reason: oneLine(reason), Tool: oneLine(tool), Head: oneLine(head), Input: oneLine(input)}
		line := Line(rec, "lead", "-")
		tags, in, ok := Parse(line)
		if !ok {
			t.Fatalf("Parse(%q) is no record", line)
		}
		want := map[string]string{"reason": rec.Reason, "tool": rec.Tool, "head": rec.Head, "user": rec.Me.User}
		for k, v := range want {
			if v == "" {
				v = "-"
			}
			if tags[k] != v {
				t.Errorf("tag %s of %q = %q; want %q", k, line, tags[k], v)
			}
		}
		if in != rec.Input {
			t.Errorf("input of %q = %q; want %q", line, in, rec.Input)
		}
	})
}
