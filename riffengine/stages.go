package riffengine

import (
	"context"

	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffstate"
)

// Proof is what the token layer gives for a call whose caller it
// checked: that caller, and the call ID of the call. Only this package
// makes one: the token layer is here.
type Proof struct {
	caller riffstate.Caller
	call   string
	// held is the sign-in of the token and the end of its life, in a
	// riff with sign-in (zero with none): a stream ends with either.
	held streamOwner
}

// Caller gives the caller that the proof names.
func (p Proof) Caller() riffstate.Caller { return p.caller }

// Authenticated is a command with the caller that the token layer
// proved. Only two functions make one: [Authenticate], from the proof of
// the token layer, and asServer, inside this package, for the commands
// of the server. Its fields are private, so code outside cannot make a
// command act as another caller.
type Authenticated[C any] struct {
	cmd    C
	caller riffstate.Caller
	call   string
}

// Authenticate joins a command and the proof of its caller.
func Authenticate[C any](p Proof, cmd C) Authenticated[C] {
	return Authenticated[C]{cmd: cmd, caller: p.caller, call: p.call}
}

func asServer[C any](cmd C) Authenticated[C] {
	return Authenticated[C]{cmd: cmd, caller: riffstate.ServerCaller()}
}

// Checked is a command that passed the check under the lock: the engine
// holds the lock while a Checked lives, and only queue releases it. Its
// fields and its maker are private to this package.
type Checked[R any] struct {
	e  *Engine
	en *entry
}

// Queued is a command in the queue of the writer, with the lock free.
type Queued[R any] struct {
	e      *Engine
	en     *entry
	cmd    riffstate.Command[R]
	caller riffstate.Caller
}

// Applied is a command whose entry the writer finished: its records are
// in the log and in the written copy. Only Applied gives the reply.
type Applied[R any] struct {
	q Queued[R]
}

// Replied is a reply, and whether it is the reply of an answered call.
type Replied[R any] struct {
	Reply  R
	Repeat bool
	// json is the reply as the wire writes it, with its newline, when
	// the route asked for it (dispatch with a buffer) and the command
	// writes it itself (riffstate.AppendReply); Reply is then the zero
	// value.
	json []byte
	// at is the position of the pending copy at the check of the
	// command (0 for the reply of an answered call): the position of a
	// sign-in is the one at the check of its admit.
	at uint64
}

// queue releases the lock of a Checked: the entry is in the queue.
// Then it encodes the records of the entry, outside the lock, so that
// the writer finds them encoded (it encodes the ones that it finds not
// yet encoded itself).
func (c Checked[R]) queue() {
	c.e.enqueueLocked(c.en)
	c.e.mu.Unlock()
	_, _ = c.en.encode()
}

// applied waits until the writer finished the entry.
func (q Queued[R]) applied(ctx context.Context) (Applied[R], error) {
	if err := q.e.wait(ctx, q.en); err != nil {
		return Applied[R]{}, err
	}
	return Applied[R]{q: q}, nil
}

// reply makes the reply from the written copy, or gives the refusal.
// With buf non-nil, a command that writes its reply as JSON appends it
// to buf under the lock (riffstate.AppendReply) and gives it as data,
// with no value: the claims of a session go from the state straight into
// the bytes of the reply.
func (a Applied[R]) reply(buf []byte) (reply R, data []byte, err error) {
	if a.q.en.refused != nil {
		return reply, nil, a.q.en.refused
	}
	e := a.q.e
	e.mu.Lock()
	defer e.mu.Unlock()
	done := riffstate.Done{Made: a.q.en.made, Ended: a.q.en.ended}
	if buf != nil {
		if data, ok := riffstate.AppendReply(buf, e.state, a.q.cmd, a.q.caller, done, e.now()); ok {
			return reply, data, nil
		}
	}
	return riffstate.Reply(e.state, a.q.cmd, a.q.caller, done, e.now()), nil, nil
}

