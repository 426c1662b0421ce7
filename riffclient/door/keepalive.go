package door

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Every is the time between two keep-alives of a session: one each
// minute, each 10 s in a worker (docs/agents.md, Step 3, "The keep-alive").
const Every = time.Minute

// KeepAlive sends the keep-alives of one session: one at once and then
// one each Every, until its context ends. Each carries the newest fact of
// the session that the hooks kept in Files, and the riff of this process:
// its build, and whether its file was replaced since the keep-alive
// started (docs/agents.md, Step 3, "The keep-alive").
type KeepAlive struct {
	Client *riffclient.Client
	// Me is the session; a person (no session) sends keep-alives with no
	// fact.
	Me name.SessionURI
	// Files holds the facts of the hooks; the zero Files reads none.
	Files Files
	// Every is the time between two keep-alives: the minute of Every when
	// it is 0.
	Every time.Duration
	// OnReply gets each reply (nil drops them): the ask to clear of a
	// worker is in it.
	OnReply func(wire.AliveReply)
	// Now gives the time of the ages of the fact: time.Now when nil.
	Now func() time.Time
	// Relay is the instance ID of the relay that sends the keep-alives
	// (mcptools.Life.Relay): a sign of life of that relay, so that the end
	// of another relay of the session does not end it. The watch sends
	// none.
	Relay string
	// LeadWake gives lead.wake of the settings file of the machine, in
	// minutes, at each keep-alive (riffclient/notify.Desk.LeadWake); nil
	// or 0 sends none, and the server takes its 15.
	LeadWake func() int64
}

// Run sends the keep-alives until ctx ends. A keep-alive that fails is
// not sent again: the next one comes at its time, and the client tried
// it within its budget.
func (k KeepAlive) Run(ctx context.Context) {
	every, now := k.Every, k.Now
	if every <= 0 {
		every = Every
	}
	if now == nil {
		now = time.Now
	}
	t := time.NewTicker(every)
	defer t.Stop()
	self := startedFile()
	for {
		var fact Fact
		if k.Me.Session != "" && k.Files.Dir != "" {
			// A fact that cannot be read is no fact: the keep-alive is
			// still a sign of life.
			fact, _ = k.Files.ReadFact(k.Me.Session)
		}
		alive := fact.Alive(k.Me, now().UnixMilli())
		alive.Binary = &wire.Binary{Build: k.Client.Build().String(), Replaced: self.replaced()}
		if k.LeadWake != nil {
			if m := k.LeadWake(); m > 0 {
				alive.LeadWake = &m
			}
		}
		alive.Relay = k.Relay
		// A keep-alive in flight is not cut off by the end of ctx: a cut
		// request may still reach the server after the end of the relay
		// that the owner sends next, and mark that relay live again for
		// 3 minutes (a relay that ends at once, as the second relay of
		// claude mcp list does, is in its first keep-alive).
		sendCtx, done := afterEnd(ctx, endGrace)
		reply, err := riffclient.Send(sendCtx, k.Client, alive)
		done()
		if err == nil && k.OnReply != nil {
			k.OnReply(reply)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// endGrace bounds the wait for a keep-alive in flight at the end of its
// context.
const endGrace = 5 * time.Second

// afterEnd gives a context that ends grace after ctx ends, or at done.
// The goroutine that waits for the grace ends at done.
func afterEnd(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	out, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-t.C:
			cancel()
		case <-out.Done():
		}
	})
	return out, func() {
		stop()
		cancel()
	}
}

// runningFile is the file of the program that this process runs, as it
// was when the process looked first.
type runningFile struct {
	path string
	info fs.FileInfo
}

// startedFile gives the file of this program now. A program that cannot
// find its file gives none, and never says that it was replaced.
func startedFile() runningFile {
	path, err := os.Executable()
	if err != nil {
		return runningFile{}
	}
	info, err := os.Stat(path)
	if err != nil {
		return runningFile{}
	}
	return runningFile{path: path, info: info}
}

// replaced says whether the file of this program changed since the
// start: another file in its place (an update renames the new riff over
// the old one), a new write into it, or no file left. The process still
// runs the old program.
func (f runningFile) replaced() bool {
	if f.info == nil {
		return false
	}
	now, err := os.Stat(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	return !os.SameFile(f.info, now) || !now.ModTime().Equal(f.info.ModTime()) || now.Size() != f.info.Size()
}
