package riffstate

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/wire"
)

// SignalCall is a call of the wire that changes only the presence: a
// status, a block, a step, a keep-alive, a move. Its type holds its
// rules, as a [Command] holds its own: the check of its input, the text
// of the message that it sends to the lead, and its reply. The engine
// runs the steps in order (see Signaled in riffengine):
//
//  1. Check, on the caller as the token layer gave it; a refusal ends
//     the call with no change.
//  2. The signal is set in the presence.
//  3. Tell, on the written copy after the signal; a text that is not
//     empty goes to the lead of the caller's user as a post of the
//     caller through the one path ([TellLead]).
//  4. Reply, on the written copy, with what became of that message.
//
// Like Handle and Reply, each method is pure: it reads its arguments
// only.
type SignalCall[R any] interface {
	// Check checks the input of the call of c and gives its signal, or a
	// refusal (*wire.Refused).
	Check(c Caller) (Signal, error)
	// Tell gives the text of the message to the lead that the call sends
	// after its signal, or "" for none.
	Tell(c Caller, v View, now Now) string
	// Reply makes the reply from the written copy and told.
	Reply(c Caller, v View, told Told, now Now) R
}

// Told is what became of the message to the lead of a signal: none went,
// the lead got it, or the post was refused (no lead, for example).
type Told struct {
	Sent    bool
	Refused *wire.Refused
}

// text is the part of a reply that says what became of the message:
// "Your lead got a message;", the reason of the refusal as a sentence of
// its own, or "" when no message went.
func (t Told) text(c Caller) string {
	switch {
	case t.Sent:
		return "Your lead got a message;"
	case t.Refused != nil:
		return sentence(capitalized(t.Refused.Reason, c.URI.User))
	}
	return ""
}

// capitalized starts a reason that follows a period with a capital
// ("You are the lead ..."), unless it starts with the name of the user,
// which is a name as the riff knows it ("ann has no lead in ...").
func capitalized(reason, user string) string {
	if reason == "" || (user != "" && strings.HasPrefix(reason, user+" ")) {
		return reason
	}
	r, size := utf8.DecodeRuneInString(reason)
	return string(unicode.ToUpper(r)) + reason[size:]
}

// TellLead is the post that carries the message of a signal to the lead
// of the caller's user. With a signed tell (a call that is a
// [SignedTell] with a payload), the post carries its payload and its
// signature, and the server checks them as those of each post; with none,
// the server writes it, and it has no signature.
func TellLead(c Caller, text string, call any) Post {
	p := Post{Post: wire.Post{Me: c.URI, Tell: "lead", Body: text}, told: true}
	if st, ok := call.(SignedTell); ok {
		p.Payload, p.Sig = st.SignedTell()
	}
	return p
}

// SignedTell is a signal call that can carry its message to the lead
// signed by the caller.
type SignedTell interface {
	SignedTell() (payload []byte, sig string)
}

// SignedTell gives the signed message to the lead of a block.
func (q SetBlocked) SignedTell() ([]byte, string) { return q.Payload, q.Sig }

// noTell is the Tell of a signal that sends no message.
type noTell struct{}

func (noTell) Tell(Caller, View, Now) string { return "" }

// SetStatus sets the status of the session: one line of at most 400
// characters.
type SetStatus struct {
	wire.Status
	noTell
}

func (q SetStatus) Check(Caller) (Signal, error) {
	// The guide calls the status the step of the session: "riff refuses
	// a longer one with the step has more than 400 characters".
	if err := checkLine("step", q.Text); err != nil {
		return nil, err
	}
	return StatusSet{Text: q.Text}, nil
}

func (SetStatus) Reply(Caller, View, Told, Now) wire.TextReply {
	return wire.TextReply{Text: "Your status is set."}
}

// SetBlocked says that the session cannot go on with no decision; it
// wakes the lead of its user with the reason ([View.BlockedTell]).
type SetBlocked struct{ wire.Blocked }

func (q SetBlocked) Check(Caller) (Signal, error) {
	if err := checkLine("reason", q.Reason); err != nil {
		return nil, err
	}
	return BlockedSet{Reason: q.Reason}, nil
}

func (q SetBlocked) Tell(c Caller, v View, now Now) string { return v.BlockedTell(c, q.Reason, now) }

func (SetBlocked) Reply(c Caller, v View, told Told, now Now) wire.TextReply {
	return v.BlockedReply(c, told, now)
}

// SetStep starts, ends or fails the long step of the session. A failed
// step wakes the lead of its user.
type SetStep struct{ wire.Step }

