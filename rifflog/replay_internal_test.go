package rifflog

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// mapStore is a Store in a map, for the tests of this package (the
// stores of rifflog/mem and rifflog/dir import it).
type mapStore struct {
	mu      sync.Mutex
	objects map[string][]byte
	gets    int
}

func newMapStore() *mapStore { return &mapStore{objects: map[string][]byte{}} }

func (s *mapStore) Put(_ context.Context, name string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.objects[name]; ok {
		return ErrExists
	}
	s.objects[name] = slices.Clone(data)
	return nil
}

func (s *mapStore) Get(ctx context.Context, name string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gets++
	data, ok := s.objects[name]
	if !ok {
		return nil, fmt.Errorf("get %s: %w", name, ErrNotExist)
	}
	return slices.Clone(data), nil
}

func (s *mapStore) List(_ context.Context, prefix string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for n := range s.objects {
		if strings.HasPrefix(n, prefix) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}

func (s *mapStore) Delete(_ context.Context, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.objects, name)
	return nil
}

func (s *mapStore) Load(context.Context, string) ([]byte, int64, error) { return nil, 0, ErrNotExist }
func (s *mapStore) Swap(context.Context, string, []byte, int64) (int64, error) {
	return 0, errors.New("no swap")
}

// appendingStore is a mapStore that reads into the buffers of the
// caller ([Appender]). It first writes over the whole of each buffer
// that it is given, so that a line of a chunk whose buffer came back too
// early changes under the stage that still reads it. It counts the
// buffers that came back.
type appendingStore struct {
	*mapStore
	reused int
}

func (s *appendingStore) GetAppend(ctx context.Context, name string, buf []byte) ([]byte, error) {
	data, err := s.Get(ctx, name)
	if err != nil {
		return buf, err
	}
	if cap(buf) > 0 {
		s.mu.Lock()
		s.reused++
		s.mu.Unlock()
	}
	whole := buf[:cap(buf)]
	for i := range whole {
		whole[i] = '#'
	}
	return append(buf, data...), nil
}

// sequentialReplay is the replay before the pipeline: each chunk read,
// checked and given to fn in turn on one goroutine. The pipeline must
// give the same records, the same Replayed and the same error.
func sequentialReplay(ctx context.Context, s Store, from From, fn func(line []byte, position uint64, chain Sum) error) (Replayed, error) {
	names, firsts, err := chunkNames(ctx, s)
	if err != nil {
		return Replayed{}, fmt.Errorf("replay: %w", err)
	}
	r := replayer{from: from, last: from.Position, chain: from.Chain, c: newChainer()}
	start, inside := startChunk(firsts, from.Position)
	r.inside = inside
	out := Replayed{}
	for _, name := range names[start:] {
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("replay: %w", err)
		}
		data, err := s.Get(ctx, name)
		if err != nil {
			return out, fmt.Errorf("replay: read %s: %w", name, err)
		}
		n, err := r.chunk(name, data, fn)
		out.Records += n
		if err != nil {
			return out, fmt.Errorf("replay: %w", err)
		}
		out.Chunks++
	}
	if r.inside {
		return out, fmt.Errorf("replay: %w", &LogError{Object: ChunkPrefix, Position: from.Position, Kind: ErrGap,
			Detail: fmt.Sprintf("the log ends at %d, before the start position", r.last)})
	}
	out.Last, out.Chain = r.last, r.chain
	return out, nil
}

func testLine(pos uint64) []byte {
	return fmt.Appendf(nil, `{"position":%d,"change":{"claimed":{"thread":"o/r","item":"issue-%d"}}}`, pos, pos%7)
}

// randomLog writes chunks of 1 to 6 records up to about n records, and
// gives the chain value at each position (chains[0] is the zero Sum).
func randomLog(rng *rand.Rand, s *mapStore, n int) []Sum {
	chains := []Sum{{}}
	c := newChainer()
	for last := uint64(0); last < uint64(n); {
		k := 1 + rng.IntN(6)
		recs := make([][]byte, k)
		for i := range recs {
			recs[i] = testLine(last + 1 + uint64(i))
			chains = append(chains, c.next(chains[len(chains)-1], recs[i]))
		}
		data, _ := encodeChunk(chains[last], last+1, recs)
		s.objects[ChunkName(last+1)] = data
		last += uint64(k)
	}
	return chains
}

// breakLog changes the log at random: a flipped bit, a chunk gone, a
// chunk that comes twice under another name, a line swapped with the
// next one (with the checksum made right again), or nothing.
func breakLog(rng *rand.Rand, s *mapStore) string {
	names, _ := s.List(context.Background(), ChunkPrefix)
	name := names[rng.IntN(len(names))]
	data := s.objects[name]
	switch rng.IntN(6) {
	case 0:
		bit := rng.IntN(len(data) * 8)
		data = slices.Clone(data)
		data[bit/8] ^= 1 << (bit % 8)
		s.objects[name] = data
		return fmt.Sprintf("bit %d of %s", bit, name)
	case 1:
		delete(s.objects, name)
		return "no " + name
	case 2:
		d, _ := decodeChunk(name, data)
		again, _ := encodeChunk(d.Prev, d.First+uint64(len(d.lines)), d.lines)
		s.objects[ChunkName(d.First+uint64(len(d.lines)))] = again
		return "a copy of " + name + " after it"
	case 3:
		d, _ := decodeChunk(name, data)
		if len(d.lines) < 2 {
			return "nothing"
		}
		i := rng.IntN(len(d.lines) - 1)
		d.lines[i], d.lines[i+1] = d.lines[i+1], d.lines[i]
		again, _ := encodeChunk(d.Prev, d.First, d.lines)
		s.objects[name] = again
		return fmt.Sprintf("lines %d and %d of %s swapped", i, i+1, name)
	}
	return "nothing"
}

