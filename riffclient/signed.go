package riffclient

import (
	"context"
	"errors"
	"fmt"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The signed messages of a client (docs/signed.md): the one path that
// posts, and the reader's check.

// ErrNoDeviceKey is a post in a riff with sign-in from a client whose
// Auth gives no device key.
var ErrNoDeviceKey = errors.New("riff has no device key to sign the post: run riff login")

// Post sends a post: the one path of each post of riff (riff post, riff
// tell, the tools of riff relay mcp, riff relay denied; riff blocked signs
// its message to the lead the same way, see [Blocked]).
//
// With a sign-in (Options.Auth), it signs the post with the device key
// of the machine: it asks the server for the content that it would sign
// ([wire.PostContent]: the thread of a tell or of the default thread, the
// to list, the lead mark of the caller now), puts the time of this
// machine in it, signs its JSON, and sends the post with the payload and
// the signature. Each try of the post sends the same bytes. With no
// sign-in it sends the post as it is: the server makes the payload.
func Post(ctx context.Context, c *Client, p wire.Post) (wire.PostReply, error) {
	if c.auth == nil {
		return Send(ctx, c, p)
	}
	payload, sig, err := c.signPost(ctx, p)
	if err != nil {
		return wire.PostReply{}, err
	}
	p.Payload, p.Sig = payload, sig
	return Send(ctx, c, p)
}

// signPost gives the payload and the signature of p: the content that the
// server gives for it, with the time of this machine, signed with the
// device key.
func (c *Client) signPost(ctx context.Context, p wire.Post) ([]byte, string, error) {
	key := c.auth.Key()
	if key == nil {
		return nil, "", ErrNoDeviceKey
	}
	content, err := Send(ctx, c, wire.PostContent{Post: p})
	if err != nil {
		return nil, "", err
	}
	content.TimeMS = c.clock.Now().UnixMilli()
	payload, err := signed.Encode(content)
	if err != nil {
		return nil, "", fmt.Errorf("sign the post: %w", err)
	}
	sig, err := signed.Sign(key, payload)
	if err != nil {
		return nil, "", fmt.Errorf("sign the post: %w", err)
	}
	return payload, sig, nil
}

// Check is the reader's check of a message (the store design, "Signed
// messages"): for a signed message it checks the signature over the kept
// bytes, then that the thumbprint of its key is one of the keys of the
// live sign-ins of the sender's user that the server gave (Keys), then
// decodes the bytes; it takes the user, the session, the lead mark and
// the body only from the signed bytes. A scheme that this build does not
// know (another typ) is not verified. A message that is not verified
// never counts as from the lead: it has no lead mark.
//
// A message with no signature keeps the verdict of the server: in a riff
// with no sign-in (a client with no Auth) each message is verified; with
// a sign-in, only a message whose sender is riff-server itself can be.
func (c *Client) Check(m wire.Message) wire.Message {
	if m.Sig == "" {
		if c.auth != nil && !m.Sender.Equal(serverURI()) {
			m.Verified = false
		}
		if !m.Verified {
			m.Lead = false
		}
		return m
	}
	content, err := signed.Check(m.Sig, m.Payload, m.Keys)
	m.Verified = err == nil && content.User == m.Sender.User
	if err != nil {
		// Show what the bytes say when they decode: never the verdict.
		content, err = signed.Decode(m.Payload)
	}
	if err == nil {
		m.Sender.User, m.Sender.Session, m.Body = content.User, content.Session, content.Body
	}
	m.Lead = m.Verified && content.Lead
	return m
}

// serverURI is the sender of the messages of riff-server: riff@server.
func serverURI() name.SessionURI { return name.SessionURI{User: "riff", Host: "server"} }

// Blocked sends a block. With a sign-in, it signs the message of the
// block to the lead as a post ([Post] does): the content of the tell of
// the lead with [wire.BlockedText]. When the server gives no such content
// (the caller is the lead, or its user has no lead), the block goes with
// no message of its own: the server says in its reply what became of the
// tell.
func Blocked(ctx context.Context, c *Client, b wire.Blocked) (wire.TextReply, error) {
	if c.auth != nil {
		payload, sig, err := c.signPost(ctx, wire.Post{Me: b.Me, Tell: "lead", Body: wire.BlockedText(b.Reason)})
		var refused *wire.Refused
		switch {
		case err == nil:
			b.Payload, b.Sig = payload, sig
		case !errors.As(err, &refused):
			return wire.TextReply{}, err
		}
	}
	return Send(ctx, c, b)
}
