package riffstate

import (
	"fmt"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// SetPlan keeps the plan of a repository thread. Only a session in the
// thread, the owner or an admin can; a worker cannot.
type SetPlan struct {
	wire.SetPlan
	base
}

func (SetPlan) Kind() record.Command { return record.CommandPlan }

func (p SetPlan) Handle(c Caller, v View, now Now) (Handled, error) {
	thread, err := v.planThread(c, p.Thread, now)
	if err != nil {
		return Handled{}, err
	}
	if len(p.Plan) > MaxNotes {
		return Handled{}, bad("a plan has at most %d bytes, not %d", MaxNotes, len(p.Plan))
	}
	return Handled{Changes: []record.Change{record.PlanSet{Thread: thread, Plan: p.Plan}}}, nil
}

// Reply: the thread of the plan_set record.
func (SetPlan) Reply(c Caller, v View, d Done, now Now) wire.TextReply {
	set, _ := madeOf[record.PlanSet](d)
	return wire.TextReply{Text: fmt.Sprintf("The plan of %s is kept.", set.Thread)}
}

func (SetPlan) Signal(c Caller) Signal { return nil }

func (v View) planThread(c Caller, given string, now Now) (name.Thread, error) {
	thread, err := v.threadOf(c, given, now)
	if err != nil {
		return "", err
	}
	if _, ok := thread.Repo(); !ok {
		return "", bad("%s is no repository thread: a plan is the plan of a repository", thread)
	}
	if c.Role < Admin && !(c.Class == record.ClassSession && v.riff.Member(thread, c.Who())) {
		return "", wire.Refuse(wire.NotAllowed, "only a session in %s, the owner or an admin sends a plan", thread)
	}
	return thread, nil
}

// PlanOff ends the plan of a thread.
type PlanOff struct {
	wire.PlanOff
	base
}

func (PlanOff) Kind() record.Command { return record.CommandPlanOff }

func (p PlanOff) Handle(c Caller, v View, now Now) (Handled, error) {
	thread, err := v.planThread(c, p.Thread, now)
	if err != nil {
		return Handled{}, err
	}
	if v.riff.Plans[thread] == nil {
		return Handled{}, nil
	}
	return Handled{Changes: []record.Change{record.PlanEnded{Thread: thread}}}, nil
}

// Reply: the thread of the plan_ended record, or of the call when the
// thread had no plan.
func (p PlanOff) Reply(c Caller, v View, d Done, now Now) wire.TextReply {
	ended, ok := madeOf[record.PlanEnded](d)
	if !ok {
		ended.Thread, _ = v.threadOf(c, p.Thread, now)
	}
	return wire.TextReply{Text: fmt.Sprintf("%s has no plan now.", ended.Thread)}
}
