package riffengine

import (
	"context"
	"errors"

	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffstate"
)

// Signaled runs a signal call of c (see [riffstate.SignalCall] for the
// steps): its check, its signal, the message to the lead that its Tell
// gives, as a post of c through the one path, and its reply. A refused
// post is no failure of the call: the reply says what became of the
// message.
func Signaled[S riffstate.SignalCall[R], R any](ctx context.Context, e *Engine, c riffstate.Caller, call S) (R, error) {
	var zero R
	sig, err := call.Check(c)
	if err != nil {
		return zero, err
	}
	if err := e.Signal(ctx, c, sig); err != nil {
		return zero, err
	}
	var text string
	e.View(func(v riffstate.View, now riffstate.Now) { text = call.Tell(e.state.Caller(c), v, now) })
	var told riffstate.Told
	if text != "" {
		_, err := Dispatch[riffstate.Post, wire.PostReply](ctx, e, Authenticate(Proof{caller: c}, riffstate.TellLead(c, text, call)))
		var refused *wire.Refused
		switch {
		case err == nil:
			told.Sent = true
		case errors.As(err, &refused):
			told.Refused = refused
		default:
			return zero, err
		}
	}
	var reply R
	e.View(func(v riffstate.View, now riffstate.Now) { reply = call.Reply(e.state.Caller(c), v, told, now) })
	return reply, nil
}
