// Package dir holds a [rifflog.Store] in a directory of the host
// (RIFF_DIR): each object is a file under the root, at its name.
//
// A Put writes a temporary file beside its target, fsyncs it, publishes
// it under its name with link(2) (which never replaces a name), removes
// the temporary name and fsyncs the directory; only then does it return.
// So a crash at any step leaves either no object or the whole object,
// and a name is never replaced. Leftover temporary files (names that
// start with ".tmp-") are never listed or read, and an Open removes the
// ones older than ten minutes.
//
// The store runs on a small file system interface ([FS]): [OS] in a
// server, a simulated file system that loses power in the crash test.
// It never reads a torn file as an object, never takes a lock, and never
// starts a goroutine.
package dir

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/como-technologies/riff/rifflog"
)

var _ rifflog.Store = (*Store)(nil)

const (
	tmpPrefix = ".tmp-"
	// tmpAge is the age of a leftover temporary file that an Open removes.
	tmpAge = 10 * time.Minute
)

// Store keeps objects as files under a root directory. It is safe for
// use by many goroutines.
type Store struct {
	fs   FS
	root string
	seq  atomic.Uint64
	// tag is in the name of each temporary file of this Store, so that
	// RemoveLeftovers knows the files of other processes.
	tag string

	mu     sync.Mutex
	made   map[string]bool  // directories known to exist, with a synced entry
	spares map[string]spare // a temporary file made ahead, by directory
}

// spare is a temporary file that Prepare made for the next publish in
// its directory: empty, and open for writing.
type spare struct {
	name string
	f    File
	born time.Time
}

// spareAge is the age past which a publish does not take a spare: well
// under tmpAge, so that the sweep of an Open of another process never
// removes a spare that a publish takes.
const spareAge = time.Minute

// Open opens the directory root on the file system of the host.
func Open(root string) (*Store, error) { return OpenFS(OS{}, root) }

// OpenFS opens the directory root on fsys: it makes the root when it is
// not there, flushes its entry, and removes old leftover temporary files.
func OpenFS(fsys FS, root string) (*Store, error) {
	s := &Store{fs: fsys, root: filepath.Clean(root), made: map[string]bool{}, spares: map[string]spare{}, tag: newTag()}
	if err := s.ensureDir(s.root); err != nil {
		return nil, fmt.Errorf("open %s: %w", root, err)
	}
	now := time.Now()
	if _, err := s.sweep(s.root, func(_ string, born time.Time) bool { return now.Sub(born) > tmpAge }); err != nil {
		return nil, fmt.Errorf("open %s: %w", root, err)
	}
	return s, nil
}

// ensureDir makes dir and flushes the entry of each directory that it
// made in its parent.
func (s *Store) ensureDir(dir string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.made[dir] {
		return nil
	}
	if err := s.fs.MkdirAll(dir); err != nil {
		return err
	}
	// Flush the entries from dir up to the parent of the root: a
	// directory that MkdirAll made is lost in a crash until its
	// parent is flushed.
	for d := dir; ; d = filepath.Dir(d) {
		if err := s.fs.SyncDir(filepath.Dir(d)); err != nil {
			return err
		}
		if d == s.root || filepath.Dir(d) == d || !strings.HasPrefix(d, s.root) {
			break
		}
	}
	s.made[dir] = true
	return nil
}

// RemoveLeftovers removes each temporary file under the root that this
// Store did not make: what a write of a killed process left (a killed
// checkpoint leaves a file as large as the state, so a crash loop would
// fill the disk). It gives the number removed. The server calls it after
// the wait of its lease, when no other instance writes; an Open removes
// only the files older than ten minutes, because an instance that serves
// can write while a new one starts.
func (s *Store) RemoveLeftovers(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("remove leftovers: %w", err)
	}
	n, err := s.sweep(s.root, func(name string, _ time.Time) bool { return !s.mine(name) })
	if err != nil {
		return n, fmt.Errorf("remove leftovers: %w", err)
	}
	return n, nil
}

