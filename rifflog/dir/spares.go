package dir

import (
	"fmt"
	"path/filepath"
	"time"
)

// spare is a temporary file that Prepare made for the next publish in
// its directory: empty, and open for writing.
type spare struct {
	name string // in its directory
	f    File
	born time.Time
}

// spareAge is the age past which a publish does not take a spare: well
// under tmpAge, so that the sweep of an Open of another process never
// removes a spare that a publish takes.
const spareAge = time.Minute

// takeSpare gives the temporary file that Prepare made in dir (spared),
// or a new one. A spare older than spareAge is removed, not taken.
func (s *Store) takeSpare(dir string, d Dir) (name string, f File, spared bool, err error) {
	s.mu.Lock()
	sp, ok := s.spares[dir]
	delete(s.spares, dir)
	s.mu.Unlock()
	if ok && time.Since(sp.born) < spareAge {
		return sp.name, sp.f, true, nil
	}
	if ok {
		_ = sp.f.Close()
		_ = d.Remove(sp.name) // a leftover temporary file is harmless
	}
	name, f, err = s.newTemp(d)
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
	d, err := s.ensureDir(dir)
	if err != nil {
		return fmt.Errorf("prepare %s: %w", name, err)
	}
	tmp, f, err := s.newTemp(d)
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
		_ = d.Remove(tmp)
	}
	return nil
}
