package top

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/forge"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// loop drives Run in a test: each look takes its answer from answers,
// each draw goes to draws, and the test sends the ticks, the messages
// and the resizes. Nothing waits for real time: the test waits for the
// draws that it caused.
type loop struct {
	t       *testing.T
	answers chan answer
	draws   chan []string
	ticks   chan time.Time
	forged  chan time.Time
	msgs    chan struct{}
	resized chan struct{}
	mu      sync.Mutex
	width   int
	looks   int
	done    chan error
	cancel  context.CancelFunc
}

type answer struct {
	reply wire.TopReply
	err   error
}

func startLoop(t *testing.T, first answer, forgeRead func(context.Context, name.Repo) (forge.Repo, error)) *loop {
	t.Helper()
	l := &loop{t: t, answers: make(chan answer, 8), draws: make(chan []string, 8), ticks: make(chan time.Time),
		forged: make(chan time.Time), msgs: make(chan struct{}), resized: make(chan struct{}), width: 80, done: make(chan error, 1)}
	l.answers <- first
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	clock := time.Date(2026, 12, 2, 21, 35, 7, 0, time.UTC)
	go func() {
		l.done <- Run(ctx, Options{
			Look: func(ctx context.Context) (wire.TopReply, error) {
				l.mu.Lock()
				l.looks++
				l.mu.Unlock()
				select {
				case a := <-l.answers:
					return a.reply, a.err
				case <-ctx.Done():
					return wire.TopReply{}, ctx.Err()
				}
			},
			Forge: forgeRead,
			Draw:  func(lines []string) { l.draws <- lines },
			Width: func() int { l.mu.Lock(); defer l.mu.Unlock(); return l.width },
			Now: func() time.Time {
				l.mu.Lock()
				defer l.mu.Unlock()
				clock = clock.Add(time.Second)
				return clock
			},
			Ticks: l.ticks, ForgeTicks: l.forged, Messages: l.msgs, Resized: l.resized,
		})
	}()
	t.Cleanup(func() {
		cancel()
		<-l.done
	})
	return l
}

// draw waits for the next draw.
func (l *loop) draw() []string {
	l.t.Helper()
	select {
	case d := <-l.draws:
		return d
	case err := <-l.done:
		l.t.Fatalf("Run ended with %v; want a draw", err)
	case <-time.After(30 * time.Second):
		l.t.Fatal("no draw in 30 s")
	}
	return nil
}

func replyOf(users ...string) wire.TopReply {
	r := wire.TopReply{Build: "1.0.0 10df8a4 2026-10-04T12:00:00Z"}
	for _, u := range users {
		r.People = append(r.People, wire.TopPerson{User: u})
	}
	return r
}

func TestGivenAFirstLookThatFailsThenRunEndsWithItsError(t *testing.T) {
	reach := &riffclient.ReachError{URL: "http://127.0.0.1:7878"}
	err := Run(context.Background(), Options{Look: func(context.Context) (wire.TopReply, error) { return wire.TopReply{}, reach },
		Draw: func([]string) { t.Error("a draw after a failed first look") }, Width: func() int { return 80 }, Now: time.Now})
	if !errors.Is(err, reach) {
		t.Errorf("Run = %v; want the error of the first look", err)
	}
}

// The guide, "When riff cannot reach the server": the last table stays
// under a red line with the time of the last good look; a new look each
// tick; the line goes when the server is back.
func TestGivenAGoodLookWhenTheServerGivesNoReplyThenTheLastTableStaysUnderTheFaultLineUntilTheServerIsBack(t *testing.T) {
	l := startLoop(t, answer{reply: replyOf("ann")}, nil)
	first := l.draw()
	if !strings.Contains(strings.Join(first, "\n"), "ann") {
		t.Fatalf("first table = %q", first)
	}
	l.answers <- answer{err: &riffclient.NoReplyError{URL: "http://x", Budget: 60 * time.Second}}
	l.ticks <- time.Time{}
	got := l.draw()
	if got[0] != "riff: no good look since 21:35:08: riff-server gave no reply in 60 seconds" {
		t.Errorf("first line = %q", got[0])
	}
	if strings.Join(got[1:], "\n") != strings.Join(first, "\n") {
		t.Errorf("the table under the line changed:\n%s", strings.Join(got, "\n"))
	}
	l.answers <- answer{err: &riffclient.ReachError{URL: "http://x"}}
	l.ticks <- time.Time{}
	if got := l.draw(); got[0] != "riff: no good look since 21:35:08: cannot reach riff-server" {
		t.Errorf("first line = %q; want the time of the last good look and the new fault", got[0])
	}
	l.answers <- answer{reply: replyOf("ann", "bob")}
	l.ticks <- time.Time{}
	back := strings.Join(l.draw(), "\n")
	if strings.Contains(back, "no good look") || !strings.Contains(back, "bob") {
		t.Errorf("after the server is back:\n%s", back)
	}
}

