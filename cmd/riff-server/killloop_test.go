package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/record"
	"github.com/como-technologies/riff/riffcore/wire"
	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/dir"
	"github.com/como-technologies/riff/riffstate"
)

var (
	killSeed   = flag.Uint64("kill-seed", 0, "the seed of the kill -9 loop (0: a new seed, logged)")
	killRounds = flag.Int("kill-rounds", 50, "the rounds of the kill -9 loop")
)

// The kill -9 loop: 8 clients send commands, riff-server is killed at a
// random moment, and after each restart each acknowledged command is in
// the log exactly once and in order.
const (
	loopClients = 8
	// loadMin and loadMax bound the time of load before the kill.
	loadMin = 100 * time.Millisecond
	loadMax = 300 * time.Millisecond
)

// sent is one command that a client of the loop sent.
type sent struct {
	client int
	kind   string // claim, release or post
	call   string
	item   string // claim and release
	body   string // post
	// acked: the reply was 200. sentAt and ackedAt are monotonic times.
	acked   bool
	sentAt  time.Time
	ackedAt time.Time
}

// loopClient is one client of the loop: a session of its own, the items
// it holds, and what it sent.
type loopClient struct {
	id   int
	me   string
	held []string
	n    int
}

func (c *loopClient) who() name.Who {
	return name.Who{User: fmt.Sprintf("k%d", c.id), Session: fmt.Sprintf("%04x", 0xa000+c.id)}
}

// next gives the next command of the client: a release of an item it
// holds one time in four, a post one time in four, else a claim of a new
// item. Each call ID, item and body is unique over the whole loop.
func (c *loopClient) next(round int, rng *rand.Rand) sent {
	c.n++
	id := fmt.Sprintf("r%02d-k%d-n%03d", round, c.id, c.n)
	s := sent{client: c.id, call: id}
	switch x := rng.IntN(4); {
	case x == 0 && len(c.held) > 0:
		s.kind, s.item = "release", c.held[0]
	case x == 1:
		s.kind, s.body = "post", "post "+id
	default:
		s.kind, s.item = "claim", "item-"+id
	}
	return s
}

func (s sent) request(me string) (string, map[string]any) {
	switch s.kind {
	case "release":
		return "/v1/release", map[string]any{"me": me, "item": s.item}
	case "post":
		return "/v1/post", map[string]any{"me": me, "body": s.body}
	}
	return "/v1/claim", map[string]any{"me": me, "item": s.item}
}

