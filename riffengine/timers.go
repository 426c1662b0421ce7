package riffengine

import (
	"context"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffstate"
)

// timers runs the timers of the server as commands of the server,
// through the same path as each command: a session is forgotten after 30
// days, and a checkpoint comes each CheckpointInterval when records came.
// No timer ends a claim or a lead: a claim of a session with no sign of
// life for 5 minutes is a rule of the state when it is read (another
// session may take the item, and the views show the claim as ended).
func (e *Engine) timers(ctx context.Context) {
	tick := time.NewTicker(e.opts.TimerEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			e.Tick(ctx)
		}
	}
}

// Tick runs each timer of the server once, now.
func (e *Engine) Tick(ctx context.Context) {
	if ok, _ := e.Serving(); !ok {
		// Before the lease is taken and the log read again, the server
		// writes nothing.
		return
	}
	var forget []name.Who
	e.View(func(v riffstate.View, now riffstate.Now) { forget = v.ToForget(now) })
	for _, w := range forget {
		if _, err := RunServer[riffstate.Forget, struct{}](ctx, e, riffstate.Forget{Session: w}); err != nil {
			return
		}
	}
	e.maybeCheckpoint(ctx)
}
