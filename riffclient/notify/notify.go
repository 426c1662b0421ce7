// Package notify sends the desktop notification of a lead for each
// block of a session that the lead gave no answer ("A blocked session"
// of riff's user guide): riff relay mcp of the lead looks at each
// keep-alive (each minute), whose reply lists the unanswered blocks of
// the sessions of its user in its repository, and runs notify-send once
// for each new one. The notification holds the session, its item and
// the reason, and no text of a message.
//
// It needs a desktop: a display (DISPLAY or WAYLAND_DISPLAY) and
// notify-send on PATH, as on GNOME. With none, it sends nothing, and
// nothing fails; a notify-send that fails is a warning, never an error
// of the keep-alive. lead.notify false in the settings file of the
// machine (riffclient/settings) turns it off, and lead.wake of the same
// file goes to the server with each keep-alive.
//
// The blocks it notified are kept in a file of the local folder
// (Desk.Marks), so that a new relay of the lead notifies them no more.
//
// It reads the env only through the function that its caller gives,
// and starts no goroutine: notify-send runs, with a time limit, in the
// call that sends it.
package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/como-technologies/riff/riffclient/settings"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
)

// Program is the program that shows a desktop notification.
const Program = "notify-send"

// RunLimit is the longest time that one notify-send may take.
const RunLimit = 5 * time.Second

// Summary is the first line of each notification.
const Summary = "riff: the lead gave no answer"

// Desk is the desk of one lead: it reads the settings file at each look,
// tells the keep-alive lead.wake, and notifies each new unanswered block
// once. It is safe for concurrent use.
type Desk struct {
	// Getenv reads the env: the display, PATH, and the place of the
	// settings file.
	Getenv func(string) string
	// Warn gets a fault that stops no work (a settings file that does
	// not read, a notify-send that fails), once for each new fault; nil
	// drops them.
	Warn func(msg string, err error)
	// Run runs the program at path with args; nil runs it as a process,
	// with RunLimit.
	Run func(ctx context.Context, path string, args []string) error
	// Marks is the file of the blocks that were notified, so that a new
	// relay of the lead (a new start of its agent tool) does not notify
	// them again; "" keeps them in memory only. It holds the blocks of
	// the last look: no more than the list of the server.
	Marks string

	mu       sync.Mutex
	sent     map[string]bool
	loaded   bool
	settings settings.Settings
	looked   bool
	fault    string
}

// LeadWake reads the settings file of the machine again and gives its
// lead.wake in minutes, for the next keep-alive. A file that does not
// read gives the defaults, with a warning.
func (d *Desk) LeadWake() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.look()
	return d.settings.LeadWake
}

// look reads the settings file. The lock is held.
func (d *Desk) look() {
	s, err := settings.Load(d.getenv)
	d.settings, d.looked = s, true
	fault := ""
	if err != nil {
		fault = err.Error()
	}
	if fault != d.fault && fault != "" && d.Warn != nil {
		d.Warn("riff relay mcp reads the defaults of lead.wake and lead.notify", err)
	}
	d.fault = fault
}

func (d *Desk) getenv(key string) string {
	if d.Getenv == nil {
		return ""
	}
	return d.Getenv(key)
}

// Unanswered takes the unanswered blocks of a reply to the keep-alive:
// it notifies each block that it did not notify yet, when lead.notify is
// on and the machine has a desktop, and gives the number it sent. A
// block that left the list (an answer, a new block) is forgotten, so a
// new block of the same session is notified again.
func (d *Desk) Unanswered(ctx context.Context, blocks []wire.UnansweredBlock) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.looked {
		d.look()
	}
	if !d.loaded {
		d.sent, d.loaded = d.readMarks(), true
	}
	keep := map[string]bool{}
	var fresh []wire.UnansweredBlock
	for _, b := range blocks {
		key := fmt.Sprintf("%s@%d", b.Session.Who(), b.AtMs)
		keep[key] = true
		if !d.sent[key] {
			fresh = append(fresh, b)
		}
	}
	if !maps.Equal(keep, d.sent) {
		d.writeMarks(keep)
	}
	d.sent = keep
	if len(fresh) == 0 || !d.settings.LeadNotify {
		return 0
	}
	program, ok := d.desktop()
	if !ok {
		return 0
	}
	sent := 0
	for _, b := range fresh {
		if err := d.run(ctx, program, Args(b)); err != nil {
			if d.Warn != nil {
				d.Warn("riff relay mcp could not send the desktop notification of an unanswered block", err)
			}
			continue
		}
		sent++
	}
	return sent
}

