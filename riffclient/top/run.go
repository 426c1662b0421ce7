package top

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/forge"
	"github.com/como-technologies/riff/riffclient/render"
	"github.com/como-technologies/riff/riffcore/build"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Every is the time between two looks of a live table; ForgeEvery the
// time between two reads of gh.
const (
	Every      = 3 * time.Second
	ForgeEvery = time.Minute
)

// Options are what Run needs from its caller. Run reads no clock and
// does no I/O but through them.
type Options struct {
	// Look gives one look of the server, within the budget of a short
	// command (riffclient.Budget).
	Look func(ctx context.Context) (wire.TopReply, error)
	// Forge reads gh for one repository; nil: the machine has no gh, so
	// the table has no board and no title.
	Forge func(ctx context.Context, repo name.Repo) (forge.Repo, error)
	// Draw draws the lines of a table, each cut to the width.
	Draw func(lines []string)
	// Width gives the width of the terminal now (PipeWidth in a pipe).
	Width func() int
	// Paint gives each styled part its look; nil is plain text.
	Paint render.Paint
	// Now gives the time of the reader, in its zone.
	Now func() time.Time

	Mine   build.Build
	Filter Filter
	By     By

	// Once draws one table and returns: an error of the look ends it.
	Once bool
	// Ticks comes each Every: a new look. ForgeTicks comes each
	// ForgeEvery: a new read of gh. Messages comes after each message of
	// the thread: a new look. Resized comes at each resize of the
	// terminal: the table again at the new width. A nil channel never
	// comes.
	Ticks      <-chan time.Time
	ForgeTicks <-chan time.Time
	Messages   <-chan struct{}
	Resized    <-chan struct{}
}

// Run runs a live table until ctx ends (Ctrl-C): it gives nil then. It
// gives the error of the first look when it fails, and of a later look
// whose fault no new try can repair ([Lasting]). Any other failed look
// keeps the last table under the red line of the fault, and the next
// good look takes the line away.
func Run(ctx context.Context, o Options) error {
	reply, err := o.Look(ctx)
	if err != nil {
		return err
	}
	s := Snapshot{Reply: reply, Mine: o.Mine, Filter: o.Filter, By: o.By}
	draw := func() { o.Draw(Render(s, o.Width(), o.Paint)) }
	if o.Once {
		if o.Forge != nil {
			s.Forge = readForge(ctx, o.Forge, boardRepos(reply), nil)
		}
		draw()
		return nil
	}
	// A live table comes at once; its boards and titles follow when gh
	// has read them.
	draw()
	lastGood := o.Now()

	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()

	type looked struct {
		reply wire.TopReply
		err   error
		at    time.Time
	}
	looks := make(chan looked, 1)
	forged := make(chan map[name.Repo]forge.Repo, 1)
	looking, again, forging := false, false, false
	look := func() {
		if looking {
			// A message while a look runs asks for one more look after it.
			again = true
			return
		}
		looking = true
		wg.Go(func() {
			r, err := o.Look(ctx)
			looks <- looked{reply: r, err: err, at: o.Now()}
		})
	}
	readGH := func() {
		if o.Forge == nil || forging {
			return
		}
		forging = true
		repos, old, keep := boardRepos(s.Reply), s.Forge, s.Fault != nil
		wg.Go(func() {
			var base map[name.Repo]forge.Repo
			if keep {
				base = old
			}
			forged <- readForge(ctx, o.Forge, repos, base)
		})
	}
	readGH()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-o.Ticks:
			look()
		case <-o.Messages:
			look()
		case <-o.Resized:
			draw()
		case <-o.ForgeTicks:
			readGH()
		case f := <-forged:
			forging = false
			if ctx.Err() != nil {
				return nil
			}
			s.Forge = f
			draw()
		case l := <-looks:
			looking = false
			if ctx.Err() != nil {
				return nil
			}
			if l.err != nil {
				if Lasting(l.err) {
					return l.err
				}
				s.Fault = &Fault{Since: lastGood, Text: FaultText(l.err)}
			} else {
				s.Reply, s.Fault, lastGood = l.reply, nil, l.at
			}
			draw()
			if again {
				again = false
				look()
			}
		}
	}
}

// boardRepos gives the repositories of the boards of a look: each with a
// live session, and the repository of the reader.
func boardRepos(r wire.TopReply) []name.Repo {
	var out []name.Repo
	for _, b := range r.Boards {
		out = append(out, b.Repo)
	}
	return out
}

// readForge reads each repository with gh, one after the other. A
// repository that gh cannot read is not in the map, unless base has it:
// while the server does not answer, the table keeps its boards and
// titles also when gh fails too.
func readForge(ctx context.Context, read func(context.Context, name.Repo) (forge.Repo, error), repos []name.Repo, base map[name.Repo]forge.Repo) map[name.Repo]forge.Repo {
	out := map[name.Repo]forge.Repo{}
	for _, repo := range repos {
		f, err := read(ctx, repo)
		if err == nil {
			out[repo] = f
		} else if old, ok := base[repo]; ok {
			out[repo] = old
		}
	}
	return out
}

// Lasting says whether a fault of a look is one that no new try can
// repair, so that riff top ends with it: a refusal of the server (a
// sign-in that ended is one), a fault of the sign-in of this machine, or
// versions that cannot talk.
func Lasting(err error) bool {
	var refused *wire.Refused
	var auth *riffclient.AuthError
	var mismatch *riffclient.MismatchError
	return errors.As(err, &refused) || errors.As(err, &auth) || errors.As(err, &mismatch)
}

// FaultText gives the fault of a look as the red line says it:
// riff-server gave no reply in 60 seconds, cannot reach riff-server, or
// the words of the error.
func FaultText(err error) string {
	var noReply *riffclient.NoReplyError
	var reach *riffclient.ReachError
	switch {
	case errors.As(err, &noReply):
		return "riff-server gave no reply in " + seconds(noReply.Budget)
	case errors.As(err, &reach):
		return "cannot reach riff-server"
	}
	if text, ok := render.ErrorWords(err); ok {
		return text
	}
	return "riff cannot use the reply of riff-server"
}

func seconds(d time.Duration) string {
	n := int(d.Round(time.Second) / time.Second)
	if n == 1 {
		return "1 second"
	}
	return strconv.Itoa(n) + " seconds"
}
