package dir_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/como-technologies/riff/rifflog"
	"github.com/como-technologies/riff/rifflog/dir"
	"github.com/como-technologies/riff/rifflog/internal/storetest"
)

func TestConformanceOS(t *testing.T) {
	storetest.Run(t, func(t *testing.T) rifflog.Store {
		return openDir(t, t.TempDir())
	})
}

func TestConformanceSim(t *testing.T) {
	storetest.Run(t, func(t *testing.T) rifflog.Store {
		s, err := dir.OpenFS(newSimFS(), "/riff")
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestEpochOnTheRealFileSystem runs the crash test's epoch on a temp dir.
func TestEpochOnTheRealFileSystem(t *testing.T) {
	root := t.TempDir()
	h := history{sizes: []int{2, 3, 1}, checkpointAfter: 2}
	o := run(osAt{root}, h)
	if o.acked != 3 || !o.ckAcked {
		t.Fatalf("run = %d chunks, checkpoint %v; want 3 and true", o.acked, o.ckAcked)
	}
	check(t, osAt{root}, o)
	for _, name := range []string{"log/00000000000000000001.jsonl", "log/00000000000000000003.jsonl", "log/00000000000000000006.jsonl", "log/00000000000000000007.jsonl", "checkpoint/00000000000000000005-1790000000000.json"} {
		if _, err := os.Stat(filepath.Join(root, "riff", name)); err != nil {
			t.Errorf("file %s: %v", name, err)
		}
	}
	s, _ := dir.Open(filepath.Join(root, "riff"))
	if err := s.Put(context.Background(), "log/00000000000000000001.jsonl", []byte("x")); err == nil {
		t.Errorf("Put over a chunk on the real file system = nil; want ErrExists")
	}
}

// osAt is the real file system with "/" at root, for the paths of run.
type osAt struct{ root string }

func (o osAt) p(name string) string                  { return filepath.Join(o.root, name) }
func (o osAt) MkdirAll(d string) error               { return dir.OS{}.MkdirAll(o.p(d)) }
func (o osAt) OpenDir(d string) (dir.Dir, error)     { return dir.OS{}.OpenDir(o.p(d)) }
func (o osAt) Remove(n string) error                 { return dir.OS{}.Remove(o.p(n)) }
func (o osAt) ReadFile(n string) ([]byte, error)     { return dir.OS{}.ReadFile(o.p(n)) }
func (o osAt) ReadDir(d string) ([]dir.Entry, error) { return dir.OS{}.ReadDir(o.p(d)) }
func (o osAt) SyncDir(d string) error                { return dir.OS{}.SyncDir(o.p(d)) }
func (o osAt) Exists(n string) (bool, error)         { return dir.OS{}.Exists(o.p(n)) }

// TestPrepare: a Put takes the temporary file that Prepare made, a
// second Prepare keeps the first file, and a Put whose spare someone
// removed writes a new temporary file.
func TestPrepare(t *testing.T) {
	ctx := context.Background()
	f := newSimFS()
	s, err := dir.OpenFS(f, "/riff")
	if err != nil {
		t.Fatal(err)
	}
	temps := func() []string {
		t.Helper()
		entries, err := f.ReadDir("/riff/log")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			if strings.HasPrefix(e.Name, ".tmp-") {
				names = append(names, e.Name)
			}
		}
		return names
	}
	for range 2 {
		if err := s.Prepare("log/00000000000000000001.jsonl"); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(temps()); n != 1 {
		t.Fatalf("after two Prepare: %d temporary files; want 1", n)
	}
	before := f.steps
	if err := s.Put(ctx, "log/a", []byte("one")); err != nil {
		t.Fatal(err)
	}
	// write (2 steps), sync, close, rename, sync dir: no create.
	if got := f.steps - before; got != 6 {
		t.Errorf("a Put after Prepare took %d steps; want 6 (no create)", got)
	}
	if left := temps(); len(left) != 0 {
		t.Errorf("temporary files after the Put: %q", left)
	}
	if err := s.Prepare("log/b"); err != nil {
		t.Fatal(err)
	}
	for _, name := range temps() {
		if err := f.Remove("/riff/log/" + name); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Put(ctx, "log/b", []byte("two")); err != nil {
		t.Fatalf("Put after its spare was removed = %v", err)
	}
	for name, want := range map[string]string{"log/a": "one", "log/b": "two"} {
		if got, err := s.Get(ctx, name); err != nil || string(got) != want {
			t.Errorf("Get(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	if err := s.Put(ctx, "log/a", []byte("again")); !errors.Is(err, rifflog.ErrExists) {
		t.Errorf("Put of a name that exists = %v; want ErrExists", err)
	}
	if left := temps(); len(left) != 0 {
		t.Errorf("temporary files at the end: %q", left)
	}
}

// TestPrepareWhilePut: the log writer of riffengine calls Prepare in a
// goroutine of its own while its next Put runs. Given Prepare and Put in
// the same directory at once, each Put writes its object whole, and at
// most the one spare temporary file is left.
func TestPrepareWhilePut(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := openDir(t, root)
	const n = 200
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := uint64(1); ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := s.Prepare(rifflog.ChunkName(i)); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for i := range n {
		if err := s.Put(ctx, rifflog.ChunkName(uint64(i+1)), fmt.Appendf(nil, "chunk %d", i+1)); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	for i := range n {
		name := rifflog.ChunkName(uint64(i + 1))
		if got, err := s.Get(ctx, name); err != nil || string(got) != fmt.Sprintf("chunk %d", i+1) {
			t.Fatalf("Get(%s) = %q, %v", name, got, err)
		}
	}
	entries, err := os.ReadDir(filepath.Join(root, "log"))
	if err != nil {
		t.Fatal(err)
	}
	temps := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			temps++
		}
	}
	if temps > 1 || len(entries)-temps != n {
		t.Errorf("the directory has %d objects and %d temporary files; want %d and at most 1", len(entries)-temps, temps, n)
	}
}

// A generation left by a crash between a publish and its removals does
// not make an old instance believe that it still holds the lease: the
// next Swap removes it before the generation after it, and Newest
// looks at both.
func TestLeftoverGenerationDoesNotKeepAnOldLease(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := openDir(t, root)
	now := time.UnixMilli(1790000000000)
	a, err := rifflog.TakeLease(ctx, s, "a", now) // generation 1
	if err != nil {
		t.Fatal(err)
	}
	b, err := rifflog.TakeLease(ctx, s, "b", now) // 2
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Renew(ctx, now); err != nil { // 3, removes 1
		t.Fatal(err)
	}
	// b crashed after it published 3 and before it removed 1.
	gen1 := filepath.Join(root, ".lease.v", fmt.Sprintf("%020d", 1))
	if err := os.WriteFile(gen1, []byte(`{"instance":"a","written_at_ms":1790000000000}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := rifflog.TakeLease(ctx, s, "c", now); err != nil { // 4, removes 1 and 2
		t.Fatal(err)
	}
	if err := a.Check(ctx); !errors.Is(err, rifflog.ErrLeaseLost) {
		t.Errorf("a.Check with generation 1 left over and 2 removed = %v; want ErrLeaseLost", err)
	}
	if _, err := os.Stat(gen1); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the leftover generation 1 is still there after a Swap: %v", err)
	}
}

func TestDeleteAllRemovesEachAndStopsAtABadName(t *testing.T) {
	ctx := context.Background()
	s := openDir(t, t.TempDir())
	for _, n := range []string{"log/a", "log/b", "checkpoint/c"} {
		if err := s.Put(ctx, n, []byte(n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteAll(ctx, []string{"log/a", "log/gone", "checkpoint/c"}); err != nil {
		t.Fatalf("DeleteAll = %v; want nil (a name that is not there is no error)", err)
	}
	if names, _ := s.List(ctx, ""); !slices.Equal(names, []string{"log/b"}) {
		t.Errorf("List after DeleteAll = %v; want [log/b]", names)
	}
	if err := s.DeleteAll(ctx, []string{"log/b", "../x", "log/c"}); err == nil || !strings.Contains(err.Error(), `bad object name "../x"`) {
		t.Errorf("DeleteAll with a bad name = %v; want an error that names it", err)
	}
	if names, _ := s.List(ctx, ""); len(names) != 0 {
		t.Errorf("List = %v; want log/b removed before the bad name", names)
	}
}

// temps lists the temporary files under root.
func temps(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".tmp-") {
			rel, _ := filepath.Rel(root, path)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// A checkpoint that a kill stopped leaves its temporary file, as large
// as the state; an Open removes only the ones older than ten minutes (an
// instance that serves may write while the next one starts), so a crash
// loop kept each of them. RemoveLeftovers, which the server calls once
// it holds the lease, removes every one that another process made, of
// any age, and none of its own.
func TestGivenTheTempFilesOfAKilledWriteWhenTheNextStartRemovesLeftoversThenOnlyItsOwnStay(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	killed := openDir(t, root)
	// The killed process made the spare of its next chunk and of its
	// next checkpoint, and never used them.
	if err := killed.Prepare(rifflog.ChunkName(5)); err != nil {
		t.Fatal(err)
	}
	if err := killed.Prepare(rifflog.CheckpointName(4, 1790000000000)); err != nil {
		t.Fatal(err)
	}
	// An older build named its files with no tag.
	if err := os.WriteFile(filepath.Join(root, "checkpoint", fmt.Sprintf(".tmp-%d-1", time.Now().UnixNano())), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	left := temps(t, root)
	if len(left) != 3 {
		t.Fatalf("the killed process left %v; want 3 temporary files", left)
	}

	next := openDir(t, root)
	if got := temps(t, root); !slices.Equal(got, left) {
		t.Fatalf("an Open removed young files of another process: %v, then %v", left, got)
	}
	if err := next.Prepare(rifflog.ChunkName(5)); err != nil {
		t.Fatal(err)
	}
	mine := slices.DeleteFunc(temps(t, root), func(n string) bool { return slices.Contains(left, n) })
	n, err := next.RemoveLeftovers(ctx)
	if err != nil || n != 3 {
		t.Fatalf("RemoveLeftovers = %d, %v; want 3", n, err)
	}
	if got := temps(t, root); !slices.Equal(got, mine) {
		t.Errorf("after RemoveLeftovers the temporary files are %v; want only this store's own %v", got, mine)
	}
	if err := next.Put(ctx, rifflog.ChunkName(5), []byte("chunk")); err != nil {
		t.Errorf("the Put that takes its own spare = %v", err)
	}
}

// openDir opens the store in root, or fails the test.
func openDir(t *testing.T, root string) *dir.Store {
	t.Helper()
	s, err := dir.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestGivenABufferWhenAnObjectIsReadIntoItThenItsBytesFollowTheBuffers:
// GetAppend gives the bytes that Get gives after those of the buffer,
// whether the buffer has room for them or not (a file larger than a
// read's room, an empty one), on the host and on the simulated file
// system (which reads with ReadFile), and gives the buffer back as it
// came with ErrNotExist for an object that is not there.
func TestGivenABufferWhenAnObjectIsReadIntoItThenItsBytesFollowTheBuffers(t *testing.T) {
	ctx := context.Background()
	sim, err := dir.OpenFS(newSimFS(), "/riff")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*dir.Store{openDir(t, t.TempDir()), sim} {
		big := strings.Repeat("0123456789abcdef", 20_000) // 320 KB: many reads into a small buffer
		for name, data := range map[string]string{"log/empty": "", "log/small": "one line\n", "log/big": big} {
			if err := s.Put(ctx, name, []byte(data)); err != nil {
				t.Fatal(err)
			}
			for _, buf := range [][]byte{nil, []byte("kept:"), make([]byte, 3, 4), make([]byte, 0, 1<<20)} {
				before := string(buf)
				got, err := s.GetAppend(ctx, name, buf)
				if err != nil || string(got) != before+data {
					t.Fatalf("GetAppend(%s, %d of %d bytes) = %d bytes, %v; want %d", name, len(buf), cap(buf), len(got), err, len(before)+len(data))
				}
			}
		}
		buf := []byte("kept")
		got, err := s.GetAppend(ctx, "log/none", buf)
		if !errors.Is(err, rifflog.ErrNotExist) || string(got) != "kept" {
			t.Fatalf("GetAppend of no object = %q, %v; want the buffer as it came and ErrNotExist", got, err)
		}
	}
}