// readMarks reads the marks file: none when it has none or does not
// read (a block may then be notified once more, never lost).
func (d *Desk) readMarks() map[string]bool {
	marks := map[string]bool{}
	if d.Marks == "" {
		return marks
	}
	b, err := os.ReadFile(d.Marks)
	if err != nil {
		return marks
	}
	var keys []string
	if json.Unmarshal(b, &keys) != nil {
		return marks
	}
	for _, k := range keys {
		marks[k] = true
	}
	return marks
}

// writeMarks keeps the marks in the marks file, whole or not at all: a
// new file in its place, so that two relays of the lead never leave half
// a file. A fault is a warning.
func (d *Desk) writeMarks(marks map[string]bool) {
	if d.Marks == "" {
		return
	}
	keys := append([]string{}, slices.Sorted(maps.Keys(marks))...)
	b, err := json.Marshal(keys)
	if err == nil {
		err = writeWhole(d.Marks, b)
	}
	if err != nil && d.Warn != nil {
		d.Warn("riff relay mcp cannot keep the marks of the notified blocks", err)
	}
}

func writeWhole(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".notified-*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// desktop gives the path of notify-send when the machine has a desktop:
// a display, and notify-send on the PATH of the env.
func (d *Desk) desktop() (string, bool) {
	if d.getenv("DISPLAY") == "" && d.getenv("WAYLAND_DISPLAY") == "" {
		return "", false
	}
	for _, dir := range filepath.SplitList(d.getenv("PATH")) {
		if dir == "" {
			continue
		}
		path := filepath.Join(dir, Program)
		if p, err := exec.LookPath(path); err == nil {
			return p, true
		}
	}
	return "", false
}

func (d *Desk) run(ctx context.Context, path string, args []string) error {
	ctx, cancel := context.WithTimeout(ctx, RunLimit)
	defer cancel()
	if d.Run != nil {
		return d.Run(ctx, path, args)
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = []string{
		"PATH=" + d.getenv("PATH"), "HOME=" + d.getenv("HOME"),
		"DISPLAY=" + d.getenv("DISPLAY"), "WAYLAND_DISPLAY=" + d.getenv("WAYLAND_DISPLAY"),
		"DBUS_SESSION_BUS_ADDRESS=" + d.getenv("DBUS_SESSION_BUS_ADDRESS"), "XDG_RUNTIME_DIR=" + d.getenv("XDG_RUNTIME_DIR"),
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w: %s", Program, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Args gives the arguments of notify-send for a block: the name of the
// app, the summary, and the body: the session, its item and the reason,
// with the time that it waits. "--" ends the options, so a reason that
// starts with "-" is text.
func Args(b wire.UnansweredBlock) []string {
	return []string{"--app-name=riff", "--", Summary, Body(b)}
}

// Body is the text of the notification of a block, with the time that
// it waits by the clock of the server:
// "mike@thelio:riff#issue-8 (3a3f) on #8, blocked 32m: which of two designs?".
func Body(b wire.UnansweredBlock) string {
	text := b.Session.Bare().Named()
	if len(b.Items) > 0 {
		items := make([]string, len(b.Items))
		for i, it := range b.Items {
			items[i] = itemText(it)
		}
		text += " on " + strings.Join(items, ", ")
	}
	wait := time.Duration(b.WaitSecs) * time.Second
	return fmt.Sprintf("%s, blocked %s: %s", text, minutes(wait), b.Reason)
}

// itemText shows issue-8 as #8, as riff who does.
func itemText(item name.Item) string {
	if n, ok := strings.CutPrefix(string(item), "issue-"); ok {
		return "#" + n
	}
	return string(item)
}

func minutes(d time.Duration) string {
	if d < time.Hour {
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
