package dir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"

	"github.com/como-technologies/riff/rifflog"
)

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
// with two lookups of a name and no read of a file: generation gen+1 is
// not there, and gen is. A Swap that writes gen+2 removes gen; gen+1
// goes only after gen went (removeOlder); so gen is the newest exactly
// when both hold. The first lookup comes before the second, so a change
// between them shows in the second. The lease checks it before and after
// each chunk: two lookups of a name cost much less than a read of the
// directory and of the lease.
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
		if err := s.remove(filepath.Join(dir, e.Name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return
		}
	}
}
