package render

import (
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// TestGivenTheMessagesOfChatWhenTheChatShowsThemThenEachSenderHasItsForm:
// the example of the guide's "Chat with the people of the riff", an
// action, a lead that is not verified (no lead form), another session,
// riff-server, the day line when the date changes, and no escape
// sequence of a message.
func TestGivenTheMessagesOfChatWhenTheChatShowsThemThenEachSenderHasItsForm(t *testing.T) {
	at := func(day, hour, min int) int64 {
		return time.Date(2026, 9, day, hour, min, 0, 0, time.UTC).UnixMilli()
	}
	mike := name.SessionURI{User: "mike", Host: "thelio", Repo: "como-technologies/riff"}
	brett := name.SessionURI{User: "brett", Host: "heron"}
	lead := name.SessionURI{User: "brett", Host: "heron", Repo: "como-technologies/riff", Session: "77e0a1b2"}
	msgs := []wire.Message{
		{Thread: "chat", AtMs: at(28, 14, 2), Sender: mike, Body: "is the release out?", Verified: true},
		{Thread: "chat", AtMs: at(28, 14, 3), Sender: brett, Body: "not yet. @lead is #207 merged?", Verified: true},
		{Thread: "chat", AtMs: at(28, 14, 3), Sender: lead, Lead: true, Body: "yes, #207 is merged.", Verified: true},
		{Thread: "chat", AtMs: at(28, 14, 5), Sender: mike, Body: "/me waves", Verified: true},
		{Thread: "chat", AtMs: at(28, 14, 6), Sender: lead, Body: "not the lead\x1b[2J\x1b]0;owned\x07", Verified: false},
		{Thread: "chat", AtMs: at(29, 9, 0), Sender: name.SessionURI{User: "riff", Host: "server"}, Body: "the lead of mike started again", Verified: true},
		{Thread: "chat", AtMs: at(29, 9, 1), Sender: brett, Body: "two\nlines", Verified: true},
	}
	var out strings.Builder
	p := NewPrinter(&out, Options{})
	day := ""
	for _, m := range msgs {
		day = ChatLine(p, m, day, false)
	}
	want := `2026-09-28
14:02 <mike@thelio> is the release out?
14:03 <brett@heron> not yet. @lead is #207 merged?
14:03 [brett's lead, riff] yes, #207 is merged.
14:05 * mike@thelio waves
14:06 [brett 77e0] (not verified) not the lead
2026-09-29
09:00 [riff@server] the lead of mike started again
09:01 <brett@heron> two
      lines
`
	if out.String() != want {
		t.Errorf("the chat =\n%s\nwant\n%s", out.String(), want)
	}
	// riff tail chat shows an action as the chat does, in its body.
	var tail strings.Builder
	TailMessage(NewPrinter(&tail, Options{}), msgs[3], func(m wire.Message) wire.Message { return m }, "")
	if !strings.Contains(tail.String(), "\n       * mike@thelio waves\n") {
		t.Errorf("riff tail chat shows the action as\n%s; want the body * mike@thelio waves", tail.String())
	}
	// Another thread has no actions: /me is text there.
	if _, ok := Action("acme/app", "/me waves"); ok {
		t.Errorf("an action in a repository thread; want /me only in chat")
	}
}
