package dir

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

const (
	tmpPrefix = ".tmp-"
	// tmpAge is the age of a leftover temporary file that an Open removes.
	tmpAge = 10 * time.Minute
)

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

// tempName gives a new temporary file name of this Store, with the
// time now (an Open of another process removes the file when old).
func (s *Store) tempName() string {
	return fmt.Sprintf("%s%d-%s-%d", tmpPrefix, s.now().UnixNano(), s.tag, s.seq.Add(1))
}

// newTemp creates a new temporary file in d, and gives its name in d.
func (s *Store) newTemp(d Dir) (string, File, error) {
	tmp := s.tempName()
	f, err := d.CreateExcl(tmp)
	if err != nil {
		return "", nil, err
	}
	return tmp, f, nil
}
