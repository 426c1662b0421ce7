package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/como-technologies/riff/riffclient"
	"github.com/como-technologies/riff/riffclient/denied"
	"github.com/como-technologies/riff/riffclient/render"
	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/quote"
	"github.com/como-technologies/riff/riffcore/wire"
)

// deniedLast is the number of records that riff denials shows after the
// counts.
const deniedLast = 20

// denialsCommand is riff denials, under Get started with riff who: both
// show what the sessions do (docs/agents.md, the refusals of auto mode).
func denialsCommand() command {
	return command{
		name: "denials", usage: "denials [--since N(s|m|h|d|w)] [--format text|json]", short: "count the refusals of auto mode",
		long: `Counts the refusals of auto mode that riff relay denied posted to the
thread denials: by reason, by tool and head, by role and by repository.
Then it shows the last 20 records. riff-server keeps the last 200
messages of a thread, so the counts are of those.

  --since N   only the records of the last N seconds (s), minutes (m),
              hours (h), days (d) or weeks (w), for example 7d
  --format    text (the default) or json: each record with its time, its
              tags and its input
`,
		flags: func(fs *flag.FlagSet) action {
			since := fs.String("since", "", "only the records of the last N s, m, h, d or w (as 7d)")
			format := fs.String("format", "text", "text or json")
			return func(c *cli, ctx context.Context, args []string) error {
				return c.denials(ctx, args, *since, *format)
			}
		},
		interspersed: true,
	}
}

// denial is one record of the thread denials.
type denial struct {
	seq   uint64
	atMs  int64
	tags  map[string]string
	input string
	line  string
}

// parseSince reads N(s|m|h|d|w).
func parseSince(s string) (time.Duration, error) {
	bad := usagef("riff denials: --since takes a number and a unit: s, m, h, d or w, as 7d; not %s", quote.Input(s))
	if len(s) < 2 {
		return 0, bad
	}
	n, err := strconv.ParseUint(s[:len(s)-1], 10, 32)
	if err != nil || n == 0 {
		return 0, bad
	}
	unit := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[s[len(s)-1]]
	if unit == 0 {
		return 0, bad
	}
	return time.Duration(n) * unit, nil
}

func (c *cli) denials(ctx context.Context, args []string, since, format string) error {
	if err := noArgs(args, "denials"); err != nil {
		return err
	}
	if format != "text" && format != "json" {
		return usagef("riff denials: --format is text or json, not %s", quote.Input(format))
	}
	var window time.Duration
	if since != "" {
		var err error
		if window, err = parseSince(since); err != nil {
			return err
		}
	}
	me, err := c.me(ctx)
	if err != nil {
		return err
	}
	records, lost, err := c.readDenials(ctx, me)
	if err != nil {
		return err
	}
	if since != "" {
		from := c.now().Add(-window).UnixMilli()
		records = slices.DeleteFunc(records, func(d denial) bool { return d.atMs < from })
	}
	if format == "json" {
		return c.denialsJSON(records)
	}
	c.denialsText(records, since, lost)
	return nil
}

// readDenials reads each kept message of the thread denials, page by
// page, and gives the records among them; lost says that the server no
// longer keeps the first ones.
func (c *cli) readDenials(ctx context.Context, me name.SessionURI) ([]denial, bool, error) {
	var out []denial
	var after uint64
	lost, first := false, true
	for {
		r, err := riffclient.Send(ctx, c.client, wire.Read{Me: me, Thread: string(name.Denials), All: true, After: after})
		if err != nil {
			return nil, false, err
		}
		more := false
		for _, page := range r.Threads {
			if page.Thread != string(name.Denials) {
				continue
			}
			for _, m := range page.Messages {
				// The first kept message is not the first of the thread:
				// the server no longer keeps the ones before it.
				if first {
					lost, first = m.Seq > 1, false
				}
				if tags, input, ok := denied.Parse(m.Body); ok {
					out = append(out, denial{seq: m.Seq, atMs: m.AtMs, tags: tags, input: input, line: m.Body})
				}
				after = max(after, m.Seq)
			}
			more = more || page.More
		}
		if !more {
			return out, lost, nil
		}
	}
}

// count is one line of a count: a value and its number of records.
type count struct {
	value string
	n     int
}

// countBy counts the records by the value that key gives, the most first
// (then by the value).
func countBy(records []denial, key func(denial) string) []count {
	byValue := map[string]int{}
	for _, d := range records {
		byValue[key(d)]++
	}
	out := make([]count, 0, len(byValue))
	for v, n := range byValue {
		out = append(out, count{value: v, n: n})
	}
	slices.SortFunc(out, func(a, b count) int {
		return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.value, b.value))
	})
	return out
}

// tag gives the value of a tag of a record, - when it has none.
func (d denial) tag(k string) string {
	if v := d.tags[k]; v != "" {
		return v
	}
	return "-"
}

func (c *cli) denialsText(records []denial, since string, lost bool) {
	window := ""
	if since != "" {
		window = " in the last " + since
	}
	if len(records) == 0 {
		c.out.Textf("No refusal of auto mode%s.", window)
		return
	}
	noun := "refusals"
	if len(records) == 1 {
		noun = "refusal"
	}
	c.out.Textf("%d %s of auto mode%s.", len(records), noun, window)
	if lost {
		c.out.Text("riff-server keeps the last 200 messages of the thread denials: older records are not counted.")
	}
	groups := []struct {
		title string
		key   func(denial) string
	}{
		{"By reason", func(d denial) string { return d.tag("reason") }},
		{"By tool and head", func(d denial) string {
			if h := d.tag("head"); h != "-" {
				return d.tag("tool") + " " + h
			}
			return d.tag("tool")
		}},
		{"By role", func(d denial) string { return d.tag("role") }},
		{"By repository", func(d denial) string { return d.tag("repo") }},
	}
	for _, g := range groups {
		c.out.Text("")
		c.out.Text(g.title)
		counts := countBy(records, g.key)
		width := len(strconv.Itoa(counts[0].n))
		for _, n := range counts {
			c.out.Hanging(4+width, render.Plain(fmt.Sprintf("  %*d  %s", width, n.n, n.value)))
		}
	}
	last := records[max(0, len(records)-deniedLast):]
	c.out.Text("")
	c.out.Textf("The last %d", len(last))
	for _, d := range last {
		at := time.UnixMilli(d.atMs).In(c.loc).Format("2006-01-02 15:04")
		c.out.Hanging(2, render.Plain(at+"  "+clean(d.line)))
	}
}

// deniedJSON is a record in the output of --format json.
type deniedJSON struct {
	Time  string            `json:"time"`
	Seq   uint64            `json:"seq"`
	Tags  map[string]string `json:"tags"`
	Input string            `json:"input"`
}

func (c *cli) denialsJSON(records []denial) error {
	out := make([]deniedJSON, 0, len(records))
	for _, d := range records {
		out = append(out, deniedJSON{
			Time: time.UnixMilli(d.atMs).UTC().Format(time.RFC3339Nano), Seq: d.seq, Tags: d.tags, Input: d.input,
		})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(c.stdout, string(b))
	return err
}
