// Package mem holds a [rifflog.Store] in memory: the store of a riff with
// no bucket and no directory, and of tests. It never touches a file and
// keeps nothing after the process ends.
package mem

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/como-technologies/riff/rifflog"
)

var _ rifflog.Store = (*Store)(nil)

// Store is a store in memory. Its zero value is not ready: use New.
// It is safe for use by many goroutines.
type Store struct {
	mu      sync.Mutex
	objects map[string][]byte
	gens    map[string]int64
}

// New gives an empty store.
func New() *Store {
	return &Store{objects: map[string][]byte{}, gens: map[string]int64{}}
}

// Put creates name; a taken name gives an error that wraps rifflog.ErrExists.
func (s *Store) Put(ctx context.Context, name string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("put %s: %w", name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.objects[name]; ok {
		return fmt.Errorf("put %s: %w", name, rifflog.ErrExists)
	}
	s.objects[name] = bytes.Clone(data)
	return nil
}

// Get returns a copy of the bytes of name.
func (s *Store) Get(ctx context.Context, name string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("get %s: %w", name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	data, ok := s.objects[name]
	if !ok {
		return nil, fmt.Errorf("get %s: %w", name, rifflog.ErrNotExist)
	}
	return bytes.Clone(data), nil
}

// List gives the names with prefix in byte order.
func (s *Store) List(ctx context.Context, prefix string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for name := range s.objects {
		if strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// Delete removes name; a missing name is no error.
func (s *Store) Delete(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.objects, name)
	delete(s.gens, name)
	return nil
}

// Load returns the bytes and the generation of name.
func (s *Store) Load(ctx context.Context, name string) ([]byte, int64, error) {
	data, err := s.Get(ctx, name)
	if err != nil {
		return nil, 0, fmt.Errorf("load: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return data, s.gens[name], nil
}

// Swap writes name when its generation is gen (0: absent).
func (s *Store) Swap(ctx context.Context, name string, data []byte, gen int64) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("swap %s: %w", name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gens[name] != gen {
		return 0, fmt.Errorf("swap %s: generation %d, want %d: %w", name, s.gens[name], gen, rifflog.ErrChanged)
	}
	s.gens[name]++
	s.objects[name] = bytes.Clone(data)
	return s.gens[name], nil
}
