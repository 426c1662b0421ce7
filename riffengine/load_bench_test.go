package riffengine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/signed"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/dir"
	"github.com/como-technologies/riff/riffstate"
)

// The benchmarks of the start, at the scale of docs/performance.md
// ("The start time from a checkpoint at 12 months of scale"): 36 people with 8 live sessions each, about
// 24,800 direct threads, a checkpoint each 1,000 records. Results and
// commands: docs/performance.md, section rifflog.

const benchT0 = int64(1_790_000_000_000)

// workMix is the mix of the work records of the replay benchmark, per 20
// records. fixtures/1.0.0/log.jsonl holds one or a few records of each
// kind, too few to take the proportions from: this mix is stated in
// docs/performance.md.
var workMix = []record.Kind{
	record.KindPosted, record.KindPosted, record.KindPosted, record.KindPosted,
	record.KindPosted, record.KindPosted, record.KindPosted, record.KindPosted,
	record.KindClaimed, record.KindClaimed, record.KindClaimed, record.KindClaimed,
	record.KindReleased, record.KindReleased, record.KindReleased, record.KindReleased,
	record.KindJoinedThread, record.KindJoinedThread,
	record.KindSessionStarted, record.KindSessionStarted,
}

// workRecord gives the record line at position p, of the kind of the
// mix at p, encoded with record.Encode, by a session that comes only
// once in the log: the worst case of a replay, whose texts are all new.
func workRecord(tb testing.TB, p uint64) []byte { return workRecordOf(tb, p, p) }

// seedsScaleSessions is the number of live sessions of the seeds' scale
// (designScale: 36 people with 8 sessions each).
const seedsScaleSessions = 36 * 8

// workRecordOf gives the record line at position p, of the kind of the
// mix at p, by the session numbered k (k%36 its person, k%4 its
// repository).
func workRecordOf(tb testing.TB, p, k uint64) []byte {
	tb.Helper()
	user := fmt.Sprintf("u%02d", k%36)
	s := name.SessionURI{User: user, Host: "host-" + user, Repo: name.Repo(fmt.Sprintf("como/repo%d", k%4)),
		Session: fmt.Sprintf("%08x", (k*2654435761)%(1<<32))}
	thread := name.Thread(s.Repo)
	item := name.Item(fmt.Sprintf("issue-%d", p%500))
	var c record.Change
	switch workMix[p%uint64(len(workMix))] {
	case record.KindPosted:
		payload, err := signed.Encode(signed.Content{User: s.User, Session: s.Session, Thread: string(thread),
			To: []byte("[]"), Body: fmt.Sprintf("done with %s, tests pass", item), Kind: string(record.MessagePlain), TimeMS: benchT0})
		if err != nil {
			tb.Fatal(err)
		}
		c = record.Posted{Thread: thread, Seq: p, Sender: s, Type: record.MessagePlain, Payload: payload,
			Woken: []name.Who{{User: "u00", Session: "0000beef"}}}
	case record.KindClaimed:
		c = record.Claimed{Session: s, Thread: thread, Item: item}
	case record.KindReleased:
		c = record.Released{Session: s, Thread: thread, Item: item}
	case record.KindJoinedThread:
		c = record.JoinedThread{Session: s, Thread: thread}
	default:
		c = record.SessionStarted{Session: s, Reason: record.ReasonJoin}
	}
	line, err := record.Encode(record.Record{Position: p, WrittenAtMs: benchT0 + int64(p), By: record.BySession(s.Who()),
		Command: "claim", Change: c})
	if err != nil {
		tb.Fatal(err)
	}
	return line
}

// writeLog writes the records from..to-1 (given by line) as chunks of per
// records after the chain value prev, and gives the replay at its end.
func writeLog(tb testing.TB, s rifflog.Store, at rifflog.Replayed, n, per int, line func(p uint64) []byte) rifflog.Replayed {
	tb.Helper()
	ctx := context.Background()
	end := at.Last + uint64(n)
	for at.Last < end {
		k := min(per, int(end-at.Last))
		recs := make([][]byte, k)
		for j := range recs {
			recs[j] = line(at.Last + 1 + uint64(j))
		}
		w, err := rifflog.Write(ctx, s, at.Next(recs))
		if err != nil {
			tb.Fatal(err)
		}
		at.Last, at.Chain = w.Last(), w.Chain()
	}
	return at
}

