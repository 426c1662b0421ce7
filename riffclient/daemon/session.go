package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/door"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/wire"
)

// EndBudget is the longest time of the end of a session: the release,
// the end, and the removal of its container.
const EndBudget = time.Minute

// session is one container session of the daemon. Its goroutines (the
// socket, the keep-alive, the watch, the wait for the container) end
// with stop; the daemon owns it.
type session struct {
	d *Daemon

	// ctx ends the goroutines of the session; cancel is its stop.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	ln     net.Listener

	// mu guards kept, pending and the signal of new wakes.
	mu      sync.Mutex
	kept    Kept
	pending []wire.Wake
	// riff is the ID of the riff of the watch, as its stream names it.
	riff string
	more chan struct{}
	// ending is set once the end of the session runs.
	ending bool
}

// newSession makes the session of a record, owned by the daemon.
func (d *Daemon) newSession(k Kept) *session {
	ctx, cancel := context.WithCancel(d.ctx)
	s := &session{d: d, ctx: ctx, cancel: cancel, kept: k, more: make(chan struct{}, 1)}
	d.mu.Lock()
	d.sessions[k.URI.Session] = s
	d.mu.Unlock()
	return s
}

func (s *session) id() string { return s.kept.URI.Session }

// dir is the folder of the session; sockDir the folder of its socket,
// bound in the container at ContainerSocketDir.
func (s *session) dir() string     { return s.d.folder.sessionDir(s.id()) }
func (s *session) sockDir() string { return filepath.Join(s.d.c.Sockets, s.id()) }

// serve opens the socket of the session.
func (s *session) serve() error {
	ln, err := listenUnix(filepath.Join(s.sockDir(), SocketName))
	if err != nil {
		return err
	}
	s.ln = ln
	srv := &http.Server{Handler: s.handler(), BaseContext: func(net.Listener) context.Context { return s.ctx }}
	s.wg.Go(func() { _ = srv.Serve(ln) })
	s.wg.Go(func() {
		<-s.ctx.Done()
		_ = srv.Close()
	})
	return nil
}

// live starts the keep-alive, the watch and the wait for the end of the
// container.
func (s *session) live() {
	s.wg.Go(s.keepAlive)
	s.wg.Go(s.watch)
	s.wg.Go(s.waitContainer)
}

// stop stops the goroutines of the session and waits for them; it ends
// nothing on riff-server and stops no container.
func (s *session) stop() {
	s.cancel()
	s.wg.Wait()
}

// keepAlive sends the keep-alives of the session each 10 s, with the
// container mark and the newest fact of its hooks (the local folder of
// the container is in the folder of its socket).
func (s *session) keepAlive() {
	files := door.Files{Dir: filepath.Join(s.sockDir(), "home", "state")}
	t := time.NewTicker(s.d.c.WorkerEvery)
	defer t.Stop()
	for {
		fact, _ := files.ReadFact(s.id())
		alive := fact.Alive(s.kept.URI, time.Now().UnixMilli())
		alive.Container = true
		// The container runs the riff that the daemon bound at its start:
		// it keeps the mark of an old riff until the daemon starts again
		// after its last session.
		alive.Binary = &wire.Binary{Build: s.d.c.Client.Build().String(), Replaced: s.d.c.Replaced != nil && s.d.c.Replaced()}
		_, _ = riffclient.Send(s.ctx, s.d.c.Client, alive)
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
	}
}

// watch holds the watch of the session: each wake that no watch of the
// daemon gave yet goes into the input of the worker in its first turn,
// or gets the direct answer after it.
func (s *session) watch() {
	_ = s.d.c.Client.Watch(s.ctx, wire.Watch{Me: s.kept.URI}, func(e riffclient.Event) error {
		if e.Type == wire.EventWake && e.Wake != nil && e.Wake.Seq > 0 {
			s.mu.Lock()
			// The woke marks are of one riff: a new riff on the same
			// address starts them again.
			s.riff = e.Riff
			s.mu.Unlock()
			s.wake(*e.Wake)
		}
		return nil
	})
}

// given says whether a wake went to the session already (into its input,
// or as the direct answer): the woke marks of the daemon's folder hold
// the newest seq of each thread of the riff. The caller holds mu.
func (s *session) given(w wire.Wake) bool {
	woke, err := s.d.files.ReadWoke(s.id())
	return err == nil && woke.Riff == s.riff && woke.Seqs[w.Thread] >= w.Seq
}

// markGiven keeps the mark of a wake that went to the session. The
// caller holds mu.
func (s *session) markGiven(w wire.Wake) {
	woke, err := s.d.files.ReadWoke(s.id())
	if err != nil {
		woke = door.Woke{}
	}
	if !woke.Take(s.riff, w.Thread, w.Seq) {
		return
	}
	if err := s.d.files.WriteWoke(s.id(), woke); err != nil {
		s.d.c.Log.Warn("riff daemon cannot keep the mark of a wake: it may come twice", "session", s.id(), "error", err.Error())
	}
}

