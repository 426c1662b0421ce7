package dir_test

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/como-technologies/riff/rifflog/dir"
)

// errCrashed is the answer of each step after the power went out.
var errCrashed = errors.New("crashed")

// node is a file or a directory of the simulated file system.
type node struct {
	dir     bool
	data    []byte           // a file's bytes
	flushed int              // how many of them a Sync flushed
	entries map[string]*node // a directory's entries now
	durable map[string]*node // its entries as of its last SyncDir
}

func newDir() *node {
	return &node{dir: true, entries: map[string]*node{}, durable: map[string]*node{}}
}

// simFS is a file system that loses power after a given number of steps.
// At a crash it keeps flushed bytes and any prefix of the bytes that are
// not flushed, and it may lose each directory entry change that no
// SyncDir flushed (crash). It holds one root, "/".
type simFS struct {
	mu    sync.Mutex
	root  *node
	steps int // steps done
	limit int // the step at which the power goes out; <0: never
}

var _ dir.FS = (*simFS)(nil)

func newSimFS() *simFS {
	r := newDir()
	return &simFS{root: r, limit: -1}
}

// step counts a step; it fails when the power is out.
func (f *simFS) step() error {
	if f.limit >= 0 && f.steps >= f.limit {
		return errCrashed
	}
	f.steps++
	return nil
}

func split(name string) []string {
	name = filepath.Clean(name)
	if name == "/" {
		return nil
	}
	return strings.Split(strings.TrimPrefix(name, "/"), "/")
}

// lookup finds the node of name, or the parent directory and the last part.
func (f *simFS) lookup(name string) (parent *node, base string, n *node, err error) {
	parts := split(name)
	if len(parts) == 0 {
		return nil, "", f.root, nil
	}
	cur := f.root
	for i, p := range parts {
		if !cur.dir {
			return nil, "", nil, fs.ErrNotExist
		}
		next := cur.entries[p]
		if i == len(parts)-1 {
			return cur, p, next, nil
		}
		if next == nil {
			return nil, "", nil, fs.ErrNotExist
		}
		cur = next
	}
	panic("unreachable")
}

func (f *simFS) MkdirAll(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.step(); err != nil {
		return err
	}
	cur := f.root
	for _, p := range split(name) {
		next := cur.entries[p]
		if next == nil {
			next = newDir()
			cur.entries[p] = next
		}
		if !next.dir {
			return fmt.Errorf("mkdir %s: %w", name, fs.ErrExist)
		}
		cur = next
	}
	return nil
}

type simFile struct {
	f *simFS
	n *node
	// over: opened by OpenWrite, so each write goes at pos, over the
	// old bytes; a crash keeps the bytes before pos that a Sync
	// flushed, and any prefix of the rest (a torn file).
	over bool
	pos  int
}

// OpenWrite opens name for writing over its bytes from the start.
func (f *simFS) OpenWrite(name string) (dir.File, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.step(); err != nil {
		return nil, err
	}
	_, _, n, err := f.lookup(name)
	if err != nil || n == nil || n.dir {
		return nil, fmt.Errorf("open %s: %w", name, fs.ErrNotExist)
	}
	return &simFile{f: f, n: n, over: true}, nil
}

func (f *simFS) CreateExcl(name string) (dir.File, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.step(); err != nil {
		return nil, err
	}
	parent, base, n, err := f.lookup(name)
	if err != nil || parent == nil {
		return nil, fmt.Errorf("create %s: %w", name, fs.ErrNotExist)
	}
	if n != nil {
		return nil, fmt.Errorf("create %s: %w", name, fs.ErrExist)
	}
	n = &node{}
	parent.entries[base] = n
	return &simFile{f: f, n: n}, nil
}

func (sf *simFile) Write(b []byte) (int, error) {
	sf.f.mu.Lock()
	defer sf.f.mu.Unlock()
	// A write may be cut in two steps, so a crash can come inside it.
	half := len(b) / 2
	for _, part := range [][]byte{b[:half], b[half:]} {
		if err := sf.f.step(); err != nil {
			return 0, err
		}
		if !sf.over {
			sf.n.data = append(sf.n.data, part...)
			continue
		}
		end := sf.pos + len(part)
		if end > len(sf.n.data) {
			sf.n.data = append(sf.n.data, make([]byte, end-len(sf.n.data))...)
		}
		copy(sf.n.data[sf.pos:], part)
		sf.n.flushed = min(sf.n.flushed, sf.pos)
		sf.pos = end
	}
	return len(b), nil
}

func (sf *simFile) Truncate(size int64) error {
	sf.f.mu.Lock()
	defer sf.f.mu.Unlock()
	if err := sf.f.step(); err != nil {
		return err
	}
	n := int(size)
	if n > len(sf.n.data) {
		sf.n.data = append(sf.n.data, make([]byte, n-len(sf.n.data))...)
	}
	sf.n.data = sf.n.data[:n]
	sf.n.flushed = min(sf.n.flushed, n)
	return nil
}

func (sf *simFile) Sync() error {
	sf.f.mu.Lock()
	defer sf.f.mu.Unlock()
	if err := sf.f.step(); err != nil {
		return err
	}
	sf.n.flushed = len(sf.n.data)
	return nil
}

func (sf *simFile) Close() error {
	sf.f.mu.Lock()
	defer sf.f.mu.Unlock()
	return sf.f.step()
}