// BenchmarkReplayWorkRecords replays 100,000 work records of the mix,
// in chunks of 50, from the directory store: raw (rifflog.Replay alone:
// read, checksum, chain, positions), with record.Decode of each line
// (rifflog.ReplayDecoded with an apply that does nothing),
// and into the state (riffengine.Load of the store, which holds only
// chunks and no checkpoint: decode and riffstate's Replay of each
// record, what a start does), with the runtime's default collector and
// with the heap floor of riff-server (KeepHeapFloor). Each record is by
// a session of its own, so each text of a session is new: the worst case.
func BenchmarkReplayWorkRecords(b *testing.B) {
	benchmarkReplay(b, func(p uint64) []byte { return workRecord(b, p) })
}

// BenchmarkReplayWorkRecordsSeedsScale is BenchmarkReplayWorkRecords
// with the records of the live sessions of the seeds' scale, in turn: the
// log of a riff of 36 people with 8 sessions each, whose texts come again.
func BenchmarkReplayWorkRecordsSeedsScale(b *testing.B) {
	benchmarkReplay(b, func(p uint64) []byte { return workRecordOf(b, p, p%seedsScaleSessions) })
}

// benchmarkReplay writes 100,000 records given by line, in chunks of 50,
// to the directory store, and replays them raw, decoded, into the state,
// and into the state with the heap floor.
func benchmarkReplay(b *testing.B, line func(p uint64) []byte) {
	const total, per = 100_000, 50
	s, err := dir.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	writeLog(b, s, rifflog.Replayed{}, total, per, line)
	ctx := context.Background()
	// Beside the rate, the CPU of the process a record (all its
	// goroutines): on a machine of 2 cores a replay cannot pass
	// 2 / cpu-us a record, whatever its stages do at once.
	report := func(b *testing.B, n int, cpu0 time.Duration) {
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
		b.ReportMetric(float64((processCPU(b)-cpu0).Nanoseconds())/1e3/float64(n), "cpu-us/record")
	}
	run := func(b *testing.B, fn func([]byte, uint64) error) {
		n, cpu0 := 0, processCPU(b)
		for b.Loop() {
			got, err := rifflog.Replay(ctx, s, rifflog.From{}, fn)
			if err != nil || got.Records != total {
				b.Fatalf("Replay = %+v, %v", got, err)
			}
			n += got.Records
		}
		report(b, n, cpu0)
	}
	b.Run("raw", func(b *testing.B) {
		run(b, func([]byte, uint64) error { return nil })
	})
	b.Run("decode", func(b *testing.B) {
		n, cpu0 := 0, processCPU(b)
		for b.Loop() {
			got, err := rifflog.ReplayDecoded(ctx, s, rifflog.From{},
				func(line []byte, _ uint64) (record.Record, error) { return record.Decode(line) },
				func(record.Record, uint64) error { return nil })
			if err != nil || got.Records != total {
				b.Fatalf("ReplayDecoded = %+v, %v", got, err)
			}
			n += got.Records
		}
		report(b, n, cpu0)
	})
	into := func(b *testing.B) {
		opts := riffstate.Options{Build: "1.0.0"}
		n, cpu0 := 0, processCPU(b)
		for b.Loop() {
			l, err := riffengine.Load(ctx, s, opts)
			if err != nil || l.Checkpoint != nil || l.Replayed.Records != total || l.State.Position() != total {
				b.Fatalf("Load = %+v, %v", l.Replayed, err)
			}
			// The engine makes its copy of the checkpoints before it
			// serves: part of the start.
			if _, err := l.State.NewShadow(); err != nil {
				b.Fatal(err)
			}
			n += l.Replayed.Records
		}
		report(b, n, cpu0)
	}
	b.Run("into", into)
	// What riff-server's start does: its heap floor (--heap-floor-mb,
	// 64 by default) holds from before the load.
	b.Run("into-with-heap-floor", func(b *testing.B) {
		defer riffengine.KeepHeapFloor(riffengine.DefaultHeapFloor)()
		into(b)
	})
}

// scale is a riff at the scale of docs/performance.md after 12 months.
type scale struct {
	people, sessionsEach, direct, directMsgs, repos, repoMsgs int
}

