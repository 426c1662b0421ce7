package chat

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/render"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Prompt is the prompt of riff chat.
const Prompt = "[riff] > "

// Options are the settings of [Run].
type Options struct {
	Client *riffclient.Client
	// Me is the caller: the person (or the session of --session).
	Me name.SessionURI
	// In gives the typed lines; Out shows the chat. With a Terminal they
	// are the terminal.
	In  *os.File
	Out io.Writer
	// Err gets the notes of a chat through a pipe ((reconnecting…),
	// (back), a line that was not sent); nil is Out. In a terminal they
	// show above the prompt.
	Err io.Writer
	// Terminal is the terminal of In and Out ([OpenTerminal]); nil is a
	// pipe: no prompt, each line whole, each line of In sent.
	Terminal *Terminal
	// Paint gives the styles their look (colors); nil is plain text.
	Paint render.Paint
	// Zone is the zone of the times; nil is UTC.
	Zone *time.Location
	// Words gives the text of an error of a call for the person.
	Words func(error) string
	// Down gives the text of a break that the person must act on (a lost
	// sign-in, builds that cannot talk), shown in red in place of
	// (reconnecting…).
	Down func(error) (string, bool)
	// AfterDown, when set, runs after each break before the chat
	// connects again (a test posts while the chat is away).
	AfterDown func(ctx context.Context) error
	// Notes, when set, is the Out of the options of Client: the lines
	// that the client writes for a person show above the prompt.
	Notes *Notes
}

// Notes takes the lines that a client writes for a person
// (riffclient.Options.Out: the line (waits for riff-server…), the note of
// different builds) and gives them to the chat, which shows them above
// its prompt: in a terminal in raw mode no other writer may draw. A
// line that comes while 64 wait is dropped: each is a note, never a
// line of the chat.
type Notes struct{ lines chan string }

// NewNotes gives the Notes of a chat.
func NewNotes() *Notes { return &Notes{lines: make(chan string, 64)} }

func (n *Notes) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		select {
		case n.lines <- line:
		default:
		}
	}
	return len(p), nil
}

// Run runs the chat until /quit, Ctrl-C, the end of ctx, or an error
// that a new try cannot repair (then it gives it). It shows the kept
// lines of the thread chat first, then each new one; in a terminal the
// prompt stays on the last line, and a new line shows above it while
// the typed line stays.
func Run(ctx context.Context, o Options) error {
	if o.Err == nil {
		o.Err = o.Out
	}
	if o.Words == nil {
		o.Words = func(err error) string { return err.Error() }
	}
	if o.In == nil {
		// No input: nothing to type, so no prompt.
		o.Terminal = nil
	}
	ctx, cancel := context.WithCancel(ctx)
	c := &chat{o: o, events: make(chan riffclient.Event), results: make(chan result)}
	var input chan []byte
	lines := make(chan Line, 64)
	tailDone := make(chan error, 1)
	var wg sync.WaitGroup
	// The end, in order: the goroutines stop (the close of the input
	// ends its read), then the terminal comes back as it was.
	var closeInput, restore []func()
	defer func() {
		cancel()
		for _, f := range closeInput {
			f()
		}
		wg.Wait()
		for _, f := range restore {
			f()
		}
	}()
	wg.Add(2)
	go func() {
		defer wg.Done()
		tailDone <- c.follow(ctx)
	}()
	go func() {
		defer wg.Done()
		c.sendEach(ctx, lines)
	}()
	if o.In != nil {
		in, blocking := openInput(o.In)
		input = make(chan []byte)
		closeInput = append(closeInput, func() { in.Close() })
		restore = append(restore, blocking)
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.read(ctx, in, input)
		}()
	}
	var resize <-chan os.Signal
	if o.Terminal != nil {
		back, err := o.Terminal.raw()
		if err != nil {
			c.o.Terminal = nil
		} else {
			var stop func()
			resize, stop = o.Terminal.resizes()
			// The prompt line goes; the shell starts at the left edge.
			restore = append([]func(){func() { fmt.Fprint(o.Out, "\r\x1b[2K") }, stop, back}, restore...)
			c.width, _ = o.Terminal.size()
			c.draw()
		}
	}
	var notes <-chan string
	if o.Notes != nil {
		notes = o.Notes.lines
	}
	return c.loop(ctx, input, lines, tailDone, resize, notes)
}

// chat is the state of a run. Only the goroutine of loop touches it,
// except o and the channels.
type chat struct {
	o       Options
	events  chan riffclient.Event
	results chan result
	ed      editor
	width   int
	day     string
	// open says that the first open of the stream came: a count of lost
	// messages before it counts the messages older than the kept ones.
	open    bool
	partial []byte // a line of a pipe that has no end yet
	keys    decoder
}

