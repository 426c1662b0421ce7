package riffengine_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/mem"
)

// The wait of the writer before a chunk (gather in writer.go;
// docs/performance.md, "On a bucket"): after a chunk of N calls, the
// next chunk waits for N calls, for at most a share of the last write.

// firstOf gives the first position of a chunk by its name.
func firstOf(t *testing.T, chunk string) uint64 {
	t.Helper()
	n, ok := rifflog.ParseChunkName(chunk)
	if !ok {
		t.Fatalf("%q is not the name of a chunk", chunk)
	}
	return n
}

// Given a chunk of two calls, when one call comes, then the writer waits
// for a second before it writes; when the second comes, both are in one
// chunk; when the wait ends with one call only, that call is written
// alone.
func TestGivenAChunkOfTwoCallsWhenOneCallComesThenTheWriterWaitsForTheSecond(t *testing.T) {
	g := newGate(mem.New())
	r := start(t, setup{store: g})
	r.register("ann/ann1", "bob/bob1", "cat/cat1")
	ctx := context.Background()
	claim := func(who, item string) <-chan reply {
		return r.async(ctx, "/v1/claim", wire.Claim{Me: uri(who), Item: name.Item(item)})
	}
	release := func(who, item string) <-chan reply {
		return r.async(ctx, "/v1/release", wire.Release{Me: uri(who), Item: name.Item(item)})
	}
	okAll := func(cs ...<-chan reply) {
		t.Helper()
		for _, c := range cs {
			if rep := <-c; rep.status != http.StatusOK {
				t.Fatalf("reply %s; want 200", rep)
			}
		}
	}

	// given a chunk of one call, then a chunk of two (the two calls
	// queued while the first was written)
	g.hold()
	a := claim("ann/ann1", "issue-1")
	<-g.entered
	b, c := claim("bob/bob1", "issue-2"), claim("cat/cat1", "issue-3")
	r.queued(2)
	g.let()
	okAll(a)
	two := firstOf(t, <-g.entered)
	g.let()
	okAll(b, c)
	// (the timer of the wait from here on is the test's: the registers
	// before were chunks of two entries, the arrival and the register)
	asked := make(chan time.Duration, 4)
	fire := make(chan time.Time, 1)
	r.e.SetGatherAfter(func(d time.Duration) <-chan time.Time {
		asked <- d
		return fire
	})

	// when one call comes, then the writer waits (it asks for its timer)
	// and writes nothing
	ra := release("ann/ann1", "issue-1")
	select {
	case d := <-asked:
		if d <= 0 {
			t.Errorf("the wait is %v; want above 0", d)
		}
	case chunk := <-g.entered:
		t.Fatalf("the writer wrote %s with one call after a chunk of two; want a wait for a second", chunk)
	}
	// when the second comes, then both are in one chunk
	rb := release("bob/bob1", "issue-2")
	three := firstOf(t, <-g.entered)
	if three != two+2 {
		t.Fatalf("the chunk after the chunk of two at %d starts at %d; want %d", two, three, two+2)
	}
	g.let()
	okAll(ra, rb)

	// when one call comes and the wait ends, then it is written alone
	rc := release("cat/cat1", "issue-3")
	<-asked
	fire <- time.Now()
	four := firstOf(t, <-g.entered)
	g.let()
	okAll(rc)
	if four != three+2 {
		t.Fatalf("the chunk after the wait starts at %d; want %d", four, three+2)
	}
	g.open()
	if got := r.e.QueueLen(); got != 0 {
		t.Errorf("%d entries wait after the last reply; want 0", got)
	}
}

// Given the last chunk, when the limit of the wait is asked, then no
// chunk of one call waits, and the wait is a quarter of the last write,
// at most 100 ms.
func TestGivenTheLastChunkWhenTheWaitIsAskedThenItIsAQuarterOfItsWriteAtMost100ms(t *testing.T) {
	for _, tc := range []struct {
		last  int
		took  time.Duration
		want  int
		limit time.Duration
	}{
		{0, time.Second, 0, 0},
		{1, time.Second, 0, 0},
		{2, 4 * time.Millisecond, 2, time.Millisecond},
		{64, 200 * time.Millisecond, 64, 50 * time.Millisecond},
		{64, 2 * time.Second, 64, 100 * time.Millisecond},
	} {
		if want, limit := riffengine.GatherLimit(tc.last, tc.took); want != tc.want || limit != tc.limit {
			t.Errorf("GatherLimit(%d, %v) = %d, %v; want %d, %v", tc.last, tc.took, want, limit, tc.want, tc.limit)
		}
	}
}

// Given a last checkpoint that took a time, when 1,000 records came,
// then the next is due only once 3 times that time passed after its end;
// the interval makes one due as before; and a checkpoint of no time
// waits for nothing (the rule of 1,000 records as before).
func TestGivenASlowCheckpointWhenTheRecordsComeThenTheNextRestsThreeTimesItsTime(t *testing.T) {
	t0 := time.UnixMilli(1790000000000)
	hour := time.Hour
	for _, tc := range []struct {
		name  string
		since int
		now   time.Time
		took  time.Duration
		due   bool
	}{
		{"999 records", 999, t0.Add(time.Minute), 0, false},
		{"1,000 records, a checkpoint of no time", 1000, t0, 0, true},
		{"1,000 records, 1 s after one of 500 ms", 1000, t0.Add(time.Second), 500 * time.Millisecond, false},
		{"1,000 records, 1.5 s after one of 500 ms", 1000, t0.Add(1500 * time.Millisecond), 500 * time.Millisecond, true},
		{"5,000 records, 1 s after one of 500 ms", 5000, t0.Add(time.Second), 500 * time.Millisecond, false},
		{"1 record after the interval", 1, t0.Add(hour), 500 * time.Millisecond, true},
	} {
		if got := riffengine.CheckpointDue(tc.since, 1000, tc.now, t0, hour, t0, tc.took); got != tc.due {
			t.Errorf("%s: due = %v; want %v", tc.name, got, tc.due)
		}
	}
}