var designScale = scale{people: 36, sessionsEach: 8, direct: 24_800, directMsgs: 3, repos: 4, repoMsgs: 200}

// builder runs commands on a state with riffstate's exported steps and
// keeps the records they make, as the engine's writer would write them.
type builder struct {
	tb    testing.TB
	st    *riffstate.State
	now   riffstate.Now
	keep  bool
	lines [][]byte
}

func run[R any](b *builder, cmd riffstate.Command[R], c riffstate.Caller) bool {
	b.now.Ms += 10
	if !b.keep {
		_, _, err := riffstate.Run(b.st, cmd, c, b.now)
		return err == nil
	}
	h, err := riffstate.Check(b.st, cmd, c, b.now)
	if err != nil {
		return false
	}
	made := b.st.Queue(c, cmd.Kind(), "", h.Changes, b.now)
	b.st.WrittenRecords(made, b.now)
	for _, rec := range made {
		line, err := record.Encode(rec)
		if err != nil {
			b.tb.Fatal(err)
		}
		b.lines = append(b.lines, line)
	}
	return true
}

// buildRiff builds the riff with riffstate.Run: the people's sessions
// (registered in their repository), the repository threads with their
// messages, and the direct threads between sessions with a few messages
// each. Then it keeps the records of the commands of the next tail
// records (claims, releases, posts, tells), as they come after the
// checkpoint.
func buildRiff(tb testing.TB, sc scale, tail int) (cp rifflog.Checkpoint, tailLines [][]byte) {
	b := &builder{tb: tb, st: riffstate.New(riffstate.Options{Build: "1.0.0"}), now: riffstate.Now{Ms: benchT0}}
	server := riffstate.ServerCaller()
	if !run(b, riffstate.MakeRiff{ID: "01M3XA87HE06Z6M32ZJPSYSYRZ"}, server) {
		tb.Fatal("make_riff refused")
	}
	run(b, riffstate.Resume{Resume: wire.Resume{Riff: true}}, server)
	var callers []riffstate.Caller
	for u := range sc.people {
		user := fmt.Sprintf("u%02d", u)
		for k := range sc.sessionsEach {
			uri := name.SessionURI{User: user, Host: "host-" + user, Repo: name.Repo(fmt.Sprintf("como/repo%d", (u+k)%sc.repos)),
				Session: fmt.Sprintf("%02d%02d%04x", u, k, u*131+k*7)}
			c := riffstate.CallerOf(uri)
			if !run(b, riffstate.Register{}, c) {
				tb.Fatalf("register %v refused", uri)
			}
			callers = append(callers, c)
		}
	}
	for r := range sc.repos {
		for m := range sc.repoMsgs {
			c := callers[(r+m*sc.repos)%len(callers)]
			for c.URI.Repo != name.Repo(fmt.Sprintf("como/repo%d", r)) {
				c = callers[(indexOf(callers, c)+1)%len(callers)]
			}
			if !run(b, post("", fmt.Sprintf("message %d of the repository: status of the work, tests pass", m), ""), c) {
				tb.Fatalf("post to the repository thread refused")
			}
		}
	}
	made := 0
	for i := 0; i < len(callers) && made < sc.direct; i++ {
		for j := i + 1; j < len(callers) && made < sc.direct; j++ {
			for m := range sc.directMsgs {
				from, to := callers[i], callers[j]
				if m%2 == 1 {
					from, to = to, from
				}
				if !run(b, post("", fmt.Sprintf("direct %d: can you look at the review of issue-%d?", m, made), to.URI.Session), from) {
					tb.Fatalf("tell %s from %s refused", to.URI.Session, from.URI.Session)
				}
			}
			made++
		}
	}
	state, err := b.st.EncodeCheckpoint()
	if err != nil {
		tb.Fatal(err)
	}
	cp = rifflog.Checkpoint{Position: b.st.Position(), WrittenAtMs: b.now.Ms, Build: "1.0.0", State: state}
	cp.Chain[0] = 1 // the chain value at the checkpoint: the chunks after it start from it
	b.keep = true
	for k := 0; len(b.lines) < tail; k++ {
		c := callers[k%len(callers)]
		item := fmt.Sprintf("issue-%d", k)
		switch k % 4 {
		case 0:
			run(b, claim(item), c)
		case 1:
			run(b, release(fmt.Sprintf("issue-%d", k-1)), callers[(k-1)%len(callers)])
		case 2:
			run(b, post("", "working on it, "+item, ""), c)
		default:
			run(b, post("", "a question about "+item, callers[(k+17)%len(callers)].URI.Session), c)
		}
	}
	return cp, b.lines[:tail]
}

