package rifflog_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/dir"
	"github.com/como-technologies/riff/rifflog/mem"
	"github.com/google/go-cmp/cmp"
)

func TestLoadCheckpointFallsBack(t *testing.T) {
	ctx := context.Background()
	s := mem.New()
	ws := writeLog(t, s, 2, 2, 2)
	for i, w := range ws {
		if _, err := rifflog.WriteCheckpoint(ctx, s, rifflog.CheckpointAt(w, int64(1790000000000+i), "1.0.0", []byte(fmt.Sprintf(`{"i":%d}`, i)))); err != nil {
			t.Fatal(err)
		}
	}
	// The newest does not read: a flipped byte.
	newest := rifflog.CheckpointName(6, 1790000000002)
	data, _ := s.Get(ctx, newest)
	data[len(data)-4] ^= 1
	s.Delete(ctx, newest)
	s.Put(ctx, newest, data)
	l, err := rifflog.LoadCheckpoint(ctx, s, nil)
	if err != nil || l.Checkpoint.Position != 4 || len(l.Failed) != 1 {
		t.Fatalf("LoadCheckpoint = %+v, %v; want the one at 4 and one failure", l, err)
	}
	// A state that the caller cannot decode counts as not read too.
	l, err = rifflog.LoadCheckpoint(ctx, s, func(c rifflog.Checkpoint) error {
		if c.Position == 4 {
			return errors.New("state does not decode")
		}
		return nil
	})
	if err != nil || l.Checkpoint.Position != 2 {
		t.Fatalf("LoadCheckpoint = %+v, %v; want the one at 2", l, err)
	}
	got, _, err := replayAll(s, l.Checkpoint.From())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(span(3, 6), got); diff != "" {
		t.Errorf("Replay from the checkpoint (-want +got):\n%s", diff)
	}
	if _, err := rifflog.LoadCheckpoint(ctx, mem.New(), nil); !errors.Is(err, rifflog.ErrNoCheckpoint) {
		t.Errorf("LoadCheckpoint of an empty store = %v; want ErrNoCheckpoint", err)
	}
}

func TestMayCheckpoint(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		build, newest          string
		firstSkipped, position uint64
		want                   bool
	}{
		{"no newest", "1.0.0", "", 0, 10, true},
		{"same build", "1.0.0", "1.0.0", 0, 10, true},
		{"older newest", "1.2.0", "1.1.9", 0, 10, true},
		{"later newest", "1.0.0", "1.0.1", 0, 10, false},
		{"later major", "1.9.9", "v2.0.0", 0, 10, false},
		{"before the skipped record", "1.0.0", "", 11, 10, true},
		{"at the skipped record", "1.0.0", "", 10, 10, false},
		{"a newest build that does not read", "1.0.0", "x", 0, 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, why := rifflog.MayCheckpoint(tc.build, tc.newest, tc.firstSkipped, tc.position)
			if got != tc.want || (got == (why != "")) {
				t.Errorf("MayCheckpoint = %v, %q; want %v", got, why, tc.want)
			}
		})
	}
}

// TestKeepRuleOver60Days writes checkpoints for 60 days (a few each
// day, some days none) and prunes each day: the kept set is the last 3
// and the newest of each of the last 30 days, a replay works from each
// kept checkpoint, and no chunk that a kept checkpoint needs is gone.
func TestKeepRuleOver60Days(t *testing.T) {
	t.Run("memory", func(t *testing.T) { keepRuleOver60Days(t, mem.New()) })
	t.Run("directory, deleted in one flush", func(t *testing.T) {
		s, err := dir.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		keepRuleOver60Days(t, s)
	})
}

