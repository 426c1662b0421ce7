package main

import (
	"context"
	"time"

	"github.com/como-technologies/riff/cmd/riff/internal/local"
	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// keepAlive sends the keep-alive of me each every until ctx ends: a sign
// of life that carries the newest fact of the session from the local
// folder dir. onReply gets each reply (a worker in MustClear is asked to
// clear). A failed keep-alive is no end: the next one tries again.
func keepAlive(ctx context.Context, c *riffclient.Client, me name.SessionURI, dir string, every time.Duration, onReply func(wire.AliveReply)) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		fact, err := local.ReadFact(dir, me.Session)
		if err != nil {
			fact = local.Fact{}
		}
		r, err := riffclient.Send(ctx, c, fact.Alive(me, time.Now().UnixMilli()))
		if err == nil && onReply != nil {
			onReply(r)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
