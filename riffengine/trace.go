package riffengine

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffstate"
)

// The limits of the denied lines (the engine design, "The trace of a
// command").
const (
	// BodyTime is the longest read of a body for the name of a refused
	// call.
	BodyTime = 2 * time.Second
	// DeniedMax denied lines in one window of DeniedInterval; the last
	// DeniedKept of them are for a call with a valid token.
	DeniedMax      = 100
	DeniedInterval = 10 * time.Second
	DeniedKept     = 20
	// NameCut is the longest name that a denied line holds.
	NameCut = 200
)

// NewLogger gives the logger of the trace lines of riff-server: a JSON
// object a line with severity (DEBUG, INFO, WARNING or ERROR), time,
// message and the fields of the line. Lines under level are dropped.
func NewLogger(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) > 0 {
				return a
			}
			switch a.Key {
			case slog.LevelKey:
				level, _ := a.Value.Any().(slog.Level)
				sev := "INFO"
				switch {
				case level >= slog.LevelError:
					sev = "ERROR"
				case level >= slog.LevelWarn:
					sev = "WARNING"
				case level < slog.LevelInfo:
					sev = "DEBUG"
				}
				return slog.String("severity", sev)
			case slog.MessageKey:
				return slog.Attr{Key: "message", Value: a.Value}
			}
			return a
		},
	}))
}

// callerAttr gives the caller of a line: {"session":"mike/84cf"} or
// {"person":"mike"}. A line names a user, never an email.
func callerAttr(c riffstate.Caller) slog.Attr {
	switch c.Class {
	case record.ClassSession:
		return slog.Group("caller", "session", c.Who().String())
	case record.ClassPerson:
		return slog.Group("caller", "person", c.URI.User)
	case record.ClassSignIn:
		return slog.Group("caller", "sign_in", c.URI.User)
	case record.ClassServer:
		return slog.Group("caller", "server", true)
	}
	return slog.Group("caller", "other", true)
}

// traceNoRecord writes the one line of a command that made no record:
// refused, or no_change. A command with records gets no line.
func traceNoRecord(log *slog.Logger, en *entry) {
	if en.refused != nil {
		attrs := []any{callerAttr(en.sent.caller), "command", en.sent.command, "result", "refused", "code", string(en.refused.Code)}
		// The reason of a refused command of the people can name an email,
		// and the reason of on_hold quotes the reason of the hold (a text
		// of a person, as a body): their lines have the code and no reason.
		if !isPeople(en.sent.command) && en.refused.Code != wire.OnHold {
			attrs = append(attrs, "reason", en.refused.Reason)
		}
		log.Info("refused", attrs...)
		return
	}
	log.Info("no_change", callerAttr(en.sent.caller), "command", en.sent.command, "result", "no_change")
}

// isPeople says whether a command is of the people: the routed ones and
// admit, and the commands of the server that name an email in their
// refusals (grant_owner, end_owner, name_owner).
func isPeople(kind record.Command) bool {
	switch kind {
	case record.CommandGrantOwner, record.CommandEndOwner, record.CommandNameOwner:
		return true
	}
	return slices.Contains(riffstate.PeopleCommands(), kind)
}

// traceFailed writes the failed line of a command whose chunk failed
// (ERROR), or that waited in the queue when the server stopped
// (WARNING, with the reason of the stop).
func traceFailed(log *slog.Logger, en *entry, why error, level slog.Level) {
	log.Log(context.Background(), level, "failed", callerAttr(en.sent.caller), "command", en.sent.command,
		"result", "failed", "reason", why.Error())
}

// denier writes the denied lines of the token layer within their limits:
// at most DeniedMax lines in a window of DeniedInterval, and a call with
// no valid token takes a line only from the first DeniedMax-DeniedKept.
// Over the limit it counts the codes, and the end of the window writes
// one dropped line with the counts. The limits change only the lines:
// the reply is the same.
type denier struct {
	log *slog.Logger
	now func() time.Time

	mu      sync.Mutex
	start   time.Time
	lines   int
	dropped map[wire.Code]int
}

func newDenier(log *slog.Logger, now func() time.Time) *denier {
	return &denier{log: log, now: now, dropped: map[wire.Code]int{}}
}

// deny writes the line of a refused call, or counts it. named is the
// name that the call gave (the me of the body), empty when none; key is
// the thumbprint of the device key of a valid token (not_you, bad_proof),
// empty when the call had none.
func (d *denier) deny(code wire.Code, path, named, key string) {
	validToken := key != ""
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.now()
	if d.start.IsZero() || now.Sub(d.start) >= DeniedInterval {
		d.flushLocked()
		d.start, d.lines = now, 0
	}
	limit := DeniedMax - DeniedKept
	if validToken {
		limit = DeniedMax
	}
	if d.lines >= limit {
		d.dropped[code]++
		return
	}
	d.lines++
	attrs := []any{"path", path, "result", "denied", "code", string(code), "proved", false}
	if key != "" {
		attrs = append(attrs, "key", key)
	}
	if named != "" {
		cut := false
		if len(named) > NameCut {
			named, cut = named[:NameCut], true
		}
		named = strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(named)
		if u, err := name.ParseURI(named); err == nil {
			attrs = append(attrs, slog.Group("named", "uri", u.Who().String()))
		} else {
			attrs = append(attrs, slog.Group("named", "text", named))
		}
		if cut {
			attrs = append(attrs, "named_cut", true)
		}
	}
	d.log.Info("denied", attrs...)
}

// flush ends the window: one dropped line with the counts, when calls
// were over the limit. A stop of the server ends the window too.
func (d *denier) flush() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.flushLocked()
}

func (d *denier) flushLocked() {
	total := 0
	counts := map[string]any{}
	for code, n := range d.dropped {
		total += n
		counts[string(code)] = n
	}
	if total == 0 {
		return
	}
	d.log.Warn("dropped", "result", "dropped", "count", total, "counts", counts)
	d.dropped = map[wire.Code]int{}
}

// FlushDenied ends the window of the denied lines: a stop calls it, so
// that no count is lost.
func (s *Handler) FlushDenied() { s.denier.flush() }

// RunDenied flushes the window of the denied lines at the end of each
// window until ctx ends.
func (s *Handler) RunDenied(ctx context.Context) {
	tick := time.NewTicker(DeniedInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			s.denier.flush()
			return
		case <-tick.C:
			s.denier.flush()
		}
	}
}
