package riffclient

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// TestGivenAPassOfTheOwnerRoleWhenTheNoteFailsThenThePassStaysAndTheErrorSaysTheNote:
// the client posts the note of a pass in chat after the pass (the server
// posts none); a note that fails leaves the pass, and a refused pass
// posts no note.
func TestGivenAPassOfTheOwnerRoleWhenTheNoteFailsThenThePassStaysAndTheErrorSaysTheNote(t *testing.T) {
	var posts []string
	refusePass := false
	c, _, _, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set(wire.HeaderBuild, buildA)
		switch r.URL.Path {
		case "/v1/owner/pass":
			if refusePass {
				w.Header().Set(wire.HeaderRefused, string(wire.NotAllowed))
				w.WriteHeader(wire.NotAllowed.Status())
				io.WriteString(w, "only the owner passes the role")
				return
			}
			json.NewEncoder(w).Encode(wire.TextReply{Text: "ann@example.com is the owner of the riff now."})
		case "/v1/post":
			posts = append(posts, string(body))
			w.Header().Set(wire.HeaderRefused, string(wire.BadRequest))
			w.WriteHeader(wire.BadRequest.Status())
			io.WriteString(w, "chat is closed")
		}
	})
	me := name.SessionURI{User: "mike", Host: "pangolin"}
	r, _, err := PassOwner(context.Background(), c, wire.PassOwner{Me: me, Email: "ann@example.com"}, "mike (mike@example.com)")
	var note *NoteError
	if !errors.As(err, &note) || r.Text != "ann@example.com is the owner of the riff now." {
		t.Fatalf("a pass with a failed note = %q, %v; want the pass and a NoteError", r.Text, err)
	}
	if len(posts) != 1 || !strings.Contains(posts[0], `"body":"owner: mike (mike@example.com) passed the owner role to ann@example.com. mike stays an admin."`) ||
		!strings.Contains(posts[0], `"thread":"chat"`) || !strings.Contains(posts[0], `"kind":"note"`) {
		t.Errorf("the note of the pass is %v", posts)
	}
	refusePass = true
	if _, _, err := PassOwner(context.Background(), c, wire.PassOwner{Me: me, Email: "ann@example.com"}, "mike"); errors.As(err, &note) || err == nil || len(posts) != 1 {
		t.Errorf("a refused pass = %v with %d notes; want the refusal and no note", err, len(posts))
	}
}