func keepRuleOver60Days(t *testing.T, s rifflog.Store) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	day0 := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	var r rifflog.Replayed
	type cp struct {
		name string
		at   time.Time
	}
	var all []cp
	for day := range 60 {
		for range rng.IntN(4) {
			at := day0.AddDate(0, 0, day).Add(time.Duration(rng.IntN(86400)) * time.Second)
			w, err := rifflog.Write(ctx, s, r.Next(records(r.Last+1, 1+rng.IntN(5))))
			if err != nil {
				t.Fatal(err)
			}
			r.Last, r.Chain = w.Last(), w.Chain()
			if at.Before(day0.AddDate(0, 0, day)) || (len(all) > 0 && !at.After(all[len(all)-1].at)) {
				at = all[len(all)-1].at.Add(time.Second)
			}
			name, err := rifflog.WriteCheckpoint(ctx, s, rifflog.CheckpointAt(w, at.UnixMilli(), "1.0.0", []byte(`{}`)))
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, cp{name, at})
		}
		now := day0.AddDate(0, 0, day).Add(23 * time.Hour)
		if _, err := rifflog.Prune(ctx, s, now); err != nil {
			t.Fatalf("day %d: Prune = %v", day, err)
		}
		// The model of the keep rule.
		var want []string
		seen := map[string]bool{}
		for i := len(all) - 1; i >= 0; i-- {
			d := all[i].at.Format(time.DateOnly)
			inWindow := !all[i].at.Before(now.Truncate(24*time.Hour).AddDate(0, 0, -29))
			if i >= len(all)-3 || (inWindow && !seen[d]) {
				want = append(want, all[i].name)
			}
			seen[d] = true
		}
		sort.Strings(want)
		got, _ := s.List(ctx, "checkpoint/")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("day %d: kept checkpoints (-want +got):\n%s", day, diff)
		}
		for _, name := range got {
			c, err := rifflog.ReadCheckpoint(ctx, s, name)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := rifflog.Replay(ctx, s, c.From(), func([]byte, uint64) error { return nil }); err != nil {
				t.Fatalf("day %d: Replay from %s = %v", day, name, err)
			}
		}
	}
	if names, _ := s.List(ctx, "log/"); len(names) == 0 {
		t.Fatalf("no chunk left")
	} else if first, _ := rifflog.ParseChunkName(names[0]); first == 1 {
		t.Errorf("after 60 days the first chunk is still there; want old chunks deleted")
	}
}

// TestFencing runs an old instance and a new one that takes the lease
// over 150 generated interleavings of their store calls: the old one
// acknowledges no chunk whose check came after the take, every
// acknowledged chunk is in the log, and the log never forks.
//
// It runs on the memory store, and on the directory store in a temp dir,
// whose lease check looks up names (Store.Newest) instead of reading the
// lease.
func TestFencing(t *testing.T) {
	for seed := range uint64(150) {
		t.Run(fmt.Sprintf("memory seed %d", seed), func(t *testing.T) { fencing(t, seed, mem.New()) })
	}
	for seed := range uint64(150) {
		t.Run(fmt.Sprintf("directory seed %d", seed), func(t *testing.T) {
			s, err := dir.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			fencing(t, seed, s)
		})
	}
}

