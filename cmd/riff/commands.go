package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/selector"
	"github.com/como-technologies/riff/riffcore/wire"
)

// dispatch runs the command that args name.
func (c *cli) dispatch(ctx context.Context, args []string) error {
	root := flag.NewFlagSet("riff", flag.ContinueOnError)
	showVersion := root.Bool("version", false, "print the build of riff")
	args, err := c.parseRoot(root, args)
	if err != nil {
		return err
	}
	if *showVersion {
		fmt.Fprintf(c.stdout, "riff %s\n", c.build.Display())
		return nil
	}
	if len(args) == 0 {
		c.usage(c.stdout)
		return nil
	}
	cmd, ok := c.commands()[args[0]]
	if !ok {
		return usagef("riff knows no command %q", args[0])
	}
	return cmd.run(ctx, args[1:])
}

// parseRoot parses the flags before the command.
func (c *cli) parseRoot(fs *flag.FlagSet, args []string) ([]string, error) {
	c.g.register(fs)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			c.usage(c.stdout)
			return nil, flag.ErrHelp
		}
		return nil, usagef("riff: %s", err)
	}
	return fs.Args(), nil
}

// command is one command of riff.
type command struct {
	heading string
	usage   string
	short   string
	long    string
	run     func(ctx context.Context, args []string) error
}

// The headings of riff --help, in order: the guide's ("Find a
// command"). A heading with no command yet (Pull requests, Members) does
// not show.
var headings = []string{"Get started", "Work in the riff", "Pull requests", "Lead", "Members"}

func (c *cli) commands() map[string]command {
	return map[string]command{
		"whoami":  {heading: "Get started", usage: "whoami", short: "show your URI, the state of the riff and the build", long: helpWhoami, run: c.whoami},
		"who":     {heading: "Get started", usage: "who [--long] [--all]", short: "list the sessions of the riff", long: helpWho, run: c.who},
		"server":  {heading: "Get started", usage: "server", short: "show the riff that riff uses, its release and its facts", long: helpServer, run: c.server},
		"threads": {heading: "Work in the riff", usage: "threads", short: "list your threads", long: helpThreads, run: c.threads},
		"read":    {heading: "Work in the riff", usage: "read [-t THREAD] [--all]", short: "read your unread messages", long: helpRead, run: c.read},
		"post":    {heading: "Work in the riff", usage: "post [-t THREAD] [--to FIELD=VALUE,...] [--kind note|status|message] TEXT", short: "post a message to a thread", long: helpPost, run: c.post},
		"tell":    {heading: "Work in the riff", usage: "tell SESSION|lead TEXT", short: "send a direct message to a session or to your lead", long: helpTell, run: c.tell},
		"tail":    {heading: "Work in the riff", usage: "tail [THREAD]", short: "follow a thread", long: helpTail, run: c.tail},
		"claim":   {heading: "Work in the riff", usage: "claim [-t THREAD] ITEM", short: "claim a work item (exit 1 when held)", long: helpClaim, run: c.claim},
		"release": {heading: "Work in the riff", usage: "release [-t THREAD] ITEM [--session ID]", short: "release a claim", long: helpRelease, run: c.release},
		"status":  {heading: "Work in the riff", usage: "status TEXT", short: "set your status", long: helpStatus, run: c.status},
		"blocked": {heading: "Work in the riff", usage: "blocked REASON", short: "say that you cannot go on with no decision of a person", long: helpBlocked, run: c.blocked},
		"step":    {heading: "Work in the riff", usage: "step start NAME | step done | step fail REASON", short: "show a long step", long: helpStep, run: c.step},
		"pause":   {heading: "Lead", usage: "pause [--riff | --repo OWNER/REPO]", short: "pause your repository or the riff", long: helpPause, run: c.pauseCmd(true)},
		"resume":  {heading: "Lead", usage: "resume [--riff | --repo OWNER/REPO]", short: "resume your repository or the riff", long: helpResume, run: c.pauseCmd(false)},
		"lead":    {heading: "Lead", usage: "lead --session ID | lead notes [edit [--file F]] [--history]", short: "name the lead, or show and edit its notes", long: helpLead, run: c.lead},
		"plan":    {heading: "Lead", usage: "plan hold ITEM REASON | plan free ITEM", short: "hold an item from the workers, or free it", long: helpPlan, run: c.plan},
		"help":    {heading: "Get started", usage: "help [COMMAND | server]", short: "show the help of a command", long: helpHelp, run: c.helpCmd},
	}
}

