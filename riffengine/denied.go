package riffengine

// The denied lines of the token layer (docs/trace.md): their limits, the
// window and its timer, the fields of a name, the dropped line.

import (
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The limits of the denied lines (docs/trace.md, "The window").
const (
	// BodyTime is the longest read of a body for the name of a refused
	// call.
	BodyTime = 2 * time.Second
	// DeniedMax denied lines in one window of DeniedInterval; the last
	// DeniedReserved of them are for a call with a valid token.
	DeniedMax      = 100
	DeniedInterval = 10 * time.Second
	DeniedReserved = 20
	// NameCut is the longest name that a denied line holds.
	NameCut = 200
)

// denier writes the denied lines of the token layer within their limits
// (the flowchart of "The trace of a command", docs/trace.md): at most
// DeniedMax lines in a window of DeniedInterval, and a call with no
// valid token takes a line only from the first DeniedMax-DeniedReserved.
// Over the limit it counts the codes, and the end of the window writes
// one dropped line with the counts. A window starts at the first refused
// call after the end of the last one; it ends at its timer (a
// time.AfterFunc that the window arms when it opens), at a stop
// (Handler.FlushDenied), or at the first call after its time by the
// clock of the engine (so a late timer does not make a window longer).
// The limits change only the lines: the reply is the same.
//
// The denier owns its timer: one at a time, the timer of the open
// window, which each end of that window stops. No goroutine runs for it
// between two windows.
type denier struct {
	log *slog.Logger
	now func() time.Time
	// after arms the timer of a window: it calls f after d, unless stop
	// is called first (afterFunc; a test gives a timer of its own).
	after func(d time.Duration, f func()) (stop func() bool)

	mu sync.Mutex
	// open says that a window is open; window is its number, so that the
	// timer of a window that already ended does not end the next one.
	open    bool
	window  uint64
	start   time.Time
	lines   int
	dropped map[wire.Code]int
	// stopTimer stops the timer of the open window (nil with none).
	stopTimer func() bool
}

func newDenier(log *slog.Logger, now func() time.Time) *denier {
	return &denier{log: log, now: now, after: afterFunc, dropped: map[wire.Code]int{}}
}

// reservedFor says whether a refused call may take the reserved lines of a
// window: a call with a valid token (its key), refused with not_you or
// bad_proof. A call with no token, a bad token or an old build may not.
func reservedFor(code wire.Code, key string) bool {
	return key != "" && (code == wire.NotYou || code == wire.BadProof)
}

// tokenLayerCode says whether code is a code of the token layer: only
// these refusals have a denied line. A bad_request of the layer (a call
// with a token that names no me) is a refusal of the form of the call.
func tokenLayerCode(code wire.Code) bool {
	switch code {
	case wire.NoToken, wire.BadToken, wire.BadProof, wire.NotYou, wire.OldBuild:
		return true
	}
	return false
}

// take says whether a refused call gets a line. true takes one line of
// the window (the caller then reads the name and calls write); false
// counts the code for the dropped line, and the call gets no read of
// its body. reserved is reservedFor of the call.
func (d *denier) take(code wire.Code, reserved bool) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.now()
	if d.open && now.Sub(d.start) >= DeniedInterval {
		d.endLocked()
	}
	if !d.open {
		d.open, d.start, d.lines = true, now, 0
		d.window++
		window := d.window
		d.stopTimer = d.after(DeniedInterval, func() { d.endWindow(window) })
	}
	limit := DeniedMax - DeniedReserved
	if reserved {
		limit = DeniedMax
	}
	if d.lines >= limit {
		d.dropped[code]++
		return false
	}
	d.lines++
	return true
}

// write writes the denied line of a call that take gave a line. named
// is the name that the call gave (the me of its body, or the uri of its
// query), "" with none; key is the thumbprint of the device key of a
// valid token, "" with none. The line has no caller and no reason.
func (d *denier) write(code wire.Code, path, named, key string) {
	attrs := []any{"path", path, "result", "denied", "code", string(code), "proved", false}
	if key != "" {
		attrs = append(attrs, "key", key)
	}
	if named != "" {
		attrs = append(attrs, namedAttrs(named)...)
	}
	d.log.Info("denied", attrs...)
}

// namedAttrs gives the fields of a name in a denied line: a session URI
// as the caller of a line ({"session":"mike/84cf"}, {"person":"mike"}),
// each other name as {"text":...}, cut at NameCut characters (with
// named_cut) and with its line breaks escaped. A text with an @ can be an
// email, and a line never holds an email: it is {"hidden":"email"}.
func namedAttrs(named string) []any {
	if u, err := name.ParseURI(named); err == nil {
		if u.IsPerson() {
			return []any{slog.Group("named", "person", u.User)}
		}
		return []any{slog.Group("named", "session", u.Who().String())}
	}
	if strings.Contains(named, "@") {
		return []any{slog.Group("named", "hidden", "email")}
	}
	cut := false
	if utf8.RuneCountInString(named) > NameCut {
		runes := []rune(named)
		named, cut = string(runes[:NameCut]), true
	}
	named = lineBreaks.Replace(named)
	attrs := []any{slog.Group("named", "text", named)}
	if cut {
		attrs = append(attrs, "named_cut", true)
	}
	return attrs
}

// lineBreaks escapes each line break of a name, so that its line stays
// one line also for a reader that takes the text out of the JSON.
var lineBreaks = strings.NewReplacer("\r\n", `\r\n`, "\n", `\n`, "\r", `\r`, "\u2028", `\u2028`, "\u2029", `\u2029`, "\u0085", `\u0085`)

// endWindow ends the window of that number when it is still open: its
// timer fired (the timer is spent: nothing stops it).
func (d *denier) endWindow(window uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.open && d.window == window {
		d.stopTimer = nil
		d.endLocked()
	}
}

// end ends the open window: a stop of the server ends it, so that no
// count is lost.
func (d *denier) end() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.endLocked()
}

// endLocked ends the open window: one dropped line with the count and
// the count of each code, when calls were over the limit.
func (d *denier) endLocked() {
	if !d.open {
		return
	}
	d.open = false
	if d.stopTimer != nil {
		d.stopTimer()
		d.stopTimer = nil
	}
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
	clear(d.dropped)
}

// FlushDenied ends the open window of the denied lines and stops its
// timer: a program calls it at its stop, after it shut its HTTP server
// down, so that no count is lost. Until then each window ends on its own
// timer.
func (s *Handler) FlushDenied() { s.denier.end() }

// afterFunc is the timer of the end of a window: a real timer.
func afterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}
