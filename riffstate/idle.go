package riffstate

import (
	"fmt"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// SetIdle sets the idle workers of a user, a host and a repository. Only
// a person who is an admin can.
type SetIdle struct {
	wire.SetIdle
	base
}

func (SetIdle) Kind() record.Command { return record.CommandSetIdle }
func (SetIdle) Needs(Caller) Role    { return Admin }

func (s SetIdle) Handle(c Caller, v View, now Now) (Handled, error) {
	if err := name.CheckUser(s.User); err != nil {
		return Handled{}, bad("%v", err)
	}
	if err := name.CheckHost(s.Host); err != nil {
		return Handled{}, bad("%v", err)
	}
	if !s.Repo.InGit() {
		return Handled{}, bad("give the repository as OWNER/REPO")
	}
	if s.Count < 0 || s.Count > 64 {
		return Handled{}, bad("the idle workers are 0 to 64, not %d", s.Count)
	}
	w := record.IdleWorkers{User: s.User, Host: s.Host, Repo: s.Repo, Count: s.Count}
	if v.riff.Idle[idleKey(w)] == w {
		return Handled{}, nil
	}
	return Handled{Changes: []record.Change{record.SettingChanged{IdleWorkers: &w}}}, nil
}

func (s SetIdle) Reply(c Caller, v View, d Done, now Now) wire.TextReply {
	return wire.TextReply{Text: fmt.Sprintf("%s keeps %d idle workers on %s in %s.", s.User, s.Count, s.Host, s.Repo)}
}