// errDecode and errApply are the errors of the decode and the apply of
// TestPipelineEqualsSequentialReplay.
var errDecode, errApply = errors.New("decode fails"), errors.New("apply fails")

// TestPipelineEqualsSequentialReplay replays 600 random logs, broken
// at random, from random positions, with a decode and an apply that
// fail at random positions: the pipeline applies the same records and
// gives the same Replayed and the same error as the sequential replay.
func TestPipelineEqualsSequentialReplay(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(4, 1))
	for i := range 600 {
		m := newMapStore()
		chains := randomLog(rng, m, 1+rng.IntN(60))
		how := breakLog(rng, m)
		if rng.IntN(4) == 0 {
			how += ", " + breakLog(rng, m)
		}
		var s Store = m
		if i%2 == 1 { // not from rng: the cases stay those of the test before the stores that read into buffers
			s, how = &appendingStore{mapStore: m}, how+", a store that reads into buffers"
		}
		from := From{}
		if rng.IntN(3) == 0 {
			from.Position = uint64(rng.IntN(len(chains) + 3))
			if from.Position < uint64(len(chains)) {
				from.Chain = chains[from.Position]
			}
			if rng.IntN(10) == 0 {
				from.Chain[3] ^= 1
			}
		}
		never := uint64(1 << 62)
		failDecode, failApply := never, never
		if rng.IntN(3) == 0 {
			failDecode = uint64(1 + rng.IntN(len(chains)))
		}
		if rng.IntN(3) == 0 {
			failApply = uint64(1 + rng.IntN(len(chains)))
		}
		decode := func(line []byte, pos uint64, chain Sum) (string, error) {
			if pos == failDecode {
				return "", errDecode
			}
			return fmt.Sprintf("%s %s", line, chain), nil
		}
		var want, got []string
		wantR, wantErr := sequentialReplay(ctx, s, from, func(line []byte, pos uint64, chain Sum) error {
			v, err := decode(line, pos, chain)
			if err != nil {
				return err
			}
			if pos == failApply {
				return errApply
			}
			want = append(want, v)
			return nil
		})
		chain := chainAt(i/2%2 == 0) // each store with the chain hashed in each stage
		how += fmt.Sprintf(", the chain in the read stage %v", chain)
		gotR, gotErr := replay(ctx, s, from, decode, func(v string, pos uint64) error {
			if !strings.HasPrefix(v, fmt.Sprintf(`{"position":%d,`, pos)) {
				t.Fatalf("case %d: apply got position %d with %s", i, pos, v)
			}
			if pos == failApply {
				return errApply
			}
			got = append(got, v)
			return nil
		}, chain)
		what := fmt.Sprintf("case %d (%s, from %d, decode fails at %d, apply at %d)", i, how, from.Position, failDecode, failApply)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("%s: error\n%v\nwant\n%v", what, gotErr, wantErr)
		}
		var gotLE, wantLE *LogError
		if errors.As(wantErr, &wantLE) != errors.As(gotErr, &gotLE) || (wantLE != nil && *wantLE != *gotLE) {
			t.Fatalf("%s: LogError %+v; want %+v", what, gotLE, wantLE)
		}
		for _, kind := range []error{ErrGap, ErrRepeat, ErrChecksum, ErrChain, ErrUnreadable, ErrNotExist, errDecode, errApply} {
			if errors.Is(gotErr, kind) != errors.Is(wantErr, kind) {
				t.Fatalf("%s: errors.Is(%v, %v) = %v; want the other", what, gotErr, kind, !errors.Is(wantErr, kind))
			}
		}
		if gotR != wantR {
			t.Fatalf("%s: Replayed %+v; want %+v", what, gotR, wantR)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: applied %d records; want %d", what, len(got), len(want))
		}
	}
}