// result is the end of a line that was sent: its error, or the reply.
type result struct {
	reply wire.PostReply
	err   error
}

func (c *chat) loop(ctx context.Context, input chan []byte, lines chan<- Line, tailDone <-chan error, resize <-chan os.Signal, notes <-chan string) error {
	for {
		select {
		case line := <-notes:
			style := render.Faint
			if strings.HasPrefix(line, "riff:") {
				style = render.Warn
			}
			c.note(style, render.Clean(line))
		case <-ctx.Done():
			return nil
		case err := <-tailDone:
			if ctx.Err() != nil {
				return nil
			}
			return err
		case e := <-c.events:
			c.show(e)
		case b, ok := <-input:
			if !ok {
				if c.o.Terminal != nil {
					return nil
				}
				// A pipe that ends sends its last line, even with no line
				// break, and nothing more: the chat goes on showing the
				// lines until Ctrl-C.
				input = nil
				if last := strings.TrimRight(string(c.partial), "\r"); last != "" {
					c.partial = nil
					if c.enter(last, lines) {
						return nil
					}
				}
				continue
			}
			if quit := c.typed(b, lines); quit {
				return nil
			}
		case r := <-c.results:
			c.sent(r)
		case <-resize:
			c.width, _ = c.o.Terminal.size()
			c.draw()
		}
	}
}

// follow runs the tail of the thread chat; each event goes to the loop.
func (c *chat) follow(ctx context.Context) error {
	call := wire.Tail{Me: c.o.Me, Thread: string(name.Chat)}
	return c.o.Client.TailKept(ctx, call, func(e riffclient.Event) error {
		select {
		case c.events <- e:
		case <-ctx.Done():
			return nil
		}
		if e.Type == riffclient.EventDown && c.o.AfterDown != nil {
			return c.o.AfterDown(ctx)
		}
		return nil
	})
}

