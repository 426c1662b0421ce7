package dir

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"
)

// spare is a temporary file that Prepare made for the next publish in
// its directory: open for writing, empty or recycled.
type spare struct {
	name     string // in its directory
	f        File
	born     time.Time
	recycled bool // a recycled file: its old bytes are there until a write and a Truncate
}

// recycledFile is a file of a deleted object under a temporary name,
// which a next publish in its directory writes over (see DeleteAll).
type recycledFile struct {
	name string // in its directory
	born time.Time
}

const (
	// spareAge is the age past which a publish does not take a spare
	// or a recycled file: well under tmpAge, so that the sweep of an
	// Open of another process never removes a file that a publish
	// takes.
	spareAge = time.Minute
	// maxRecycled is the count of recycled files that wait at most in
	// one directory; a DeleteAll removes the objects past it.
	maxRecycled = 1024
)

// takeSpare gives the temporary file that Prepare made in dir (spared),
// or a new one. A spare older than spareAge is removed, not taken.
func (s *Store) takeSpare(dir string, d Dir) (sp spare, spared bool, err error) {
	s.mu.Lock()
	sp, ok := s.spares[dir]
	delete(s.spares, dir)
	s.mu.Unlock()
	if ok && s.now().Sub(sp.born) < spareAge {
		return sp, true, nil
	}
	if ok {
		_ = sp.f.Close()
		_ = d.Remove(sp.name) // a leftover temporary file is harmless
	}
	sp, err = s.newFile(dir, d)
	return sp, false, err
}

// Prepare readies, ahead of time, the temporary file of the next Put in
// the directory of the object name, so that the Put does not wait for
// it: a recycled file opened for writing, or a new file (a new inode
// costs about as much as a write of a small file here). The log writer
// calls it after a chunk, with the name of the next chunk. It is a
// temporary file like any other: a Put writes it whole, flushes it, and
// only then links it under its name; one that no Put took is never
// read, and an Open removes it when it is old. A second Prepare in the
// same directory keeps the first file.
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
	d, err := s.ensureDir(dir)
	if err != nil {
		return fmt.Errorf("prepare %s: %w", name, err)
	}
	sp, err := s.newFile(dir, d)
	if err != nil {
		return fmt.Errorf("prepare %s: %w", name, err)
	}
	s.mu.Lock()
	_, ok = s.spares[dir]
	if !ok {
		s.spares[dir] = sp
	}
	s.mu.Unlock()
	if ok {
		// Another Prepare came first: this file is not needed.
		_ = sp.f.Close()
		_ = d.Remove(sp.name)
	}
	return nil
}

// newFile gives a temporary file in dir open for writing: the newest
// recycled file of dir that is younger than spareAge, or a new file.
// It removes the recycled files that are older.
func (s *Store) newFile(dir string, d Dir) (spare, error) {
	s.removeExpired(dir, d)
	for {
		s.mu.Lock()
		pool := s.recycled[dir]
		var r recycledFile
		ok := len(pool) > 0
		if ok {
			r = pool[len(pool)-1]
			s.recycled[dir] = pool[:len(pool)-1]
		}
		s.mu.Unlock()
		if !ok {
			break
		}
		f, err := d.OpenWrite(r.name)
		if err == nil {
			return spare{name: r.name, f: f, born: r.born, recycled: true}, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			_ = d.Remove(r.name)
		}
		// Someone removed it, or it does not open: take the next one.
	}
	tmp, f, err := s.newTemp(d)
	if err != nil {
		return spare{}, err
	}
	return spare{name: tmp, f: f, born: s.now()}, nil
}

// removeExpired removes the recycled files of dir, in d, that are
// older than spareAge.
func (s *Store) removeExpired(dir string, d Dir) {
	s.mu.Lock()
	pool := s.recycled[dir]
	n := 0
	for n < len(pool) && s.now().Sub(pool[n].born) >= spareAge {
		n++
	}
	old := pool[:n:n]
	s.recycled[dir] = pool[n:]
	s.mu.Unlock()
	for _, o := range old {
		_ = d.Remove(o.name) // a leftover temporary file is harmless
	}
}
