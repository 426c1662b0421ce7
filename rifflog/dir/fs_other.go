//go:build !linux

package dir

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// AppendFile reads the file name to its end into buf.
func (OS) AppendFile(name string, buf []byte) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	if cap(buf)-len(buf) < readSlack {
		if info, err := f.Stat(); err == nil {
			buf = slices.Grow(buf, int(max(info.Size(), 0))+readSlack)
		}
	}
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, readSlack)
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// OpenDir opens dir and gives the Dir that writes in it by paths, with
// the directory held open for its flushes.
func (OS) OpenDir(dir string) (Dir, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	return &pathDir{f: f, path: dir}, nil
}

// pathDir is a directory of the host: its steps go by paths.
type pathDir struct {
	f    *os.File
	path string
}

// CreateExcl creates name with O_EXCL and mode 0o600, whatever the umask.
func (d *pathDir) CreateExcl(name string) (File, error) {
	p := filepath.Join(d.path, name)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(fileMode); err != nil {
		return nil, errors.Join(fmt.Errorf("make a file of the store private (mode 0600): %w", err), f.Close(), os.Remove(p))
	}
	return f, nil
}

// OpenWrite opens name for writing from its start, with no create.
func (d *pathDir) OpenWrite(name string) (File, error) {
	return os.OpenFile(filepath.Join(d.path, name), os.O_WRONLY, 0)
}

// Rename links oldname as newname (link(2) never replaces a name), then
// removes oldname.
func (d *pathDir) Rename(oldname, newname string) error {
	if err := os.Link(filepath.Join(d.path, oldname), filepath.Join(d.path, newname)); err != nil {
		return err
	}
	return d.Remove(oldname)
}

func (d *pathDir) Remove(name string) error { return os.Remove(filepath.Join(d.path, name)) }

func (d *pathDir) Sync() error {
	err := d.f.Sync()
	// Some file systems do not sync a directory; that is not a failure of ours.
	if errors.Is(err, syscall.EINVAL) {
		return nil
	}
	return err
}

func (d *pathDir) Close() error { return d.f.Close() }
