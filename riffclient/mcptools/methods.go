package mcptools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/como-technologies/riff/riffclient/commands"
	"github.com/como-technologies/riff/riffcore/record"
)

// The inputs of the tools. A field with omitempty is optional; the
// jsonschema text is what the agent reads of it.
type (
	// NoInput is the input of a tool that takes none.
	NoInput  struct{}
	WhoInput struct {
		Long bool `json:"long,omitempty" jsonschema:"show the long form: each fact of each session"`
		All  bool `json:"all,omitempty" jsonschema:"show each session of the riff, also of other users"`
	}
	ReadInput struct {
		Thread string `json:"thread,omitempty" jsonschema:"one thread: OWNER/REPO, chat, or dm:PEER; none reads each of your threads, the direct threads first"`
		All    bool   `json:"all,omitempty" jsonschema:"each kept message, also the read ones and your own posts"`
		After  uint64 `json:"after,omitempty" jsonschema:"with all: the number of the last message that you read; the page starts after it"`
	}
	PostInput struct {
		Text   string   `json:"text,omitempty" jsonschema:"the text of the post; a status request needs none"`
		To     []string `json:"to,omitempty" jsonschema:"selectors FIELD=VALUE,... (user, session, host, repo, worktree, claim, lead, person); a session wakes when it matches each field of one"`
		Kind   string   `json:"kind,omitempty" jsonschema:"message (the default: wakes each selected session), note (wakes nobody) or status (asks each selected session for its status)"`
		Thread string   `json:"thread,omitempty" jsonschema:"the thread; none is the thread of your repository"`
	}
	TellInput struct {
		To   string `json:"to" jsonschema:"the session ID, or its start from 4 characters, or lead: your lead in this repository"`
		Text string `json:"text" jsonschema:"the direct message"`
	}
	TextInput struct {
		Text string `json:"text" jsonschema:"one line of at most 400 characters"`
	}
	BlockedInput struct {
		Reason string `json:"reason" jsonschema:"the decision that you need from a person: one line of at most 400 characters"`
	}
	ItemInput struct {
		Item   string `json:"item" jsonschema:"the work item, for example issue-12"`
		Thread string `json:"thread,omitempty" jsonschema:"the repository thread OWNER/REPO; none is the thread of your repository"`
	}
	HoldInput struct {
		Item   string `json:"item" jsonschema:"the work item, for example issue-12"`
		Reason string `json:"reason" jsonschema:"why the workers must not take it: 1 to 200 characters"`
		Thread string `json:"thread,omitempty" jsonschema:"the repository thread OWNER/REPO; none is the thread of your repository"`
	}
	PauseInput struct {
		Riff bool   `json:"riff,omitempty" jsonschema:"the whole riff (the owner or an admin)"`
		Repo string `json:"repo,omitempty" jsonschema:"a repository OWNER/REPO of another person (the owner or an admin); none is your repository"`
	}
	NotesInput struct {
		Text    *string `json:"text,omitempty" jsonschema:"the new text of the notes: it replaces the whole text; none only reads them"`
		Thread  string  `json:"thread,omitempty" jsonschema:"the repository thread OWNER/REPO; none is your repository"`
		History bool    `json:"history,omitempty" jsonschema:"also show each old text"`
	}
	MoveInput struct {
		Worktree string `json:"worktree" jsonschema:"the directory of your new place: a worktree or a clone, absolute or from your place now"`
	}
)

// Whoami shows the session, its URI, the state of the riff and the build.
func (t *Tools) Whoami(ctx context.Context, _ *mcp.CallToolRequest, _ NoInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, c commands.Caller) error { return c.Whoami(ctx) })
}

// Who lists the sessions of the riff.
func (t *Tools) Who(ctx context.Context, _ *mcp.CallToolRequest, in WhoInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, c commands.Caller) error { return c.Who(ctx, in.Long, in.All) })
}

