package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/local"
	"github.com/como-technologies/riff/riffcore/jsonlog"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// riff relay mcp is the MCP server of one agent session over stdio. Each
// tool runs the riff command of the same name in the process, with its
// text made into a buffer with no color and no terminal, through one
// client that all tools share. docs/agents.md is its set-up.

// The env vars of riff relay mcp.
const (
	// envWorker marks the session a worker: it registers with the worker
	// mark, and sends a keep-alive each 10 s.
	envWorker = "RIFF_WORKER"
	// envClaudeSession is the session ID that some builds of Claude Code
	// set; RIFF_SESSION and --session win over it.
	envClaudeSession = "CLAUDE_SESSION_ID"
)

// workerKeepAliveEvery is the time between two keep-alives of a worker,
// as the guide says ("The state of a session"); keepAliveEvery is the
// minute of every other session.
const workerKeepAliveEvery = 10 * time.Second

// endBudget is the longest wait for the end at the end of the input: the
// agent tool waits for its MCP server to exit.
const endBudget = 10 * time.Second

func relayMCP() command {
	return command{name: "mcp", usage: "mcp", flags: noFlags((*cli).relayMCP), interspersed: true}
}

// relay is one run of riff relay mcp: the session, its place, and the
// cli whose system and client each tool shares.
type relay struct {
	c      *cli
	log    *slog.Logger
	local  string
	worker bool
	every  time.Duration

	// runCtx is the context of the run: the keep-alive ends with it.
	runCtx context.Context

	mu sync.Mutex
	// dir is the working directory of the session: its place. move
	// changes it.
	dir string
	// stopKeepAlive stops the keep-alive of the place before a move.
	stopKeepAlive context.CancelFunc
	keepAliveDone chan struct{}
}

func (c *cli) relayMCP(ctx context.Context, args []string) error {
	if err := noArgs(args, "relay mcp"); err != nil {
		return err
	}
	log := jsonLog(c.stderr)
	// The lines of the client (the wait line, the note of different
	// builds) go to the log as JSON lines, as each other line of stderr.
	opts := riffclient.Options{Build: c.build, Out: logLines{log}}
	if c.system.client != nil {
		c.system.client(&opts)
	}
	// The sign-in of the machine: the tools, the keep-alive and the end
	// carry the session token of this process.
	opts.Auth = c.auth()
	c.client = riffclient.New(c.client.Server(), opts)
	r, err := c.newRelay(log)
	if err != nil {
		return err
	}
	me, err := r.me(ctx)
	if err != nil {
		return err
	}
	// A register gives the worker mark; with no server, the tools say
	// that the server does not answer, and the keep-alive tries again.
	if _, err := riffclient.Send(ctx, c.client, wire.Register{Me: me, Worker: r.worker}); err != nil {
		log.Warn("riff relay mcp cannot register the session", "session", me.Session, "error", c.words(err))
	}
	r.runCtx = ctx
	r.startKeepAlive(me)
	defer r.stopKeepAliveLoop()

	err = r.server().Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(c.stdin), Writer: nopWriteCloser{c.stdout}})
	// The end of the input, or a stop of the agent tool (SIGINT, SIGTERM):
	// the session ends, once. A kill -9 gives no end: the 3-minute rule
	// of the server applies.
	r.stopKeepAliveLoop()
	endCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), endBudget)
	defer cancel()
	me, meErr := r.me(endCtx)
	if meErr == nil {
		if _, endErr := riffclient.Send(endCtx, c.client, wire.End{Me: me}); endErr != nil {
			log.Warn("riff relay mcp cannot end the session", "session", me.Session, "error", c.words(endErr))
		} else {
			log.Info("riff relay mcp ended the session", "session", me.Session)
		}
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		log.Warn("riff relay mcp: the MCP connection ended with an error", "error", err.Error())
	}
	return nil
}