// TestGivenObjectsUnderCheckpointThatAreNotCheckpointNamesWhenPruneRunsThenItTouchesNoneAndDropsWhatKeepDrops:
// a name is parsed once, and Keep, Prune and the load agree on what is a
// checkpoint: a name that CheckpointName does not give is in no list and
// stays in the store.
func TestGivenObjectsUnderCheckpointThatAreNotCheckpointNamesWhenPruneRunsThenItTouchesNoneAndDropsWhatKeepDrops(t *testing.T) {
	ctx := context.Background()
	s := mem.New()
	day0 := time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)
	var r rifflog.Replayed
	for i := range 6 {
		w, err := rifflog.Write(ctx, s, r.Next(records(r.Last+1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		r.Last, r.Chain = w.Last(), w.Chain()
		// Two a day: the keep rule drops the older of the first days.
		at := day0.Add(time.Duration(i) * 12 * time.Hour)
		if _, err := rifflog.WriteCheckpoint(ctx, s, rifflog.CheckpointAt(w, at.UnixMilli(), "1.0.0", []byte(`{}`))); err != nil {
			t.Fatal(err)
		}
	}
	others := []string{
		"checkpoint/junk.json",
		"checkpoint/00000000000000000001-01.json",  // a leading zero in the time
		"checkpoint/00000000000000000001--5.json",  // a sign
		"checkpoint/0000000000000000001-5.json",    // 19 digits
		"checkpoint/00000000000000000001-5.jsonl",  // another suffix
		"checkpoint/00000000000000000001-5.json.x", // another suffix
	}
	for _, name := range others {
		if err := s.Put(ctx, name, []byte("{}\n")); err != nil {
			t.Fatal(err)
		}
	}
	listed, err := s.List(ctx, rifflog.CheckpointPrefix)
	if err != nil {
		t.Fatal(err)
	}
	now := day0.AddDate(0, 0, 3)
	keep, drop := rifflog.Keep(listed, now)
	if len(keep)+len(drop) != 6 || len(drop) == 0 {
		t.Fatalf("Keep(%q) = %q, %q; want the 6 checkpoints split, some dropped", listed, keep, drop)
	}
	p, err := rifflog.Prune(ctx, s, now)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(drop, p.Checkpoints); diff != "" {
		t.Errorf("Prune deleted other checkpoints than Keep drops (-Keep +Prune):\n%s", diff)
	}
	left, _ := s.List(ctx, rifflog.CheckpointPrefix)
	want := append(append([]string{}, keep...), others...)
	sort.Strings(want)
	if diff := cmp.Diff(want, left); diff != "" {
		t.Errorf("left after Prune (-want +got):\n%s", diff)
	}
	l, err := rifflog.LoadCheckpoint(ctx, s, nil)
	if err != nil || l.Name != keep[len(keep)-1] {
		t.Errorf("LoadCheckpoint = %q, %v; want the newest, %q", l.Name, err, keep[len(keep)-1])
	}
}

// The engine encodes a checkpoint at the lowest priority and writes it
// at that of the calls (docs/decisions.md, "The checkpoint maker holds
// no lock at the lowest priority"): the encode takes no store, and the
// put of its object writes the name and the bytes of WriteCheckpoint,
// framed or not, canonical or not, once.
func TestGivenAnEncodedCheckpointWhenItsObjectIsPutThenTheStoreHoldsWhatWriteCheckpointWrites(t *testing.T) {
	ctx := context.Background()
	for _, state := range []string{`{"a":1,"b":[true,null]}`, "{ \"a\" : 1 , \"b\":\"<&>\"}"} {
		c := rifflog.Checkpoint{Position: 7, WrittenAtMs: 1790000000000, Build: "1.0.0", State: []byte(state)}
		written := mem.New()
		name, err := rifflog.WriteCheckpoint(ctx, written, c)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := written.Get(ctx, name)
		room, err := rifflog.CheckpointRoom(c)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := rifflog.EncodeCheckpoint(c)
		if err != nil {
			t.Fatal(err)
		}
		framed, err := rifflog.EncodeFramedCheckpoint(c, append(make([]byte, room), state...), room)
		if err != nil {
			t.Fatal(err)
		}
		for what, o := range map[string]rifflog.CheckpointObject{"EncodeCheckpoint": plain, "EncodeFramedCheckpoint": framed} {
			if o.Name != name {
				t.Fatalf("%s of %s: the object is named %q; want %q", what, state, o.Name, name)
			}
			s := mem.New()
			if err := o.Put(ctx, s); err != nil {
				t.Fatal(err)
			}
			got, err := s.Get(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("%s of %s: the put wrote %q; want what WriteCheckpoint writes, %q", what, state, got, want)
			}
			if err := o.Put(ctx, s); !errors.Is(err, rifflog.ErrExists) {
				t.Errorf("%s of %s: a second put gave %v; want an error that wraps ErrExists", what, state, err)
			}
		}
	}
}
