package record

// Command is the kind of a command, as the envelope names it: a name in
// the present tense, as a [Kind] is one in the past tense. A command kind
// is never renamed. The envelope keeps the kind as text ([Record.Command]):
// a reader keeps a kind that another build wrote and this one does not
// know.
type Command string

// The command kinds of this build, in the groups of the permits table.
// The fixture kinds.json lists the same names.
const (
	// the work
	CommandRegister   Command = "register"
	CommandStart      Command = "start"
	CommandEnd        Command = "end"
	CommandJoin       Command = "join"
	CommandLeave      Command = "leave"
	CommandPost       Command = "post"
	CommandClaim      Command = "claim"
	CommandRelease    Command = "release"
	CommandReleaseFor Command = "release_for"
	CommandLead       Command = "lead"
	CommandPause      Command = "pause"
	CommandResume     Command = "resume"
	CommandHold       Command = "hold"
	CommandFree       Command = "free"
	CommandPlan       Command = "plan"
	CommandPlanOff    Command = "plan_off"
	CommandNotes      Command = "notes"
	CommandSetIdle    Command = "set_idle"
	// the people
	CommandInvite    Command = "invite"
	CommandRemove    Command = "remove"
	CommandSetAdmin  Command = "set_admin"
	CommandPassOwner Command = "pass_owner"
	CommandTakeOwner Command = "take_owner"
	CommandDenyOwner Command = "deny_owner"
	CommandRevoke    Command = "revoke"
	CommandAdmit     Command = "admit"
	// the server
	CommandMakeRiff   Command = "make_riff"
	CommandAnnounce   Command = "announce"
	CommandForget     Command = "forget"
	CommandImport     Command = "import"
	CommandGrantOwner Command = "grant_owner"
	CommandEndOwner   Command = "end_owner"
	CommandNameOwner  Command = "name_owner"
	// CommandRemindLead is the second wake of the lead for a block with
	// no answer (riffstate.RemindLead).
	CommandRemindLead Command = "remind_lead"
)

// Commands lists each command kind of this build. The fixture kinds.json
// lists the same names.
func Commands() []Command {
	return []Command{
		// the work
		CommandRegister, CommandStart, CommandEnd, CommandJoin, CommandLeave, CommandPost,
		CommandClaim, CommandRelease, CommandReleaseFor, CommandLead, CommandPause, CommandResume,
		CommandHold, CommandFree, CommandPlan, CommandPlanOff, CommandNotes, CommandSetIdle,
		// the people
		CommandInvite, CommandRemove, CommandSetAdmin, CommandPassOwner, CommandTakeOwner,
		CommandDenyOwner, CommandRevoke, CommandAdmit,
		// the server
		CommandMakeRiff, CommandAnnounce, CommandForget, CommandImport, CommandGrantOwner,
		CommandEndOwner, CommandNameOwner, CommandRemindLead,
	}
}
