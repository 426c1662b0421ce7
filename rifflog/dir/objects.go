package dir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/como-technologies/riff/rifflog"
)

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
	return s.GetAppend(ctx, name, nil)
}

// GetAppend appends the bytes of the object name to buf, as Get gives
// them ([rifflog.Appender]): a replay reads each chunk into the buffer of
// a chunk before it. On an error buf is given back as it came.
func (s *Store) GetAppend(ctx context.Context, name string, buf []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return buf, fmt.Errorf("get %s: %w", name, err)
	}
	file, err := s.file(name)
	if err != nil {
		return buf, fmt.Errorf("get: %w", err)
	}
	var out []byte
	if fa, ok := s.fs.(FileAppender); ok {
		out, err = fa.AppendFile(file, buf)
	} else if out, err = s.fs.ReadFile(file); err == nil && len(buf) > 0 {
		out = append(buf, out...)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return buf, fmt.Errorf("get %s: %w", name, rifflog.ErrNotExist)
	}
	if err != nil {
		return buf, fmt.Errorf("get %s: %w", name, err)
	}
	return out, nil
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

// Delete removes the object name and flushes its directory; in a
// directory that the Store writes in, it recycles the file (DeleteAll).
func (s *Store) Delete(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	return s.DeleteAll(ctx, []string{name})
}

var _ rifflog.BatchDeleter = (*Store)(nil)

// DeleteAll removes the objects names in their order, then flushes each
// directory that it removed from, once. When a removal fails it still
// flushes what it removed before.
//
// In a directory that the Store writes in, it recycles the files in
// place of a remove (up to maxRecycled waiting): each gets a new
// temporary name, and once the flush of the directory has made the
// renames durable, a next publish there writes over the file (see
// newFile). So a log that a prune keeps short costs no new inode a
// chunk: on ext4 with no journal, each create scans past every inode
// freed in the last 30 to 60 s (find_inode_bit, recently_deleted),
// about a sixth of the CPU of the server under a steady load. Before
// the flush, the renamed files are no one's: a crash then leaves each
// name of an object or a leftover temporary file, as a crash inside a
// remove does, and no publish has written over a file whose old name
// can come back.
func (s *Store) DeleteAll(ctx context.Context, names []string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	var dirs []string
	recycled := map[string][]recycledFile{}
	room := map[string]int{}
	var failed error
	for _, name := range names {
		file, err := s.file(name)
		if err != nil {
			failed = fmt.Errorf("delete: %w", err)
			break
		}
		dir, base := filepath.Dir(file), filepath.Base(file)
		if !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
			room[dir] = s.recycleRoom(dir)
		}
		if d, ok := s.heldDir(dir); ok && room[dir] > 0 {
			tmp := s.tempName()
			err := d.Rename(base, tmp)
			if err == nil {
				room[dir]--
				recycled[dir] = append(recycled[dir], recycledFile{name: tmp, born: s.now()})
				continue
			}
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			failed = fmt.Errorf("delete %s: %w", name, err)
			break
		}
		if err := s.remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
			failed = fmt.Errorf("delete %s: %w", name, err)
			break
		}
	}
	for _, d := range dirs {
		if err := s.syncDir(d); err != nil {
			// The files renamed in d stay leftovers: an Open removes them.
			return errors.Join(failed, fmt.Errorf("delete: flush %s: %w", d, err))
		}
		if len(recycled[d]) > 0 {
			s.mu.Lock()
			s.recycled[d] = append(s.recycled[d], recycled[d]...)
			s.mu.Unlock()
		}
	}
	return failed
}

// recycleRoom removes the recycled files of dir older than spareAge,
// and gives how many more may wait there.
func (s *Store) recycleRoom(dir string) int {
	if d, ok := s.heldDir(dir); ok {
		s.removeExpired(dir, d)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return maxRecycled - len(s.recycled[dir])
}

// remove removes the file of an object, through its directory when the
// Store holds it open.
func (s *Store) remove(file string) error {
	if d, ok := s.heldDir(filepath.Dir(file)); ok {
		return d.Remove(filepath.Base(file))
	}
	return s.fs.Remove(file)
}

// syncDir flushes a directory, through its descriptor when the Store
// holds it open.
func (s *Store) syncDir(dir string) error {
	if d, ok := s.heldDir(dir); ok {
		return d.Sync()
	}
	return s.fs.SyncDir(dir)
}