// call sends one call, with the caller taken at the place.
func call[R any](ctx context.Context, c *cli, w wire.Call[R]) (R, error) {
	return riffclient.Send(ctx, c.client, w)
}

// reply prints the text of a reply.
func (c *cli) reply(text string) {
	for _, line := range strings.Split(cleanLines(text), "\n") {
		c.out.text(line)
	}
}

func (c *cli) whoami(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("whoami", flag.ContinueOnError)
	if err := c.noArgs(fs, args); err != nil {
		return err
	}
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	r, err := call(ctx, c, wire.Whoami{Me: me})
	if err != nil {
		return err
	}
	uri := r.URI
	if uri.IsZero() {
		uri = me
	}
	var fs2 []fact
	if uri.IsPerson() {
		fs2 = append(fs2, fact{key: "person", value: clean(uri.Short())})
	} else {
		named := uri.Short() + " (" + cutID(uri.Session, 8) + ")"
		fs2 = append(fs2, fact{key: "session", value: clean(named)})
	}
	fs2 = append(fs2, fact{key: "uri", value: clean(uri.String())})
	fs2 = append(fs2, c.pauseFacts(r.Pauses)...)
	fs2 = append(fs2, c.buildFacts(r.Build)...)
	c.out.facts(fs2)
	return nil
}

func cutID(id string, n int) string {
	if len(id) > n {
		return id[:n]
	}
	return id
}

// pauseFacts gives the facts riff and paused.
func (c *cli) pauseFacts(p wire.Pauses) []fact {
	var fs []fact
	if p.Riff != nil {
		v := "paused"
		if p.Riff.By != "" {
			v += " by " + clean(p.Riff.By)
		}
		fs = append(fs, fact{key: "riff", value: v, color: yellow})
	} else {
		fs = append(fs, fact{key: "riff", value: "running", color: green})
	}
	for _, r := range p.Repositories {
		v := clean(string(r.Repo))
		if r.By != "" {
			v += " by " + clean(r.By)
		}
		fs = append(fs, fact{key: "paused", value: v, color: yellow})
	}
	return fs
}

// buildFacts gives the fact build, and riff-server when the builds
// differ.
func (c *cli) buildFacts(server string) []fact {
	fs := []fact{{key: "build", value: c.build.Display()}}
	sb, err := parseBuild(server)
	if err != nil {
		if server != "" {
			fs = append(fs, fact{key: "riff-server", value: clean(server), color: yellow, extra: "a build that riff cannot read", extraColor: yellow})
		}
		return fs
	}
	if sb.String() != c.build.String() {
		fs = append(fs, fact{key: "riff-server", value: sb.Display(), color: yellow, extra: "another build; the versions can talk", extraColor: yellow})
	}
	return fs
}

func (c *cli) who(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("who", flag.ContinueOnError)
	long := fs.Bool("long", false, "show the full URI of each session")
	all := fs.Bool("all", false, "list the gone sessions too")
	if err := c.noArgs(fs, args); err != nil {
		return err
	}
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	r, err := call(ctx, c, wire.Who{Me: me, All: *all})
	if err != nil {
		return err
	}
	fs2 := c.pauseFacts(r.Pauses)
	if r.Owner != "" {
		fs2 = append(fs2, fact{key: "owner", value: clean(r.Owner)})
	}
	fs2 = append(fs2, c.buildFacts(r.Build)...)
	c.out.facts(fs2)
	c.out.text("")
	rows := [][]part{{plain("SESSION"), plain("STATE"), plain("ROLE"), plain("DETAIL")}}
	for _, row := range r.Rows {
		session := row.URI.Named()
		if *long {
			session = row.URI.String()
		}
		role := clean(row.Role)
		if row.You {
			role = strings.TrimSpace("you " + role)
		}
		state := clean(row.State)
		rows = append(rows, []part{
			colored(sessionColor(row.URI.Who().String()), clean(session)),
			colored(stateColor(state), state),
			plain(role),
			colored(detailColor(state, row.Gone), clean(row.Detail)),
		})
	}
	c.table(rows)
	if r.Act != "" {
		c.out.line(colored(yellow, clean(r.Act)))
	}
	return nil
}