// newRelay finds the session, the local folder and the time between two
// keep-alives.
func (c *cli) newRelay(log *slog.Logger) (*relay, error) {
	worker := isTrue(c.env(envWorker))
	every := keepAliveEvery
	if worker {
		every = workerKeepAliveEvery
	}
	every, err := keepAliveInterval(c.env, every)
	if err != nil {
		return nil, err
	}
	if c.g.session == "" {
		c.g.session = c.env(envClaudeSession)
	}
	if c.g.session == "" {
		id, err := newSessionID()
		if err != nil {
			return nil, err
		}
		c.g.session = id
		log.Warn("riff relay mcp has no session ID from RIFF_SESSION, --session or CLAUDE_SESSION_ID: it made one; the hooks of the agent tool do not reach its keep-alive (see docs/agents.md)", "session", id)
	}
	if err := name.CheckSessionID(c.g.session); err != nil {
		return nil, knownf("the session ID %q is not a session ID: %s", c.g.session, err)
	}
	dir, err := local.Dir(c.env)
	if err != nil {
		return nil, knownf("%s", err)
	}
	wd, err := c.workDir()
	if err != nil {
		return nil, err
	}
	return &relay{c: c, log: log, local: dir, worker: worker, every: every, dir: wd}, nil
}

// isTrue says whether the value of an env var turns a mark on.
func isTrue(v string) bool {
	b, err := strconv.ParseBool(v)
	return err == nil && b
}

// newSessionID makes a session ID for a relay that got none.
func newSessionID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", knownf("riff cannot make a session ID: %s", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// place gives the working directory of the session.
func (r *relay) place() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dir
}

// me gives the URI of the session at its place.
func (r *relay) me(ctx context.Context) (name.SessionURI, error) {
	c := r.toolCLI(io.Discard, io.Discard)
	return c.me(ctx)
}

// startKeepAlive starts the keep-alive of me.
func (r *relay) startKeepAlive(me name.SessionURI) {
	kctx, cancel := context.WithCancel(r.runCtx)
	done := make(chan struct{})
	r.mu.Lock()
	r.stopKeepAlive, r.keepAliveDone = cancel, done
	r.mu.Unlock()
	go func() {
		defer close(done)
		keepAlive(kctx, r.c.client, me, r.local, r.every, r.onAlive(me.Session))
	}()
}

// stopKeepAliveLoop stops the keep-alive and waits until it is done.
func (r *relay) stopKeepAliveLoop() {
	r.mu.Lock()
	stop, done := r.stopKeepAlive, r.keepAliveDone
	r.stopKeepAlive, r.keepAliveDone = nil, nil
	r.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}

// onAlive keeps the ask to clear of each reply of the keep-alive in the
// local folder (local.SetClear), and removes it when the server no
// longer asks: the Stop hook (riff relay hook) gives it to the agent tool.
func (r *relay) onAlive(session string) func(wire.AliveReply) {
	return func(reply wire.AliveReply) {
		if err := local.SetClear(r.local, session, reply.Clear); err != nil {
			r.log.Warn("riff relay mcp cannot keep the ask to clear in the local folder", "error", err.Error())
		}
	}
}

// toolCLI is a cli for one tool: the system of the relay with the text
// into out, no terminal, no input, the place of the session and the
// shared client.
func (r *relay) toolCLI(out, errOut io.Writer) *cli {
	sys := *r.c.system
	sys.stdout, sys.stderr, sys.stdin = out, errOut, strings.NewReader("")
	sys.terminal = func(io.Writer) (bool, int) { return false, 0 }
	dir := r.place()
	sys.getwd = func() (string, error) { return dir, nil }
	sys.shared = r.c.client
	c := &cli{system: &sys, g: r.c.g, signin: r.c.signin}
	c.g.color = "never"
	return c
}

