package riffstate

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/quote"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The signed messages (the store design, "Signed messages"; the
// decisions are in docs/signed.md).

// LiveKeys gives the thumbprints of the live sign-ins of a user, sorted:
// the engine gives the token store's LiveKeys. The views call it for
// each signed message that they give, with the lock of the state held,
// so it must not wait for the engine. Handle and apply never call it.
type LiveKeys func(user string) []string

// SignedWindowMs is the window of the signed time of a post: the server
// refuses a post whose signed time is more than 5 minutes before or after
// its own time. With the memory of the hashes (Riff.Signed, kept for
// twice the window) it refuses each copy of a signed message: a copy of a
// message that the riff still remembers has its hash there, and a copy of
// an older one has a time outside the window. 5 minutes hold the 60 s
// budget of a call (each try sends the same payload) and the drift of the
// clock of a machine.
const SignedWindowMs = 5 * 60 * 1000

// draft is what the server knows of a post before it checks its
// signature: its thread, its to list, its kind and the lead mark of the
// sender now.
type draft struct {
	thread name.Thread
	to     []selector.Selector
	kind   record.MessageKind
	lead   bool
}

// draft checks the fields of a post and gives its thread, its to list,
// its kind and the lead mark of its sender: the rules of a post that
// come before its signature, the same for the post and for the query
// PostContent.
func (p Post) draft(c Caller, v View, now Now) (draft, error) {
	kind := p.Post.Kind
	if kind == "" {
		kind = record.MessagePlain
	}
	if _, err := record.ParseMessageKind(string(kind)); err != nil {
		sent := p.SentKind
		if sent == "" {
			sent = string(kind)
		}
		// The kind as it was sent, cut: a refusal repeats at most a short
		// cut of its input.
		return draft{}, bad("riff-server knows no message kind %s: the kinds of a message are message, note and status", quote.Input(sent))
	}
	if selector.AnyOther(p.To) {
		return draft{}, bad("the to list has a selector that riff-server does not know")
	}
	if p.Body == "" && kind != record.MessageStatus {
		return draft{}, bad("a %s needs a text", kind)
	}
	thread, to, err := p.target(c, v, now)
	if err != nil {
		return draft{}, err
	}
	if err := serverOnly(c, thread); err != nil {
		return draft{}, err
	}
	if thread == name.Denials && kind != record.MessageNote {
		return draft{}, bad("the thread denials takes notes only: riff relay denied posts each refusal of auto mode there as a note, and a note wakes no session")
	}
	return draft{thread: thread, to: to, kind: kind, lead: v.leadMark(c.URI, now)}, nil
}

// leadMark says whether sender is the live lead of its user in its
// repository now: the lead mark of its post.
func (v View) leadMark(sender name.SessionURI, now Now) bool {
	if sender.IsPerson() {
		return false
	}
	s, ok := v.LiveLead(sender.User, sender.Repo, now)
	return ok && s.URI.Who() == sender.Who()
}

// toJSON gives the to list as the payload holds it: a JSON array, [] for
// none.
func toJSON(to []selector.Selector) (json.RawMessage, error) {
	if len(to) == 0 {
		return json.RawMessage("[]"), nil
	}
	b, err := json.Marshal(to)
	if err != nil {
		return nil, fmt.Errorf("the to list does not encode: %v", err)
	}
	return b, nil
}

// content gives the content of the draft of a post of sender, at now.
func (d draft) content(sender name.SessionURI, body string, now Now) (signed.Content, error) {
	to, err := toJSON(d.to)
	if err != nil {
		return signed.Content{}, bad("%v", err)
	}
	return signed.Content{
		User: sender.User, Session: sender.Session, Lead: d.lead, Thread: string(d.thread),
		To: to, Body: body, Kind: string(d.kind), TimeMS: now.Ms,
	}, nil
}

// PostContent gives the content that the server would sign for the post
// q of c now: the query that a client in a riff with sign-in sends
// before it signs a post. It changes nothing.
func (v View) PostContent(c Caller, q wire.PostContent, now Now) (signed.Content, error) {
	p := Post{Post: q.Post}
	d, err := p.draft(c, v, now)
	if err != nil {
		return signed.Content{}, err
	}
	return d.content(c.URI, p.Body, now)
}