// wake takes one wake of the watch.
func (s *session) wake(w wire.Wake) {
	s.mu.Lock()
	if s.given(w) || queued(s.pending, w) {
		s.mu.Unlock()
		return
	}
	if s.kept.Phase == PhaseFirstTurn {
		s.pending = append(s.pending, w)
		s.mu.Unlock()
		select {
		case s.more <- struct{}{}:
		default:
		}
		return
	}
	s.mu.Unlock()
	s.answer(w)
}

func queued(ws []wire.Wake, w wire.Wake) bool {
	for _, p := range ws {
		if p.Thread == w.Thread && p.Seq == w.Seq {
			return true
		}
	}
	return false
}

// next gives the next wake for the input of the worker, and keeps its
// mark: it waits until one comes, the first turn ends, or ctx ends.
func (s *session) next(ctx context.Context) (wire.Wake, bool) {
	for {
		s.mu.Lock()
		if s.kept.Phase != PhaseFirstTurn {
			s.mu.Unlock()
			return wire.Wake{}, false
		}
		if len(s.pending) > 0 {
			w := s.pending[0]
			s.pending = s.pending[1:]
			s.markGiven(w)
			s.kept.Given = append(s.kept.Given, Given{Thread: w.Thread, Seq: w.Seq})
			s.save()
			s.mu.Unlock()
			return w, true
		}
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return wire.Wake{}, false
		case <-s.more:
		}
	}
}

// turnEnded takes the end of the first turn: the session reads no more
// messages. Each wake that claude never saw, and each that waits, gets
// the direct answer.
func (s *session) turnEnded(unseen []wire.Wake) {
	s.mu.Lock()
	if s.kept.Phase != PhaseFirstTurn {
		// A wake that reached the relay after the end: it was not seen.
		s.mu.Unlock()
		for _, w := range unseen {
			s.answer(w)
		}
		return
	}
	s.kept.Phase = PhaseWorkEnded
	waiting := s.pending
	s.pending = nil
	s.save()
	s.mu.Unlock()
	select {
	case s.more <- struct{}{}:
	default:
	}
	for _, w := range append(unseen, waiting...) {
		s.answer(w)
	}
	s.d.c.Log.Info("riff daemon: the first turn of a session ended", "session", s.id(), "unseen", len(unseen)+len(waiting))
}

// answer gives a message that came after the end of the work the direct
// answer of the daemon: once for each sender, none later.
func (s *session) answer(w wire.Wake) {
	s.mu.Lock()
	s.markGiven(w)
	to, ok := senderOf(w.From)
	if !ok {
		s.mu.Unlock()
		return
	}
	for _, a := range s.kept.Answered {
		if a == to {
			s.mu.Unlock()
			return
		}
	}
	s.kept.Answered = append(s.kept.Answered, to)
	s.save()
	s.mu.Unlock()
	text := AnswerText(s.kept.URI, w)
	if _, err := riffclient.Post(s.ctx, s.d.c.Client, wire.Post{Me: s.d.Me(), Tell: to, Body: text}); err != nil {
		s.d.c.Log.Warn("riff daemon cannot send the direct answer of an ended session", "session", s.id(), "error", err.Error())
	}
}

// AnswerText is the direct answer to a message that came after the end
// of the work of a container session.
func AnswerText(u name.SessionURI, w wire.Wake) string {
	where := "in " + w.Thread
	if strings.HasPrefix(w.Thread, "dm:") {
		where = "in a direct message"
	}
	return fmt.Sprintf("riff: the session %s ended its work, and does not read your message %d %s. Start a new session for the work.",
		u.Who().Short(), w.Seq, where)
}

// senderOf gives the other side of a tell to the sender of a wake: the
// start of its session ID ("mike@pangolin:riff (a6cf)"), or ~USER for a
// person ("mike@pangolin"). The server itself gets no answer.
func senderOf(from string) (string, bool) {
	if i := strings.LastIndex(from, " ("); i >= 0 && strings.HasSuffix(from, ")") {
		return from[i+2 : len(from)-1], true
	}
	user, _, _ := strings.Cut(from, "@")
	if user == "" || user == "riff" {
		return "", false
	}
	return "~" + user, true
}

// save writes the record of the session; the caller holds mu.
func (s *session) save() {
	if err := s.d.folder.keep(s.id(), s.kept); err != nil {
		s.d.c.Log.Warn("riff daemon cannot keep the record of a session", "session", s.id(), "error", err.Error())
	}
}