func (f *simFS) Link(oldname, newname string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.step(); err != nil {
		return err
	}
	_, _, old, err := f.lookup(oldname)
	if err != nil || old == nil {
		return fmt.Errorf("link %s: %w", oldname, fs.ErrNotExist)
	}
	parent, base, n, err := f.lookup(newname)
	if err != nil || parent == nil {
		return fmt.Errorf("link %s: %w", newname, fs.ErrNotExist)
	}
	if n != nil {
		return fmt.Errorf("link %s: %w", newname, fs.ErrExist)
	}
	parent.entries[base] = old
	return nil
}

// simDir is a directory of the simulated file system held open: its
// steps are those of the file system on the paths in it.
type simDir struct {
	f    *simFS
	path string
}

func (f *simFS) OpenDir(name string) (dir.Dir, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.step(); err != nil {
		return nil, err
	}
	_, _, n, err := f.lookup(name)
	if err != nil || n == nil || !n.dir {
		return nil, fmt.Errorf("open %s: %w", name, fs.ErrNotExist)
	}
	return &simDir{f: f, path: name}, nil
}

func (d *simDir) CreateExcl(name string) (dir.File, error) {
	return d.f.CreateExcl(filepath.Join(d.path, name))
}

func (d *simDir) OpenWrite(name string) (dir.File, error) {
	return d.f.OpenWrite(filepath.Join(d.path, name))
}

// Rename is one step: the new entry and the loss of the old one are two
// changes of the directory, each lost in a crash until a SyncDir.
func (d *simDir) Rename(oldname, newname string) error {
	f := d.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.step(); err != nil {
		return err
	}
	parent, oldBase, old, err := f.lookup(filepath.Join(d.path, oldname))
	if err != nil || old == nil || parent == nil {
		return fmt.Errorf("rename %s: %w", oldname, fs.ErrNotExist)
	}
	_, newBase, n, _ := f.lookup(filepath.Join(d.path, newname))
	if n != nil {
		return fmt.Errorf("rename %s: %w", newname, fs.ErrExist)
	}
	parent.entries[newBase] = old
	delete(parent.entries, oldBase)
	return nil
}

func (d *simDir) Remove(name string) error { return d.f.Remove(filepath.Join(d.path, name)) }
func (d *simDir) Sync() error              { return d.f.SyncDir(d.path) }
func (d *simDir) Close() error             { return nil }

func (f *simFS) Remove(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.step(); err != nil {
		return err
	}
	parent, base, n, err := f.lookup(name)
	if err != nil || n == nil || parent == nil {
		return fmt.Errorf("remove %s: %w", name, fs.ErrNotExist)
	}
	if n.dir && len(n.entries) > 0 {
		return fmt.Errorf("remove %s: directory not empty", name)
	}
	delete(parent.entries, base)
	return nil
}

func (f *simFS) ReadFile(name string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.step(); err != nil {
		return nil, err
	}
	_, _, n, err := f.lookup(name)
	if err != nil || n == nil || n.dir {
		return nil, fmt.Errorf("read %s: %w", name, fs.ErrNotExist)
	}
	return append([]byte(nil), n.data...), nil
}

func (f *simFS) ReadDir(name string) ([]dir.Entry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.step(); err != nil {
		return nil, err
	}
	_, _, n, err := f.lookup(name)
	if err != nil || n == nil || !n.dir {
		return nil, fmt.Errorf("readdir %s: %w", name, fs.ErrNotExist)
	}
	var out []dir.Entry
	for k, v := range n.entries {
		out = append(out, dir.Entry{Name: k, Dir: v.dir})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (f *simFS) Exists(name string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.step(); err != nil {
		return false, err
	}
	_, _, n, err := f.lookup(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return n != nil, err
}

func (f *simFS) SyncDir(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.step(); err != nil {
		return err
	}
	_, _, n, err := f.lookup(name)
	if err != nil || n == nil || !n.dir {
		return fmt.Errorf("sync %s: %w", name, fs.ErrNotExist)
	}
	n.durable = map[string]*node{}
	for k, v := range n.entries {
		n.durable[k] = v
	}
	return nil
}

// loss says what a crash loses.
type loss int

const (
	loseRandom loss = iota // each unflushed change and byte by chance
	loseAll                // every unflushed change and byte
	loseNone               // nothing that was done
)

// crash gives the file system after a power loss: a new one that never
// fails, holding what survived.
func (f *simFS) crash(rng *rand.Rand, how loss) *simFS {
	f.mu.Lock()
	defer f.mu.Unlock()
	done := map[*node]*node{}
	var survive func(n *node) *node
	survive = func(n *node) *node {
		if m, ok := done[n]; ok {
			return m
		}
		if !n.dir {
			keep := n.flushed
			switch extra := len(n.data) - n.flushed; how {
			case loseNone:
				keep = len(n.data)
			case loseRandom:
				keep += rng.IntN(extra + 1)
			}
			m := &node{data: append([]byte(nil), n.data[:keep]...), flushed: keep}
			done[n] = m
			return m
		}
		m := newDir()
		done[n] = m
		names := map[string]bool{}
		for k := range n.entries {
			names[k] = true
		}
		for k := range n.durable {
			names[k] = true
		}
		sorted := make([]string, 0, len(names))
		for k := range names {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			now, was := n.entries[k], n.durable[k]
			pick := now
			if now != was {
				switch how {
				case loseAll:
					pick = was
				case loseRandom:
					if rng.IntN(2) == 0 {
						pick = was
					}
				}
			}
			if pick != nil {
				c := survive(pick)
				m.entries[k] = c
				m.durable[k] = c
			}
		}
		return m
	}
	return &simFS{root: survive(f.root), limit: -1}
}