// sweep removes the temporary files under dir that gone says to remove
// (from the name and the time of the create), and gives how many.
func (s *Store) sweep(dir string, gone func(name string, born time.Time) bool) (int, error) {
	entries, err := s.fs.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	removed := 0
	for _, e := range entries {
		full := filepath.Join(dir, e.Name)
		if e.Dir {
			n, err := s.sweep(full, gone)
			removed += n
			if err != nil {
				return removed, err
			}
			continue
		}
		if born, ok := tmpTime(e.Name); ok && gone(e.Name, born) {
			if err := s.fs.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return removed, err
			}
			removed++
		}
	}
	return removed, nil
}

// newTag gives the random tag of the temporary files of one Store.
func newTag() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// mine says whether a temporary file name is one of this Store's:
// .tmp-<time>-<tag>-<n>.
func (s *Store) mine(name string) bool {
	rest, _ := strings.CutPrefix(name, tmpPrefix)
	_, rest, _ = strings.Cut(rest, "-")
	tag, _, _ := strings.Cut(rest, "-")
	return tag == s.tag
}

// tmpTime reads the time in a temporary file name.
func tmpTime(name string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(name, tmpPrefix)
	if !ok {
		return time.Time{}, false
	}
	ns, _, _ := strings.Cut(rest, "-")
	n, err := strconv.ParseInt(ns, 10, 64)
	if err != nil {
		return time.Time{}, true // not ours to read: old enough
	}
	return time.Unix(0, n), true
}

// file gives the path of an object, or an error for a name that is not
// a clean relative path of visible parts.
func (s *Store) file(name string) (string, error) {
	if name == "" || path.Clean(name) != name || strings.HasPrefix(name, "/") {
		return "", fmt.Errorf("bad object name %q", name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." || strings.HasPrefix(part, ".") {
			return "", fmt.Errorf("bad object name %q", name)
		}
	}
	return filepath.Join(s.root, filepath.FromSlash(name)), nil
}

// publish writes data to a new temporary file in the directory of
// target (the one that Prepare made, or a new one), flushes it, and
// links it as target; it never replaces target.
func (s *Store) publish(target string, data []byte) error {
	dir := filepath.Dir(target)
	if err := s.ensureDir(dir); err != nil {
		return err
	}
	tmp, f, spared, err := s.takeSpare(dir)
	if err != nil {
		return err
	}
	err = s.writeLink(tmp, f, target, data)
	if spared && errors.Is(err, fs.ErrNotExist) {
		// Someone removed the spare: write a new temporary file.
		tmp, f, err = s.newTemp(dir)
		if err != nil {
			return err
		}
		err = s.writeLink(tmp, f, target, data)
	}
	if err != nil {
		return err
	}
	return s.fs.SyncDir(dir)
}

// writeLink writes data to the temporary file tmp, flushes and closes
// it, links it as target and removes the name tmp.
func (s *Store) writeLink(tmp string, f File, target string, data []byte) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = s.fs.Link(tmp, target)
	}
	if rerr := s.fs.Remove(tmp); err == nil && rerr != nil {
		err = rerr
	}
	return err
}

// newTemp creates a new temporary file in dir.
func (s *Store) newTemp(dir string) (string, File, error) {
	tmp := filepath.Join(dir, fmt.Sprintf("%s%d-%s-%d", tmpPrefix, time.Now().UnixNano(), s.tag, s.seq.Add(1)))
	f, err := s.fs.CreateExcl(tmp)
	if err != nil {
		return "", nil, err
	}
	return tmp, f, nil
}

// takeSpare gives the temporary file that Prepare made in dir (spared),
// or a new one. A spare older than spareAge is removed, not taken.
func (s *Store) takeSpare(dir string) (name string, f File, spared bool, err error) {
	s.mu.Lock()
	sp, ok := s.spares[dir]
	delete(s.spares, dir)
	s.mu.Unlock()
	if ok && time.Since(sp.born) < spareAge {
		return sp.name, sp.f, true, nil
	}
	if ok {
		_ = sp.f.Close()
		_ = s.fs.Remove(sp.name) // a leftover temporary file is harmless
	}
	name, f, err = s.newTemp(dir)
	return name, f, false, err
}