// waitContainer waits for the end of the container, then ends the
// session.
func (s *session) waitContainer() {
	p := s.d.c.Podman
	for {
		err := exec.CommandContext(s.ctx, p.Program(), p.Args("wait", s.kept.Container)...).Run()
		if s.ctx.Err() != nil {
			return
		}
		if err == nil || !running(s.ctx, p, s.kept.Container) {
			break
		}
		// podman wait failed while the container runs: look again.
		select {
		case <-s.ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
	s.end()
}

// running says whether podman says that the container runs.
func running(ctx context.Context, p Podman, container string) bool {
	out, err := exec.CommandContext(ctx, p.Program(), p.Args("container", "inspect", "--format", "{{.State.Running}}", container)...).Output()
	return err == nil && strings.TrimSpace(string(out)) == "true"
}

// end is the end of the session, once: the release of its item and its
// end on riff-server, the removal of the container, and of the clone, or
// the note that keeps its folder.
func (s *session) end() {
	s.mu.Lock()
	if s.ending {
		s.mu.Unlock()
		return
	}
	s.ending = true
	k := s.kept
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), EndBudget)
	defer cancel()
	d := s.d
	work := unpushed(ctx, d.c.Git, k.Clone)
	if work != "" {
		note := KeptText(k, s.dir(), work)
		if _, err := riffclient.Post(ctx, d.c.Client, wire.Post{Me: k.URI, Kind: record.MessageNote, Body: note,
			To: leadOf(k.URI.User)}); err != nil {
			d.c.Log.Warn("riff daemon cannot post the note of a kept folder", "session", k.URI.Session, "error", err.Error())
		}
	}
	if _, err := riffclient.Send(ctx, d.c.Client, wire.Release{Me: k.URI, Thread: k.Thread, Item: k.Item}); err != nil {
		d.c.Log.Warn("riff daemon cannot release the item of a session", "session", k.URI.Session, "item", string(k.Item), "error", err.Error())
	}
	if _, err := riffclient.Send(ctx, d.c.Client, wire.End{Me: k.URI}); err != nil {
		d.c.Log.Warn("riff daemon cannot end a session", "session", k.URI.Session, "error", err.Error())
	}
	p := d.c.Podman
	if out, err := exec.CommandContext(ctx, p.Program(), p.Args("rm", "--force", k.Container)...).CombinedOutput(); err != nil {
		d.c.Log.Warn("riff daemon cannot remove a container", "container", k.Container, "error", strings.TrimSpace(string(out)))
	}
	// The socket goes with the session; the folder too, but for a clone
	// that holds work.
	s.cancel()
	if s.ln != nil {
		_ = s.ln.Close()
	}
	_ = os.RemoveAll(s.sockDir())
	_ = d.folder.forget(k.URI.Session, work != "")
	_ = d.files.WriteWoke(k.URI.Session, door.Woke{})
	d.mu.Lock()
	delete(d.sessions, k.URI.Session)
	d.mu.Unlock()
	d.c.Log.Info("riff daemon ended a session", "session", k.URI.Session, "item", string(k.Item), "kept", work != "")
	d.tellStatus(ctx)
	select {
	case d.ended <- struct{}{}:
	default:
	}
}

// leadOf is the to list of a note to the lead of a user.
func leadOf(user string) []selector.Selector {
	yes := true
	return []selector.Selector{{User: user, Lead: &yes}}
}

// KeptText is the note of a folder that the daemon keeps.
func KeptText(k Kept, dir, work string) string {
	return fmt.Sprintf("riff daemon: the session %s of %s ended, and its clone holds work that is not on origin (%s). The daemon keeps its folder %s: take the work from %s, then remove the folder.",
		k.URI.Who().Short(), k.Item, work, dir, k.Clone)
}

// unpushed says what work a clone holds that is not on origin: files not
// committed, and commits on no branch of origin; "" with none. A clone
// that git cannot read holds work: the daemon never removes what it
// cannot check.
func unpushed(ctx context.Context, git, clone string) string {
	if _, err := os.Stat(clone); errors.Is(err, os.ErrNotExist) {
		return ""
	}
	status, err := exec.CommandContext(ctx, git, "-C", clone, "status", "--porcelain").Output()
	if err != nil {
		return "git cannot read the clone"
	}
	commits, err := exec.CommandContext(ctx, git, "-C", clone, "log", "--oneline", "--branches", "--not", "--remotes").Output()
	if err != nil {
		return "git cannot read the clone"
	}
	var parts []string
	if n := lines(status); n > 0 {
		parts = append(parts, plural(n, "file", "files")+" not committed")
	}
	if n := lines(commits); n > 0 {
		parts = append(parts, plural(n, "commit", "commits")+" not pushed")
	}
	return strings.Join(parts, ", ")
}

func lines(b []byte) int {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
