package riffclient

import (
	"context"
	"fmt"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
)

// NoteError is the note of a pass of the owner role that failed after
// the pass: the pass stays.
type NoteError struct{ Err error }

func (e *NoteError) Error() string { return "the note of the pass: " + e.Err.Error() }
func (e *NoteError) Unwrap() error { return e.Err }

// PassOwner passes the owner role to the member of pass.Email, then
// posts the note of the pass in chat through [Post], so that it is
// signed as each post: the server posts no note for pass_owner, its
// client does (docs/cli.md, "The note of a pass"). who names the caller
// in the note: USER (EMAIL), or USER. When the pass works and the note
// fails, it gives the reply of the pass and a [*NoteError].
func PassOwner(ctx context.Context, c *Client, pass wire.PassOwner, who string) (wire.TextReply, wire.PostReply, error) {
	r, err := Send(ctx, c, pass)
	if err != nil {
		return r, wire.PostReply{}, err
	}
	note := fmt.Sprintf("owner: %s passed the owner role to %s. %s stays an admin.", who, pass.Email, pass.Me.User)
	posted, err := Post(ctx, c, wire.Post{Me: pass.Me, Thread: string(name.Chat), Kind: record.MessageNote, Body: note})
	if err != nil {
		return r, posted, &NoteError{Err: err}
	}
	return r, posted, nil
}