// Prepare creates, ahead of time, the temporary file of the next Put in
// the directory of the object name, so that the Put does not wait for
// the create (a new inode costs about as much as a write of a small
// file here). The log writer calls it after a chunk, with the name of
// the next chunk. It is a temporary file like any other: a Put writes
// it whole, flushes it, and only then links it under its name; one that
// no Put took is never read, and an Open removes it when it is old.
// A second Prepare in the same directory keeps the first file.
func (s *Store) Prepare(name string) error {
	target, err := s.file(name)
	if err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	dir := filepath.Dir(target)
	s.mu.Lock()
	_, ok := s.spares[dir]
	s.mu.Unlock()
	if ok {
		return nil
	}
	if err := s.ensureDir(dir); err != nil {
		return fmt.Errorf("prepare %s: %w", name, err)
	}
	tmp, f, err := s.newTemp(dir)
	if err != nil {
		return fmt.Errorf("prepare %s: %w", name, err)
	}
	s.mu.Lock()
	_, ok = s.spares[dir]
	if !ok {
		s.spares[dir] = spare{name: tmp, f: f, born: time.Now()}
	}
	s.mu.Unlock()
	if ok {
		// Another Prepare came first: this file is not needed.
		_ = f.Close()
		_ = s.fs.Remove(tmp)
	}
	return nil
}

// Put creates the object name; it never replaces one.
func (s *Store) Put(ctx context.Context, name string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("put %s: %w", name, err)
	}
	target, err := s.file(name)
	if err != nil {
		return fmt.Errorf("put: %w", err)
	}
	if err := s.publish(target, data); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("put %s: %w", name, rifflog.ErrExists)
		}
		return fmt.Errorf("put %s: %w", name, err)
	}
	return nil
}

// Get reads the object name.
func (s *Store) Get(ctx context.Context, name string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("get %s: %w", name, err)
	}
	file, err := s.file(name)
	if err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	data, err := s.fs.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("get %s: %w", name, rifflog.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", name, err)
	}
	return data, nil
}

// List gives the objects whose names start with prefix, in byte order.
func (s *Store) List(ctx context.Context, prefix string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	// Start at the deepest directory that the prefix names.
	base := ""
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		base = prefix[:i]
	}
	var names []string
	if err := s.walk(base, prefix, &names); err != nil {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	sort.Strings(names)
	return names, nil
}

func (s *Store) walk(rel, prefix string, names *[]string) error {
	dir := filepath.Join(s.root, filepath.FromSlash(rel))
	entries, err := s.fs.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name, ".") {
			continue // temporary files and generations
		}
		name := e.Name
		if rel != "" {
			name = rel + "/" + e.Name
		}
		if e.Dir {
			if strings.HasPrefix(name+"/", prefix) || strings.HasPrefix(prefix, name+"/") {
				if err := s.walk(name, prefix, names); err != nil {
					return err
				}
			}
			continue
		}
		if strings.HasPrefix(name, prefix) {
			*names = append(*names, name)
		}
	}
	return nil
}

// Delete removes the object name and flushes its directory.
func (s *Store) Delete(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	file, err := s.file(name)
	if err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	if err := s.fs.Remove(file); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("delete %s: %w", name, err)
	}
	if err := s.fs.SyncDir(filepath.Dir(file)); err != nil {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	return nil
}

var _ rifflog.BatchDeleter = (*Store)(nil)

// DeleteAll removes the objects names in their order, then flushes each
// directory that it removed from, once. When a removal fails it still
// flushes what it removed before.
func (s *Store) DeleteAll(ctx context.Context, names []string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	var dirs []string
	var failed error
	for _, name := range names {
		file, err := s.file(name)
		if err != nil {
			failed = fmt.Errorf("delete: %w", err)
			break
		}
		if err := s.fs.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
			failed = fmt.Errorf("delete %s: %w", name, err)
			break
		}
		if d := filepath.Dir(file); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		if err := s.fs.SyncDir(d); err != nil {
			return errors.Join(failed, fmt.Errorf("delete: flush %s: %w", d, err))
		}
	}
	return failed
}

// generations is the directory of the generations of a swapped object:
// .NAME.v beside it, one file for each generation (%020d).
func (s *Store) generations(name string) (string, error) {
	file, err := s.file(name)
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(file), "."+filepath.Base(file)+".v"), nil
}

// newest gives the newest generation in dir (0 when none).
func (s *Store) newest(dir string) (int64, error) {
	entries, err := s.fs.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var top int64
	for _, e := range entries {
		if n, err := strconv.ParseInt(e.Name, 10, 64); err == nil && len(e.Name) == 20 && n > top {
			top = n
		}
	}
	return top, nil
}