// signedPart is the signed part of a post that the server keeps: the
// payload bytes as they came, the signature, and the signed lead mark.
type signedPart struct {
	payload []byte
	sig     string
	lead    bool
}

// refuseSignature refuses the signature of a post: bad_proof with the
// status 403 of the engine design's table (a proof of the device key on
// a call is 401; a post that the key of the token did not sign is 403).
func refuseSignature(format string, args ...any) *wire.Refused {
	r := wire.Refuse(wire.BadProof, format, args...)
	r.Status = http.StatusForbidden
	return r
}

// checkSigned checks the signed part of a post of c against its draft d,
// in the steps of the store design: it decodes the payload, compares each
// signed field with the call, checks the signature with the key of its
// header and that this key is the key of the caller's token, and refuses
// a copy of a signed message. It gives the part to keep, or nil when the
// server makes the payload from the fields of the call.
//
// A riff with no sign-in keeps no signature: a payload that comes there
// is checked against the call and kept, and its signature is dropped.
// The tell of a signal ([TellLead]) is written by the server from the
// signal: it has no signature, and a reader shows it as not verified.
// The server's own posts never come here: they are verified by the
// server's rule (their sender is the server).
func (v View) checkSigned(c Caller, p Post, d draft, now Now) (*signedPart, error) {
	if !v.opts.SignIn || c.Class == record.ClassServer || (p.told && p.Payload == nil) {
		if p.Payload == nil {
			return nil, nil
		}
		content, err := v.compareSigned(c, p, d)
		if err != nil {
			return nil, err
		}
		return &signedPart{payload: p.Payload, lead: content.Lead}, nil
	}
	if p.Payload == nil || p.Sig == "" {
		return nil, refuseSignature("this riff has sign-in: each post is signed by the device key of its sender, and this post has no payload and signature. riff signs each post; update riff")
	}
	if c.Key == "" {
		return nil, refuseSignature("this riff has sign-in, and the token of this call names no device key: a signed post needs one")
	}
	content, err := v.compareSigned(c, p, d)
	if err != nil {
		return nil, err
	}
	if off := content.TimeMS - now.Ms; off > SignedWindowMs || off < -SignedWindowMs {
		return nil, bad("the signed time of the post is %s from the time of riff-server, and the limit is 5 minutes: check the clock of this machine, and post again", offset(off))
	}
	verified, err := signed.Verify(p.Sig, p.Payload)
	if err != nil {
		return nil, refuseSignature("the signature of the post does not verify: %v", err)
	}
	if verified.Thumbprint != c.Key {
		return nil, refuseSignature("the key that signed the post is not the key of the token of this call: each post is signed by the device key of its sender")
	}
	hash := signed.Hash(p.Payload)
	if _, seen := v.riff.Signed[hash]; seen {
		return nil, bad("riff-server took this signed message before: it refuses a copy of a signed message. To send the same text again, post it again")
	}
	return &signedPart{payload: p.Payload, sig: p.Sig, lead: content.Lead}, nil
}

// compareSigned decodes the payload of p and compares each signed field
// with the call and its draft: the user and the session of the sender,
// the thread, the to list, the kind, the body, and the lead mark. A
// signed lead mark of a session that is not the lead is refused; a lead
// may sign no lead mark, and its message then has none.
func (v View) compareSigned(c Caller, p Post, d draft) (signed.Content, error) {
	content, err := signed.Decode(p.Payload)
	if err != nil {
		return signed.Content{}, bad("the payload of the post does not decode: %v", err)
	}
	differs := func(field, signedValue, call string) error {
		return bad("the signed fields of the post differ from the call: the signed %s is %s, and the call gives %s", field, quote.Input(signedValue), quote.Input(call))
	}
	switch {
	case content.User != c.URI.User:
		return signed.Content{}, differs("user", content.User, c.URI.User)
	case content.Session != c.URI.Session:
		return signed.Content{}, differs("session", content.Session, c.URI.Session)
	case content.Thread != string(d.thread):
		return signed.Content{}, differs("thread", content.Thread, string(d.thread))
	case content.Kind != string(d.kind):
		return signed.Content{}, differs("kind", content.Kind, string(d.kind))
	case content.Body != p.Body:
		return signed.Content{}, bad("the signed fields of the post differ from the call: the signed body is not the body of the call")
	}
	signedTo, callTo, err := sameTo(content.To, d.to)
	if err != nil {
		return signed.Content{}, err
	}
	if signedTo != callTo {
		return signed.Content{}, differs("to list", signedTo, callTo)
	}
	if content.Lead && !d.lead {
		return signed.Content{}, bad("the signed fields of the post differ from the call: the post is signed with lead=true, and its sender is not the lead now")
	}
	return content, nil
}