func stateColor(state string) string {
	switch state {
	case "blocked", "failed":
		return red
	case "paused", "waiting":
		return yellow
	}
	return ""
}

func detailColor(state string, gone bool) string {
	if gone {
		return dim
	}
	if state == "blocked" {
		return red
	}
	return ""
}

// table writes rows with their columns aligned; the last column has no
// padding. Through a pipe each cell is whole, so a row can pass the
// width of a terminal. In a terminal the table fits the width: the
// widest column narrows first, down to the width of its heading, and a
// cell longer than its column is wrapped in it, so no word is cut.
func (c *cli) table(rows [][]part) {
	widths := columnWidths(rows, c.out.width)
	for _, row := range rows {
		last := len(row) - 1
		for last > 0 && row[last].text == "" {
			last--
		}
		cellLines := make([][]string, last+1)
		height := 1
		for i, p := range row[:last+1] {
			width := widths[i]
			if c.out.width <= 0 {
				width = 0
			}
			cellLines[i] = wrap(p.text, width)
			height = max(height, len(cellLines[i]))
		}
		for k := range height {
			var parts []part
			for i, lines := range cellLines {
				text := ""
				if k < len(lines) {
					text = lines[k]
				}
				if i == len(cellLines)-1 {
					parts = append(parts, colored(row[i].color, text))
					break
				}
				parts = append(parts, colored(row[i].color, text), plain(strings.Repeat(" ", max(0, widths[i]-cells(text))+tableGap)))
			}
			// A wrapped row has empty cells at its end: no trailing spaces.
			for len(parts) > 0 && strings.TrimSpace(parts[len(parts)-1].text) == "" {
				parts = parts[:len(parts)-1]
			}
			c.out.line(parts...)
		}
	}
}

// tableGap is the space between two columns of a table.
const tableGap = 2

// minCell is the width under which the last column of a table narrows
// only with the others.
const minCell = 16

