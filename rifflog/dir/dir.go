// Package dir holds a [rifflog.Store] in a directory of the host
// (RIFF_DIR): each object is a file under the root, at its name.
//
// A Put writes a temporary file beside its target, fsyncs it, gives it
// its name with renameat2(2) and RENAME_NOREPLACE (or, where the file
// system has no such rename, link(2) and a remove of the temporary
// name: neither ever replaces a name) and fsyncs the directory; only
// then does it return. So a crash at any step leaves either no object or
// the whole object, and a name is never replaced. A Store holds each
// directory that it writes in open ([Dir]) for these steps. Leftover
// temporary files (names that start with ".tmp-") are never listed or
// read, and an Open removes the ones older than ten minutes.
//
// A Delete or DeleteAll (the prune of the log) recycles the files of
// the objects it deletes: each gets a temporary name, the directory is flushed, and
// only then does a next Put in that directory write over one of them
// (and cut it to its new length) in place of a new file: no new inode
// for each chunk of a log that a prune keeps short.
//
// The store runs on a small file system interface ([FS]): [OS] in a
// server, a simulated file system that loses power in the crash test.
// It never reads a torn file as an object, never takes a lock, and never
// starts a goroutine.
package dir

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/como-technologies/riff/rifflog"
)

var (
	_ rifflog.Store    = (*Store)(nil)
	_ rifflog.Preparer = (*Store)(nil)
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
	// now is the clock of the ages of temporary files (time.Now; a test
	// moves it).
	now func() time.Time

	mu       sync.Mutex
	dirs     map[string]Dir            // directories made, with a synced entry, held open
	spares   map[string]spare          // a temporary file made ahead, by directory
	recycled map[string][]recycledFile // files of deleted objects to write over, oldest first, by directory
}

// Open opens the directory root on the file system of the host.
func Open(root string) (*Store, error) { return OpenFS(OS{}, root) }

// OpenFS opens the directory root on fsys: it makes the root when it is
// not there, flushes its entry, and removes old leftover temporary files.
func OpenFS(fsys FS, root string) (*Store, error) {
	s := &Store{fs: fsys, root: filepath.Clean(root), dirs: map[string]Dir{}, spares: map[string]spare{},
		recycled: map[string][]recycledFile{}, tag: newTag(), now: time.Now}
	if _, err := s.ensureDir(s.root); err != nil {
		return nil, fmt.Errorf("open %s: %w", root, err)
	}
	now := s.now()
	if _, err := s.sweep(s.root, func(_ string, born time.Time) bool { return now.Sub(born) > tmpAge }); err != nil {
		return nil, fmt.Errorf("open %s: %w", root, err)
	}
	return s, nil
}

// ensureDir makes dir, flushes the entry of each directory that it made
// in its parent, and gives dir held open.
func (s *Store) ensureDir(dir string) (Dir, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.dirs[dir]; ok {
		return d, nil
	}
	if err := s.fs.MkdirAll(dir); err != nil {
		return nil, err
	}
	// Flush the entries from dir up to the parent of the root: a
	// directory that MkdirAll made is lost in a crash until its
	// parent is flushed.
	for d := dir; ; d = filepath.Dir(d) {
		if err := s.fs.SyncDir(filepath.Dir(d)); err != nil {
			return nil, err
		}
		if d == s.root || filepath.Dir(d) == d || !strings.HasPrefix(d, s.root) {
			break
		}
	}
	d, err := s.fs.OpenDir(dir)
	if err != nil {
		return nil, err
	}
	s.dirs[dir] = d
	return d, nil
}

// heldDir gives dir when the Store holds it open (it wrote in it).
func (s *Store) heldDir(dir string) (Dir, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.dirs[dir]
	return d, ok
}

// Close closes the directories that the Store holds open and removes
// its spare and recycled temporary files. A Store that is used after a
// Close opens them again.
func (s *Store) Close() error {
	s.mu.Lock()
	dirs, spares, recycled := s.dirs, s.spares, s.recycled
	s.dirs, s.spares, s.recycled = map[string]Dir{}, map[string]spare{}, map[string][]recycledFile{}
	s.mu.Unlock()
	var errs []error
	for dir, sp := range spares {
		errs = append(errs, sp.f.Close())
		if d, ok := dirs[dir]; ok {
			_ = d.Remove(sp.name) // a leftover temporary file is harmless
		}
	}
	for dir, pool := range recycled {
		if d, ok := dirs[dir]; ok {
			for _, r := range pool {
				_ = d.Remove(r.name) // a leftover temporary file is harmless
			}
		}
	}
	for _, d := range dirs {
		errs = append(errs, d.Close())
	}
	return errors.Join(errs...)
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

// publish writes data to a temporary file in the directory of target
// (the one that Prepare made, a recycled one, or a new one), flushes
// it, and renames it as target; it never replaces target.
func (s *Store) publish(target string, data []byte) error {
	dir, name := filepath.Dir(target), filepath.Base(target)
	d, err := s.ensureDir(dir)
	if err != nil {
		return err
	}
	sp, spared, err := s.takeSpare(dir, d)
	if err != nil {
		return err
	}
	err = writeRename(d, sp, name, data)
	if spared && errors.Is(err, fs.ErrNotExist) {
		// Someone removed the spare: write a new temporary file.
		tmp, f, err := s.newTemp(d)
		if err != nil {
			return err
		}
		err = writeRename(d, spare{name: tmp, f: f}, name, data)
		if err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	return d.Sync()
}

// writeRename writes data to the temporary file sp of d (over its old
// bytes when it is recycled, then cut to the new length), flushes and
// closes it, and renames it as target. When it fails, it removes sp.
func writeRename(d Dir, sp spare, target string, data []byte) error {
	tmp, f := sp.name, sp.f
	_, err := f.Write(data)
	if err == nil && sp.recycled {
		err = f.Truncate(int64(len(data)))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if err = d.Rename(tmp, target); err == nil {
			return nil
		}
	}
	_ = d.Remove(tmp) // a leftover temporary file is harmless
	return err
}