// TestGivenAStoreThatReadsIntoBuffersWhenALogIsReplayedThenEachLineIsWholeAndTheBuffersComeBack:
// a replay on a store that reads each chunk into a buffer of the replay
// gives each line as it was written, to decode and to apply (the raw
// replay gives apply the line itself), while the read stage reads later
// chunks into the buffers of the chunks that apply took.
func TestGivenAStoreThatReadsIntoBuffersWhenALogIsReplayedThenEachLineIsWholeAndTheBuffersComeBack(t *testing.T) {
	ctx := context.Background()
	m := newMapStore()
	randomLog(rand.New(rand.NewPCG(5, 5)), m, 20000)
	var want [][]byte
	wantR, err := sequentialReplay(ctx, m, From{}, func(line []byte, _ uint64, _ Sum) error {
		want = append(want, slices.Clone(line))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s := &appendingStore{mapStore: m}
	i := 0
	gotR, err := Replay(ctx, s, From{}, func(line []byte, pos uint64) error {
		if string(line) != string(want[i]) {
			t.Fatalf("position %d: apply got %q; want %q", pos, line, want[i])
		}
		i++
		return nil
	})
	if err != nil || gotR != wantR || i != len(want) {
		t.Fatalf("Replay = %+v, %v after %d lines; want %+v after %d", gotR, err, i, wantR, len(want))
	}
	if s.reused < wantR.Chunks/2 {
		t.Errorf("%d of %d chunks were read into a buffer that came back; want most", s.reused, wantR.Chunks)
	}
	t.Logf("%d chunks, %d read into a buffer that came back", wantR.Chunks, s.reused)
}

// goroutinesSettle waits until no more goroutines run than before.
func goroutinesSettle(t *testing.T, before int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines run after the replay, %d before:\n%s", runtime.NumGoroutine(), before,
				buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

// TestPipelineStopsItsGoroutines: a replay that apply stops early, that
// its context stops, or that ends, leaves no goroutine behind, and reads
// at most a few chunks past the one where it stopped.
func TestPipelineStopsItsGoroutines(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	s := newMapStore()
	randomLog(rng, s, 30000) // about 8,600 chunks
	before := runtime.NumGoroutine()

	s.gets = 0
	_, err := ReplayDecoded(context.Background(), s, From{}, func(line []byte, pos uint64) (uint64, error) { return pos, nil },
		func(v, pos uint64) error {
			if pos == 10 {
				return errApply
			}
			return nil
		})
	if !errors.Is(err, errApply) || !strings.Contains(err.Error(), "position 10: apply fails") {
		t.Errorf("ReplayDecoded = %v; want the error of apply at position 10", err)
	}
	goroutinesSettle(t, before)
	// Each of the three stages holds a batch and each of the two
	// channels ahead batches; a batch has at most batchRecords chunks.
	if s.gets > (2*ahead+3)*batchRecords {
		t.Errorf("the replay read %d chunks; it stopped in the first 10 records", s.gets)
	}

	ctx, cancel := context.WithCancel(context.Background())
	r, err := Replay(ctx, s, From{}, func(line []byte, pos uint64) error {
		if pos == 100 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || r.Records < 100 {
		t.Errorf("Replay = %+v, %v; want context.Canceled after position 100", r, err)
	}
	goroutinesSettle(t, before)

	if r, err := Replay(context.Background(), s, From{}, func([]byte, uint64) error { return nil }); err != nil || r.Records < 30000 {
		t.Errorf("Replay = %+v, %v; want each record", r, err)
	}
	goroutinesSettle(t, before)
}

// TestGivenALongReplayWhenItsChunksAreAppliedThenTheirArraysServeTheChunksAfterThem:
// the arrays of a chunk that apply took (its lines, their chain values,
// its values) serve the chunks that come after it, so that a replay
// allocates them for the chunks in its stages at once, not for each
// chunk of the log: a log twice as long costs about one allocation a
// chunk more (the copy of the chunk's bytes that the store gives),
// where an array of each kind for each chunk would be four.
func TestGivenALongReplayWhenItsChunksAreAppliedThenTheirArraysServeTheChunksAfterThem(t *testing.T) {
	ctx := context.Background()
	const per = 8
	allocs := func(chunks int) float64 {
		m := newMapStore()
		chains := []Sum{{}}
		c := newChainer()
		for k := range chunks {
			recs := make([][]byte, per)
			for i := range recs {
				recs[i] = testLine(uint64(k*per + i + 1))
				chains = append(chains, c.next(chains[len(chains)-1], recs[i]))
			}
			data, _ := encodeChunk(chains[k*per], uint64(k*per+1), recs)
			m.objects[ChunkName(uint64(k*per+1))] = data
		}
		return testing.AllocsPerRun(1, func() {
			applied := 0
			got, err := ReplayDecoded(ctx, m, From{}, func(line []byte, pos uint64) (uint64, error) {
				return peekPosition(line)
			}, func(v, pos uint64) error {
				if v != pos {
					return fmt.Errorf("apply got the value of position %d at %d", v, pos)
				}
				applied++
				return nil
			})
			if err != nil || got.Records != chunks*per || applied != chunks*per {
				t.Fatalf("ReplayDecoded = %+v, %v after %d records; want %d", got, err, applied, chunks*per)
			}
		})
	}
	few, many := allocs(4000), allocs(8000)
	t.Logf("%.2f allocations a chunk", (many-few)/4000)
	if perChunk := (many - few) / 4000; perChunk > 1.5 {
		t.Errorf("a replay of 8,000 chunks allocates %.0f times, of 4,000 %.0f: %.2f a chunk; want 1.5 or less", many, few, perChunk)
	}
}