func (q SetStep) Check(Caller) (Signal, error) {
	n := 0
	for _, set := range []bool{q.Start != "", q.Done, q.Fail != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, wire.Refuse(wire.BadRequest, "a step call gives one of start, done and fail")
	}
	if err := checkLine("step", q.Start+q.Fail); err != nil {
		return nil, err
	}
	return StepChange{Start: q.Start, Done: q.Done, Fail: q.Fail}, nil
}

// Tell: "step failed: STEP: REASON", with the name of the step that the
// presence holds after the signal.
func (q SetStep) Tell(c Caller, v View, _ Now) string {
	if q.Fail == "" {
		return ""
	}
	step := "step"
	if l := v.Presence().Live(c.Who()); l != nil && l.Step != nil {
		step = l.Step.Name
	}
	return "step failed: " + step + ": " + q.Fail
}

// Reply: "Your step is set.", then what became of the message to the
// lead, each a sentence of its own.
func (SetStep) Reply(c Caller, _ View, told Told, _ Now) wire.TextReply {
	text := "Your step is set."
	if t := told.text(c); t != "" {
		text += " " + sentence(strings.TrimSuffix(t, ";"))
	}
	return wire.TextReply{Text: text}
}

// KeepAlive is the keep-alive of a session: a sign of life that is not a
// call, with the newest facts of the session. The reply says whether the
// client clears the context of the session.
type KeepAlive struct {
	wire.Alive
	noTell
}

func (q KeepAlive) Check(c Caller) (Signal, error) {
	if q.PromptSecs != nil && *q.PromptSecs < 0 {
		return nil, wire.Refuse(wire.BadRequest, "prompt_secs is the time since the last prompt: 0 or more seconds, not %d", *q.PromptSecs)
	}
	if q.ActivitySecs != nil && *q.ActivitySecs < 0 {
		return nil, wire.Refuse(wire.BadRequest, "activity_secs is the age of the activity: 0 or more seconds, not %d", *q.ActivitySecs)
	}
	if n := utf8.RuneCountInString(q.Activity); n > wire.MaxStatus {
		return nil, wire.Refuse(wire.BadRequest, "the activity has %d characters, more than %d", n, wire.MaxStatus)
	}
	if q.Binary != nil {
		if _, err := build.ParseBuild(q.Binary.Build); err != nil {
			return nil, wire.Refuse(wire.BadRequest, "binary.build is not the build of a riff: %v", err)
		}
	}
	if err := checkRelay(q.Relay); err != nil {
		return nil, err
	}
	var leadWakeMs int64
	if q.LeadWake != nil {
		if *q.LeadWake < 1 || *q.LeadWake > wire.MaxLeadWake {
			return nil, wire.Refuse(wire.BadRequest, "lead_wake is lead.wake in minutes: 1 to %d, not %d", wire.MaxLeadWake, *q.LeadWake)
		}
		leadWakeMs = *q.LeadWake * 60_000
	}
	prompt := q.PromptSecs
	if c.Worker {
		// A prompt in a worker ends no block: the riff daemon gives each
		// input of a worker, not a person (the guide, "A blocked session").
		prompt = nil
	}
	return Alive{Activity: q.Activity, ActivitySecs: q.ActivitySecs, PromptSecs: prompt, Container: q.Container, Daemon: q.Daemon, Binary: q.Binary, Relay: q.Relay, LeadWakeMs: leadWakeMs}, nil
}

func (KeepAlive) Reply(c Caller, v View, _ Told, now Now) wire.AliveReply {
	s := v.Riff().Session(c.Who())
	return wire.AliveReply{Clear: s != nil && s.Life == MustClear, Unanswered: v.UnansweredFor(c, now)}
}

// Move is a session that moves to the place of its URI. The reply is its
// URI with its marks.
type Move struct {
	wire.Move
	noTell
}

func (Move) Check(c Caller) (Signal, error) { return Place{Place: c.URI.Place()}, nil }

func (Move) Reply(c Caller, v View, _ Told, now Now) wire.RegisterReply {
	reply := wire.RegisterReply{URI: c.URI}
	if s := v.Riff().Session(c.Who()); s != nil {
		reply.URI = v.Marked(s, now)
	}
	return reply
}

// checkLine checks a status, a block reason or a step: one line of at
// most 400 characters.
func checkLine(what, text string) error {
	if n := len([]rune(text)); n > wire.MaxStatus {
		return wire.Refuse(wire.BadRequest, "the %s has more than %d characters", what, wire.MaxStatus)
	}
	if bytes.ContainsAny([]byte(text), "\r\n") {
		return wire.Refuse(wire.BadRequest, "the %s is one line", what)
	}
	return nil
}
