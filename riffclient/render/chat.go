package render

import (
	"strings"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The lines of riff chat, in the style of IRC: the day line when the date
// changes, then TIME NAME TEXT, one line a message (wrapped in a
// terminal, each next line under the text). A person shows as
// <USER@HOST>, a lead as [USER's lead, REPO], another session as
// [USER ID], riff-server as [riff@server]. An action (/me TEXT) shows as
// * NAME TEXT. docs/cli.md, "riff chat", shows them.

// ChatIndent is the width of "14:02 ": the next lines of a message of
// riff chat start under its text.
const ChatIndent = 6

// actionPrefix starts the body of an action of riff chat: /me waves. The
// body keeps it on the wire, so an older riff shows the line as /me waves.
const actionPrefix = "/me "

// Action gives the text of an action (/me TEXT) of the thread chat, and
// whether body is one: only chat has actions.
func Action(thread, body string) (string, bool) {
	if thread != string(name.Chat) {
		return "", false
	}
	text, ok := strings.CutPrefix(body, actionPrefix)
	if !ok || strings.TrimSpace(text) == "" {
		return "", false
	}
	return text, true
}

// ChatName gives the name of the sender of a message in riff chat, as
// the reader's check gives the message: <USER@HOST> for a person,
// [USER's lead, REPO] for a verified lead, [USER ID] for another
// session, [riff@server] for riff-server. action gives it with no angle
// brackets for a person (* mike@thelio waves).
func ChatName(m wire.Message, action bool) string {
	u := m.Sender
	switch {
	case u.IsZero() || (u.User == "riff" && u.Host == "server" && u.IsPerson()):
		return "[riff@server]"
	case u.IsPerson():
		if action {
			return Clean(u.User + "@" + u.Host)
		}
		return "<" + Clean(u.User+"@"+u.Host) + ">"
	case m.Lead && u.Repo.InGit():
		return "[" + Clean(u.User) + "'s lead, " + Clean(u.Repo.Name()) + "]"
	}
	return "[" + Clean(u.User) + " " + Clean(u.Who().Short()) + "]"
}

// ChatLine writes one message of riff chat that the reader checked
// (riffclient's Client.Check): the day line when the date differs from
// day, then the line. toYou marks a message whose to list names the
// reader as a person: its text stands out. A message that is not
// verified says so after the name, as a warning; it never shows as the
// lead (the check took its lead mark). It gives the day of the message.
func ChatLine(p *Printer, m wire.Message, day string, toYou bool) string {
	at := p.time(m.AtMs)
	if d := at.Format(time.DateOnly); d != day {
		p.Line(In(Strong, d))
		day = d
	}
	text, action := Action(m.Thread, m.Body)
	if !action {
		text = kindMark(m.Kind) + m.Body
	}
	lines := strings.Split(CleanLines(text), "\n")
	parts := []Part{Plain(at.Format("15:04") + " ")}
	if action {
		parts = append(parts, Plain("* "))
	}
	parts = append(parts, Of(m.Sender.Who().String(), ChatName(m, action)))
	if !m.Verified {
		parts = append(parts, In(Warn, " (not verified)"))
	}
	style := Normal
	if toYou {
		style = Strong
	}
	parts = append(parts, In(style, " "+lines[0]))
	p.Hanging(ChatIndent, parts...)
	for _, line := range lines[1:] {
		p.Hanging(ChatIndent, Plain(strings.Repeat(" ", ChatIndent)), In(style, line))
	}
	return day
}

// ChatNote writes a line of riff chat that is not a message: (reconnecting…),
// (back), and the refusals of a line ("riff: cannot send the line: …"), a
// fault as a warning.
func ChatNote(p *Printer, style Style, text string) {
	p.Line(In(style, text))
}