func post(thread, body, tell string) riffstate.Post {
	return riffstate.Post{Post: wire.Post{Thread: thread, Body: body, Tell: tell}}
}
func claim(item string) riffstate.Claim {
	return riffstate.Claim{Claim: wire.Claim{Item: name.Item(item)}}
}
func release(item string) riffstate.Release {
	return riffstate.Release{Release: wire.Release{Item: name.Item(item)}}
}

func indexOf(cs []riffstate.Caller, c riffstate.Caller) int {
	for i := range cs {
		if cs[i].URI.Session == c.URI.Session {
			return i
		}
	}
	return -1
}

// BenchmarkLoad measures riffengine.Load from a directory store that
// holds the checkpoint of a riff at that scale and the 1,000
// records after it (the most a start replays with a checkpoint each
// 1,000 records). The start reads the newest checkpoint and the chunks
// after it, never the whole history, so this is the start time of a
// log of 12 months at that scale.
func BenchmarkLoad(b *testing.B) {
	if testing.Short() {
		b.Skip("the setup builds a riff at the scale of docs/performance.md")
	}
	const tail, per = 1000, 8
	start := time.Now()
	cp, lines := buildRiff(b, designScale, tail)
	built := time.Since(start)
	ctx := context.Background()
	s, err := dir.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if _, err := rifflog.WriteCheckpoint(ctx, s, cp); err != nil {
		b.Fatal(err)
	}
	end := writeLog(b, s, rifflog.Replayed{Last: cp.Position, Chain: cp.Chain}, tail, per,
		func(p uint64) []byte { return lines[p-cp.Position-1] })
	b.Logf("setup %v (riff built in %v): checkpoint at position %d, %d bytes of state; %d records after it in chunks of %d, up to position %d",
		time.Since(start).Round(time.Millisecond), built.Round(time.Millisecond), cp.Position, len(cp.State), tail, per, end.Last)
	opts := riffstate.Options{Build: "1.0.0"}
	if l, err := riffengine.Load(ctx, s, opts); err == nil {
		sessions, cursors, threads := l.State.Counts()
		b.Logf("the loaded riff: %d sessions, %d cursors, %d threads", sessions, cursors, threads)
	}
	for b.Loop() {
		l, err := riffengine.Load(ctx, s, opts)
		if err != nil {
			b.Fatal(err)
		}
		if l.Checkpoint == nil || l.Replayed.Records != tail || l.State.Position() != end.Last {
			b.Fatalf("Load: checkpoint %v, %d records, position %d; want the checkpoint, %d, %d",
				l.Checkpoint != nil, l.Replayed.Records, l.State.Position(), tail, end.Last)
		}
		// The engine makes its copy of the checkpoints before it serves.
		if _, err := l.State.NewShadow(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(cp.State)), "state-bytes")
}

// BenchmarkDecodeWorkRecords decodes the lines of the two logs of the
// replay benchmarks with a record.Decoder, as a replay does (one decoder
// for each pass over the log), one record an op: the decode stage of a
// replay, apart from its reads, its hashes and its apply.
func BenchmarkDecodeWorkRecords(b *testing.B) {
	const total = 100_000
	for _, set := range []struct {
		name string
		line func(p uint64) []byte
	}{
		{"new-sessions", func(p uint64) []byte { return workRecord(b, p) }},
		{"seeds-scale", func(p uint64) []byte { return workRecordOf(b, p, p%seedsScaleSessions) }},
	} {
		lines := make([][]byte, total)
		for i := range lines {
			lines[i] = set.line(uint64(i + 1))
		}
		b.Run(set.name, func(b *testing.B) {
			b.ReportAllocs()
			d, i := record.NewDecoder(), 0
			for b.Loop() {
				if _, err := d.Decode(lines[i]); err != nil {
					b.Fatal(err)
				}
				if i++; i == len(lines) {
					d, i = record.NewDecoder(), 0
				}
			}
		})
	}
}
