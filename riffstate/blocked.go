package riffstate

import (
	"strings"

	"github.com/como-technologies/riff/riffcore/wire"
)

// The texts of a block ("A blocked session" and "Say that the lead waits
// for you" of riff's user guide; docs/cli.md lists them). A block is a signal call ([SetBlocked]); the
// message that wakes the lead is a post of the caller through the one
// path, which the engine sends after the signal with the text of
// [View.BlockedTell].

// isLiveLead says whether the caller is the live lead of its user in the
// repository of its place.
func (v View) isLiveLead(c Caller, now Now) bool {
	lead, ok := v.LiveLead(c.URI.User, c.URI.Repo, now)
	return ok && lead.URI.Who() == c.Who()
}

// BlockedTell gives the text of the message that a block of the caller
// sends to the lead of its user: "blocked: REASON". The lead itself is not
// blocked: it waits for its person, who reads its terminal, so it sends
// no message (empty).
func (v View) BlockedTell(c Caller, reason string, now Now) string {
	if v.isLiveLead(c, now) {
		return ""
	}
	return wire.BlockedText(reason)
}

// BlockedReply gives the reply to a block, after its signal: the reason
// is the block of the caller in the presence. told is what became of the
// message to the lead. The reply to the lead is: "You wait
// for your person: REASON. Ask your user. The next prompt ends the wait."
func (v View) BlockedReply(c Caller, told Told, now Now) wire.TextReply {
	if v.isLiveLead(c, now) {
		reason := ""
		if l := v.presence.Live(c.Who()); l != nil && l.Block != nil {
			reason = l.Block.Text
		}
		return wire.TextReply{Text: "You wait for your person: " + sentence(reason) + " Ask your user. The next prompt ends the wait."}
	}
	switch {
	case told.Sent:
		return wire.TextReply{Text: "Blocked. " + told.text() + " a message that wakes you is the answer."}
	case told.Refused != nil:
		return wire.TextReply{Text: "Blocked. " + told.text()}
	}
	return wire.TextReply{Text: "Blocked. A message that wakes you is the answer."}
}

// sentence ends a text with a period, unless it ends with a mark of its
// own (a question, for example).
func sentence(text string) string {
	text = strings.TrimSpace(text)
	if strings.HasSuffix(text, ".") || strings.HasSuffix(text, "?") || strings.HasSuffix(text, "!") {
		return text
	}
	return text + "."
}