// A fault that no try can repair ends riff top with its error.
func TestGivenALookRefusedWhenTheSignInEndedThenRunEndsWithTheRefusal(t *testing.T) {
	l := startLoop(t, answer{reply: replyOf("ann")}, nil)
	l.draw()
	refused := wire.Refuse(wire.BadToken, "the sign-in of this machine ended")
	l.answers <- answer{err: refused}
	l.ticks <- time.Time{}
	select {
	case err := <-l.done:
		l.done <- err // for the cleanup
		if !errors.Is(err, refused) {
			t.Errorf("Run = %v; want the refusal", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not end")
	}
}

// Each message of the thread brings a new look; a resize draws the same
// table again at the new width; Ctrl-C (the end of ctx) ends Run with
// nil.
func TestGivenALiveTableWhenAMessageComesOrTheTerminalResizesThenItDrawsAgainAndCtrlCEndsIt(t *testing.T) {
	l := startLoop(t, answer{reply: replyOf("ann")}, nil)
	l.draw()
	l.answers <- answer{reply: replyOf("ann", "carol")}
	l.msgs <- struct{}{}
	if got := strings.Join(l.draw(), "\n"); !strings.Contains(got, "carol") {
		t.Errorf("after a message:\n%s", got)
	}
	l.mu.Lock()
	l.width = 10
	looks := l.looks
	l.mu.Unlock()
	l.resized <- struct{}{}
	for _, line := range l.draw() {
		if n := len([]rune(line)); n > 10 {
			t.Errorf("a line of %d cells after a resize to 10: %q", n, line)
		}
	}
	l.mu.Lock()
	if l.looks != looks {
		t.Errorf("a resize made a look")
	}
	l.mu.Unlock()
	l.cancel()
	if err := <-l.done; err != nil {
		t.Errorf("Run after Ctrl-C = %v; want nil", err)
	}
	l.done <- nil
}

// gh is read at the start and each minute; a repository that gh cannot
// read loses its board, unless the server does not answer: then the
// table keeps it.
func TestGivenGHWhenItFailsForARepositoryThenItsBoardGoesButNotWhileTheServerGivesNoReply(t *testing.T) {
	reply := replyOf("ann")
	reply.Boards = []wire.TopBoard{{Repo: "o/r", Claimed: []name.Item{"issue-1"}}}
	var mu sync.Mutex
	fail := false
	read := func(context.Context, name.Repo) (forge.Repo, error) {
		mu.Lock()
		defer mu.Unlock()
		if fail {
			return forge.Repo{}, errors.New("gh: no access")
		}
		return forge.Repo{Wave: "Wave 1"}, nil
	}
	l := startLoop(t, answer{reply: reply}, read)
	l.draw()
	if got := strings.Join(l.draw(), "\n"); !strings.Contains(got, "Wave 1 (o/r)") {
		t.Fatalf("after the read of gh:\n%s", got)
	}
	mu.Lock()
	fail = true
	mu.Unlock()
	l.answers <- answer{err: &riffclient.ReachError{URL: "http://x"}}
	l.ticks <- time.Time{}
	l.draw()
	l.forged <- time.Time{}
	if got := strings.Join(l.draw(), "\n"); !strings.Contains(got, "Wave 1 (o/r)") {
		t.Errorf("the board went while the server gave no reply:\n%s", got)
	}
	l.answers <- answer{reply: reply}
	l.ticks <- time.Time{}
	l.draw()
	l.forged <- time.Time{}
	if got := strings.Join(l.draw(), "\n"); strings.Contains(got, "Wave 1") || strings.Contains(got, "gh") {
		t.Errorf("a repository that gh cannot read has a board or an error line:\n%s", got)
	}
}