// columnWidths gives the width in cells of each column of rows: the
// widest cell, and in a terminal of width cells (more than 0) less, so
// that the table fits. The first row is the heading: no column gets
// narrower than its heading.
func columnWidths(rows [][]part, width int) []int {
	var widths, floors []int
	for r, row := range rows {
		for i, p := range row {
			if i >= len(widths) {
				widths, floors = append(widths, 0), append(floors, 1)
			}
			widths[i] = max(widths[i], cells(p.text))
			if r == 0 {
				floors[i] = max(1, cells(p.text))
			}
		}
	}
	if width <= 0 || len(widths) == 0 {
		return widths
	}
	total := tableGap * (len(widths) - 1)
	for _, w := range widths {
		total += w
	}
	// The last column (DETAIL) narrows first, to minCell; then the
	// widest column, so that a name breaks only in a narrow terminal.
	last := len(widths) - 1
	for total > width && widths[last] > max(floors[last], minCell) {
		widths[last]--
		total--
	}
	for total > width {
		widest := -1
		for i, w := range widths {
			if w > floors[i] && (widest < 0 || w > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			// Each column is at its heading: the table cannot be
			// narrower.
			break
		}
		widths[widest]--
		total--
	}
	return widths
}

func (c *cli) threads(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("threads", flag.ContinueOnError)
	if err := c.noArgs(fs, args); err != nil {
		return err
	}
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	r, err := call(ctx, c, wire.Threads{Me: me})
	if err != nil {
		return err
	}
	if len(r.Threads) == 0 {
		c.out.text("You have no threads.")
		return nil
	}
	rows := [][]part{{plain("THREAD"), plain("LAST"), plain("UNREAD")}}
	for _, t := range r.Threads {
		unread := fmt.Sprint(t.Unread)
		rows = append(rows, []part{plain(threadTitle(t.Thread, t.Title)), plain(fmt.Sprintf("#%d", t.Last)), colored(unreadColor(t.Unread), unread)})
	}
	c.table(rows)
	return nil
}

func unreadColor(n uint64) string {
	if n > 0 {
		return bold
	}
	return ""
}

func threadTitle(thread, title string) string {
	if title == "" {
		return clean(thread)
	}
	return clean(thread) + " (" + clean(title) + ")"
}

func (c *cli) read(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("read", flag.ContinueOnError)
	thread := threadFlag(fs)
	all := fs.Bool("all", false, "show each kept message, your own posts too")
	if err := c.noArgs(fs, args); err != nil {
		return err
	}
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	r, err := call(ctx, c, wire.Read{Me: me, Thread: *thread, All: *all})
	if err != nil {
		return err
	}
	// Read each next page of a thread.
	for i := range r.Threads {
		page := &r.Threads[i]
		for page.More && page.Last > 0 {
			next, err := call(ctx, c, wire.Read{Me: me, Thread: page.Thread, All: *all, After: page.Last})
			if err != nil {
				return err
			}
			more := false
			for _, p := range next.Threads {
				if p.Thread == page.Thread && len(p.Messages) > 0 {
					page.Messages = append(page.Messages, p.Messages...)
					page.Last, more = p.Last, p.More
				}
			}
			page.More = more
		}
	}
	shown := false
	if len(r.ToYou) > 0 {
		c.out.text("Messages to you after this page (the watch does not wake for them again):")
		for _, page := range r.ToYou {
			c.page(page)
		}
		c.out.text("")
		shown = true
	}
	for _, page := range r.Threads {
		if len(page.Messages) == 0 && page.Lost == 0 {
			continue
		}
		c.page(page)
		shown = true
	}
	if !shown {
		c.out.text("No unread messages.")
	}
	return nil
}

// page writes the messages of one thread under its name.
func (c *cli) page(page wire.ThreadPage) {
	c.out.line(colored(bold, threadTitle(page.Thread, page.Title)))
	if page.Lost > 0 {
		c.out.line(colored(yellow, fmt.Sprintf("riff: %d messages are lost. The server keeps only the last messages of a thread.", page.Lost)))
	}
	for _, m := range page.Messages {
		c.out.hanging(messageIndent, c.messageLine(m)...)
	}
}

// messageLine is one line of riff read:
// [SEQ] SENDER lead=true to SELECTORS (verified): BODY.
func (c *cli) messageLine(m wire.Message) []part {
	parts := []part{plain(fmt.Sprintf("[%d] ", m.Seq)), colored(sessionColor(m.Sender.Who().String()), clean(sender(m.Sender)))}
	if m.Lead {
		parts = append(parts, plain(" lead=true"))
	}
	if to := address(m); to != "" {
		parts = append(parts, plain(" to "+to))
	}
	if m.Verified {
		parts = append(parts, plain(" (verified)"))
	} else {
		parts = append(parts, colored(yellow, " (not verified)"))
	}
	parts = append(parts, plain(": "+kindMark(m.Kind)+clean(m.Body)))
	return parts
}

func kindMark(k record.MessageKind) string {
	switch k {
	case record.MessageNote:
		return "note: "
	case record.MessageStatus:
		return "status request: "
	}
	return ""
}

// sender gives the short name of a sender: mike@pangolin:riff (a6cf).
func sender(u name.SessionURI) string {
	if u.IsZero() {
		return "riff@server"
	}
	return u.Named()
}

// address gives the to list of a message: "all" for a post with no to
// list in a repository thread, nothing in chat and in direct threads.
func address(m wire.Message) string {
	if len(m.To) > 0 {
		return clean(selector.Describe(m.To))
	}
	t := name.Thread(m.Thread)
	if _, ok := t.Repo(); ok {
		return "all"
	}
	return ""
}

func threadFlag(fs *flag.FlagSet) *string {
	t := fs.String("thread", "", "the thread (default: the thread of your repository)")
	fs.StringVar(t, "t", "", "the thread (short for --thread)")
	return t
}

// listFlag is a flag that may come more than once.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func (c *cli) post(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("post", flag.ContinueOnError)
	thread := threadFlag(fs)
	var to listFlag
	fs.Var(&to, "to", "a selector FIELD=VALUE,...; each --to adds one")
	kind := fs.String("kind", "message", "message, note or status")
	words, err := c.parse(fs, args, false)
	if err != nil {
		return err
	}
	k, err := record.ParseMessageKind(*kind)
	if err != nil {
		return usagef("riff post: --kind is message, note or status, not %q", *kind)
	}
	sels, err := selector.ParseList(to)
	if err != nil {
		return usagef("riff post: --to: %s", strings.TrimPrefix(err.Error(), "selector: "))
	}
	body := strings.Join(words, " ")
	if body == "" && k != record.MessageStatus {
		return usagef("riff post needs a TEXT")
	}
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	r, err := call(ctx, c, wire.Post{Me: me, Thread: *thread, To: sels, Kind: k, Body: body})
	if err != nil {
		return err
	}
	c.posted(r)
	return nil
}

