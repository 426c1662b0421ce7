package dir

import (
	"context"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/como-technologies/riff/rifflog"
)

// openTemp opens a Store on a new folder of the host, and gives it
// with its root.
func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	root := t.TempDir()
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return s, root
}

// inode gives the inode number of a file of the host.
func inode(t *testing.T, name string) uint64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(name, &st); err != nil {
		t.Fatal(err)
	}
	return uint64(st.Ino)
}

// temps lists the temporary files of the log folder under root.
func temps(t *testing.T, s *Store) []string {
	t.Helper()
	entries, err := s.fs.ReadDir(s.root + "/log")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name, tmpPrefix) {
			names = append(names, e.Name)
		}
	}
	return names
}

// Given a Store that deleted a long chunk with DeleteAll, when the next
// Put in its folder writes a short one, then the Put writes over the
// file of the deleted chunk (the same inode, no new one), the new
// object reads back exactly (the old bytes past it cut), the deleted
// name is gone, and no temporary file is left.
func TestGivenADeletedChunkWhenAPutComesThenItWritesOverItsFile(t *testing.T) {
	ctx := context.Background()
	s, root := openTemp(t)
	defer s.Close()
	old := rifflog.ChunkName(1)
	if err := s.Put(ctx, old, []byte(strings.Repeat("old bytes\n", 1000))); err != nil {
		t.Fatal(err)
	}
	ino := inode(t, root+"/"+old)
	if err := s.DeleteAll(ctx, []string{old}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, old); err == nil {
		t.Fatalf("Get(%s) after DeleteAll found it", old)
	}
	if n := len(temps(t, s)); n != 1 {
		t.Fatalf("after DeleteAll, %d temporary files; want the 1 recycled file", n)
	}
	next := rifflog.ChunkName(1001)
	if err := s.Put(ctx, next, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, next); err != nil || string(got) != "new\n" {
		t.Errorf("Get(%s) = %d bytes (%q…), %v; want %q", next, len(got), got[:min(len(got), 20)], err, "new\n")
	}
	if got := inode(t, root+"/"+next); got != ino {
		t.Errorf("the new chunk has inode %d; want %d, the file of the deleted one", got, ino)
	}
	if left := temps(t, s); len(left) != 0 {
		t.Errorf("temporary files after the Put: %q", left)
	}
	names, err := s.List(ctx, "")
	if err != nil || len(names) != 1 || names[0] != next {
		t.Errorf("List = %q, %v; want only %s", names, err, next)
	}
}

// Given recycled files that waited spareAge, when a Prepare comes, then
// it makes a new file and removes the old ones: an Open of another
// process removes a temporary file by the time in its name, so a file
// that waits long is never written.
func TestGivenOldRecycledFilesWhenAPrepareComesThenItRemovesThem(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	defer s.Close()
	clock := time.Now()
	s.now = func() time.Time { return clock }
	var names []string
	for i := range 3 {
		name := rifflog.ChunkName(uint64(i + 1))
		if err := s.Put(ctx, name, []byte("x\n")); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	if err := s.DeleteAll(ctx, names); err != nil {
		t.Fatal(err)
	}
	recycled := temps(t, s)
	if len(recycled) != 3 {
		t.Fatalf("after DeleteAll, temporary files %q; want 3 recycled", recycled)
	}
	clock = clock.Add(spareAge)
	next := rifflog.ChunkName(4)
	if err := s.Prepare(next); err != nil {
		t.Fatal(err)
	}
	left := temps(t, s)
	if len(left) != 1 || slices.Contains(recycled, left[0]) {
		t.Fatalf("after the Prepare, temporary files %q; want only a new spare, none of the recycled %q", left, recycled)
	}
	if err := s.Put(ctx, next, []byte("y\n")); err != nil {
		t.Fatal(err)
	}
	if left := temps(t, s); len(left) != 0 {
		t.Errorf("temporary files after the Put: %q", left)
	}
}

// Given more deleted objects than maxRecycled in one folder, when
// DeleteAll deletes them, then maxRecycled wait as recycled files, the
// rest are removed, and Close removes the recycled ones.
func TestGivenManyDeletedObjectsWhenDeleteAllThenItKeepsAtMostMaxRecycled(t *testing.T) {
	ctx := context.Background()
	s, root := openTemp(t)
	// The files are made by hand: a Put each would flush each one.
	if err := s.Put(ctx, rifflog.ChunkName(1), []byte("x\n")); err != nil {
		t.Fatal(err)
	}
	d, _ := s.heldDir(root + "/log")
	names := []string{rifflog.ChunkName(1)}
	for i := 2; i <= maxRecycled+5; i++ {
		name := rifflog.ChunkName(uint64(i))
		f, err := d.CreateExcl(strings.TrimPrefix(name, "log/"))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	if err := s.DeleteAll(ctx, names); err != nil {
		t.Fatal(err)
	}
	if n := len(temps(t, s)); n != maxRecycled {
		t.Errorf("after DeleteAll of %d, %d recycled files; want %d", len(names), n, maxRecycled)
	}
	if left, err := s.List(ctx, ""); err != nil || len(left) != 0 {
		t.Errorf("List after DeleteAll = %q, %v; want none", left, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	entries, err := OS{}.ReadDir(root + "/log")
	if err != nil || len(entries) != 0 {
		t.Errorf("after Close, the log folder holds %d entries (%v); want none", len(entries), err)
	}
}

// Given a checkpoint that a prune deleted with Delete, when the next
// checkpoint is put, then it is written over the file of the deleted
// one, and reads back whole.
func TestGivenADeletedCheckpointWhenTheNextComesThenItWritesOverItsFile(t *testing.T) {
	ctx := context.Background()
	s, root := openTemp(t)
	defer s.Close()
	old, next := rifflog.CheckpointName(10, 1790000000000), rifflog.CheckpointName(20, 1790000001000)
	if err := s.Put(ctx, old, []byte(strings.Repeat("state ", 100))); err != nil {
		t.Fatal(err)
	}
	ino := inode(t, root+"/"+old)
	if err := s.Delete(ctx, old); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, next, []byte("small state")); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, next); err != nil || string(got) != "small state" {
		t.Errorf("Get(%s) = %q, %v; want %q", next, got, err, "small state")
	}
	if got := inode(t, root+"/"+next); got != ino {
		t.Errorf("the new checkpoint has inode %d; want %d, the file of the deleted one", got, ino)
	}
	if names, err := s.List(ctx, ""); err != nil || len(names) != 1 || names[0] != next {
		t.Errorf("List = %q, %v; want only %s", names, err, next)
	}
}
