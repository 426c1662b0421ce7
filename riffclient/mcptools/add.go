package mcptools

import "github.com/modelcontextprotocol/go-sdk/mcp"

// Instructions are the instructions of an MCP server of riff tools for
// the agent.
const Instructions = "The riff tools of this session: messages, claims and the state of the other sessions of the riff. " +
	"Read after each wake; claim an item before you work on it; set your status at each change of step. " +
	"Pick up dropped work: when a claim names earlier work on the item (a pushed branch, a worktree), go on from it, and do not start again. " +
	"Commit the files that a worktree has not committed as WIP and push them first: they are the only copy. " +
	"Start again only when the earlier work is wrong: then delete its pushed branch first (git push origin --delete BRANCH), and say so in your start post."

// Add adds the tools of the session to s, each with the description that
// tells the agent when to use it.
func Add(s *mcp.Server, t *Tools) {
	AddContainer(s, t)
	mcp.AddTool(s, &mcp.Tool{Name: "claim", Description: "Claim a work item before you work on it. It fails when another session holds it, or when the riff or the repository is paused: then do not work on it."}, t.Claim)
	mcp.AddTool(s, &mcp.Tool{Name: "release", Description: "Release a claim of yours when the item is done or you stop work on it. A worker that releases its last item gets its context cleared when its turn ends."}, t.Release)
	mcp.AddTool(s, &mcp.Tool{Name: "hold", Description: "Lead only: keep a work item from the workers, with a reason. free ends the hold."}, t.Hold)
	mcp.AddTool(s, &mcp.Tool{Name: "free", Description: "Lead only: end the hold of a work item, so that a worker can claim it."}, t.Free)
	mcp.AddTool(s, &mcp.Tool{Name: "pause", Description: "Lead only: pause your repository (or the riff, or another repository): each claim there fails until resume."}, t.Pause)
	mcp.AddTool(s, &mcp.Tool{Name: "resume", Description: "Lead only: resume your repository (or the riff, or another repository) after a pause."}, t.Resume)
	mcp.AddTool(s, &mcp.Tool{Name: "notes", Description: "Read the notes of the lead in this repository: the running state of the lead, what waits, the choices. A lead reads them at its start. With text, the lead writes them: the text replaces the whole notes."}, t.Notes)
	mcp.AddTool(s, &mcp.Tool{Name: "move", Description: "Tell the riff your new place after you change to another worktree or clone: give its directory. Your later tools act from there."}, t.Move)
}

// AddContainer adds to s the tools of a session in a container of the
// riff daemon (docs/daemon.md): "whoami, who, threads, read, post, tell,
// status and blocked". The daemon gives it its item, so it has no claim,
// no release and no tool of a lead.
func AddContainer(s *mcp.Server, t *Tools) {
	mcp.AddTool(s, &mcp.Tool{Name: "whoami", Description: "Show your session, your URI, the state of the riff (paused or running) and the build. Use it first, or when a tool says that something is wrong with you."}, t.Whoami)
	mcp.AddTool(s, &mcp.Tool{Name: "who", Description: "List the live sessions of the riff with their state, claims and status. Use it to see who works on what before you claim or tell."}, t.Who)
	mcp.AddTool(s, &mcp.Tool{Name: "threads", Description: "List your threads with the number of their last message and of your unread messages. A direct thread shows as dm:PEER."}, t.Threads)
	mcp.AddTool(s, &mcp.Tool{Name: "read", Description: "Read one page of your unread messages: the messages to you after the page first, then each direct thread, then your other threads. Use it after each wake. When more messages follow, the last line says so: read again with all set and after set to the number it names. A read marks what it shows as read; to read a direct thread again, set thread to dm:PEER and all."}, t.Read)
	mcp.AddTool(s, &mcp.Tool{Name: "post", Description: "Post to a thread (default: the thread of your repository). A message wakes each session that one selector of to matches; a note wakes nobody; a status request asks each selected session for its status. Wake only the sessions that must act: each other post is a note."}, t.Post)
	mcp.AddTool(s, &mcp.Tool{Name: "tell", Description: "Send a direct message to one session (its ID, or the start of it from 4 characters), or to lead: your lead in this repository. Use it to ask your lead, or to answer a session that asked you."}, t.Tell)
	mcp.AddTool(s, &mcp.Tool{Name: "status", Description: "Set your status: one line of at most 400 characters that riff who shows. Set it at each change of step, and when a status request wakes you."}, t.Status)
	mcp.AddTool(s, &mcp.Tool{Name: "blocked", Description: "Say that you cannot go on with no decision of a person. It wakes the lead of your user with the reason. A message that wakes you is the answer: the block ends at your next work after it (a tool call, a claim, a release). The lead waits for its person instead: its next prompt ends the wait."}, t.Blocked)
}