// posted prints the reply of a post or a tell.
func (c *cli) posted(r wire.PostReply) {
	if r.Dropped {
		c.out.textf("riff dropped the post: a post with the same key came before in %s.", clean(r.Thread))
		return
	}
	line := fmt.Sprintf("Posted #%d in %s.", r.Seq, clean(r.Thread))
	if len(r.Woke) > 0 {
		var names []string
		for _, u := range r.Woke {
			names = append(names, clean(u.Named()))
		}
		line += " Woke " + strings.Join(names, ", ") + "."
	}
	c.out.text(line)
	for _, s := range r.Unmatched {
		c.out.line(colored(yellow, fmt.Sprintf("riff: no live session matches %s. The message waits in the thread.", clean(s.String()))))
	}
}

func (c *cli) tell(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("tell", flag.ContinueOnError)
	words, err := c.parse(fs, args, false)
	if err != nil {
		return err
	}
	if len(words) < 2 {
		return usagef("riff tell needs SESSION (or lead) and a TEXT")
	}
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	r, err := call(ctx, c, wire.Post{Me: me, Tell: words[0], Body: strings.Join(words[1:], " ")})
	if err != nil {
		return err
	}
	c.posted(r)
	return nil
}

func (c *cli) claim(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("claim", flag.ContinueOnError)
	thread := threadFlag(fs)
	item, err := c.oneItem(fs, args, "claim")
	if err != nil {
		return err
	}
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	r, err := call(ctx, c, wire.Claim{Me: me, Thread: *thread, Item: item})
	if err != nil {
		return err
	}
	c.reply(r.Text)
	if r.Warning != "" {
		c.out.line(colored(yellow, "riff: "+clean(r.Warning)))
	}
	return nil
}

func (c *cli) release(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	thread := threadFlag(fs)
	session := fs.String("session", "", "the session ID (or its start) whose claim the lead frees")
	// --session of release names the holder, not the caller: the caller
	// is the person, or the session of RIFF_SESSION.
	pos, err := c.parse(fs, args, true)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("riff release needs one ITEM")
	}
	item, err := name.ParseItem(pos[0])
	if err != nil {
		return usagef("riff release: %s", err)
	}
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	if *session != "" {
		r, err := call(ctx, c, wire.ReleaseFor{Me: me, Thread: *thread, Item: item, Session: *session})
		if err != nil {
			return err
		}
		c.reply(r.Text)
		return nil
	}
	r, err := call(ctx, c, wire.Release{Me: me, Thread: *thread, Item: item})
	if err != nil {
		return err
	}
	c.reply(r.Text)
	return nil
}

// oneItem parses a command that takes one ITEM.
func (c *cli) oneItem(fs *flag.FlagSet, args []string, cmd string) (name.Item, error) {
	pos, err := c.parse(fs, args, true)
	if err != nil {
		return "", err
	}
	if len(pos) != 1 {
		return "", usagef("riff %s needs one ITEM", cmd)
	}
	item, err := name.ParseItem(pos[0])
	if err != nil {
		return "", usagef("riff %s: %s", cmd, err)
	}
	return item, nil
}

// noArgs parses a command with no arguments.
func (c *cli) noArgs(fs *flag.FlagSet, args []string) error {
	pos, err := c.parse(fs, args, true)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("riff %s takes no argument %q", fs.Name(), pos[0])
	}
	return nil
}

