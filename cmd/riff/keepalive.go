package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/local"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// keepAliveEvery is the time between two keep-alives of a relay: one
// each minute (the guide, "When a session ends").
const keepAliveEvery = time.Minute

// keepAliveEnv names the env var that sets the time between two
// keep-alives, for the tests of the relay: a Go duration, for example
// 200ms. The guide's minute is the default.
const keepAliveEnv = "RIFF_KEEPALIVE_EVERY"

// keepAliveInterval gives the time between two keep-alives: the env var
// of the tests when it is set, else def. A value that is no positive
// duration is refused with a text that names it.
func keepAliveInterval(getenv func(string) string, def time.Duration) (time.Duration, error) {
	v := getenv(keepAliveEnv)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, knownf("%s is a time such as 10s or 1m, not %q", keepAliveEnv, v)
	}
	return d, nil
}

// keepAlive sends a keep-alive of me at once and then each every, until
// ctx ends. Each carries the newest fact of the session that the hooks
// kept in the local folder dir, and the riff of this process: its build,
// and whether its file was replaced since the keep-alive started (the
// guide, "Update a session that runs an old riff"). onReply gets each
// reply (nil drops them). A keep-alive that fails is not sent again: the
// next one comes at its time, and the client tried it within its budget.
func keepAlive(ctx context.Context, c *riffclient.Client, me name.SessionURI, dir string, every time.Duration, onReply func(wire.AliveReply)) {
	t := time.NewTicker(every)
	defer t.Stop()
	self := startedFile()
	for {
		var fact local.Fact
		if me.Session != "" && dir != "" {
			// A fact that cannot be read is no fact: the keep-alive is
			// still a sign of life.
			fact, _ = local.ReadFact(dir, me.Session)
		}
		alive := fact.Alive(me, time.Now().UnixMilli())
		alive.Binary = &wire.Binary{Build: c.Build().String(), Replaced: self.replaced()}
		reply, err := riffclient.Send(ctx, c, alive)
		if err == nil && onReply != nil {
			onReply(reply)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// runningFile is the file of the riff that this process runs, as it was
// when the process looked first.
type runningFile struct {
	path string
	info fs.FileInfo
}

// startedFile gives the file of this riff now. A riff that cannot find
// its file gives none, and never says that it was replaced.
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

// replaced says whether the file of this riff changed since the start:
// another file in its place (riff update renames the new riff over the
// old one), a new write into it, or no file left. The process still runs
// the old riff.
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