// run runs do as a tool: its text is the result; an error is a tool
// error whose text is the reason of the server, or the words of riff.
func (r *relay) run(ctx context.Context, do func(c *cli, ctx context.Context) error) (*mcp.CallToolResult, any, error) {
	var out, errOut bytes.Buffer
	c := r.toolCLI(&out, &errOut)
	err := c.setup()
	if err == nil {
		err = do(c, ctx)
	}
	if err != nil {
		text := strings.TrimRight(out.String()+toolErrorText(c, err), "\n")
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	}
	text := strings.TrimRight(out.String(), "\n")
	if text == "" {
		text = "Done."
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
}

// command runs the command of the list that words name, with args.
func (r *relay) command(ctx context.Context, words []string, args ...string) (*mcp.CallToolResult, any, error) {
	return r.run(ctx, func(c *cli, ctx context.Context) error {
		top, ok := c.commands()[words[0]]
		if !ok {
			return knownf("riff knows no command %q", words[0])
		}
		exec, rest, err := c.parseCommand(top, append(append([]string(nil), words[1:]...), args...))
		if err != nil {
			return err
		}
		return exec(c, ctx, rest)
	})
}

// toolErrorText is the text of a tool error: the reason of a refusal of
// the server, else the line that riff prints, with no Error: and no
// pointer to riff --help.
func toolErrorText(c *cli, err error) string {
	if text, ok := c.lostSignIn(err); ok {
		return text
	}
	var refused *wire.Refused
	if errors.As(err, &refused) {
		return clean(refused.Reason)
	}
	var b bytes.Buffer
	c.stderr, c.errOut = &b, nil
	c.finish(err)
	line, _, _ := strings.Cut(b.String(), "\n")
	if line == "" {
		// riff prints nothing for a call that its caller ended.
		return "the call ended before its reply"
	}
	return strings.TrimPrefix(line, "Error: ")
}

// withThread gives -t THREAD when thread is set.
func withThread(thread string) []string {
	if thread == "" {
		return nil
	}
	return []string{"--thread", thread}
}

// words ends the flags of a command and gives its text as one word, so
// a text that starts with - is text.
func words(text ...string) []string { return append([]string{"--"}, text...) }

// The inputs of the tools. A field with omitempty is optional.
type (
	noInput  struct{}
	whoInput struct {
		Long bool `json:"long,omitempty" jsonschema:"show the long form: each fact of each session"`
		All  bool `json:"all,omitempty" jsonschema:"show each session of the riff, also of other users"`
	}
	readInput struct {
		Thread string `json:"thread,omitempty" jsonschema:"one thread: OWNER/REPO, chat, or dm:PEER; none reads each of your threads, the direct threads first"`
		All    bool   `json:"all,omitempty" jsonschema:"each kept message, also the read ones and your own posts"`
		After  uint64 `json:"after,omitempty" jsonschema:"with all: the number of the last message that you read; the page starts after it"`
	}
	postInput struct {
		Text   string   `json:"text,omitempty" jsonschema:"the text of the post; a status request needs none"`
		To     []string `json:"to,omitempty" jsonschema:"selectors FIELD=VALUE,... (user, session, host, repo, worktree, claim, lead, person); a session wakes when it matches each field of one"`
		Kind   string   `json:"kind,omitempty" jsonschema:"message (the default: wakes each selected session), note (wakes nobody) or status (asks each selected session for its status)"`
		Thread string   `json:"thread,omitempty" jsonschema:"the thread; none is the thread of your repository"`
	}
	tellInput struct {
		To   string `json:"to" jsonschema:"the session ID, or its start from 4 characters, or lead: your lead in this repository"`
		Text string `json:"text" jsonschema:"the direct message"`
	}
	textInput struct {
		Text string `json:"text" jsonschema:"one line of at most 400 characters"`
	}
	blockedInput struct {
		Reason string `json:"reason" jsonschema:"the decision that you need from a person: one line of at most 400 characters"`
	}
	itemInput struct {
		Item   string `json:"item" jsonschema:"the work item, for example issue-12"`
		Thread string `json:"thread,omitempty" jsonschema:"the repository thread OWNER/REPO; none is the thread of your repository"`
	}
	holdInput struct {
		Item   string `json:"item" jsonschema:"the work item, for example issue-12"`
		Reason string `json:"reason" jsonschema:"why the workers must not take it: 1 to 200 characters"`
		Thread string `json:"thread,omitempty" jsonschema:"the repository thread OWNER/REPO; none is the thread of your repository"`
	}
	pauseInput struct {
		Riff bool   `json:"riff,omitempty" jsonschema:"the whole riff (the owner or an admin)"`
		Repo string `json:"repo,omitempty" jsonschema:"a repository OWNER/REPO of another person (the owner or an admin); none is your repository"`
	}
	notesInput struct {
		Text    *string `json:"text,omitempty" jsonschema:"the new text of the notes: it replaces the whole text; none only reads them"`
		Thread  string  `json:"thread,omitempty" jsonschema:"the repository thread OWNER/REPO; none is your repository"`
		History bool    `json:"history,omitempty" jsonschema:"also show each old text"`
	}
	moveInput struct {
		Worktree string `json:"worktree" jsonschema:"the directory of your new place: a worktree or a clone, absolute or from your place now"`
	}
)

// server builds the MCP server with the tools of the session.
func (r *relay) server() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "riff", Version: r.c.build.Display()}, &mcp.ServerOptions{
		Instructions: "The riff tools of this session: messages, claims and the state of the other sessions of the riff. " +
			"Read after each wake; claim an item before you work on it; set your status at each change of step.",
	})
	mcp.AddTool(s, &mcp.Tool{Name: "whoami", Description: "Show your session, your URI, the state of the riff (paused or running) and the build. Use it first, or when a tool says that something is wrong with you."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noInput) (*mcp.CallToolResult, any, error) {
			return r.command(ctx, []string{"whoami"})
		})
	mcp.AddTool(s, &mcp.Tool{Name: "who", Description: "List the live sessions of the riff with their state, claims and status. Use it to see who works on what before you claim or tell."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in whoInput) (*mcp.CallToolResult, any, error) {
			var args []string
			if in.Long {
				args = append(args, "--long")
			}
			if in.All {
				args = append(args, "--all")
			}
			return r.command(ctx, []string{"who"}, args...)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "threads", Description: "List your threads with the number of their last message and of your unread messages. A direct thread shows as dm:PEER."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noInput) (*mcp.CallToolResult, any, error) {
			return r.command(ctx, []string{"threads"})
		})
	mcp.AddTool(s, &mcp.Tool{Name: "read", Description: "Read one page of your unread messages: the messages to you after the page first, then each direct thread, then your other threads. Use it after each wake. When more messages follow, the last line says so: read again with all set and after set to the number it names. A read marks what it shows as read; to read a direct thread again, set thread to dm:PEER and all."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in readInput) (*mcp.CallToolResult, any, error) {
			return r.run(ctx, func(c *cli, ctx context.Context) error { return c.readPage(ctx, in.Thread, in.All, in.After) })
		})
	mcp.AddTool(s, &mcp.Tool{Name: "post", Description: "Post to a thread (default: the thread of your repository). A message wakes each session that one selector of to matches; a note wakes nobody; a status request asks each selected session for its status. Wake only the sessions that must act: each other post is a note."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in postInput) (*mcp.CallToolResult, any, error) {
			args := withThread(in.Thread)
			for _, to := range in.To {
				args = append(args, "--to", to)
			}
			if in.Kind != "" {
				args = append(args, "--kind", in.Kind)
			}
			return r.command(ctx, []string{"post"}, append(args, words(in.Text)...)...)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "tell", Description: "Send a direct message to one session (its ID, or the start of it from 4 characters), or to lead: your lead in this repository. Use it to ask your lead, or to answer a session that asked you."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in tellInput) (*mcp.CallToolResult, any, error) {
			return r.command(ctx, []string{"tell"}, words(in.To, in.Text)...)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "status", Description: "Set your status: one line of at most 400 characters that riff who shows. Set it at each change of step, and when a status request wakes you."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in textInput) (*mcp.CallToolResult, any, error) {
			return r.command(ctx, []string{"status"}, words(in.Text)...)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "blocked", Description: "Say that you cannot go on with no decision of a person. It wakes the lead of your user with the reason. A prompt of your user ends the block."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in blockedInput) (*mcp.CallToolResult, any, error) {
			return r.command(ctx, []string{"blocked"}, words(in.Reason)...)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "claim", Description: "Claim a work item before you work on it. It fails when another session holds it, or when the riff or the repository is paused: then do not work on it."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in itemInput) (*mcp.CallToolResult, any, error) {
			return r.command(ctx, []string{"claim"}, append(withThread(in.Thread), words(in.Item)...)...)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "release", Description: "Release a claim of yours when the item is done or you stop work on it. A worker that releases its last item gets its context cleared when its turn ends."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in itemInput) (*mcp.CallToolResult, any, error) {
			return r.command(ctx, []string{"release"}, append(withThread(in.Thread), words(in.Item)...)...)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "hold", Description: "Lead only: keep a work item from the workers, with a reason. free ends the hold."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in holdInput) (*mcp.CallToolResult, any, error) {
			return r.command(ctx, []string{"plan", "hold"}, append(withThread(in.Thread), words(in.Item, in.Reason)...)...)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "free", Description: "Lead only: end the hold of a work item, so that a worker can claim it."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in itemInput) (*mcp.CallToolResult, any, error) {
			return r.command(ctx, []string{"plan", "free"}, append(withThread(in.Thread), words(in.Item)...)...)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "pause", Description: "Lead only: pause your repository (or the riff, or another repository): each claim there fails until resume."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in pauseInput) (*mcp.CallToolResult, any, error) {
			return r.command(ctx, []string{"pause"}, pauseArgs(in)...)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "resume", Description: "Lead only: resume your repository (or the riff, or another repository) after a pause."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in pauseInput) (*mcp.CallToolResult, any, error) {
			return r.command(ctx, []string{"resume"}, pauseArgs(in)...)
		})
	mcp.AddTool(s, &mcp.Tool{Name: "notes", Description: "Read the notes of the lead in this repository: the running state of the lead, what waits, the choices. A lead reads them at its start. With text, the lead writes them: the text replaces the whole notes."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in notesInput) (*mcp.CallToolResult, any, error) {
			if in.Text == nil {
				args := withThread(in.Thread)
				if in.History {
					args = append(args, "--history")
				}
				return r.command(ctx, []string{"lead", "notes"}, args...)
			}
			return r.run(ctx, func(c *cli, ctx context.Context) error {
				me, err := c.me(ctx)
				if err != nil {
					return err
				}
				return c.setNotes(ctx, me, in.Thread, *in.Text)
			})
		})
	mcp.AddTool(s, &mcp.Tool{Name: "move", Description: "Tell the riff your new place after you change to another worktree or clone: give its directory. Your later tools act from there."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in moveInput) (*mcp.CallToolResult, any, error) {
			return r.run(ctx, func(c *cli, ctx context.Context) error { return r.move(c, ctx, in.Worktree) })
		})
	return s
}

