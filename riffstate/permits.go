package riffstate

import (
	"fmt"

	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Row is one row of the permits table: the classes that can send a kind,
// and what a worker cannot do (empty: a worker can).
type Row struct {
	Classes []record.Class
	// Worker is the text after "a worker cannot " for a kind that a
	// worker cannot send.
	Worker string
}

// LeadByPerson is the reason of a lead that a session sends.
const LeadByPerson = "a session cannot name the lead, also not itself; only a person names the lead with riff lead --session ID in a terminal"

// Table is the permits table: one row for each command kind of
// record.Commands. A test fails when a kind has no row.
func Table() map[record.Command]Row {
	rows := map[record.Command]Row{}
	for _, kind := range record.Commands() {
		if row, ok := rowOf(kind); ok {
			rows[kind] = row
		}
	}
	return rows
}

// rowOf gives the row of one kind of the permits table.
func rowOf(kind record.Command) (Row, bool) {
	classes, worker, ok := permitOf(kind)
	if !ok {
		return Row{}, false
	}
	return Row{Classes: classes.list(), Worker: worker}, true
}

// classSet is a set of the classes of callers: a row of the permits
// table with no slice, so that the check of a call allocates nothing.
type classSet uint8

// The sets of the rows.
const (
	setPerson classSet = 1 << iota
	setSession
	setSignIn
	setServer
	setBoth = setPerson | setSession
)

// classBit gives the set of the one class c (0 for a class of another
// build).
func classBit(c record.Class) classSet {
	switch c {
	case record.ClassPerson:
		return setPerson
	case record.ClassSession:
		return setSession
	case record.ClassSignIn:
		return setSignIn
	case record.ClassServer:
		return setServer
	}
	return 0
}

// has says whether c is in the set.
func (cs classSet) has(c record.Class) bool { return cs&classBit(c) != 0 }

// list gives the classes of the set: person, session, sign-in, server.
func (cs classSet) list() []record.Class {
	var out []record.Class
	for _, c := range []record.Class{record.ClassPerson, record.ClassSession, record.ClassSignIn, record.ClassServer} {
		if cs.has(c) {
			out = append(out, c)
		}
	}
	return out
}

// permitOf gives the row of one kind of the permits table: the classes
// that can send it and what a worker cannot do. Permits reads it with no
// map and no slice, so that a check costs no allocation of the table.
func permitOf(kind record.Command) (classes classSet, worker string, ok bool) {
	switch kind {
	// The engine registers the first call of a person too. A person has
	// no life cycle.
	case record.CommandRegister, record.CommandJoin, record.CommandLeave, record.CommandPost, record.CommandClaim, record.CommandRelease:
		return setBoth, "", true
	case record.CommandStart, record.CommandEnd:
		return setSession, "", true
	// handle checks that the caller is the lead of the user of the
	// holder.
	case record.CommandReleaseFor:
		return setSession, "", true
	// Only a person names the lead; handle refuses a worker as the new
	// lead.
	case record.CommandLead:
		return setPerson, "", true
	// The command gives the role: an admin for the whole riff. handle
	// checks that a session is a lead.
	case record.CommandPause, record.CommandResume:
		return setBoth, "", true
	// handle checks that the caller is a lead of the thread, the owner or
	// an admin.
	case record.CommandHold:
		return setBoth, "hold an item. Tell the lead.", true
	case record.CommandFree:
		return setBoth, "free an item. Tell the lead.", true
	// handle checks that the caller is a session in the thread, the owner
	// or an admin.
	case record.CommandPlan:
		return setBoth, "send plan. Tell the lead.", true
	case record.CommandPlanOff:
		return setBoth, "send plan_off. Tell the lead.", true
	// The notes of the user of the caller.
	case record.CommandNotes:
		return setBoth, "write the notes of the lead. Tell the lead.", true
	// Only a person changes the settings and the people.
	case record.CommandSetIdle, record.CommandInvite, record.CommandRemove, record.CommandSetAdmin, record.CommandPassOwner, record.CommandTakeOwner, record.CommandDenyOwner, record.CommandRevoke:
		return setPerson, "", true
	case record.CommandAdmit:
		return setSignIn, "", true
	case record.CommandMakeRiff, record.CommandAnnounce, record.CommandForget, record.CommandImport, record.CommandGrantOwner, record.CommandEndOwner, record.CommandNameOwner, record.CommandRemindLead:
		return setServer, "", true
	}
	return 0, "", false
}

// PeopleCommands lists the commands of the group people: a riff with no sign-in
// refuses them with no_sign_in, before permits.
func PeopleCommands() []record.Command {
	return []record.Command{record.CommandInvite, record.CommandRemove, record.CommandSetAdmin, record.CommandPassOwner, record.CommandTakeOwner, record.CommandDenyOwner, record.CommandRevoke, record.CommandAdmit}
}

func classText(c record.Class) string {
	switch c {
	case record.ClassSession:
		return "a session"
	case record.ClassPerson:
		return "a person"
	case record.ClassSignIn:
		return "a sign-in"
	case record.ClassServer:
		return "the server"
	}
	return "a caller of another build"
}

// Permits says whether caller can send a command of kind that needs the
// role needs. It reads only the caller: its class, its worker mark and
// its role. It does not read the state. The life cycle of a session is a
// check of handle, not of this table.
func Permits(kind record.Command, c Caller, needs Role) *wire.Refused {
	classes, worker, ok := permitOf(kind)
	if !ok {
		return wire.Refuse(wire.NotAllowed, "riff knows no command %s", kind)
	}
	if !classes.has(c.Class) {
		if kind == record.CommandLead && c.Class == record.ClassSession {
			return wire.Refuse(wire.NotAllowed, "%s", LeadByPerson)
		}
		return wire.Refuse(wire.NotAllowed, "%s cannot send the command %s", classText(c.Class), kind)
	}
	if worker != "" && c.Worker {
		return wire.Refuse(wire.NotAllowed, "a worker cannot %s", worker)
	}
	hasRole := c.Class == record.ClassPerson || c.Class == record.ClassSession || c.Class == record.ClassSignIn
	if hasRole && c.Role < needs {
		return wire.Refuse(wire.NotAllowed, "%s", roleReason(kind, needs, c.URI.User))
	}
	return nil
}

func roleReason(kind record.Command, needs Role, user string) string {
	admin := func(what string) string { return fmt.Sprintf("%s is not an admin; only an admin %s", user, what) }
	owner := func(what string) string { return fmt.Sprintf("%s is not the owner; only the owner %s", user, what) }
	switch kind {
	case record.CommandSetIdle:
		return admin("can change the settings of idle workers")
	case record.CommandPause, record.CommandResume:
		return fmt.Sprintf("%s is not an admin; only the owner or an admin can %s the whole riff or a repository by its name", user, kind)
	case record.CommandInvite:
		return admin("can invite a person")
	case record.CommandRemove:
		return admin("can remove a person")
	case record.CommandTakeOwner:
		return admin("can take the owner role")
	case record.CommandRevoke:
		return admin("revokes another person")
	case record.CommandSetAdmin:
		return owner("adds or removes an admin")
	case record.CommandPassOwner:
		return owner("passes the owner role")
	case record.CommandDenyOwner:
		return owner("denies the owner role")
	}
	if needs == Owner {
		return fmt.Sprintf("%s is not the owner; the command %s needs it", user, kind)
	}
	return fmt.Sprintf("%s is not an admin; the command %s needs an admin", user, kind)
}