// TestKill9Loop runs the real binary on one directory for 50 rounds. In
// each, 8 clients send claims, releases and posts until a kill -9 at a
// random moment; then the server starts again and the test reads the
// log. Run with -kill-seed to repeat a run.
func TestKill9Loop(t *testing.T) {
	needBinary(t)
	seed := *killSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("kill -9 loop: -kill-seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0x7269ff))
	path := t.TempDir()
	// No checkpoint in the loop: the whole log stays, so each round can
	// find each acknowledged command in it.
	opts := serverOpts{dir: path, args: []string{"--checkpoint-every", "1000000000"}}

	s := start(t, opts)
	var all []*sent
	resume := &sent{kind: "resume", call: "loop-resume", acked: true}
	s.must("/v1/resume", resume.call, map[string]any{"me": "riff://k0@pangolin/acme/app", "riff": true})
	all = append(all, resume)

	clients := make([]*loopClient, loopClients)
	for i := range clients {
		clients[i] = &loopClient{id: i}
		clients[i].me = fmt.Sprintf("riff://k%d@pangolin/acme/app?session=%04x", i, 0xa000+i)
	}
	lr := newLogReader(path)
	began := time.Now()
	for round := 1; round <= *killRounds; round++ {
		load := loadMin + time.Duration(rng.Int64N(int64(loadMax-loadMin)))
		seeds := make([]uint64, loopClients)
		for i := range seeds {
			seeds[i] = rng.Uint64()
		}
		got := runRound(s, clients, round, load, seeds)
		all = append(all, got...)

		s = start(t, opts)
		recs := lr.read(t)
		checkLog(t, round, recs, all)
		replayed := lr.state.Written().Riff()
		checkServed(t, round, s, replayed, clients)
		// A command with no reply may be in the log: each client learns
		// what it holds from the log, as riff learns it from who.
		for _, c := range clients {
			c.held = nil
			if sess := replayed.Session(c.who()); sess != nil {
				for _, ref := range sess.Claims {
					c.held = append(c.held, string(ref.Item))
				}
			}
		}
		// The first command after the restart works.
		first := &sent{client: 0, kind: "claim", call: fmt.Sprintf("r%02d-first", round), item: fmt.Sprintf("item-r%02d-first", round)}
		first.sentAt = time.Now()
		p, body := first.request(clients[0].me)
		r, err := post(context.Background(), s.URL, p, first.call, body)
		if err != nil || r.Status != http.StatusOK {
			t.Fatalf("round %d: the first command after the restart = %v, %v; want 200", round, r, err)
		}
		first.acked, first.ackedAt = true, time.Now()
		clients[0].held = append(clients[0].held, first.item)
		all = append(all, first)
		if t.Failed() {
			for _, l := range recs[max(0, len(recs)-60):] {
				b, _ := json.Marshal(l.rec)
				t.Logf("log: %s", b)
			}
			t.Fatalf("round %d failed (load %v); repeat with -kill-seed %d", round, load, seed)
		}
	}
	s.stop()
	s.checkLines()
	acked := 0
	for _, c := range all {
		if c.acked {
			acked++
		}
	}
	t.Logf("%d rounds in %v: %d commands sent, %d acknowledged", *killRounds, time.Since(began).Round(time.Millisecond), len(all), acked)
}

// runRound runs the clients for load, and gives what they sent. The kill
// comes at the end of load, while the clients still send; each client
// stops at its first error.
func runRound(s *server, clients []*loopClient, round int, load time.Duration, seeds []uint64) []*sent {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var out []*sent
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seeds[i], uint64(round)))
			for ctx.Err() == nil {
				cmd := c.next(round, rng)
				p, body := cmd.request(c.me)
				cmd.sentAt = time.Now()
				mu.Lock()
				out = append(out, &cmd)
				mu.Unlock()
				r, err := post(ctx, s.URL, p, cmd.call, body)
				if err != nil || r.Status != http.StatusOK {
					if err == nil && r.Status != http.StatusServiceUnavailable {
						s.t.Errorf("round %d: %s %s = %v; want 200", round, cmd.kind, cmd.call, r)
					}
					return
				}
				mu.Lock()
				cmd.acked, cmd.ackedAt = true, time.Now()
				mu.Unlock()
				switch cmd.kind {
				case "claim":
					c.held = append(c.held, cmd.item)
				case "release":
					c.held = slices.DeleteFunc(c.held, func(it string) bool { return it == cmd.item })
				}
			}
		}()
	}
	time.Sleep(load)
	// Kill while the clients send: a reply that comes after the kill is
	// not possible, so each 200 came before it.
	s.kill()
	cancel()
	wg.Wait()
	return out
}

// logged is one record of the log, read back.
type logged struct {
	position uint64
	rec      record.Record
}

// logReader reads the records of a directory with rifflog.Replay and
// record.Decode, each round from where the round before ended (the log
// only grows: a kill leaves no part of a chunk), and replays them into a
// state of its own.
type logReader struct {
	path    string
	from    rifflog.From
	records []logged
	state   *riffstate.State
}

func newLogReader(path string) *logReader {
	return &logReader{path: path, state: riffstate.New(riffstate.Options{})}
}

// read reads the records that came since the last read.
func (lr *logReader) read(t *testing.T) []logged {
	t.Helper()
	st, err := dir.Open(lr.path)
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := rifflog.Replay(context.Background(), st, lr.from, func(line []byte, position uint64) error {
		rec, err := record.Decode(line)
		if err != nil {
			return err
		}
		lr.records = append(lr.records, logged{position: position, rec: rec})
		lr.state.Replay(rec)
		return nil
	})
	if err != nil {
		t.Fatalf("replay of %s after %d: %v", lr.path, lr.from.Position, err)
	}
	lr.from = rifflog.From{Position: replayed.Last, Chain: replayed.Chain}
	return lr.records
}

