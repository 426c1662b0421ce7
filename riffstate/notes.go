package riffstate

import (
	"fmt"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/secret"
	"github.com/como-technologies/riff/riffcore/wire"
)

// SetNotes replaces the notes of the lead of the caller's user in a
// repository. The limit is 64 KiB, and a text that looks like a token is
// refused: a secret never goes in the notes.
type SetNotes struct {
	wire.SetNotes
	base
}

func (SetNotes) Kind() record.Command { return record.CommandNotes }

func (n SetNotes) Handle(c Caller, v View, now Now) (Handled, error) {
	thread, err := v.threadOf(c, n.Thread, now)
	if err != nil {
		return Handled{}, err
	}
	if _, ok := thread.Repo(); !ok {
		return Handled{}, bad("%s is no repository thread: the notes of a lead are the notes of a repository", thread)
	}
	if len(n.Text) > MaxNotes {
		return Handled{}, bad("the notes have %d bytes; the limit is %d (64 KiB)", len(n.Text), MaxNotes)
	}
	if line, ok := LooksLikeToken(n.Text); ok {
		return Handled{}, bad("riff keeps no secret in the notes: line %d holds text that looks like a token. Take it out, and save again", line)
	}
	return Handled{Changes: []record.Change{record.NotesSet{User: c.URI.User, Thread: thread, Text: n.Text}}}, nil
}

// Reply: the thread of the notes_set record.
func (n SetNotes) Reply(c Caller, v View, d Done, now Now) wire.TextReply {
	set, _ := madeOf[record.NotesSet](d)
	return wire.TextReply{Text: fmt.Sprintf("The notes of the lead of %s in %s are saved (%d bytes).", c.URI.User, set.Thread, len(n.Text))}
}

// LooksLikeToken says whether text holds what looks like a token, and on
// which line (from 1): the rule of the shape of a secret is in
// riffcore/secret, which riff relay denied uses too.
func LooksLikeToken(text string) (int, bool) { return secret.LooksLikeToken(text) }

// Notes gives the notes of the lead of user in thread, and with
// history each old text. Only the user and the owner read them; in a
// riff with no sign-in each caller is an admin and reads its own notes.
func (v View) Notes(c Caller, q wire.Notes, now Now) (wire.NotesReply, error) {
	thread, err := v.threadOf(c, q.Thread, now)
	if err != nil {
		return wire.NotesReply{}, err
	}
	user := c.URI.User
	if q.User != "" {
		if err := name.CheckUser(q.User); err != nil {
			return wire.NotesReply{}, bad("%v", err)
		}
	}
	if q.User != "" && q.User != user {
		if c.Role < Owner && v.opts.SignIn {
			return wire.NotesReply{}, wire.Refuse(wire.NotAllowed, "only the owner reads the notes of another user")
		}
		user = q.User
	}
	reply := wire.NotesReply{User: user, Thread: string(thread)}
	n := v.riff.Notes[notesKey(user, thread)]
	if n == nil {
		return reply, nil
	}
	reply.Text = n.Text
	if q.History {
		for _, h := range n.History {
			reply.History = append(reply.History, wire.NoteVersion{Text: h.Text, By: byShort(h.By), AtMs: h.AtMs})
		}
	}
	return reply, nil
}