// Dispatch is the one path of each command: the check under the lock,
// the entry in the queue, the wait for the writer, then the reply or the
// refusal. A refused command waits as each command does, so no refusal
// reports a change that is not in the log.
//
// A call with a call ID that was answered gets the first reply with no
// handle (Repeat); a second try that comes while the first one still
// waits for the writer waits for the same entry; when the first try was
// refused, the second runs handle again.
//
// The lock is taken in check and released in queue, in one function
// with no blocking call between them; nothing here waits while it holds
// the lock.
func Dispatch[C riffstate.Command[R], R any](ctx context.Context, e *Engine, call Authenticated[C]) (Replied[R], error) {
	return dispatch[C, R](ctx, e, call, nil)
}

// dispatch is Dispatch; with buf non-nil (a buffer of length 0), a
// command that writes its reply as JSON gives it in Replied.json, in buf
// (Applied.reply).
func dispatch[C riffstate.Command[R], R any](ctx context.Context, e *Engine, call Authenticated[C], buf []byte) (Replied[R], error) {
	// What the call asks is known before the lock: a call with a call ID
	// is compared with the answered call of its ID.
	// The command as the interface of riffstate, made once: each
	// conversion of the value would be one more copy of it on the heap.
	cmd := riffstate.Command[R](call.cmd)
	var asked riffstate.Asked
	if call.call != "" {
		asked = riffstate.AskedOf(cmd)
	}
	for {
		checked, answered, wait, err := check(e, cmd, call.caller, call.call, asked)
		switch {
		case err != nil:
			return Replied[R]{}, err
		case answered != nil:
			return Replied[R]{Reply: *answered, Repeat: true}, nil
		case wait != nil:
			if err := e.wait(ctx, wait); err != nil {
				return Replied[R]{}, err
			}
			continue
		}
		checked.queue()
		q := Queued[R]{e: e, en: checked.en, cmd: cmd, caller: call.caller}
		applied, err := q.applied(ctx)
		if err != nil {
			return Replied[R]{}, err
		}
		reply, data, err := applied.reply(buf)
		return Replied[R]{Reply: reply, json: data, at: checked.en.at}, err
	}
}

// check takes the lock and runs the steps under it: the register of an
// unknown caller first (an entry of its own), the look-up of the call
// ID, permits, handle, the signal, the positions and the apply to the
// pending copy. On success it returns with the lock held in Checked;
// each other way out releases it.
func check[R any](e *Engine, cmd riffstate.Command[R], c riffstate.Caller, call string, asked riffstate.Asked) (Checked[R], *R, *entry, error) {
	e.mu.Lock()
	if e.stopErr != nil || e.closed {
		e.mu.Unlock()
		return Checked[R]{}, nil, nil, ErrStopped
	}
	now := e.now()
	kind := cmd.Kind()
	if kind != record.CommandEnd {
		e.arrivalLocked(c)
	}
	en := &entry{done: make(chan struct{}), sent: sent{caller: e.state.Caller(c), command: kind}}
	var key riffstate.Key
	if call != "" {
		key = riffstate.KeyOf(c, call)
		done, ok, refused := e.state.AnsweredCall(key, asked)
		if refused != nil {
			// A reuse of the call ID for another command: refused, with
			// no handle and no key, as each refusal (its line, its wait
			// for the writer): the first reply would tell of a command
			// that did not run.
			en.refused = refused
			return Checked[R]{e: e, en: en}, nil, nil, nil
		}
		if ok {
			reply := riffstate.Reply(e.state, cmd, c, done, now)
			e.mu.Unlock()
			return Checked[R]{}, &reply, nil, nil
		}
		if pending := e.waits[key]; pending != nil {
			e.mu.Unlock()
			return Checked[R]{}, nil, pending, nil
		}
	}
	en.at = e.state.Position()
	h, refused := riffstate.Check(e.state, cmd, c, now)
	if refused != nil {
		en.refused = refused
	} else {
		en.made = e.state.Queue(c, kind, call, h.Changes, now)
	}
	if call != "" {
		en.key, en.hasKey, en.asked = key, true, asked
		e.waits[key] = en
	}
	return Checked[R]{e: e, en: en}, nil, nil, nil
}

// RunServer runs a command of the server through the one path and waits
// for its write.
func RunServer[C riffstate.Command[R], R any](ctx context.Context, e *Engine, cmd C) (R, error) {
	r, err := Dispatch[C, R](ctx, e, asServer(cmd))
	return r.Reply, err
}
