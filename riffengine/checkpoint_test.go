package riffengine_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/como-technologies/riff/riffstate"
)

// settled runs calls on an engine over the store and settles it, which
// writes a last checkpoint.
func settled(t *testing.T, st rifflog.Store, clk *clock, who ...string) {
	t.Helper()
	r := start(t, setup{store: st, clock: clk})
	r.register(who...)
	if err := r.e.Settle(context.Background()); err != nil {
		t.Fatalf("Settle = %v", err)
	}
}

// checkpointNames lists the checkpoint objects of the store, oldest first.
func checkpointNames(t *testing.T, st rifflog.Store) []string {
	t.Helper()
	names, err := st.List(context.Background(), "checkpoint/")
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// The store design: "When the newest checkpoint does not read, the
// server uses the one before it." It does so with an ERROR line that
// names the object and why, and the facts (riff server) show it.
func TestGivenADamagedNewestCheckpointWhenTheServerStartsThenItUsesTheOneBeforeItAndSaysSo(t *testing.T) {
	ctx := context.Background()
	st := mem.New()
	clk := newClock()
	settled(t, st, clk, "ann/s1")
	clk.Add(1000)
	settled(t, st, clk, "bob/s2")
	names := checkpointNames(t, st)
	if len(names) != 2 {
		t.Fatalf("checkpoints = %v; want 2", names)
	}
	newest := names[1]
	data, err := st.Get(ctx, newest)
	if err != nil {
		t.Fatal(err)
	}
	damaged := bytes.Clone(data)
	damaged[bytes.Index(damaged, []byte(`"state":`))+20] ^= 0x01
	_ = st.Delete(ctx, newest)
	if err := st.Put(ctx, newest, damaged); err != nil {
		t.Fatal(err)
	}

	loaded, err := riffengine.Load(ctx, st, riffstate.Options{Build: serverBuild().String()})
	if err != nil {
		t.Fatalf("Load = %v", err)
	}
	if loaded.Checkpoint == nil || rifflog.CheckpointName(loaded.Checkpoint.Position, loaded.Checkpoint.WrittenAtMs) != names[0] {
		t.Fatalf("Load used %+v; want %s", loaded.Checkpoint, names[0])
	}
	logs := &lines{}
	e := riffengine.New(loaded.State, loaded.Replayed, riffengine.Options{Store: st, StoreName: "memory", Build: serverBuild(),
		Logger: riffengine.NewLogger(logs, slog.LevelInfo), Now: clk.Now})
	defer e.Close(context.Canceled)
	e.SetUnread(loaded.Unread)

	errorsLogged := logs.with(t, "a checkpoint does not read; the start used the one before it")
	if len(errorsLogged) != 1 {
		t.Fatalf("log lines:\n%s\nwant one ERROR line for %s", logs, newest)
	}
	line := errorsLogged[0]
	if line["severity"] != "ERROR" || line["object"] != newest || !strings.Contains(line["error"].(string), "does not match its checksum") {
		t.Errorf("the line = %v; want ERROR, the object %s and why", line, newest)
	}
	facts := e.Facts()
	if len(facts.UnreadCheckpoints) != 1 || !strings.Contains(facts.UnreadCheckpoints[0], newest) {
		t.Errorf("facts.UnreadCheckpoints = %q; want one that names %s", facts.UnreadCheckpoints, newest)
	}
	var sessions int
	e.View(func(v riffstate.View, _ riffstate.Now) { sessions = len(v.Riff().Sessions) })
	if sessions != 2 {
		t.Errorf("the state after the load holds %d sessions; want both (the older checkpoint and the records after it)", sessions)
	}
}