// checkLog checks the log against what the clients sent: each
// acknowledged command is there exactly once, after each command that was
// acknowledged before it was sent; each record with a call ID comes from
// a command that was sent; each command's main change is there at most
// once.
func checkLog(t *testing.T, round int, recs []logged, all []*sent) {
	t.Helper()
	byCall := map[string]*sent{}
	for _, c := range all {
		byCall[c.call] = c
	}
	positions := map[string][]uint64{} // call ID → positions of its records
	mains := map[string]int{}          // call ID → its main changes
	for _, l := range recs {
		r := l.rec
		if r.Call == "" {
			// A record with no call ID: the arrival of a caller (register)
			// or a command of the server.
			if r.Command != "register" && (r.By == nil || r.By.Class != record.ClassServer) {
				t.Errorf("round %d: record %d has no call ID and is no register and no command of the server: %s %+v", round, l.position, r.Command, r.Change)
			}
			continue
		}
		c, ok := byCall[r.Call]
		if !ok {
			t.Errorf("round %d: record %d names the call %q, which no client sent", round, l.position, r.Call)
			continue
		}
		if r.Command != c.kind {
			t.Errorf("round %d: record %d of call %s is a %s; the client sent a %s", round, l.position, r.Call, r.Command, c.kind)
		}
		positions[r.Call] = append(positions[r.Call], l.position)
		switch ch := r.Change.(type) {
		case record.Claimed:
			if c.kind == "claim" && string(ch.Item) == c.item {
				mains[r.Call]++
			}
		case record.Released:
			if c.kind == "release" && string(ch.Item) == c.item {
				mains[r.Call]++
			}
		case record.Posted:
			var content struct {
				Body string `json:"body"`
			}
			if err := json.Unmarshal(ch.Payload, &content); err != nil {
				t.Errorf("round %d: the payload of record %d does not read: %v", round, l.position, err)
			}
			if c.kind == "post" && content.Body == c.body {
				mains[r.Call]++
			}
		}
	}
	for _, c := range all {
		ps := positions[c.call]
		if c.kind == "resume" {
			continue
		}
		if c.acked && mains[c.call] != 1 {
			t.Errorf("round %d: the acknowledged %s %s is %d times in the log; want exactly once", round, c.kind, c.call, mains[c.call])
		}
		if !c.acked && mains[c.call] > 1 {
			t.Errorf("round %d: the %s %s (no reply) is %d times in the log; want at most once", round, c.kind, c.call, mains[c.call])
		}
		// The records of one command are one entry of one chunk: one run
		// of positions.
		if len(ps) > 0 && ps[len(ps)-1]-ps[0]+1 != uint64(len(ps)) {
			t.Errorf("round %d: the records of %s are at %v: not one run, so the command is in the log twice", round, c.call, ps)
		}
	}
	// In order: a command acknowledged before another was sent is before
	// it in the log.
	var acked []*sent
	for _, c := range all {
		if c.acked && len(positions[c.call]) > 0 {
			acked = append(acked, c)
		}
	}
	byAck := slices.Clone(acked)
	sort.Slice(byAck, func(i, j int) bool { return byAck[i].ackedAt.Before(byAck[j].ackedAt) })
	// maxPos[i] is the highest first position of byAck[:i+1], and who.
	maxPos := make([]uint64, len(byAck))
	maxWho := make([]*sent, len(byAck))
	for i, c := range byAck {
		maxPos[i], maxWho[i] = positions[c.call][0], c
		if i > 0 && maxPos[i-1] > maxPos[i] {
			maxPos[i], maxWho[i] = maxPos[i-1], maxWho[i-1]
		}
	}
	for _, b := range acked {
		// The commands acknowledged before b was sent.
		n := sort.Search(len(byAck), func(i int) bool { return !byAck[i].ackedAt.Before(b.sentAt) })
		if n > 0 && maxPos[n-1] >= positions[b.call][0] {
			t.Errorf("round %d: %s is at %d, before %s at %d, which was acknowledged before %s was sent",
				round, b.call, positions[b.call][0], maxWho[n-1].call, maxPos[n-1], b.call)
		}
	}
}

// checkServed checks that the restarted server serves the state that
// the replay of the log gives: its position, and the claims of each
// client.
func checkServed(t *testing.T, round int, s *server, replayed *riffstate.Riff, clients []*loopClient) {
	t.Helper()

	r, err := s.get("/v1/server")
	if err != nil {
		t.Fatal(err)
	}
	var facts wire.ServerFacts
	decodeReply(t, r, &facts)
	if facts.Position != replayed.Position || !facts.Serves {
		t.Errorf("round %d: the restarted server is at %d (serves %v); the replay of the log ends at %d", round, facts.Position, facts.Serves, replayed.Position)
	}

	var who wire.WhoReply
	decodeReply(t, s.must("/v1/who", "", map[string]any{"me": clients[0].me, "all": true}), &who)
	served := map[string][]name.Item{}
	for _, row := range who.Rows {
		served[row.URI.Who().String()] = row.URI.Claims
	}
	for _, c := range clients {
		var want []name.Item
		if sess := replayed.Session(c.who()); sess != nil {
			for _, ref := range sess.Claims {
				want = append(want, ref.Item)
			}
		}
		got := served[c.who().String()]
		if diff := cmp.Diff(want, got, riffOpts); diff != "" {
			t.Errorf("round %d: the claims of %s that the server gives differ from the replay (-replay +served):\n%s", round, c.who(), diff)
		}
	}
}
