package riffstate

import (
	"testing"

	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The rules of a line of riff chat on the server (docs/cli.md, "riff
// chat"): a line to the leads wakes each live lead that it names, also
// one that never joined chat, and the lead joins chat with it; an answer
// with person=true wakes no agent session.

// chatOfAnn: ann's lead of the repository (not in chat), two workers of
// ann (wrk2 in chat), and bob's worker.
func chatOfAnn() []record.Record {
	return recs(threeMembers(), member("ann/lead", false), leadRec("ann", "ann/lead", repo), joinRec("ann/wrk2", "chat"))
}

func TestGivenALeadNotInChatWhenALineOfChatNamesTheLeadsThenItWakesTheLeadWhichJoinsChat(t *testing.T) {
	given(t, chatOfAnn()).
		when("ann", post("chat", "is #12 done?", "user=ann,lead=true")).
		then(joined("ann/lead", "chat"), posted("ann", "chat", 1, record.MessagePlain, sels("user=ann,lead=true"), "ann/lead"))
	// The lead in the repository that the line names (riff chat resolves
	// @lead:REPO to OWNER/REPO).
	given(t, chatOfAnn()).
		when("bob", post("chat", "can I take #14?", "user=ann,lead=true,repo="+repo)).
		then(joined("ann/lead", "chat"), posted("bob", "chat", 1, record.MessagePlain, sels("user=ann,lead=true,repo="+repo), "ann/lead"))
}

func TestGivenALeadNotInChatWhenALineOfChatNamesNoLeadThenItWakesOnlyTheMembersOfChat(t *testing.T) {
	given(t, chatOfAnn()).
		when("bob", post("chat", "all of ann", "user=ann")).
		then(posted("bob", "chat", 1, record.MessagePlain, sels("user=ann"), "ann/wrk2"))
}

func TestGivenALeadInChatWhenALineNamesItThenItJoinsNoMore(t *testing.T) {
	given(t, chatOfAnn(), joinRec("ann/lead", "chat")).
		when("ann", post("chat", "again?", "user=ann,lead=true")).
		then(posted("ann", "chat", 1, record.MessagePlain, sels("user=ann,lead=true"), "ann/lead"))
}

// TestGivenAnAnswerWithPersonTrueWhenTheLeadPostsItInChatThenItWakesNoAgentSession:
// "The post wakes the terminals of the person. It wakes no agent session
// of that person." Without person, the selector user and host also wakes
// the sessions. The reply does not say that the line waits: a person
// selector names terminals, which the server holds no wake for.
func TestGivenAnAnswerWithPersonTrueWhenTheLeadPostsItInChatThenItWakesNoAgentSession(t *testing.T) {
	f := given(t, chatOfAnn(), joinRec("ann/lead", "chat"))
	answer := posted("ann/lead", "chat", 1, record.MessagePlain, sels("user=ann,host=pangolin,person=true"))
	answer.Lead = true
	f.when("ann/lead", post("chat", "it is merged", "user=ann,host=pangolin,person=true")).then(answer)
	reply, _ := f.mustRun("ann/lead", post("chat", "it is merged", "user=ann,host=pangolin,person=true"))
	if r := reply.(wire.PostReply); len(r.Woke) != 0 || len(r.Unmatched) != 0 {
		t.Errorf("the reply of a post to person=true: woke %v, unmatched %v; want no session woken and no selector unmatched", r.Woke, r.Unmatched)
	}
	wide := posted("ann/lead", "chat", 1, record.MessagePlain, sels("user=ann,host=pangolin"), "ann/wrk2")
	wide.Lead = true
	given(t, chatOfAnn(), joinRec("ann/lead", "chat")).
		when("ann/lead", post("chat", "it is merged", "user=ann,host=pangolin")).then(wide)
}
