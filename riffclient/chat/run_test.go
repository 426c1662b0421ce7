package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/render"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

const testBuild = "0.4.3 7213825ab1c2 2026-09-27T20:10:44Z"

// fakeChat is a riff-server with the thread chat only: it keeps the last
// 200 lines, gives them to a read, and streams each new one to the open
// tail. A post keeps its line; breaks ends the open stream.
type fakeChat struct {
	mu      sync.Mutex
	lines   []wire.Message
	next    uint64
	streams []chan wire.Message
	posts   []wire.Post
	opens   int
	// held, when set, keeps the second open of the stream (after a
	// break) until it is closed: the test posts while the chat is away.
	held chan struct{}
}

func (f *fakeChat) add(sender name.SessionURI, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	m := wire.Message{Thread: "chat", Seq: f.next, AtMs: time.Date(2026, 9, 28, 14, 2, 0, 0, time.UTC).UnixMilli(),
		Sender: sender, Kind: "message", Body: body, Verified: true}
	f.lines = append(f.lines, m)
	if len(f.lines) > 200 {
		f.lines = f.lines[len(f.lines)-200:]
	}
	for _, s := range f.streams {
		s <- m
	}
}

// cut ends each open stream, as a dropped connection does.
func (f *fakeChat) cut() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.streams {
		close(s)
	}
	f.streams = nil
}

func (f *fakeChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set(wire.HeaderBuild, testBuild)
	switch r.URL.Path {
	case "/v1/read":
		var call wire.Read
		json.NewDecoder(r.Body).Decode(&call)
		f.mu.Lock()
		page := wire.ThreadPage{Thread: "chat", Messages: []wire.Message{}}
		for _, m := range f.lines {
			if m.Seq <= call.After {
				continue
			}
			if len(page.Messages) == 50 {
				page.More = true
				break
			}
			page.Messages = append(page.Messages, m)
			page.Last = m.Seq
		}
		if len(f.lines) > 0 && f.lines[0].Seq > call.After+1 {
			page.Lost = f.lines[0].Seq - call.After - 1
		}
		f.mu.Unlock()
		json.NewEncoder(w).Encode(wire.ReadReply{Threads: []wire.ThreadPage{page}})
	case "/v1/who":
		json.NewEncoder(w).Encode(wire.WhoReply{})
	case "/v1/post":
		var call wire.Post
		json.NewDecoder(r.Body).Decode(&call)
		f.mu.Lock()
		f.posts = append(f.posts, call)
		f.mu.Unlock()
		f.add(call.Me, call.Body)
		json.NewEncoder(w).Encode(wire.PostReply{Thread: "chat", Seq: f.next})
	case "/v1/tail":
		f.mu.Lock()
		f.opens++
		held := f.held
		if f.opens < 2 {
			held = nil
		}
		f.mu.Unlock()
		if held != nil {
			select {
			case <-held:
			case <-r.Context().Done():
				return
			}
		}
		ch := make(chan wire.Message, 512)
		f.mu.Lock()
		f.streams = append(f.streams, ch)
		last := f.next
		f.mu.Unlock()
		send := func(e wire.Event) {
			b, _ := json.Marshal(e)
			w.Write(append(b, '\n'))
			http.NewResponseController(w).Flush()
		}
		send(wire.Event{Type: wire.EventHello, Last: last})
		for {
			select {
			case m, ok := <-ch:
				if !ok {
					return
				}
				send(wire.Event{Type: wire.EventMessage, Message: &m})
			case <-r.Context().Done():
				return
			}
		}
	default:
		http.NotFound(w, r)
	}
}

// syncBuffer is a buffer for the chat and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func waitFor(t *testing.T, b *syncBuffer, text string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(b.String(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("the chat does not show %q:\n%s", text, b.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestGivenAChatThroughAPipeWhenLinesComeAndABreakLosesSomeThenEachShowsOnceAndTheLostLineIsYellow:
// the history shows the kept lines (the lines older than them are no
// break: no lost line), a line typed shows once (from the server), and
// after a break with more than 200 new lines the chat shows
// (reconnecting…), the yellow line of the lost ones, the kept ones in
// order, then (back).
func TestGivenAChatThroughAPipeWhenLinesComeAndABreakLosesSomeThenEachShowsOnceAndTheLostLineIsYellow(t *testing.T) {
	brett := name.SessionURI{User: "brett", Host: "heron"}
	f := &fakeChat{held: make(chan struct{})}
	for i := 1; i <= 210; i++ {
		f.add(brett, fmt.Sprintf("history %d", i))
	}
	srv := httptest.NewServer(f)
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	b, _ := build.ParseBuild(testBuild)
	client := riffclient.New(u, riffclient.Options{Build: b, Stall: time.Minute})
	in, typed, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { typed.Close() })
	var out, notes syncBuffer
	clientNotes := NewNotes()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	mike := name.SessionURI{User: "mike", Host: "thelio"}
	go func() {
		done <- Run(ctx, Options{Client: client, Me: mike, In: in, Out: &out, Err: &notes, Notes: clientNotes,
			Paint: func(p render.Part) string {
				if p.Style == render.Warn {
					return "<yellow>" + p.Text + "</yellow>"
				}
				return p.Text
			}})
	}()
	waitFor(t, &out, "history 210")
	if strings.Contains(out.String(), "history 10\n") || strings.Count(out.String(), "<brett@heron> history") != 200 {
		t.Errorf("the history shows other than the 200 kept lines:\n%s", out.String())
	}
	if strings.Contains(notes.String(), "lost") {
		t.Errorf("the history says that lines are lost: %q", notes.String())
	}
	fmt.Fprintln(typed, "hello from mike")
	waitFor(t, &out, "<mike@thelio> hello from mike")
	fmt.Fprintln(typed, "/nick mike2")
	waitFor(t, &notes, "sends no line /nick")
	// A note of the client (riffclient.Options.Out) shows as a line of
	// the chat, a warning when it starts with riff:.
	fmt.Fprint(clientNotes, "riff: riff-server runs build 0.4.4\n")
	waitFor(t, &notes, "<yellow>riff: riff-server runs build 0.4.4</yellow>")

	f.cut()
	waitFor(t, &notes, "(reconnecting…)")
	for i := 1; i <= 250; i++ {
		f.add(brett, fmt.Sprintf("break %d", i))
	}
	close(f.held)
	waitFor(t, &notes, "(back)")
	waitFor(t, &out, "break 250")
	if n := strings.Count(out.String(), "<mike@thelio> hello from mike"); n != 1 {
		t.Errorf("the own line shows %d times; want once", n)
	}
	if !strings.Contains(notes.String(), "<yellow>riff: 50 messages of the break are lost. The server keeps only the last messages of a thread.</yellow>") {
		t.Errorf("no yellow line of the 50 lost lines:\n%s", notes.String())
	}
	at := strings.Index(out.String(), "break 51\n")
	if at < 0 || strings.Contains(out.String(), "break 50\n") || strings.Index(out.String(), "break 250\n") < at {
		t.Errorf("the kept lines of the break are not there in order:\n%s", out.String())
	}
	// The last line of the input, with no line break, is sent at its end.
	fmt.Fprint(typed, "the last words")
	typed.Close()
	waitFor(t, &out, "<mike@thelio> the last words")
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run at the end of ctx = %v; want nil", err)
	}
}
