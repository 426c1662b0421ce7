package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The messages of riff read and riff tail: one line in riff read, a
// block in riff tail. Both name the sender, lead=true, the address and
// whether the sender is verified; only the words around them differ.
// Each message shows as the reader's check gives it (riffclient's
// Client.Check): the sender, the lead mark and the body of a signed
// message come from its signed bytes. The caller gives that check.

// Check gives a message as its reader shows it: riffclient's
// Client.Check.
type Check func(wire.Message) wire.Message

// messageWords are the words around the parts of a message.
type messageWords struct {
	to, verified, notVerified string
}

// readWords: [SEQ] SENDER lead=true to SELECTORS (verified): BODY.
func readWords() messageWords {
	return messageWords{to: " to ", verified: " (verified)", notVerified: " (not verified)"}
}

// tailWords: 14:02  SENDER lead=true  → SELECTORS  verified  #SEQ.
func tailWords() messageWords {
	return messageWords{to: "  → ", verified: "  verified", notVerified: "  not verified"}
}

// messageIndent is the indent of the next lines of a message of riff
// read that a terminal wraps: under its number.
const messageIndent = 4

// BodyIndent is the indent of the body of a message in riff tail: the
// width of "14:02  ".
const BodyIndent = "       "

// messageParts gives the parts of a message after first (its number, or
// its time): the sender in its look, lead=true, the address, and
// whether the sender is verified (not verified as a warning).
func messageParts(first string, m wire.Message, w messageWords) []Part {
	parts := []Part{Plain(first), Of(m.Sender.Who().String(), Clean(Sender(m.Sender)))}
	if m.Lead {
		parts = append(parts, Plain(" lead=true"))
	}
	if to := address(m); to != "" {
		parts = append(parts, Plain(w.to+to))
	}
	if m.Verified {
		return append(parts, Plain(w.verified))
	}
	return append(parts, In(Warn, w.notVerified))
}

// Page writes the messages of one thread of riff read under its name.
func Page(p *Printer, page wire.ThreadPage, check Check) {
	p.Line(In(Strong, ThreadTitle(page.Thread, page.Title)))
	if page.Lost > 0 {
		p.Line(In(Warn, fmt.Sprintf("riff: %d messages are lost. The server keeps only the last messages of a thread.", page.Lost)))
	}
	for _, m := range page.Messages {
		m = check(m)
		line := append(messageParts(fmt.Sprintf("[%d] ", m.Seq), m, readWords()), Plain(": "+kindMark(m.Kind)+Clean(m.Body)))
		p.Hanging(messageIndent, line...)
	}
}

// Read writes a read: the messages to the caller after the page first,
// then each page. With onePage (the read tool of an agent session), a
// page that more messages follow says so, with the number to give to
// after.
func Read(p *Printer, r wire.ReadReply, check Check, onePage bool) {
	shown := false
	if len(r.ToYou) > 0 {
		p.Text("Messages to you after this page (the watch does not wake for them again):")
		for _, page := range r.ToYou {
			Page(p, page, check)
		}
		p.Text("")
		shown = true
	}
	for _, page := range r.Threads {
		if len(page.Messages) == 0 && page.Lost == 0 {
			continue
		}
		Page(p, page, check)
		if onePage && page.More {
			p.Textf("More messages follow. Read this thread again. With all, set after to %d.", page.Last)
		}
		shown = true
	}
	if !shown {
		p.Text("No unread messages.")
	}
}

// TailMessage writes one message of riff tail, as check gives it: the
// date line when the day changes from day, the header, and the body
// wrapped under it. It gives the day of the message.
func TailMessage(p *Printer, m wire.Message, check Check, day string) string {
	m = check(m)
	at := p.time(m.AtMs)
	if d := at.Format(time.DateOnly); d != day {
		p.Line(In(Strong, d))
		day = d
	}
	header := append(messageParts(at.Format("15:04")+"  ", m, tailWords()), Plain(fmt.Sprintf("  #%d", m.Seq)))
	p.Hanging(len(BodyIndent), header...)
	body := kindMark(m.Kind) + CleanLines(m.Body)
	if text, ok := Action(m.Thread, m.Body); ok {
		// An action of chat, as riff chat shows it: * mike@thelio waves.
		body = "* " + ChatName(m, true) + " " + CleanLines(text)
	}
	width := 0
	if p.width > 0 {
		width = max(20, p.width-len(BodyIndent))
	}
	for _, line := range Wrap(body, width) {
		p.Text(strings.TrimRight(BodyIndent+line, " "))
	}
	return day
}

// TailLost writes the line of riff tail for n messages of a break that
// the server no longer keeps. It is wrapped, not cut: each word counts.
func TailLost(p *Printer, n uint64) {
	lost := fmt.Sprintf("riff: %d messages of the break are lost. The server keeps only the last messages of a thread.", n)
	for _, line := range Wrap(lost, p.width) {
		p.Line(In(Warn, line))
	}
}

// kindMark gives the mark of a kind of message before its body: none
// for a message.
func kindMark(k record.MessageKind) string {
	switch k {
	case record.MessageNote:
		return "note: "
	case record.MessageStatus:
		return "status request: "
	}
	return ""
}

// Sender gives the short name of a sender: mike@pangolin:riff (a6cf);
// riff@server for a message of the server.
func Sender(u name.SessionURI) string {
	if u.IsZero() {
		return "riff@server"
	}
	return u.Named()
}

// address gives the to list of a message: "all" for a post with no to
// list in a repository thread, nothing in chat and in direct threads.
func address(m wire.Message) string {
	if len(m.To) > 0 {
		return Clean(selector.Describe(m.To))
	}
	t := name.Thread(m.Thread)
	if _, ok := t.Repo(); ok {
		return "all"
	}
	return ""
}

// ThreadTitle gives the name of a thread with its title: dm:a6cf (direct
// with mike@pangolin:app).
func ThreadTitle(thread, title string) string {
	if title == "" {
		return Clean(thread)
	}
	return Clean(thread) + " (" + Clean(title) + ")"
}
