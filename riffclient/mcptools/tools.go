package mcptools

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/commands"
	"github.com/como-technologies/riff/riffclient/render"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Options are the settings of the tools of one session.
type Options struct {
	// Client sends the calls of each tool; all tools share it, so that
	// it remembers that the server replied (a refused connect after a
	// restart of the server is tried again). Required.
	Client *riffclient.Client
	// Dir is the working directory of the session at its start: its
	// place. The tool move changes it.
	Dir string
	// Me names the session at the directory dir: its user, host and
	// place. Required. The text of its errors is the text of Words.
	Me func(ctx context.Context, dir string) (name.SessionURI, error)
	// Moved is called after the server took a move: me is the session at
	// its new place dir. riff relay mcp moves its keep-alive there. Nil
	// does nothing.
	Moved func(me name.SessionURI, dir string)
	// Words gives the text of an error for the agent, for the errors that
	// are not of a call (those of Me). Nil gives the words of render,
	// else that the reply cannot be used.
	Words func(error) string
	// SignInFault gives the fault of the sign-in of the machine (an
	// ended sign-in), whose text tells the agent what its person runs.
	// Nil is a machine with no sign-in.
	SignInFault func() error
	// Zone is the zone of the times of the notes; nil is UTC.
	Zone *time.Location
	// Earlier gives the line of the earlier work on an item that the
	// session claimed, in the clone of its working directory dir (riff
	// relay mcp: riffclient/earlier); nil shows none.
	Earlier func(ctx context.Context, dir string, item name.Item) string
	// EarlierOfClone gives a line for each item with earlier work in the
	// clone of dir, but the items of skip (riffclient/earlier.List); the
	// whoami tool shows them. Nil shows none.
	EarlierOfClone func(ctx context.Context, dir string, skip func(name.Item) bool) []string
}

// Tools are the tools of one agent session. They are safe for
// concurrent use: an agent tool may call two at once.
type Tools struct {
	o Options

	mu  sync.Mutex
	dir string
	// onMove moves the keep-alive of Serve to the new place.
	onMove func(me name.SessionURI)
}

// New gives the tools of a session.
func New(o Options) *Tools {
	return &Tools{o: o, dir: o.Dir}
}

// Place gives the working directory of the session now.
func (t *Tools) Place() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dir
}

// Me gives the URI of the session at its place now.
func (t *Tools) Me(ctx context.Context) (name.SessionURI, error) {
	return t.o.Me(ctx, t.Place())
}

// result runs do as a tool: the text that it prints is the result; an
// error is a tool error, after the text that do printed.
func (t *Tools) result(ctx context.Context, do func(ctx context.Context, c commands.Caller) error) (*mcp.CallToolResult, any, error) {
	var out bytes.Buffer
	c := commands.Caller{Client: t.o.Client, Me: t.Me, Out: render.NewPrinter(&out, render.Options{Zone: t.o.Zone})}
	if t.o.Earlier != nil {
		c.Earlier = func(ctx context.Context, item name.Item) string { return t.o.Earlier(ctx, t.Place(), item) }
	}
	if t.o.EarlierOfClone != nil {
		c.EarlierOfClone = func(ctx context.Context, skip func(name.Item) bool) []string {
			return t.o.EarlierOfClone(ctx, t.Place(), skip)
		}
	}
	err := do(ctx, c)
	if err != nil {
		text := strings.TrimRight(out.String()+t.errorText(err), "\n")
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	}
	text := strings.TrimRight(out.String(), "\n")
	if text == "" {
		text = "Done."
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
}

// errorText is the text of a tool error: the fault of the sign-in, the
// reason of a refusal of the server, else the line that riff prints for
// the error, with no Error: and no pointer to riff --help.
func (t *Tools) errorText(err error) string {
	if text, ok := render.LostSignIn(err, t.o.SignInFault); ok {
		return text
	}
	var refused *wire.Refused
	var input *commands.InputError
	var mismatch *riffclient.MismatchError
	switch {
	case errors.As(err, &refused):
		return render.Clean(refused.Reason)
	case errors.As(err, &input):
		return render.Clean(input.Msg)
	case errors.As(err, &mismatch):
		return render.Clean(mismatch.Text)
	case errors.Is(err, context.Canceled):
		return "the call ended before its reply"
	}
	line, _, _ := strings.Cut(t.words(err), "\n")
	return line
}

// words gives the text of an error that is not of a refusal.
func (t *Tools) words(err error) string {
	if t.o.Words != nil {
		return t.o.Words(err)
	}
	if text, ok := render.ErrorWords(err); ok {
		return text
	}
	return render.UnusableReply(t.o.Client.Server().String())
}

// move tells the server the place of the directory worktree, and makes
// it the place of the session: of the later tools and of Moved.
func (t *Tools) move(ctx context.Context, c commands.Caller, worktree string) error {
	if worktree == "" {
		return commands.Inputf("move needs the directory of the new place")
	}
	dir := worktree
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(t.Place(), dir)
	}
	dir = filepath.Clean(dir)
	me, err := t.o.Me(ctx, dir)
	if err != nil {
		return err
	}
	r, err := riffclient.Send(ctx, t.o.Client, wire.Move{Me: me})
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.dir = dir
	onMove := t.onMove
	t.mu.Unlock()
	if onMove != nil {
		onMove(me)
	}
	if t.o.Moved != nil {
		t.o.Moved(me, dir)
	}
	render.Moved(c.Out, me, r)
	return nil
}
