package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/como-technologies/riff/rifflog"
)

// logPrint prints the records of the log as text, from a position (the
// record at from is the first line). With from 0 it starts at the oldest
// record that the log keeps: after a checkpoint the chunks before it are
// gone, so the first records of the log are not there to print.
func logPrint(ctx context.Context, st rifflog.Store, from uint64, w, note io.Writer) error {
	if from == 0 {
		v, err := rifflog.Verify(ctx, st)
		if err != nil {
			return err
		}
		from = v.From.Position + 1
		if v.From.Position > 0 {
			fmt.Fprintf(note, "The records up to position %d are in the checkpoint there; the log keeps the records after it.\n", v.From.Position)
		}
	}
	// rifflog.Print prints the records after its position.
	return rifflog.Print(ctx, st, from-1, w)
}

// logVerify reads each chunk and each checkpoint from the oldest kept
// checkpoint, and names each line that does not read.
func logVerify(ctx context.Context, st rifflog.Store, w io.Writer) error {
	v, err := rifflog.Verify(ctx, st)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "verify: from position %d: %d chunks, %d records, %d checkpoints\n", v.From.Position, v.Chunks, v.Records, v.Checkpoints)
	for _, p := range v.Problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
	if u := v.Unchecked; u.Chunks > 0 {
		fmt.Fprintf(w, "not checked: %d chunks from the break on, %s to %s (positions %d to %d): past a break of the chain no chain value can be checked\n",
			u.Chunks, u.First, u.Last, u.FromPosition, u.ToPosition)
	}
	if len(v.Problems) > 0 {
		return fmt.Errorf("the log has %d problems: cut it before the first one with riff-server log cut --after POSITION", len(v.Problems))
	}
	fmt.Fprintln(w, "the log reads: no problem")
	return nil
}

// logCut removes each record after a position; without yes it only
// names what it would remove.
func logCut(ctx context.Context, st rifflog.Store, after uint64, yes bool, w io.Writer) error {
	if after == 0 {
		return fmt.Errorf("give the position to keep with --after POSITION")
	}
	c, err := rifflog.CutAfter(ctx, st, after, yes, time.Now())
	if err != nil {
		return err
	}
	verb := "would remove"
	if c.Done {
		verb = "removed"
	}
	fmt.Fprintf(w, "cut after position %d: %s %d records", after, verb, len(c.Removed))
	if len(c.Threads) > 0 {
		fmt.Fprintf(w, " in the threads %s", strings.Join(c.Threads, ", "))
	}
	fmt.Fprintln(w)
	for _, line := range c.Removed {
		fmt.Fprintf(w, "  %s\n", line)
	}
	for _, name := range c.Delete {
		fmt.Fprintf(w, "  %s %s\n", map[bool]string{true: "deleted", false: "would delete"}[c.Done], name)
	}
	if c.Rewrite != "" {
		fmt.Fprintf(w, "  %s %s with its first records\n", map[bool]string{true: "wrote again", false: "would write again"}[c.Done], c.Rewrite)
	}
	if !c.Done {
		fmt.Fprintln(w, "Nothing is removed. Run the same command with --yes to cut.")
	}
	return nil
}
