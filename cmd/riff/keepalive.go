package main

import (
	"context"
	"time"

	"github.com/como-technologies/riff/cmd/riff/internal/local"
	"github.com/como-technologies/riff/riffclient"
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
// of the tests when it holds a duration, else def.
func keepAliveInterval(getenv func(string) string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(getenv(keepAliveEnv)); err == nil && d > 0 {
		return d
	}
	return def
}

// keepAlive sends a keep-alive of me at once and then each every, until
// ctx ends. Each carries the newest fact of the session that the hooks
// kept in the local folder dir; onReply gets each reply (nil drops
// them). A keep-alive that fails is not sent again: the next one comes
// at its time, and the client tried it within its budget.
func keepAlive(ctx context.Context, c *riffclient.Client, me name.SessionURI, dir string, every time.Duration, onReply func(wire.AliveReply)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		var fact local.Fact
		if me.Session != "" && dir != "" {
			// A fact that cannot be read is no fact: the keep-alive is
			// still a sign of life.
			fact, _ = local.ReadFact(dir, me.Session)
		}
		reply, err := riffclient.Send(ctx, c, fact.Alive(me, time.Now().UnixMilli()))
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