// sameTo gives the signed to list and the to list of the call in one
// form, to compare them: each read as selectors and encoded again (the
// spaces and the order of the fields of the signed JSON do not count).
func sameTo(signedTo json.RawMessage, to []selector.Selector) (string, string, error) {
	var sels []selector.Selector
	if signedTo != nil {
		if err := json.Unmarshal(signedTo, &sels); err != nil {
			return "", "", bad("the signed to list does not read: %v", err)
		}
	}
	a, err := toJSON(sels)
	if err != nil {
		return "", "", bad("the signed to list does not encode: %v", err)
	}
	b, err := toJSON(to)
	if err != nil {
		return "", "", bad("%v", err)
	}
	return string(a), string(b), nil
}

// offset writes the offset of a signed time: "420s ahead", "360s behind".
func offset(offMs int64) string {
	if offMs > 0 {
		return fmt.Sprintf("%ds ahead", offMs/1000)
	}
	return fmt.Sprintf("%ds behind", -offMs/1000)
}

// remember keeps the hash of the payload of a signed message that the
// riff took, with the time of its record, and forgets the hashes older
// than twice the window (at most one sweep each window): the signed time
// of such a message is out of the window of each later check, so a copy
// of it is refused all the same.
func (r *Riff) remember(c record.Posted, atMs int64) {
	if c.Sig == "" {
		return
	}
	if r.Signed == nil {
		r.Signed = map[string]int64{}
	}
	r.Signed[signed.Hash(c.Payload)] = atMs
	if atMs-r.SignedSweptMs < SignedWindowMs {
		return
	}
	r.SignedSweptMs = atMs
	for hash, at := range r.Signed {
		if at < atMs-2*SignedWindowMs {
			delete(r.Signed, hash)
		}
	}
}

// MessageOf gives a kept message as a reader gets it, with the verdict
// of the server and, for a signed message, the keys of the live sign-ins
// of its sender's user (for the reader's own check):
//
//   - a riff with no sign-in trusts its network: each message is
//     verified;
//   - a message with no signature is verified when its sender is the
//     server (a note or a direct message of riff-server: the server is
//     its sender, and the reader trusts the server for the keys);
//   - a signed message is verified when its signature is valid over the
//     kept bytes, its key is the key of a live sign-in of its user, and
//     its bytes decode ([signed.Check]).
//
// The body, and for a signed message the lead mark, come from the
// payload. A message that is not verified never counts as from the lead.
func MessageOf(m Message, opts Options) wire.Message {
	out := wire.Message{
		Thread: string(m.Thread), Seq: m.Seq, AtMs: m.AtMs, Sender: m.Sender, Lead: m.Lead,
		Kind: m.Type, To: m.To, Payload: m.Payload, Sig: m.Sig,
	}
	content, decodeErr := signed.Decode(m.Payload)
	if decodeErr == nil {
		out.Body = content.Body
	}
	switch {
	case !opts.SignIn:
		out.Verified = true
	case m.Sig == "":
		out.Verified = m.Sender.Equal(ServerURI())
	default:
		if opts.LiveKeys != nil {
			out.Keys = opts.LiveKeys(m.Sender.User)
		}
		c, err := signed.Check(m.Sig, m.Payload, out.Keys)
		out.Verified = err == nil && c.User == m.Sender.User
		out.Lead = out.Verified && c.Lead
	}
	if !out.Verified {
		// A message that is not verified never counts as from the lead.
		out.Lead = false
	}
	return out
}

// SetLiveKeys gives the state the live keys of the token store: the
// engine makes the store after the load of the state.
func (s *State) SetLiveKeys(k LiveKeys) { s.opts.LiveKeys = k }
