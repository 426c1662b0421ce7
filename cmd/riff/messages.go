package main

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
// message come from its signed bytes.

// messageWords are the words around the parts of a message.
type messageWords struct {
	to, verified, notVerified string
}

var (
	// readWords: [SEQ] SENDER lead=true to SELECTORS (verified): BODY.
	readWords = messageWords{to: " to ", verified: " (verified)", notVerified: " (not verified)"}
	// tailWords: 14:02  SENDER lead=true  → SELECTORS  verified  #SEQ.
	tailWords = messageWords{to: "  → ", verified: "  verified", notVerified: "  not verified"}
)

// messageIndent is the indent of the next lines of a message of riff
// read that a terminal wraps: under its number.
const messageIndent = 4

// bodyIndent is the indent of the body of a message in riff tail: the
// width of "14:02  ".
const bodyIndent = "       "

// messageParts gives the parts of a message after first (its number, or
// its time): the sender in its color, lead=true, the address, and
// whether the sender is verified (not verified in yellow).
func messageParts(first string, m wire.Message, w messageWords) []part {
	parts := []part{plain(first), colored(sessionColor(m.Sender.Who().String()), clean(sender(m.Sender)))}
	if m.Lead {
		parts = append(parts, plain(" lead=true"))
	}
	if to := address(m); to != "" {
		parts = append(parts, plain(w.to+to))
	}
	if m.Verified {
		return append(parts, plain(w.verified))
	}
	return append(parts, colored(yellow, w.notVerified))
}

// page writes the messages of one thread of riff read under its name.
func (c *cli) page(page wire.ThreadPage) {
	c.out.line(colored(bold, threadTitle(page.Thread, page.Title)))
	if page.Lost > 0 {
		c.out.line(colored(yellow, fmt.Sprintf("riff: %d messages are lost. The server keeps only the last messages of a thread.", page.Lost)))
	}
	for _, m := range page.Messages {
		m = c.client.Check(m)
		line := append(messageParts(fmt.Sprintf("[%d] ", m.Seq), m, readWords), plain(": "+kindMark(m.Kind)+clean(m.Body)))
		c.out.hanging(messageIndent, line...)
	}
}

// block writes one message of riff tail: the date line when the day
// changes, the header, and the body wrapped under it. It gives the day.
func (c *cli) block(m wire.Message, day string) string {
	m = c.client.Check(m)
	at := c.timeOf(m.AtMs)
	if d := at.Format(time.DateOnly); d != day {
		c.out.line(colored(bold, d))
		day = d
	}
	header := append(messageParts(at.Format("15:04")+"  ", m, tailWords), plain(fmt.Sprintf("  #%d", m.Seq)))
	c.out.hanging(len(bodyIndent), header...)
	body := kindMark(m.Kind) + cleanLines(m.Body)
	width := 0
	if c.out.width > 0 {
		width = max(20, c.out.width-len(bodyIndent))
	}
	for _, line := range wrap(body, width) {
		c.out.text(strings.TrimRight(bodyIndent+line, " "))
	}
	return day
}

// timeOf gives the time of a message in the zone of the machine.
func (c *cli) timeOf(ms int64) time.Time { return time.UnixMilli(ms).In(c.loc) }

// kindMark gives the mark of a kind of message before its body: none
// for a message.
func kindMark(k record.MessageKind) string {
	return map[record.MessageKind]string{record.MessageNote: "note: ", record.MessageStatus: "status request: "}[k]
}

// sender gives the short name of a sender: mike@pangolin:riff (a6cf).
func sender(u name.SessionURI) string {
	if u.IsZero() {
		return "riff@server"
	}
	return u.Named()
}

// address gives the to list of a message: "all" for a post with no to
// list in a repository thread, nothing in chat and in direct threads.
func address(m wire.Message) string {
	if len(m.To) > 0 {
		return clean(selector.Describe(m.To))
	}
	t := name.Thread(m.Thread)
	if _, ok := t.Repo(); ok {
		return "all"
	}
	return ""
}

func threadTitle(thread, title string) string {
	if title == "" {
		return clean(thread)
	}
	return clean(thread) + " (" + clean(title) + ")"
}