func (c *cli) pauseCmd(pause bool) func(ctx context.Context, args []string) error {
	return func(ctx context.Context, args []string) error {
		cmd := "resume"
		if pause {
			cmd = "pause"
		}
		fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
		riff := fs.Bool("riff", false, "the whole riff")
		repo := fs.String("repo", "", "a repository OWNER/REPO")
		if err := c.noArgs(fs, args); err != nil {
			return err
		}
		if *riff && *repo != "" {
			return usagef("riff %s takes --riff or --repo, not both", cmd)
		}
		var r name.Repo
		if *repo != "" {
			var err error
			if r, err = name.ParseRepo(*repo); err != nil || !r.InGit() {
				return usagef("riff %s: --repo is OWNER/REPO, not %q", cmd, *repo)
			}
		}
		me, err := c.me(ctx)
		if err != nil {
			return err
		}
		var reply wire.PauseReply
		if pause {
			reply, err = call(ctx, c, wire.Pause{Me: me, Riff: *riff, Repository: r})
		} else {
			reply, err = call(ctx, c, wire.Resume{Me: me, Riff: *riff, Repository: r})
		}
		if err != nil {
			return err
		}
		c.reply(reply.Text)
		return nil
	}
}

func (c *cli) textCmd(ctx context.Context, cmd string, args []string, send func(me name.SessionURI, text string) (string, error)) error {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	words, err := c.parse(fs, args, false)
	if err != nil {
		return err
	}
	text := strings.Join(words, " ")
	if text == "" {
		return usagef("riff %s needs a TEXT", cmd)
	}
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	out, err := send(me, text)
	if err != nil {
		return err
	}
	c.reply(out)
	return nil
}

func (c *cli) status(ctx context.Context, args []string) error {
	return c.textCmd(ctx, "status", args, func(me name.SessionURI, text string) (string, error) {
		r, err := call(ctx, c, wire.Status{Me: me, Text: text})
		return r.Text, err
	})
}

func (c *cli) blocked(ctx context.Context, args []string) error {
	return c.textCmd(ctx, "blocked", args, func(me name.SessionURI, text string) (string, error) {
		r, err := call(ctx, c, wire.Blocked{Me: me, Reason: text})
		return r.Text, err
	})
}

func (c *cli) step(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usagef("riff step needs start NAME, done or fail REASON")
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "start", "fail":
		return c.textCmd(ctx, "step "+sub, rest, func(me name.SessionURI, text string) (string, error) {
			s := wire.Step{Me: me, Start: text}
			if sub == "fail" {
				s = wire.Step{Me: me, Fail: text}
			}
			r, err := call(ctx, c, s)
			return r.Text, err
		})
	case "done":
		fs := flag.NewFlagSet("step done", flag.ContinueOnError)
		if err := c.noArgs(fs, rest); err != nil {
			return err
		}
		me, err := c.me(ctx)
		if err != nil {
			return err
		}
		r, err := call(ctx, c, wire.Step{Me: me, Done: true})
		if err != nil {
			return err
		}
		c.reply(r.Text)
		return nil
	}
	if sub == "-h" || sub == "--help" {
		c.help("step")
		return flag.ErrHelp
	}
	return usagef("riff step knows start, done and fail, not %q", sub)
}

func (c *cli) plan(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usagef("riff plan needs hold ITEM REASON or free ITEM")
	}
	sub, rest := args[0], args[1:]
	fs := flag.NewFlagSet("plan "+sub, flag.ContinueOnError)
	thread := threadFlag(fs)
	switch sub {
	case "hold":
		words, err := c.parse(fs, rest, false)
		if err != nil {
			return err
		}
		if len(words) < 2 {
			return usagef("riff plan hold needs ITEM and a REASON")
		}
		item, err := name.ParseItem(words[0])
		if err != nil {
			return usagef("riff plan hold: %s", err)
		}
		me, err := c.me(ctx)
		if err != nil {
			return err
		}
		r, err := call(ctx, c, wire.Hold{Me: me, Thread: *thread, Item: item, Reason: strings.Join(words[1:], " ")})
		if err != nil {
			return err
		}
		c.reply(r.Text)
		return nil
	case "free":
		item, err := c.oneItem(fs, rest, "plan free")
		if err != nil {
			return err
		}
		me, err := c.me(ctx)
		if err != nil {
			return err
		}
		r, err := call(ctx, c, wire.Free{Me: me, Thread: *thread, Item: item})
		if err != nil {
			return err
		}
		c.reply(r.Text)
		return nil
	}
	if sub == "-h" || sub == "--help" {
		c.help("plan")
		return flag.ErrHelp
	}
	return usagef("riff plan knows hold and free, not %q", sub)
}

