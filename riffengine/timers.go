package riffengine

import (
	"context"
	"errors"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffstate"
)

// timers runs the timers of the server as commands of the server,
// through the same path as each command: a session is forgotten after 30
// days; in a riff with sign-in a request for the owner role is granted
// after its wait, the role of an owner who is gone ends, and the owner
// gets a warning before (the times are riffstate.PeopleOptions); the
// lead of a blocked session with no answer gets its second wake; and a
// checkpoint comes each CheckpointInterval when records came.
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
	if err := e.remindLeads(ctx); err != nil {
		return
	}
	if err := e.ownerTimers(ctx); err != nil {
		return
	}
	e.maybeCheckpoint(ctx)
}

// remindLeads sends the second wake of the lead for each block with no
// answer for lead.wake minutes (riffstate.View.RemindsDue): the command
// remind_lead of the server, which checks the block again against the
// pending copy (an answer that came in between refuses it, with its log
// line). The unanswered block that follows lead.wake minutes later is a
// rule of the state when it is read: no timer makes it. It gives an
// error only when the engine stopped.
func (e *Engine) remindLeads(ctx context.Context) error {
	var due []riffstate.RemindLead
	e.View(func(v riffstate.View, now riffstate.Now) { due = v.RemindsDue(now) })
	for _, r := range due {
		if _, err := RunServer[riffstate.RemindLead, struct{}](ctx, e, r); errors.Is(err, ErrStopped) || ctx.Err() != nil {
			return ErrStopped
		}
	}
	return nil
}

// ownerTimers runs the timers of the owner role once: the decisions are
// the views of riffstate on the written copy, and each command of the
// server checks them again against the pending copy (a deny that came
// in between refuses the grant, with its log line). It gives an error
// only when the engine stopped.
func (e *Engine) ownerTimers(ctx context.Context) error {
	var (
		asked, owner string
		due, gone    bool
		warning      riffstate.Announce
		warn         bool
	)
	e.View(func(v riffstate.View, now riffstate.Now) {
		asked, due = v.OwnerRequestDue(now)
		if gone = v.OwnerGone(now); gone {
			owner = v.Riff().People.Owner
		}
		warning, warn = v.OwnerWarning(now)
	})
	var errs []error
	if due {
		errs = append(errs, e.GrantOwner(ctx, asked))
	}
	if gone {
		errs = append(errs, e.EndOwner(ctx, owner))
	} else if warn {
		errs = append(errs, e.Announce(ctx, warning))
	}
	for _, err := range errs {
		if errors.Is(err, ErrStopped) || ctx.Err() != nil {
			return ErrStopped
		}
	}
	return nil
}

// GrantOwner sends the command grant_owner of the server: the request
// of email for the owner role, whose wait ended, is granted (or ended,
// when the person is no admin now). It waits for the write. A refusal
// (no such request, not due) is a *wire.Refused.
func (e *Engine) GrantOwner(ctx context.Context, email string) error {
	_, err := RunServer[riffstate.GrantOwner, struct{}](ctx, e, riffstate.GrantOwner{Email: email})
	return err
}

// EndOwner sends the command end_owner of the server: the role of the
// owner email, who is gone, ends; the person stays an admin. It waits
// for the write.
func (e *Engine) EndOwner(ctx context.Context, email string) error {
	_, err := RunServer[riffstate.EndOwner, struct{}](ctx, e, riffstate.EndOwner{Email: email})
	return err
}

// Announce sends the command announce of the server: a note of the
// server in a thread (the warning to the owner). It waits for the
// write.
func (e *Engine) Announce(ctx context.Context, a riffstate.Announce) error {
	_, err := RunServer[riffstate.Announce, struct{}](ctx, e, a)
	return err
}