// read gives the bytes of in to the loop until in ends or is closed.
func (c *chat) read(ctx context.Context, in *os.File, out chan<- []byte) {
	defer close(out)
	buf := make([]byte, 4096)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			select {
			case out <- bytes.Clone(buf[:n]):
			case <-ctx.Done():
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// sendEach sends each line in order: it reads the leads of the riff,
// resolves the names of the line, and posts it.
func (c *chat) sendEach(ctx context.Context, lines <-chan Line) {
	for {
		select {
		case <-ctx.Done():
			return
		case l := <-lines:
			r := c.send(ctx, l)
			select {
			case c.results <- r:
			case <-ctx.Done():
				return
			}
		}
	}
}

func (c *chat) send(ctx context.Context, l Line) result {
	var r result
	who, err := riffclient.Send(ctx, c.o.Client, wire.Who{Me: c.o.Me})
	if err != nil {
		r.err = err
		return r
	}
	to, err := Resolve(c.o.Me.User, l.Names, LeadsOf(who))
	if err != nil {
		r.err = err
		return r
	}
	r.reply, r.err = riffclient.Post(ctx, c.o.Client, wire.Post{Me: c.o.Me, Thread: string(name.Chat), To: to, Body: l.Body})
	return r
}

// typed takes the bytes that the person typed (or the lines of a pipe).
// It says whether the chat ends.
func (c *chat) typed(b []byte, lines chan<- Line) bool {
	if c.o.Terminal == nil {
		c.partial = append(c.partial, b...)
		for {
			i := bytes.IndexByte(c.partial, '\n')
			if i < 0 {
				return false
			}
			text := strings.TrimRight(string(c.partial[:i]), "\r")
			c.partial = c.partial[i+1:]
			if c.enter(text, lines) {
				return true
			}
		}
	}
	for _, k := range c.keys.feed(b) {
		switch k.kind {
		case keyText:
			c.ed.insert(k.text)
		case keyEnter:
			if c.enter(c.ed.take(), lines) {
				return true
			}
		case keyBackspace:
			c.ed.backspace()
		case keyDelete:
			c.ed.deleteAt()
		case keyLeft:
			c.ed.left()
		case keyRight:
			c.ed.right()
		case keyHome:
			c.ed.home()
		case keyEnd:
			c.ed.end()
		case keyUp:
			c.ed.up()
		case keyDown:
			c.ed.down()
		case keyInterrupt:
			return true
		case keyEOF:
			if len(c.ed.clusters) == 0 {
				return true
			}
			c.ed.deleteAt()
		case keyKillStart:
			c.ed.killStart()
		case keyKillEnd:
			c.ed.killEnd()
		case keyKillWord:
			c.ed.killWord()
		case keyRedraw:
		}
	}
	c.draw()
	return false
}

// enter takes one line that the person sent. It says whether the chat
// ends.
func (c *chat) enter(text string, lines chan<- Line) bool {
	l := Parse(text)
	switch l.Kind {
	case Quit:
		return true
	case Refused:
		c.note(render.Warn, l.Text)
	case Say:
		lines <- l
	}
	return false
}

// sent shows the end of a line that was sent. The line itself shows
// when the server gives it back. A line that was not sent is in the
// history of the prompt: Up gives it back, to type it again.
func (c *chat) sent(r result) {
	var cannot *CannotSend
	switch {
	case errors.As(r.err, &cannot):
		c.note(render.Warn, cannot.Text)
	case r.err != nil:
		c.note(render.Bad, "riff: cannot send the line: "+c.o.Words(r.err))
	default:
		for _, s := range r.reply.Unmatched {
			c.note(render.Warn, fmt.Sprintf("riff: no live session matches %s. The line waits in the thread.", render.Clean(s.String())))
		}
	}
}

// show shows one event of the stream.
func (c *chat) show(e riffclient.Event) {
	switch e.Type {
	case wire.EventMessage:
		if e.Message == nil {
			return
		}
		m := c.o.Client.Check(*e.Message)
		toYou := c.toYou(m)
		var b bytes.Buffer
		c.day = render.ChatLine(c.printer(&b), m, c.day, toYou)
		if toYou && c.o.Terminal != nil {
			// A line to the person wakes the terminal: the bell.
			b.WriteByte('\a')
		}
		c.above(c.o.Out, b.String())
	case riffclient.EventLost:
		if !c.open {
			// Older than the kept lines of the history: nothing of a break.
			return
		}
		var b bytes.Buffer
		render.TailLost(c.printer(&b), e.Lost)
		c.above(c.o.Err, b.String())
	case riffclient.EventOpen:
		c.open = true
	case riffclient.EventDown:
		if e.Err != nil && c.o.Down != nil {
			if text, ok := c.o.Down(e.Err); ok {
				c.note(render.Bad, text)
				return
			}
		}
		c.note(render.Faint, "(reconnecting…)")
	case riffclient.EventBack:
		c.note(render.Faint, "(back)")
	}
}

func (c *chat) toYou(m wire.Message) bool { return ToPerson(c.o.Me, m) }

// ToPerson says whether a message wakes the terminals of the person me
// (riff chat, riff tail): a selector of its to list that the person
// matches (person=true, or user and host with no person field). A
// session is no person: it is never woken so.
func ToPerson(me name.SessionURI, m wire.Message) bool {
	if !me.IsPerson() {
		return false
	}
	person := name.SessionURI{User: me.User, Host: me.Host, Repo: me.Repo, Worktree: me.Worktree}
	for _, s := range m.To {
		if s.Match(person) {
			return true
		}
	}
	return false
}

// printer gives a printer of lines at the width of the screen (0: each
// line whole, through a pipe).
func (c *chat) printer(w io.Writer) *render.Printer {
	width := 0
	if c.o.Terminal != nil {
		width = c.width
	}
	return render.NewPrinter(w, render.Options{Width: width, Paint: c.o.Paint, Zone: c.o.Zone})
}

// note shows a line of the chat that is not a message.
func (c *chat) note(style render.Style, text string) {
	var b bytes.Buffer
	render.ChatNote(c.printer(&b), style, text)
	c.above(c.o.Err, b.String())
}

// above shows text (whole lines) above the prompt: the prompt line is
// cleared, the text written, and the prompt with the typed line drawn
// again. Through a pipe it writes text to w.
func (c *chat) above(w io.Writer, text string) {
	if c.o.Terminal == nil {
		io.WriteString(w, text)
		return
	}
	io.WriteString(c.o.Out, "\r\x1b[2K"+strings.ReplaceAll(text, "\n", "\r\n"))
	c.draw()
}

// draw draws the prompt and the part of the typed line that fits, with
// the cursor at its place.
func (c *chat) draw() {
	if c.o.Terminal == nil {
		return
	}
	room := c.width - cells(Prompt) - 1
	shown, at := c.ed.view(room)
	line := "\r\x1b[2K" + Prompt + shown + "\r"
	if col := cells(Prompt) + at; col > 0 {
		line += fmt.Sprintf("\x1b[%dC", col)
	}
	io.WriteString(c.o.Out, line)
}