// pauseArgs gives the flags of riff pause and riff resume.
func pauseArgs(in pauseInput) []string {
	var args []string
	if in.Riff {
		args = append(args, "--riff")
	}
	if in.Repo != "" {
		args = append(args, "--repo", in.Repo)
	}
	return args
}

// move tells the server the place of the directory worktree, and makes
// it the place of the session: of the later tools and the keep-alive.
func (r *relay) move(c *cli, ctx context.Context, worktree string) error {
	if worktree == "" {
		return knownf("move needs the directory of the new place")
	}
	dir := worktree
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(r.place(), dir)
	}
	dir = filepath.Clean(dir)
	c.getwd = func() (string, error) { return dir, nil }
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	reply, err := call(ctx, c, wire.Move{Me: me})
	if err != nil {
		return err
	}
	r.stopKeepAliveLoop()
	r.mu.Lock()
	r.dir = dir
	r.mu.Unlock()
	r.startKeepAlive(me)
	uri := reply.URI
	if uri.IsZero() {
		uri = me
	}
	c.out.facts([]fact{
		{key: "session", value: clean(uri.Short() + " (" + cutID(uri.Session, 8) + ")")},
		{key: "uri", value: clean(uri.String())},
	})
	return nil
}

// nopWriteCloser is the output of the MCP connection: the stdout of riff,
// which the connection does not close.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// logLines writes each line that it gets as a line of the log.
type logLines struct{ log *slog.Logger }

func (l logLines) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		l.log.Info(line)
	}
	return len(p), nil
}

// jsonLog is the log of riff relay mcp on stderr: the JSON lines with
// severity of riff-server (riffcore/jsonlog), which the agent tool keeps
// in the log of its MCP server.
func jsonLog(w io.Writer) *slog.Logger { return jsonlog.New(w, slog.LevelInfo) }