func genFile(dir string, gen int64) string { return filepath.Join(dir, fmt.Sprintf("%020d", gen)) }

// Load reads the newest generation of a swapped object.
func (s *Store) Load(ctx context.Context, name string) ([]byte, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, fmt.Errorf("load %s: %w", name, err)
	}
	dir, err := s.generations(name)
	if err != nil {
		return nil, 0, fmt.Errorf("load: %w", err)
	}
	gen, err := s.newest(dir)
	if err != nil {
		return nil, 0, fmt.Errorf("load %s: %w", name, err)
	}
	if gen == 0 {
		return nil, 0, fmt.Errorf("load %s: %w", name, rifflog.ErrNotExist)
	}
	data, err := s.fs.ReadFile(genFile(dir, gen))
	if err != nil {
		return nil, 0, fmt.Errorf("load %s: %w", name, err)
	}
	return data, gen, nil
}

// Newest says whether gen is the newest generation of a swapped object,
// with two looks at names and no read: generation gen+1 is not there,
// and gen is. A Swap that writes gen+2 removes gen; gen+1 goes only
// after gen went (removeOlder); so gen is the newest exactly when both
// hold. The first look comes before the second, so a change between
// them shows in the second. The lease looks around each chunk: two
// lookups of a name cost much less than a read of the directory and of
// the lease.
func (s *Store) Newest(ctx context.Context, name string, gen int64) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("newest %s: %w", name, err)
	}
	if gen < 1 {
		return false, nil
	}
	dir, err := s.generations(name)
	if err != nil {
		return false, fmt.Errorf("newest: %w", err)
	}
	next, err := s.fs.Exists(genFile(dir, gen+1))
	if err != nil {
		return false, fmt.Errorf("newest %s: %w", name, err)
	}
	if next {
		return false, nil
	}
	this, err := s.fs.Exists(genFile(dir, gen))
	if err != nil {
		return false, fmt.Errorf("newest %s: %w", name, err)
	}
	return this, nil
}

// Swap writes generation gen+1 of a swapped object when gen is the
// newest. Each generation is a file that is created only once (the same
// publish as Put), so of two writers from one generation only one wins;
// a writer that published a generation when a newer one was there too
// loses, and readers read the newest.
func (s *Store) Swap(ctx context.Context, name string, data []byte, gen int64) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("swap %s: %w", name, err)
	}
	dir, err := s.generations(name)
	if err != nil {
		return 0, fmt.Errorf("swap: %w", err)
	}
	now, err := s.newest(dir)
	if err != nil {
		return 0, fmt.Errorf("swap %s: %w", name, err)
	}
	if now != gen {
		return 0, fmt.Errorf("swap %s: generation %d, want %d: %w", name, now, gen, rifflog.ErrChanged)
	}
	next := gen + 1
	if err := s.publish(genFile(dir, next), data); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return 0, fmt.Errorf("swap %s: generation %d is taken: %w", name, next, rifflog.ErrChanged)
		}
		return 0, fmt.Errorf("swap %s: %w", name, err)
	}
	if now, err = s.newest(dir); err != nil {
		return 0, fmt.Errorf("swap %s: %w", name, err)
	}
	if now != next {
		return 0, fmt.Errorf("swap %s: generation %d came after %d: %w", name, now, next, rifflog.ErrChanged)
	}
	// Keep the generation before, for a reader that listed before this
	// write; remove the ones older than it, oldest first, and stop at the
	// first that does not go. So a generation is gone only when each
	// older one is gone too (Newest counts on it), and a leftover of a
	// crash between a publish and its removals goes at the next Swap.
	s.removeOlder(dir, gen)
	return next, nil
}

// removeOlder removes the generations in dir older than keep, oldest
// first, and stops at the first that does not go: a generation left is
// removed by a later Swap.
func (s *Store) removeOlder(dir string, keep int64) {
	entries, err := s.fs.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries { // in name order: the oldest first
		n, err := strconv.ParseInt(e.Name, 10, 64)
		if err != nil || len(e.Name) != 20 || n >= keep {
			continue
		}
		if err := s.fs.Remove(filepath.Join(dir, e.Name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return
		}
	}
}
