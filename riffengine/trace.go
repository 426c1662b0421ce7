package riffengine

// The trace lines of the commands (docs/operations.md, "The lines"): a
// command with records gets no line, a
// command that made no record gets one (refused or no_change), and a
// command whose chunk failed or that waited at a stop gets a failed
// line. The denied lines of the token layer are in denied.go.

import (
	"context"
	"log/slog"
	"slices"

	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffstate"
)

// callerAttr gives the caller of a line: {"session":"mike/84cf"} or
// {"person":"mike"}. A line names a user, never an email.
func callerAttr(c riffstate.Caller) slog.Attr {
	switch c.Class {
	case record.ClassSession:
		return slog.Group("caller", "session", c.Who().String())
	case record.ClassPerson:
		return slog.Group("caller", "person", c.URI.User)
	case record.ClassSignIn:
		return slog.Group("caller", "sign_in", c.URI.User)
	case record.ClassServer:
		return slog.Group("caller", "server", true)
	}
	return slog.Group("caller", "other", true)
}

// traceNoRecord writes the one line of a command that made no record:
// refused, or no_change. A command with records gets no line.
func traceNoRecord(log *slog.Logger, en *entry) {
	if en.refused != nil {
		attrs := []any{callerAttr(en.sent.caller), "command", en.sent.command, "result", "refused", "code", string(en.refused.Code)}
		// The reason of a refused command of the people can name an email,
		// and the reason of on_hold quotes the reason of the hold (a text
		// of a person, as a body): their lines have the code and no reason.
		if !isPeople(en.sent.command) && en.refused.Code != wire.OnHold {
			attrs = append(attrs, "reason", en.refused.Reason)
		}
		log.Info("refused", attrs...)
		return
	}
	log.Info("no_change", callerAttr(en.sent.caller), "command", en.sent.command, "result", "no_change")
}

// isPeople says whether a command is of the people: the routed ones and
// admit, and the commands of the server that name an email in their
// refusals (grant_owner, end_owner, name_owner).
func isPeople(kind record.Command) bool {
	switch kind {
	case record.CommandGrantOwner, record.CommandEndOwner, record.CommandNameOwner:
		return true
	}
	return slices.Contains(riffstate.PeopleCommands(), kind)
}

// traceFailed writes the failed line of a command whose chunk failed
// (ERROR), or that waited in the queue when the server stopped
// (WARNING, with the reason of the stop).
func traceFailed(log *slog.Logger, en *entry, why error, level slog.Level) {
	log.Log(context.Background(), level, "failed", callerAttr(en.sent.caller), "command", en.sent.command,
		"result", "failed", "reason", why.Error())
}