func (c *cli) lead(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "notes" {
		return c.notes(ctx, args[1:])
	}
	fs := flag.NewFlagSet("lead", flag.ContinueOnError)
	session := fs.String("session", "", "the session ID (or its start, from 4 characters) of the new lead")
	pos, err := c.parse(fs, args, true)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("riff lead knows --session ID and notes, not %q", pos[0])
	}
	if *session == "" {
		return usagef("riff lead needs --session ID: the session to name the lead")
	}
	// The caller is the person; with RIFF_SESSION it is a session, and
	// the server refuses it.
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	r, err := call(ctx, c, wire.Lead{Me: me, Session: *session})
	if err != nil {
		return err
	}
	c.reply(r.Text)
	return nil
}

func (c *cli) notes(ctx context.Context, args []string) error {
	edit := len(args) > 0 && args[0] == "edit"
	if edit {
		args = args[1:]
	}
	fs := flag.NewFlagSet("lead notes", flag.ContinueOnError)
	thread := threadFlag(fs)
	history := fs.Bool("history", false, "show each old text")
	user := fs.String("user", "", "the user whose notes the owner reads")
	file := fs.String("file", "", "edit: take the text from a file")
	if err := c.noArgs(fs, args); err != nil {
		return err
	}
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	if !edit {
		r, err := call(ctx, c, wire.Notes{Me: me, Thread: *thread, User: *user, History: *history})
		if err != nil {
			return err
		}
		if *history {
			for _, v := range r.History {
				c.out.line(colored(dim, fmt.Sprintf("--- %s, by %s", c.timeOf(v.AtMs).Format("2006-01-02 15:04"), clean(v.By))))
				c.reply(v.Text)
			}
			c.out.line(colored(dim, "--- now"))
		}
		if strings.TrimSpace(r.Text) == "" {
			c.out.text("The lead has no notes here. riff lead notes edit writes them.")
			return nil
		}
		c.reply(strings.TrimRight(r.Text, "\n"))
		return nil
	}
	var text string
	if *file != "" {
		b, err := os.ReadFile(*file)
		if err != nil {
			return knownf("riff cannot read the file %s", *file)
		}
		text = string(b)
	} else {
		old, err := call(ctx, c, wire.Notes{Me: me, Thread: *thread})
		if err != nil {
			return err
		}
		text, err = c.editText(ctx, old.Text)
		if err != nil {
			return err
		}
	}
	r, err := call(ctx, c, wire.SetNotes{Me: me, Thread: *thread, Text: text})
	if err != nil {
		return err
	}
	c.reply(r.Text)
	return nil
}

// editText opens $VISUAL, $EDITOR or vi on a text, and gives the new
// text.
func (c *cli) editText(ctx context.Context, text string) (string, error) {
	editor := c.env("VISUAL")
	if editor == "" {
		editor = c.env("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	dir, err := os.MkdirTemp("", "riff-notes-")
	if err != nil {
		return "", knownf("riff cannot make a file for the editor")
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return "", knownf("riff cannot make a file for the editor")
	}
	fields := strings.Fields(editor)
	cmd := exec.CommandContext(ctx, fields[0], append(fields[1:], path)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.stdin, c.stdout, c.stderr
	if err := cmd.Run(); err != nil {
		return "", knownf("the editor %s failed; the notes stay as they were", fields[0])
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", knownf("riff cannot read the file of the editor; the notes stay as they were")
	}
	return string(b), nil
}

// messageIndent is the indent of the next lines of a message of riff
// read that a terminal wraps: under its number.
const messageIndent = 4