// Threads lists the threads of the session.
func (t *Tools) Threads(ctx context.Context, _ *mcp.CallToolRequest, _ NoInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, c commands.Caller) error { return c.Threads(ctx) })
}

// Read reads one page of each thread (of in.Thread, when set), after
// in.After with in.All. A page with more messages after it ends with the
// line that says how to read on.
func (t *Tools) Read(ctx context.Context, _ *mcp.CallToolRequest, in ReadInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, c commands.Caller) error {
		return c.Read(ctx, in.Thread, in.All, in.After, true)
	})
}

// Post posts to a thread; a kind of none is a message.
func (t *Tools) Post(ctx context.Context, _ *mcp.CallToolRequest, in PostInput) (*mcp.CallToolResult, any, error) {
	kind := in.Kind
	if kind == "" {
		kind = string(record.MessagePlain)
	}
	return t.result(ctx, func(ctx context.Context, c commands.Caller) error {
		return c.Post(ctx, in.Thread, in.To, kind, in.Text)
	})
}

// Tell sends a direct message to one session, or to the lead.
func (t *Tools) Tell(ctx context.Context, _ *mcp.CallToolRequest, in TellInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, c commands.Caller) error { return c.Tell(ctx, in.To, in.Text) })
}

// Status sets the status of the session.
func (t *Tools) Status(ctx context.Context, _ *mcp.CallToolRequest, in TextInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, c commands.Caller) error { return c.Status(ctx, in.Text) })
}

// Blocked says that the session cannot go on with no decision of a
// person.
func (t *Tools) Blocked(ctx context.Context, _ *mcp.CallToolRequest, in BlockedInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, c commands.Caller) error { return c.Blocked(ctx, in.Reason) })
}

// Claim claims a work item.
func (t *Tools) Claim(ctx context.Context, _ *mcp.CallToolRequest, in ItemInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, c commands.Caller) error { return c.Claim(ctx, in.Thread, in.Item) })
}

// Release releases a claim of the session.
func (t *Tools) Release(ctx context.Context, _ *mcp.CallToolRequest, in ItemInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, c commands.Caller) error { return c.Release(ctx, in.Thread, in.Item, "") })
}

// Hold keeps a work item from the workers, with a reason (a lead).
func (t *Tools) Hold(ctx context.Context, _ *mcp.CallToolRequest, in HoldInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, c commands.Caller) error { return c.Hold(ctx, in.Thread, in.Item, in.Reason) })
}

// Free ends the hold of a work item (a lead).
func (t *Tools) Free(ctx context.Context, _ *mcp.CallToolRequest, in ItemInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, c commands.Caller) error { return c.Free(ctx, in.Thread, in.Item) })
}

// Pause pauses the repository of the session, the riff, or another
// repository.
func (t *Tools) Pause(ctx context.Context, _ *mcp.CallToolRequest, in PauseInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, c commands.Caller) error { return c.Pause(ctx, true, in.Riff, in.Repo) })
}

// Resume resumes what Pause paused.
func (t *Tools) Resume(ctx context.Context, _ *mcp.CallToolRequest, in PauseInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, c commands.Caller) error { return c.Pause(ctx, false, in.Riff, in.Repo) })
}

// Notes reads the notes of the lead, or with a text writes them.
func (t *Tools) Notes(ctx context.Context, _ *mcp.CallToolRequest, in NotesInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, c commands.Caller) error {
		if in.Text != nil {
			return c.SetNotes(ctx, in.Thread, *in.Text)
		}
		return c.Notes(ctx, in.Thread, "", in.History)
	})
}

// Move tells the riff the new place of the session; the later tools act
// from there.
func (t *Tools) Move(ctx context.Context, _ *mcp.CallToolRequest, in MoveInput) (*mcp.CallToolResult, any, error) {
	return t.result(ctx, func(ctx context.Context, c commands.Caller) error { return t.move(ctx, c, in.Worktree) })
}
